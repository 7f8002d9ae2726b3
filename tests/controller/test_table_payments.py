"""Payments (seed 002: "if the dealer incorrectly paid the box, he corrects the mistake, in case of short
payment"): the confirmation records what a box was paid when it was not what the settlement showed, a
supervisor's later correction is journaled with the round, and both survive a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine import Action, BoxBet
from controller.journal import SqliteJournal
from controller.table import PermissionDenied, TableError, TableService
from tests.controller.test_table import DEALER, OASIS_CARDS, SUPER, Clock, deal, table


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def showdown(t: TableService) -> dict[int, int]:
    """An Oasis round to its showdown; returns what the dealer is to pay each box (negative: collects)."""
    t.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(t, OASIS_CARDS)
    t.act(Action(1, "raise"), actor=DEALER)
    t.act(Action(2, "raise"), actor=DEALER)
    settlement = t.settlement
    assert settlement is not None
    return {b.box: b.dealer_pays for b in settlement.boxes}


def paying_showdown(t: TableService) -> tuple[int, int]:
    """An Oasis round to its showdown; returns a box the dealer pays and what it is due."""
    dues = showdown(t)
    box = paid_box(dues)
    return box, dues[box]


def reopen(t: TableService, data: Path) -> TableService:
    before = (t.view(), t.payments)
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert (again.view(), again.payments) == before
    return again


def paid_box(dues: dict[int, int]) -> int:
    box = next((b for b, due in dues.items() if due > 0), None)
    assert box is not None, f"the stacked round pays no box: {dues}"
    return box


def test_a_short_payment_is_recorded_owed_and_corrected_by_a_supervisor(data: Path) -> None:
    t = table(data)
    dues = showdown(t)
    box = paid_box(dues)
    t.confirm_settlement(actor=DEALER, paid={box: dues[box] - 5})
    settled = list(t._store.entries())[-1]
    assert settled.kind == "round-settled" and settled.data["paid"] == {str(box): dues[box] - 5}
    owed = [{"round": 1, "box": box, "due": dues[box], "paid": dues[box] - 5, "short": 5}]
    assert t.payments_owed() == owed and t.view()["payments_owed"] == owed
    t = reopen(t, data)
    with pytest.raises(PermissionDenied):
        t.correct_payment(1, box, paid=dues[box], handed=5, actor=DEALER, why="paid the rest")
    with pytest.raises(TableError, match="say why"):
        t.correct_payment(1, box, paid=dues[box], handed=5, actor=SUPER, why=" ")
    t.correct_payment(1, box, paid=dues[box], handed=5, actor=SUPER, why="player showed the short stack")
    assert t.payments_owed() == []
    (correction,) = t.payments[f"1:{box}"]["corrections"]
    assert correction | {"at": None} == {
        "paid": dues[box],
        "handed": 5,
        "why": "player showed the short stack",
        "by": "supervisor:sam",
        "at": None,
    }
    reopen(t, data)


def test_a_dispute_over_a_round_confirmed_as_shown_is_corrected_later(data: Path) -> None:
    t = table(data)
    dues = showdown(t)
    box = paid_box(dues)
    t.confirm_settlement(actor=DEALER)
    assert t.payments == {} and "paid" not in list(t._store.entries())[-1].data
    # The camera footage shows 5 short; the supervisor pays it and records the total.
    t.correct_payment(1, box, paid=dues[box], handed=5, actor=SUPER, why="footage: 5 short")
    assert t.payments[f"1:{box}"]["corrections"][0]["handed"] == 5 and t.payments_owed() == []
    reopen(t, data)


def test_payments_that_cannot_be_recorded_are_refused_and_nothing_is_written(data: Path) -> None:
    t = table(data)
    dues = showdown(t)
    collected = next((b for b, due in dues.items() if due <= 0), None)
    before = t.version
    with pytest.raises(TableError, match="box 7 has no bet"):
        t.confirm_settlement(actor=DEALER, paid={7: 10})
    if collected is not None:
        with pytest.raises(TableError, match=f"box {collected} is not paid"):
            t.confirm_settlement(actor=DEALER, paid={collected: 10})
    with pytest.raises(TableError, match="0 or more"):
        t.confirm_settlement(actor=DEALER, paid={paid_box(dues): -1})
    assert t.version == before and t.round is not None
    t.confirm_settlement(actor=DEALER)
    with pytest.raises(TableError, match="round 9 is not a settled round"):
        t.correct_payment(9, 1, paid=10, handed=10, actor=SUPER, why="x")
    with pytest.raises(TableError, match="box 5 had no bet in round 1"):
        t.correct_payment(1, 5, paid=10, handed=10, actor=SUPER, why="x")
