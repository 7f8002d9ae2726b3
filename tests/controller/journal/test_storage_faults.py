"""A full disk stops play with a tilt the displays show; nothing is acknowledged that was not stored
(the shoe's draws included: the driver acknowledges a draw only once the journal has it, so the shoe
sends it again); play resumes when storage is back and a supervisor clears the tilt."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.config import build_config
from controller.engine import BoxBet
from controller.journal import Entry, SqliteJournal
from controller.live import LiveConfig, LiveTable
from controller.table import STORAGE_TILT, Actor, TableError, TableService
from controller.telemetry import observe_appends
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess
from tests.waiting import wait_for

from .kit import Shoe, open_table, play

DEALER = Actor("dana", "dealer")
SUPER = Actor("sam", "supervisor")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs: a journal fills it in a few dozen rounds."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(disk)], capture_output=True, text=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill (needs root): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def grow(disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)


def acknowledged(store: SqliteJournal) -> list[Entry]:
    """Every entry the store reports written, as a command's caller would be told."""
    written: list[Entry] = []
    observe_appends(store, lambda entry, _seconds: written.append(entry))
    return written


def fill(table: TableService, player: AutoPlayer, *, steps: int = 50_000) -> None:
    """Play until the journal cannot be written."""
    for _ in range(steps):
        if STORAGE_TILT in table.tilts:
            return
        player.step()
    raise AssertionError("the disk never filled")


def test_a_full_disk_stops_play_with_a_tilt_and_loses_nothing(small_disk: Path) -> None:
    path = small_disk / "journal.sqlite3"
    table = open_table(path)
    written = acknowledged(table._store)  # type: ignore[arg-type]
    fill(table, AutoPlayer(table=table, draw=Shoe(table, seed=2).draw, config=AutoplayConfig(pace=0, seed=2)))
    fault = table.tilts[STORAGE_TILT]
    assert fault.kind == "journal-unavailable" and "disk full" in fault.message
    shown = table.view()["tilts"]
    assert shown[0]["kind"] == "journal-unavailable" and "disk full" in shown[0]["message"]
    # Play is stopped; nothing more is taken.
    with pytest.raises(TableError, match="play is stopped"):
        table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    # Clearing while the disk is still full says so and changes nothing.
    with pytest.raises(TableError, match="disk full"):
        table.clear_tilt(STORAGE_TILT, resolution="continue", actor=SUPER, why="freed space")
    assert STORAGE_TILT in table.tilts

    grow(small_disk)
    table.clear_tilt(STORAGE_TILT, resolution="continue", actor=SUPER, why="old logs removed")
    assert not table.tilts
    play(table, 3)
    live = (table.round_no, [r.to_json() for r in table.recall], table.checkpoint_state())
    table._store.close()

    again = TableService(store=SqliteJournal(path=path))
    assert (again.round_no, [r.to_json() for r in again.recall], again.checkpoint_state()) == live
    stored = {e.seq: e for e in again._store.entries()}
    assert all(stored[e.seq] == e for e in written), "an acknowledged entry is missing or changed"
    raised = [e for e in stored.values() if e.kind == "tilt-raised" and e.data["kind"] == "journal-unavailable"]
    assert len(raised) == 1 and raised[0].data["since"] == fault.raised_at
    again._store.close()


def test_draws_during_a_full_disk_are_not_acknowledged_and_arrive_once_storage_is_back(small_disk: Path) -> None:
    sim = SimulatedShoeProcess(config=SimConfig(seed=7, shoe_id="DISK-1"))
    sim.start()
    live = LiveTable(config=LiveConfig(data=small_disk, shoe=sim.device_path, table=build_config({"game": "oasis"})))
    try:
        live.start()
        wait_for(live.link_up.is_set, "the shoe link")
        table = live.table
        player = AutoPlayer(
            table=table,
            draw=lambda: sim.draw() and None,
            new_round=lambda: sim.command("shuffle") and None,
            config=AutoplayConfig(pace=0, seed=3),
        )
        player.start()
        try:
            wait_for(lambda: STORAGE_TILT in table.tilts, "the disk to fill", timeout=240)
        finally:
            player.stop()
        last_stored = table.last_counter or 0
        # The dealer goes on drawing: the shoe counts the cards, the table cannot store them.
        for _ in range(3):
            sim.draw()
        assert table.last_counter == last_stored  # none of them was taken (nor acknowledged)

        grow(small_disk)
        table.clear_tilt(STORAGE_TILT, resolution="void", actor=SUPER, why="disk replaced")
        # The shoe sends again what the table never acknowledged: each arrives exactly once.
        wait_for(lambda: (table.last_counter or 0) >= last_stored + 3, "the unacknowledged draws to arrive")
        counters = [
            e.data["counter"]
            for e in live.store.entries()
            if e.kind in ("card", "card-held", "tilt-raised") and e.data.get("counter") is not None
        ]
        assert counters == sorted(set(counters)), "a draw was recorded twice or out of order"
        assert set(range(last_stored + 1, last_stored + 4)) <= set(counters)
    finally:
        live.stop()
        sim.stop()


def test_the_autoplayer_backs_off_and_keeps_a_bounded_error_list(tmp_path: Path) -> None:
    table = open_table(tmp_path / "journal.sqlite3")

    def refused() -> None:
        raise TableError("the shoe is not ready")

    player = AutoPlayer(table=table, draw=lambda: None, new_round=refused, config=AutoplayConfig(pace=0, seed=1))
    for _ in range(500):
        player.step()
    assert len(player.errors) == 100 and player.errors[-1] == "the shoe is not ready"

    table.report("missing-card", actor=DEALER)  # a tilt nobody clears
    steps: list[str] = []
    original = player.step
    player.step = lambda: steps.append(original()) or steps[-1]  # type: ignore[method-assign]
    player.start()
    time.sleep(2.0)
    player.stop()
    assert steps and all(s == "waiting for a supervisor" for s in steps)
    # Waiting on a tilt, the simulated dealer looks again a few times a second at most, never in a spin.
    assert len(steps) < 30, len(steps)
