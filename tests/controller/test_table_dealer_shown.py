"""The dealer's hand shown before all decisions (Hold'em with exchange; docs/irregularities.md): the
show-early procedure applies whoever detects it first, the dealer's button or the camera's
exposed-card tilt, whose supervisor may then choose ``dealer-shown``."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine import Action, BoxBet
from controller.journal import SqliteJournal
from controller.table import CAMERA, TableError, TableService
from tests.controller.roundkit import passes
from tests.controller.test_table import DEALER, SUPER, Clock, deal, only_tilt, table

# Box 1 Ac Kd, box 2 7h 2s, dealer Qc Jd; board 4 and 5 (face down) Qs 2d, flop Ah 5c 9d.
CARDS = [*passes({1: "Ac Kd", 2: "7h 2s"}, "Qc Jd", n=2), "Qs", "2d", "Ah", "5c", "9d"]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def test_the_camera_sees_the_hand_shown_early_and_the_procedure_applies(data: Path) -> None:
    t = table(data, "holdem-exchange")
    t.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(t, CARDS)
    t.act(Action(1, "bet"), actor=DEALER)
    t.report("dealer-card-exposed", actor=CAMERA, detail="camera: 2 dealer card(s) face up before the showdown")
    tilt = only_tilt(t)
    assert t.resolutions(tilt) == ("redeal", "cancel", "dealer-shown")
    assert t.view()["tilts"][0]["resolutions"] == ["redeal", "cancel", "dealer-shown"]
    t.clear_tilt(tilt.id, resolution="dealer-shown", actor=SUPER, why="dealer turned his hand before box 2")
    rnd = t.round
    assert rnd is not None and not t.tilts
    step = rnd.expected()
    assert (step.box, step.options) == (2, ("fold", "withdraw"))  # type: ignore[union-attr]
    assert [c["code"] for c in t.view()["dealer"]] == ["Qc", "Jd"]
    t.act(Action(2, "withdraw"), actor=DEALER)
    t.confirm_settlement(actor=DEALER)
    box2 = next(b for b in t.recall[-1].settlement.to_json()["boxes"] if b["box"] == 2)
    assert (box2["outcome"], box2["net"]) == ("withdrawn", 0)
    before = [item.to_json() for item in t.recall]
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert [item.to_json() for item in again.recall] == before


def test_the_procedure_is_not_offered_where_it_does_not_apply(data: Path) -> None:
    t = table(data)  # Oasis Poker: an exposed dealer card is a redeal or a cancel
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, ["2c", "3c"])
    t.report("dealer-card-exposed", actor=DEALER)
    tilt = only_tilt(t)
    assert t.resolutions(tilt) == ("redeal", "cancel")
    with pytest.raises(TableError, match=r"cannot be cleared with 'dealer-shown': use one of redeal, cancel"):
        t.clear_tilt(tilt.id, resolution="dealer-shown", actor=SUPER, why="x")
    assert tilt.id in t.tilts


def test_not_offered_during_the_deal_of_hold_em_with_exchange(data: Path) -> None:
    t = table(data, "holdem-exchange")
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, ["2c", "3c"])
    t.report("dealer-card-exposed", actor=DEALER)
    assert t.resolutions(only_tilt(t)) == ("redeal", "cancel")  # a card exposed while dealing: redeal


def test_an_exposed_card_reported_between_rounds_is_cleared_with_continue(data: Path) -> None:
    t = table(data, "holdem-exchange")
    t.report("dealer-card-exposed", actor=DEALER, detail="a card flipped while shuffling")
    tilt = only_tilt(t)
    assert t.resolutions(tilt) == ("continue",)
    t.clear_tilt(tilt.id, resolution="continue", actor=SUPER, why="no round was open")
    assert not t.tilts
