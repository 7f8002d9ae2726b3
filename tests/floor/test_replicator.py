"""The replicator: a real table journal shipped to the floor exactly once, through a PostgreSQL outage."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from controller.journal.sqlite import SqliteJournal
from floor import FloorIntegrityError, FloorStore, FloorUnavailable, open_store
from floor.replicator import Replicator, Shipped

AT = "2026-11-24T05:00:00+00:00"


def _journal(tmp_path: Path) -> SqliteJournal:
    return SqliteJournal(path=tmp_path / "journal.sqlite3", durable=False)


def _same(store: FloorStore, journal: SqliteJournal) -> None:
    local = [(e.seq, e.kind, dict(e.data), e.actor, e.at, e.hash) for e in journal.entries()]
    floor = [(e.seq, e.kind, dict(e.data), e.actor, e.at, e.hash) for e in store.journal(journal.table_id)]
    assert floor == local


def test_ships_each_entry_once_in_batches_and_resumes_from_the_floor(floor_url: str, tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    with open_store(floor_url) as store:
        store.add_table(table_id=journal.table_id, pit="A", game="oasis")
        replicator = Replicator(journal=journal, store=store, batch=7)
        for n in range(30):
            journal.append("card", {"n": n}, actor="shoe:shoe", at=AT)
        assert replicator.ship().added == 30
        assert replicator.ship().added == 0  # nothing twice
        for n in range(30, 45):
            journal.append("card", {"n": n}, actor="shoe:shoe", at=AT)
        # A second replicator (the table restarted) resumes from the floor's highest seq, not from zero.
        assert Replicator(journal=journal, store=store).ship() == Shipped(added=15, floor_seq=45)
        _same(store, journal)
    journal.close()


def test_refuses_to_resume_on_a_floor_copy_that_went_another_way(floor_url: str, tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "other").mkdir()
    journal = _journal(tmp_path / "mine")
    other = _journal(tmp_path / "other")
    for n in range(3):
        journal.append("card", {"n": n}, actor="shoe:shoe", at=AT)
        other.append("card", {"n": n + 100}, actor="shoe:shoe", at=AT)
    with open_store(floor_url) as store:
        store.add_table(table_id=journal.table_id, pit="A", game="oasis")
        # Another journal's first two entries stored under this table's id (a restored or swapped journal).
        store.replicate(table_id=journal.table_id, entries=list(other.entries())[:2])
        with pytest.raises(FloorIntegrityError, match="entry 2 on the floor is not this journal's entry 2"):
            Replicator(journal=journal, store=store).ship()
        assert store.last_seq(journal.table_id) == 2  # nothing shipped on top of it
        with pytest.raises(FloorIntegrityError, match="entry 1 on the floor differs"):
            store.replicate(table_id=journal.table_id, entries=list(journal.entries()))
    journal.close()
    other.close()


def test_postgres_stopped_mid_replication_loses_and_duplicates_nothing(pg_cluster: Any, tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    url = pg_cluster.create_database()
    with open_store(url, timeout=1) as store:
        store.add_table(table_id=journal.table_id, pit="A", game="oasis")
        replicator = Replicator(journal=journal, store=store, batch=25)
        stop = threading.Event()
        shipping = threading.Thread(target=replicator.run, args=(stop,), kwargs={"interval": 0.01})
        shipping.start()
        try:
            for n in range(1500):
                journal.append("card", {"n": n}, actor="shoe:shoe", at=AT)
                if n == 500:
                    while store.last_seq(journal.table_id) < 300:  # well under way before the cut
                        time.sleep(0.01)
                    pg_cluster.stop()
                if n == 900:
                    deadline = time.monotonic() + 60
                    while replicator.link_up:  # the replicator noticed: the link is down
                        assert time.monotonic() < deadline, "the replicator never saw the floor go"
                        time.sleep(0.01)
                    pg_cluster.start()
                time.sleep(0.001)
            deadline = time.monotonic() + 60
            while True:
                try:
                    if store.last_seq(journal.table_id) == 1500:
                        break
                except FloorUnavailable:
                    pass
                assert time.monotonic() < deadline, "replication never caught up"
                time.sleep(0.05)
        finally:
            stop.set()
            shipping.join()
        assert replicator.unavailable > 0 and replicator.link_up
        _same(store, journal)  # every entry once, in order, unchanged
    journal.close()


def test_a_table_joining_late_ships_its_archived_months_then_the_live_file(floor_url: str, tmp_path: Path) -> None:
    from controller.journal.archive import Segments, segment_paths
    from tests.controller.journal.kit import Clock, open_table, play

    folder = tmp_path / "table"
    table = open_table(folder / "journal.sqlite3", clock=Clock(step=3600.0))  # about a day per round
    play(table, 100)
    assert len(segment_paths(folder / "journal.sqlite3")) >= 2  # archived months and the live file
    journal = table.journal_store
    assert journal.base_seq > 0
    with open_store(floor_url) as store:
        store.add_table(table_id=journal.table_id, pit="A", game="oasis")
        shipped = Replicator(journal=journal, store=store, batch=64).ship()
        everything = Segments(journal=folder / "journal.sqlite3")
        try:
            assert [e.hash for e in store.journal(journal.table_id)] == [e.hash for e in everything.entries()]
        finally:
            everything.close()
        assert shipped.floor_seq == journal.last_seq
        assert Replicator(journal=journal, store=store).ship().added == 0
    journal.close()
