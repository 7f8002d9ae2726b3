"""Recall for disputes: a finished round card by card with where each went, and never a card that was
not face up; any round found again in the journal by its number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.config import build_config
from controller.engine import Action, BoxBet
from controller.journal import SqliteJournal
from controller.recall import find_round, recall_detail
from controller.table import Actor, TableService
from tests.controller.roundkit import passes
from tests.controller.test_table import DEALER, SUPER, deal, table
from tests.web_display.kit import leaked


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def oasis_round(t: TableService, start: int = 1) -> int:
    """Box 1 raises with three kings, box 2 exchanges its first card then raises, box 3 folds."""
    t.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=20), BoxBet(box=3, ante=10)], actor=DEALER)
    deal(t, passes({1: "Kc Kd Kh 4s 4c", 2: "8c 8d 4d 5s 6c", 3: "2c 7h 9d Ts Qd"}, "9s 9h Jc Jd 3c", n=5), start)
    t.act(Action(1, "raise"), actor=DEALER)
    assert t.round is not None
    t.act(Action(2, "exchange", discard=(t.round.state.boxes[2].cards[0],)), actor=DEALER)
    deal(t, ["8h"], start + 20)
    t.act(Action(2, "raise"), actor=DEALER)
    t.act(Action(3, "fold"), actor=DEALER)
    t.confirm_settlement(actor=DEALER)
    return start + 21


def test_a_round_card_by_card_with_where_each_went_and_only_face_up_cards(data: Path) -> None:
    t = table(data)
    oasis_round(t)
    detail = recall_detail(t.recall[-1])
    cards = detail["cards"]
    assert [c["n"] for c in cards] == list(range(1, 22))
    assert [c["where"] for c in cards[:4]] == ["box 1 card 1", "box 2 card 1", "box 3 card 1", "the dealer card 1"]
    assert cards[0]["code"] == "Kc" and cards[3]["code"] == "9s"
    # Box 2's first card went back face down in the exchange; its replacement (card 21) is shown.
    assert (cards[1]["code"], cards[1]["discarded"], cards[1]["face_up"]) == (None, True, False)
    assert (cards[20]["code"], cards[20]["where"]) == ("8h", "box 2 the exchanged card")
    # Box 3 folded: its five cards keep their places, never their faces.
    assert [c["code"] for c in cards if c["box"] == 3] == [None] * 5
    assert detail["actions"] == [
        {"box": 1, "action": "raise", "stage": "decision", "discard": []},
        {"box": 2, "action": "exchange", "stage": "decision", "discard": [2]},
        {"box": 2, "action": "raise", "stage": "decision", "discard": []},
        {"box": 3, "action": "fold", "stage": "decision", "discard": []},
    ]
    assert detail["bets"][0] == {"box": 1, "ante": 10, "bonus": 5}
    boxes = {b["box"]: b for b in detail["settlement"]["boxes"]}
    assert boxes[1]["hand"] == "full-house" and [b["bet"] for b in boxes[1]["bets"]] == ["ante", "raise", "bonus"]
    assert boxes[3]["cards"] == [None] * 5 and boxes[3]["hand"] is None
    assert boxes[2]["discards"] == [None]
    text = json.dumps(detail)
    assert not leaked(text, ["8c", "2c", "7h", "9d", "Ts", "Qd"])  # the discard and the folded hand
    assert leaked(text, ["Kc", "8h", "9s"])  # the oracle can fail: face-up cards are there


def test_a_board_nobody_turned_never_shows(data: Path) -> None:
    """Hold'em with exchange, every box folds: the two face-down board cards and the dealer's stay down."""
    t = table(data, "holdem-exchange")
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, [*passes({1: "Ac Kd"}, "Qc Jd", n=2), "Qs", "2d", "Ah", "5c", "9d"])
    t.act(Action(1, "fold"), actor=DEALER)
    t.confirm_settlement(actor=DEALER)
    detail = recall_detail(t.recall[-1])
    text = json.dumps(detail)
    assert not leaked(text, ["Ac", "Kd", "Qc", "Jd", "Qs", "2d"])
    assert detail["settlement"]["board"] == ["Ah", "5c", "9d", None, None]
    assert [(c["target"], c["label"], c["code"]) for c in detail["cards"][4:]] == [
        ("board", "board card 4", None),
        ("board", "board card 5", None),
        ("board", "flop card 1", "Ah"),
        ("board", "flop card 2", "5c"),
        ("board", "flop card 3", "9d"),
    ]


def test_a_voided_round_shows_only_what_was_dealt_face_up(data: Path) -> None:
    t = table(data)
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, passes({1: "Kc Kd Kh 4s 4c"}, "9s 9h Jc Jd 3c", n=5))
    t.void_round(actor=SUPER, why="player dispute")
    detail = recall_detail(t.recall[-1])
    assert detail["void"] == "player dispute"
    assert [c["code"] for c in detail["cards"] if c["face_up"]] == ["3c"]  # the dealer's fifth, dealt face up
    assert not leaked(json.dumps(detail), ["Kc", "Kd", "Kh", "4s", "4c", "9s", "9h", "Jc", "Jd"])


def test_any_round_is_found_again_in_the_journal_by_its_number(data: Path) -> None:
    t = table(data)
    counter = 1
    for _ in range(12):
        counter = oasis_round(t, counter)
    # A redeal: round 13 is void and its bets are dealt again as round 14, which is voided too.
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, ["2c", "3c"], counter)
    t.report("dealer-card-exposed", actor=DEALER)
    (tilt,) = t.tilts.values()
    t.clear_tilt(tilt.id, resolution="redeal", actor=SUPER, why="exposed")
    # A configuration change during round 14 applies as it ends: recall reads past it, writing nothing.
    t.reconfigure(build_config({"game": "oasis", "max_bet": 200}), actor=Actor("ada", "admin"))
    t.void_round(actor=SUPER, why="table closes")
    t.deck_shuffled(actor=DEALER)
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)  # round 15, still open
    assert t.recall[0].round == 5  # rounds 1-4 are out of the table's recall window
    store = t.journal_store  # the running table's own journal, as the web display reads it
    old = find_round(store, 2)
    assert old is not None and old.round == 2
    scratch = SqliteJournal(path=data, read_only=True)
    try:
        again = next(r for r in TableService(store=scratch, recall=None).recall if r.round == 2)
    finally:
        scratch.close()
    assert recall_detail(old) == recall_detail(again)
    try:
        redealt = find_round(store, 13)
        assert redealt is not None and redealt.record.void is not None and "redeal" in redealt.record.void
        follow = find_round(store, 14)
        assert follow is not None and follow.record.void == "table closes"
        assert find_round(store, 15) is None  # still open
        assert find_round(store, 99) is None
        # Reading never writes.
        before = [e.seq for e in store.entries()]
        find_round(store, 3)
        assert [e.seq for e in store.entries()] == before
    finally:
        t._store.close()
