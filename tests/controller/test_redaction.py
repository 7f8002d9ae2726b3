"""The one redaction point: what a display may see of the cards, for text, JSON, settlements and recall."""

from __future__ import annotations

from pathlib import Path

from controller.config import build_config
from controller.engine import Action, BoxBet
from controller.journal import SqliteJournal
from controller.redaction import NOTHING_SHOWN, Visibility, for_display, recalled_visibility, visibility
from controller.table import Actor, TableService
from tests.controller.roundkit import passes

DEALER = Actor("dealer", "dealer")


def table(tmp_path: Path, game: str) -> TableService:
    config = build_config({"game": game, "name": "T1"})
    return TableService(config=config, store=SqliteJournal(path=tmp_path / "j.sqlite3"))


def test_text_hides_every_code_not_face_up_and_keeps_words() -> None:
    vis = Visibility(frozenset({"Qs"}))
    told = vis.text("card Kc was already dealt; Qs and 10h and Td")
    assert told == "a card was already dealt; Qs and a card and a card"
    assert vis.text("pay the table as shown; As is not as") == "pay the table as shown; a card is not as"
    assert vis.leaks("card Kc, Qs, 10h") == ["Kc", "10h"]
    assert vis.leaks("nothing to see, 2 cards") == []


def test_for_display_scrubs_every_string_of_a_json_value_and_none_shows_nothing() -> None:
    value = {"error": "card 9s was already dealt", "list": ["Ah", 3, None, {"Kd": "x"}], "ok": True}
    assert for_display(None, value) == {
        "error": "a card was already dealt",
        "list": ["a card", 3, None, {"a card": "x"}],
        "ok": True,
    }
    assert value["error"] == "card 9s was already dealt"  # the input is left alone
    assert for_display(Visibility(frozenset({"Ah"})), ["Ah", "9s"]) == ["Ah", "a card"]
    assert for_display(NOTHING_SHOWN, "Td") == "a card"


def test_settlement_masks_folded_hands_discards_unturned_board_and_unshown_dealer() -> None:
    settlement = {
        "void": "redeal after duplicate-card: Kc read twice",
        "dealer": {"cards": ["Qc", "Jd"], "hand": "High card", "qualifies": False},
        "board": ["Ah", "5c", "9d", "Qs", "2d"],
        "boxes": [
            {"box": 1, "cards": ["Ac", "Kd"], "discards": ["3c"], "hand": "Pair", "outcome": "win"},
            {"box": 2, "cards": ["7h", "2s"], "discards": [], "hand": "High card", "outcome": "fold"},
        ],
    }
    vis = Visibility(frozenset({"Ah", "5c", "9d", "Ac", "Kd", "3c"}))
    shown = vis.settlement(settlement)
    assert shown["board"] == ["Ah", "5c", "9d", None, None]
    assert shown["dealer"] == {"cards": [None, None], "hand": None, "qualifies": None}
    assert shown["boxes"][0]["cards"] == ["Ac", "Kd"] and shown["boxes"][0]["discards"] == [None]
    assert shown["boxes"][1]["cards"] == [None, None] and shown["boxes"][1]["hand"] is None
    assert shown["void"] == "redeal after duplicate-card: a card read twice"


def test_visibility_of_a_live_table_follows_the_cards_as_they_lie(tmp_path: Path) -> None:
    t = table(tmp_path, "casino-holdem")
    assert visibility(t) == NOTHING_SHOWN
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    for i, code in enumerate([*passes({1: "Ah Ad"}, "Kc Qd", n=2), "As", "4c", "2d"], 1):
        t.on_card(code, counter=i)
    assert visibility(t).shown == {"As", "4c", "2d"}  # the flop only


def test_recall_shows_what_was_face_up_when_the_round_ended(tmp_path: Path) -> None:
    """Casino Hold'em, the box folds: the flop was seen and stays shown; the hands and turn/river never."""
    t = table(tmp_path, "casino-holdem")
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    for i, code in enumerate([*passes({1: "Ah Ad"}, "Kc Qd", n=2), "As", "4c", "2d"], 1):
        t.on_card(code, counter=i)
    t.act(Action(1, "fold"), actor=DEALER)
    t.confirm_settlement(actor=DEALER)
    (item,) = t.recall
    assert recalled_visibility(item).shown == {"As", "4c", "2d"}
