"""The table's state is a pure fold over its journal: entries alone rebuild it, with no store, clock or lock."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from controller.engine import BoxBet
from controller.errors import ControllerError
from controller.table import Actor, TableService, TableState
from tests.controller.journal.kit import Shoe, open_table, play

DEALER = Actor("d", "dealer")
SUPERVISOR = Actor("s", "supervisor")


def fold(table: TableService) -> TableState:
    state = TableState(recall=table.recall.maxlen)
    for entry in table.journal_store.entries():
        state.apply(entry)
    return state


def test_folding_the_journal_gives_the_live_tables_state(tmp_path: Path) -> None:
    table = open_table(tmp_path / "journal.sqlite3")
    play(table, 6)
    # A redeal (a tilt, a void, a shuffle due, a new round with the same bets), then a round stopped
    # with cards out and a payment dispute settled: the parts of the state a replay must get right.
    table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=25, bonus=5)], actor=DEALER)
    shoe = Shoe(table, seed=4)
    shoe.draw()
    table.report("dealer-card-exposed", actor=DEALER, detail="dealer's first card")
    tilt = next(iter(table.tilts))
    table.clear_tilt(tilt, resolution="redeal", actor=SUPERVISOR, why="card flipped")
    table.deck_shuffled(actor=DEALER)
    for _ in range(3):
        shoe.draw()

    state = fold(table)

    assert state.checkpoint_state() == table.checkpoint_state()
    assert (state.version, state.round_no, state.shuffle_due) == (table.version, table.round_no, table.shuffle_due)
    assert state.round is not None and table.round is not None
    assert [repr(e) for e in state.round.events] == [repr(e) for e in table.round.events]
    assert [r.to_json() for r in state.recall] == [r.to_json() for r in table.recall]
    assert any(r.record.void for r in state.recall)  # the redealt round is in the recall, void
    table.journal_store.close()


def test_an_entry_of_an_unknown_kind_is_refused_by_name(tmp_path: Path) -> None:
    table = open_table(tmp_path / "journal.sqlite3")
    first = next(table.journal_store.entries())
    state = TableState()
    state.apply(first)
    with pytest.raises(ControllerError, match="unknown kind 'mystery'"):
        state.apply(replace(first, seq=first.seq + 1, kind="mystery"))
    table.journal_store.close()
