"""Crash test: `dealer-assist run` killed with SIGKILL at random moments across many rounds.

The harness is the dealer (JSON-line commands on the service's stdin, using only what the public
state shows) and the shoe operator (the simulated shoe survives the kills, like real hardware).
Now and then the dealer reports an irregularity (an exposed dealer card, a card in the wrong box, a
missing card) and a supervisor clears it with any resolution it offers (redeal, cancel, void,
continue...); a round that ends so needs a new deck, which the shoe operator loads. After every
restart the journal must hold every acknowledged entry, no round may be paid twice, every card the
shoe drew must be recorded exactly once in draw order, and every recorded round must settle again to
what was paid.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal
from controller.record import loads, parse_record, settle_record
from controller.table import TableService
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess

pytestmark = pytest.mark.hil

CONFIG = """
game = "casino-holdem"
name = "Crash table"
[jackpot]
enabled = true
requires_bonus = true
hit_hands = { "four-of-a-kind" = 10, "royal-flush" = 100 }
"""


class Service:
    """One run of `dealer-assist run --control stdio`."""

    def __init__(self, *, config: Path, data: Path, shoe: str, extra: Sequence[str] = ()) -> None:
        """``extra``: more ``run`` options (``--floor URL --pit P``)."""
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "controller.cli", "run", "--config", str(config), "--shoe", shoe),
                *("--data", str(data), "--control", "stdio", "--no-web", *extra),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        ready = self._read()
        assert ready is not None and ready.get("ready"), ready

    def _read(self) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def ask(self, command: dict[str, Any]) -> dict[str, Any] | None:
        """Send a command; None when the service died before answering."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(command) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        return self._read()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()


def play(service: Service, sim: SimulatedShoeProcess, rng: random.Random, acks: list[dict[str, Any]]) -> bool:
    """One step as a dealer would take it; False when the service is gone."""
    # The shoe's counter first: if every card drawn so far is recorded, none is in flight and the
    # state read after it is current.
    shoe = service.ask({"cmd": "shoe"})
    state_answer = service.ask({"cmd": "state"})
    if state_answer is None or shoe is None:
        return False
    state = state_answer["state"]
    command: dict[str, Any]
    if state["tilts"]:
        # The supervisor clears the first tilt with any resolution it offers (a card to enter is
        # the supervisor reading the table: not part of this dealer's game).
        tilt = state["tilts"][0]
        choices = [r for r in tilt["resolutions"] if r != "enter-card"]
        command = {"cmd": "clear", "tilt": tilt["id"], "resolution": rng.choice(choices), "why": "crash test"}
        return _send(service, command, acks)
    if state["shuffle_due"]:
        if rng.random() < 0.2:
            sim.command("shuffle")  # the shoe's new-deck signal clears it
        else:
            time.sleep(0.01)
        return True
    if state["phase"] in ("dealing", "deciding") and rng.random() < 0.04:
        kind = rng.choice(["dealer-card-exposed", "wrong-box", "missing-card"])
        return _send(service, {"cmd": "report", "kind": kind}, acks)
    if state["phase"] == "dealing":
        # Draw only when the table has recorded every card drawn so far: a card still in flight
        # when the service died is replayed by the shoe, not drawn again.
        if (shoe["last_counter"] or 0) == sim_counter(sim):
            sim.draw()
        else:
            time.sleep(0.01)
        return True
    if state["phase"] == "idle":
        bets = [{"box": b, "ante": rng.choice([10, 20, 50]), "bonus": rng.choice([0, 5])} for b in (1, 3, 6)]
        command = {"cmd": "open", "bets": bets}
        sim.command("shuffle")
    elif state["phase"] == "deciding":
        decide = state["decide"]
        command = {"cmd": "act", "box": decide["box"], "action": rng.choice(decide["options"])}
    else:
        command = {"cmd": "confirm"}
    return _send(service, command, acks)


def _send(service: Service, command: dict[str, Any], acks: list[dict[str, Any]]) -> bool:
    answer = service.ask(command)
    if answer is None:
        return False
    if answer.get("ok"):
        acks.append({"seq": answer["seq"], "kind": answer["kind"]})
    return True


def sim_counter(sim: SimulatedShoeProcess) -> int:
    reply = sim.command("status")
    return int(reply.split("counter=")[1].split()[0])


def test_sigkill_at_random_moments_loses_nothing_acknowledged_and_pays_no_round_twice(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG)
    data = tmp_path / "data"
    rng = random.Random(20261122)
    acks: list[dict[str, Any]] = []
    drawn: list[tuple[int, str]] = []
    sim = SimulatedShoeProcess(config=SimConfig(seed=9, shoe_id="CRASH-1"))
    sim.start()
    original_draw = sim.draw

    def draw(code: str | None = None) -> tuple[int, str]:
        counter, card = original_draw(code)
        drawn.append((counter, card))
        return counter, card

    sim.draw = draw  # type: ignore[method-assign]
    kills = 0
    try:
        while kills < 12:
            service = Service(config=config, data=data, shoe=sim.device_path)
            timer = threading.Timer(rng.uniform(0.5, 3.0), service.kill)
            timer.start()
            while play(service, sim, rng, acks):
                pass
            timer.cancel()
            service.kill()
            kills += 1
        # A last clean run to finish what is open.
        service = Service(config=config, data=data, shoe=sim.device_path)
        for _ in range(400):
            if not play(service, sim, rng, acks):
                break
            state = service.ask({"cmd": "state"})
            if state and state["state"]["phase"] == "idle":
                break
        # The run can end (its step budget spent) just after a draw: that card reaches the table
        # before the test's own last kill, which no restart follows to replay it.
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            shoe = service.ask({"cmd": "shoe"})
            if shoe is not None and (shoe["last_counter"] or 0) == sim_counter(sim):
                break
            time.sleep(0.01)
        service.kill()
    finally:
        sim.stop()

    store = SqliteJournal(path=data / "journal.sqlite3")
    entries = {e.seq: e for e in store.entries()}
    # 1. Nothing acknowledged was lost.
    for ack in acks:
        assert ack["seq"] in entries and entries[ack["seq"]].kind == ack["kind"], ack
    # 2. No round paid twice; rounds numbered consecutively (a redealt round's bets open the next).
    settled = Counter(e.data["round"] for e in entries.values() if e.kind == "round-settled")
    assert settled and max(settled.values()) == 1, Counter(a["kind"] for a in acks)
    cleared = Counter(e.data["resolution"] for e in entries.values() if e.kind == "tilt-cleared")
    redeals = [e.seq for e in entries.values() if e.kind == "tilt-cleared" and e.data["resolution"] == "redeal"]
    opened = [e.data["round"] for e in entries.values() if e.kind == "round-opened"]
    assert opened == sorted(set(opened))
    # 3. Every card the shoe drew is recorded once, in draw order: dealt, or held by a tilt (a card in
    # flight when the dealer reported an irregularity) and then dealt, burnt or voided with its round.
    recorded = []
    for e in entries.values():
        if e.kind in ("card", "card-held"):
            recorded.append((e.data["counter"], e.data["card"]))
        elif e.kind == "tilt-raised" and e.data.get("counter") is not None:
            recorded.extend((e.data["counter"], code) for code in e.data["held"])
    assert recorded == drawn
    # 4. Every finished round replays to the settlement that was paid.
    table = TableService(store=store, recall=None)
    print(
        f"crash test: {len(acks)} acknowledged entries, {len(table.recall)} finished rounds, {len(drawn)} cards, "
        f"resolutions {dict(cleared)}"
    )
    assert len(table.recall) >= 5
    finished = [item.round for item in table.recall]
    assert finished == list(range(1, len(finished) + 1))
    assert len(opened) + len(redeals) >= len(finished)
    assert cleared, "the dealer reported nothing: the irregularities were not exercised"
    for item in table.recall:
        record = parse_record(loads(json.dumps(item.to_json())))
        assert settle_record(record).to_json() == item.settlement.to_json()
    store.close()
    assert kills == 12
