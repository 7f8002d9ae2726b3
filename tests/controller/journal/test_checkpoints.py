"""Restart from the newest checkpoint: the same table as a replay from the first entry, at a cost
bounded by the rounds since that checkpoint, not by the table's age."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.engine import BoxBet
from controller.journal import Checkpoint, SqliteJournal
from controller.journal.archive import Segments
from controller.table import CHECKPOINT_EVERY, Actor, TableService

from .kit import Clock, Shoe, open_table, play

DEALER = Actor("d", "dealer")


def state(table: TableService) -> dict[str, Any]:
    return {
        "round": table.round_no,
        "version": table.version,
        "expected": table.expected(),
        "recall": [item.to_json() for item in table.recall],
        "checkpoint": table.checkpoint_state(),
        "events": None if table.round is None else [repr(e) for e in table.round.events],
        "finished_recently": table.rounds_since(table.now().replace(year=2000)),
        "jackpot": table.jackpot_account(),
    }


class FromScratch(SqliteJournal):
    """The same journal, read as if it had no checkpoint."""

    def latest_checkpoint(self) -> Checkpoint | None:
        return None


def test_a_restart_from_the_checkpoint_is_the_table_a_full_replay_gives(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    clock = Clock()
    table = open_table(path, clock=clock)
    play(table, 2 * CHECKPOINT_EVERY + 7)
    # Stop in the middle of a round, with cards out.
    table.open_round([BoxBet(box=2, ante=20), BoxBet(box=5, ante=10, bonus=5)], actor=DEALER)
    shoe = Shoe(table, seed=9)
    for _ in range(4):
        shoe.draw()
    live = state(table)
    table._store.close()

    replayed: list[int] = []
    again = TableService(
        store=SqliteJournal(path=path), clock=clock, replay_observer=lambda t, e: replayed.append(e.seq)
    )
    assert state(again) == live
    checkpoint = again._store.latest_checkpoint()
    assert checkpoint is not None and checkpoint.state["round"] == 2 * CHECKPOINT_EVERY
    # Only the entries after the checkpoint were read again.
    assert replayed and replayed[0] == checkpoint.seq + 1
    again._store.close()

    scratch = TableService(store=FromScratch(path=path), clock=clock)
    assert state(scratch) == live
    scratch._store.close()


def test_history_and_recall_come_from_the_round_index(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    table = open_table(path)
    play(table, 40)
    recall = [item.to_json() for item in table.recall]
    table._store.close()
    store = Segments(journal=path)
    try:
        assert [dict(r.line) for r in store.finished(last=10)] == recall
        assert [r.round for r in store.finished()] == list(range(1, 41))
    finally:
        store.close()


def test_a_round_index_row_lost_in_a_crash_is_written_again_at_the_next_start(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    table = open_table(path)
    play(table, 30)
    expected = [item.to_json() for item in table.recall]
    table._store.close()
    # As if the process died between a round's last entry and its index row.
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM round_index WHERE round = 30")
    again = open_table(path)
    assert [item.to_json() for item in again.recall] == expected
    assert [r.round for r in again._store.finished(last=1)] == [30]
    again._store.close()
