"""The console view: what a terminal shows of a table, hidden cards hidden."""

from __future__ import annotations

from pathlib import Path

from controller.config import build_config
from controller.console import render
from controller.engine import Action, BoxBet
from controller.journal import SqliteJournal
from controller.table import Actor, TableService
from controller.view import snapshot
from tests.controller.roundkit import passes

DEALER = Actor("dana", "dealer")


def test_console_shows_backs_then_results_with_the_cap(tmp_path: Path) -> None:
    t = TableService(
        config=build_config({"game": "oasis", "max_payout": 1000}), store=SqliteJournal(path=tmp_path / "j")
    )
    t.open_round([BoxBet(box=3, ante=10)], actor=DEALER)
    cards = passes({3: "As Ks Qs Js Ts"}, "9s 9h Jc Jd 3c", n=5)
    for i, code in enumerate(cards[:-1]):
        t.on_card(code, counter=i + 1)
    text = render(snapshot(t))
    assert "▒▒ ▒▒ ▒▒ ▒▒ ▒▒" in text and "As" not in text
    assert "next: deal card 5 to the dealer, face up" in text
    t.on_card(cards[-1], counter=10)
    t.act(Action(3, "raise"), actor=DEALER)
    text = render(snapshot(t))
    assert "As Ks Qs Js Ts" in text
    assert "royal-flush win 1,000 (capped, 1,010 over the maximum payout)" in text
    assert "dealer has two-pair qualifies" in text
    t.on_card("2d", counter=11)
    assert "TILT 1 unexpected-card" in render(snapshot(t))
