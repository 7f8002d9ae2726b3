"""The SQLite journal: durable appends, replay order, and the jackpot account's transactions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.journal import JackpotChange, JackpotConfirm, JournalError, SqliteJournal


def test_entries_come_back_in_order_with_their_actor_and_time(tmp_path: Path) -> None:
    store = SqliteJournal(path=tmp_path / "j.sqlite3")
    for i in range(5):
        store.append("card", {"n": i}, actor="shoe:shoe", at=f"t{i}")
    store.close()
    again = SqliteJournal(path=tmp_path / "j.sqlite3")
    entries = list(again.entries())
    assert [(e.seq, e.data["n"], e.at) for e in entries] == [(i + 1, i, f"t{i}") for i in range(5)]
    assert [e.seq for e in again.entries(after=3)] == [4, 5]
    mode = sqlite3.connect(tmp_path / "j.sqlite3").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_jackpot_changes_are_relative_so_tables_can_share_the_account(tmp_path: Path) -> None:
    store = SqliteJournal(path=tmp_path / "j.sqlite3")
    store.open_jackpot(name="floor", meter=10_000)
    store.append("round-settled", {}, actor="dealer:a", at="t", jackpot=JackpotChange(contribution=3, reset=5000))
    # Another table's contribution lands in between; the hit is taken off the meter as it stands.
    store.append("round-settled", {}, actor="dealer:b", at="t", jackpot=JackpotChange(contribution=2, reset=5000))
    hit = JackpotChange(contribution=1, reset=5000, hits=((4, "royal-flush", 10_005),))
    store.append("round-settled", {}, actor="dealer:a", at="t", jackpot=hit, round_no=7)
    account = store.jackpot()
    assert account is not None
    assert (account.meter, account.contributions, account.won) == (5001, 6, 10_005)
    assert [(h.round, h.box, h.hand, h.amount, h.confirmed_by) for h in account.hits] == [
        (7, 4, "royal-flush", 10_005, None)
    ]


def test_confirming_a_hit_is_atomic_with_its_entry_and_only_once(tmp_path: Path) -> None:
    store = SqliteJournal(path=tmp_path / "j.sqlite3")
    store.open_jackpot(name="t", meter=100)
    store.append("round-settled", {}, actor="d:x", at="t", jackpot=JackpotChange(0, 50, ((1, "royal-flush", 100),)))
    (hit,) = store.jackpot().pending  # type: ignore[union-attr]
    store.append("jackpot-confirmed", {"hit": hit.hit}, actor="supervisor:s", at="t2", jackpot=JackpotConfirm(hit.hit))
    before = len(list(store.entries()))
    with pytest.raises(JournalError, match="confirmed already"):
        store.append(
            "jackpot-confirmed", {"hit": hit.hit}, actor="supervisor:s", at="t3", jackpot=JackpotConfirm(hit.hit)
        )
    # The refused confirmation wrote no entry either.
    assert len(list(store.entries())) == before
    assert store.jackpot().hits[0].confirmed_by == "supervisor:s"  # type: ignore[union-attr]


def test_an_unwritable_journal_is_a_named_error(tmp_path: Path) -> None:
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(JournalError, match="cannot open the journal"):
        SqliteJournal(path=tmp_path / "dir.sqlite3")
