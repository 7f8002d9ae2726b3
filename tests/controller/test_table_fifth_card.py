"""Hold'em with exchange, seed 002: "if the dealer, opening the sixth card, opens the seventh instead,
the game continues as usual": the 5th board card turned where the 4th was due counts as the 4th. The
dealer says so (a dealer action, box 0); the displays then show the card that lies face up, never the
one still face down (docs/irregularities.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.engine import Action, BoxBet
from controller.errors import RuleViolation
from controller.journal import SqliteJournal
from controller.record import loads, parse_record, settle_record
from controller.redaction import visibility
from controller.table import TableService
from tests.controller.roundkit import passes
from tests.controller.test_table import DEALER, Clock, deal, table

# Box 1 Ac Kd, box 2 7h 2s, dealer Qc Jd; board 4 and 5 (face down) Qs 2d, flop Ah 5c 9d.
CARDS = [*passes({1: "Ac Kd", 2: "7h 2s"}, "Qc Jd", n=2), "Qs", "2d", "Ah", "5c", "9d"]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def board(t: TableService) -> list[tuple[str | None, bool]]:
    return [(c["code"], c["face_up"]) for c in t.view()["board"]]


def test_the_fifth_card_turned_for_the_fourth_counts_as_the_fourth(data: Path) -> None:
    t = table(data, "holdem-exchange")
    t.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(t, CARDS)
    with pytest.raises(RuleViolation, match="no board card is turned yet"):
        t.act(Action(0, "fifth-turned"), actor=DEALER)
    t.act(Action(1, "buy"), actor=DEALER)
    t.act(Action(2, "bet"), actor=DEALER)
    shown = {code for code, up in board(t) if up}
    assert "Qs" in shown and "2d" not in shown  # the 4th card as recorded
    t.act(Action(0, "fifth-turned"), actor=DEALER)  # but the dealer turned the 5th: 2d lies face up
    shown = {code for code, up in board(t) if up}
    assert "2d" in shown and "Qs" not in shown
    assert "Qs" not in visibility(t).shown and "Qs" not in json.dumps(t.view())
    with pytest.raises(RuleViolation, match="already counts as the 4th"):
        t.act(Action(0, "fifth-turned"), actor=DEALER)
    # The game continues as usual: the buyer decides, the showdown uses all five board cards.
    t.act(Action(1, "bet"), actor=DEALER)
    t.confirm_settlement(actor=DEALER)
    item = t.recall[-1]
    assert item.settlement.to_json()["board"] == ["Ah", "5c", "9d", "Qs", "2d"]
    line = json.dumps(item.to_json())
    assert settle_record(parse_record(loads(line))).to_json() == json.loads(line)["settlement"]
    assert any(a.get("action") == "fifth-turned" for a in json.loads(line)["actions"])
    before = [r.to_json() for r in t.recall]
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert [r.to_json() for r in again.recall] == before


def test_only_hold_em_with_exchange_has_the_procedure(data: Path) -> None:
    t = table(data)  # Oasis Poker: no face-down board
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc"])
    with pytest.raises(RuleViolation, match="not a dealer action of Oasis Poker"):
        t.act(Action(0, "fifth-turned"), actor=DEALER)
