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
