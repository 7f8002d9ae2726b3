"""The simulated players and dealer: many rounds of every game, each recorded round settles again."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.cards import shuffled_deck
from controller.config import build_config
from controller.games import game_names
from controller.journal import SqliteJournal
from controller.record import loads, parse_record, settle_record
from controller.table import TableService


@pytest.mark.parametrize("game", game_names())
def test_autoplay_plays_every_game_to_settled_rounds_that_replay(game: str, tmp_path: Path) -> None:
    table = TableService(config=build_config({"game": game}), store=SqliteJournal(path=tmp_path / "j.sqlite3"))
    rng = random.Random(5)
    deck: list[str] = []
    counter = iter(range(1, 10**6))

    def shuffle() -> None:
        deck[:] = [c.code for c in shuffled_deck(rng)]

    def draw() -> None:
        table.on_card(deck.pop(), counter=next(counter), shoe="TEST")

    player = AutoPlayer(table=table, draw=draw, new_round=shuffle, config=AutoplayConfig(pace=0, seed=11))
    while table.round_no < 40 or table.round is not None:
        player.step()
    assert not player.errors
    assert not table.tilts
    assert len(table.recall) == 10
    outcomes = set()
    for item in table.recall:
        line = json.dumps(item.to_json())
        assert settle_record(parse_record(loads(line))).to_json() == item.settlement.to_json()
        outcomes.update(b.outcome for b in item.settlement.boxes)
    assert "win" in outcomes or "lose" in outcomes


def test_the_showdown_stays_on_the_displays_for_its_steps_before_the_dealer_confirms(tmp_path: Path) -> None:
    table = TableService(config=build_config({"game": "oasis"}), store=SqliteJournal(path=tmp_path / "j.sqlite3"))
    rng = random.Random(3)
    deck = [c.code for c in shuffled_deck(rng)]
    counter = iter(range(1, 100))
    player = AutoPlayer(
        table=table,
        draw=lambda: table.on_card(deck.pop(), counter=next(counter), shoe="TEST"),
        config=AutoplayConfig(pace=0, seed=1, showdown_steps=3),
    )
    done = []
    while table.round_no < 1 or table.round is not None:
        done.append(player.step())
    # Three steps showing the showdown, then the confirmation; the view stayed at the showdown meanwhile.
    assert done[-4:] == ["paying the showdown"] * 3 + ["confirmed the settlement"]
    assert AutoplayConfig().showdown_steps * AutoplayConfig().pace >= 5  # the demo's default: readable
