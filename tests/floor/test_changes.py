"""The floor's change signal: PostgreSQL LISTEN/NOTIFY and the SQLite poller wake on real changes only."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from floor import FloorConfigError, FloorRefused, FloorStore, open_store
from floor.changes import Changes, ChangeSource, PgListener, SqlitePoller, change_source


@pytest.fixture
def store(floor_url: str) -> Iterator[FloorStore]:
    with open_store(floor_url) as opened:
        opened.add_table(table_id="a1", pit="A", game="oasis")
        opened.add_table(table_id="b1", pit="B", game="oasis")
        opened.open_account(name="floor-wide", scope="floor", reset=1_000, increment=10, cap=9_000)
        yield opened


@pytest.fixture
def source(store: FloorStore, floor_url: str) -> Iterator[ChangeSource]:
    opened = change_source(store, floor_url, interval=0.05)
    assert isinstance(opened, PgListener if floor_url.startswith("postgresql://") else SqlitePoller)
    try:
        assert opened.wait(5.0) == Changes(everything=True)  # the start: read everything once
        yield opened
    finally:
        opened.close()


def _collect(source: ChangeSource, until: Changes) -> Changes:
    """Changes until at least ``until`` arrived (several waits: signals may come one by one)."""
    seen = Changes()
    for _ in range(50):
        seen = seen | source.wait(5.0)
        if until.tables <= seen.tables and (seen.jackpot or not until.jackpot):
            return seen
    raise AssertionError(f"never saw {until}, only {seen}")


def test_a_status_change_wakes_the_waiter_from_another_writer(store: FloorStore, source: ChangeSource) -> None:
    woke: list[Changes] = []
    waiting = threading.Thread(target=lambda: woke.append(source.wait(30.0)))
    waiting.start()  # blocked before the change is made: it must be woken, not find it by chance
    store.report_status(table_id="b1", phase="dealing", round_no=1, tilts=[], progressive="open")
    waiting.join(35.0)
    assert woke == [Changes(tables=frozenset({"b1"}))]


def test_heartbeats_and_refusals_signal_nothing_jackpot_changes_do(store: FloorStore, source: ChangeSource) -> None:
    store.report_status(table_id="a1", phase="idle", round_no=1, tilts=[], progressive="none")
    assert _collect(source, Changes(tables=frozenset({"a1"}))).tables == {"a1"}
    store.report_status(table_id="a1", phase="idle", round_no=1, tilts=[], progressive="none")  # a heartbeat
    with pytest.raises(FloorConfigError):
        store.report_status(table_id="a1", phase="idle", round_no=2, tilts=["no-such-tilt"], progressive="none")
    assert not source.wait(0.3)  # only the heartbeat happened: nothing to refresh
    store.hit(account="floor-wide", table_id="a1", seq=1)
    assert _collect(source, Changes(jackpot=True)).jackpot
    store.approve_hit(account="floor-wide", hit_no=1, by="sam", second_approval_above=0)
    assert _collect(source, Changes(jackpot=True)) == Changes(jackpot=True)
    with pytest.raises(FloorRefused):
        store.confirm_hit(account="floor-wide", hit_no=1, by="sam", second_approval_above=0)
    assert not source.wait(0.3)  # refused: rolled back, no signal
    store.confirm_hit(account="floor-wide", hit_no=1, by="tess", second_approval_above=0)
    assert _collect(source, Changes(jackpot=True)) == Changes(jackpot=True)
    store.add_table(table_id="c1", pit="C", game="oasis")
    assert _collect(source, Changes(tables=frozenset({"c1"}))).tables == {"c1"}


def test_the_listener_reports_everything_after_losing_the_database(pg_cluster: object) -> None:
    url = pg_cluster.create_database()  # type: ignore[attr-defined]
    with open_store(url) as store:
        store.add_table(table_id="a1", pit="A", game="oasis")
        listener = PgListener(url)
        try:
            assert listener.wait(5.0).everything
            pg_cluster.stop()  # type: ignore[attr-defined]
            try:
                with pytest.raises(Exception, match="floor unavailable: "):
                    for _ in range(20):
                        listener.wait(0.5)
            finally:
                pg_cluster.start()  # type: ignore[attr-defined]
            assert listener.wait(5.0) == Changes(everything=True)  # reconnected: what it missed is unknown
        finally:
            listener.close()
