"""Test kit: tables that play many rounds quickly through the real table code, on a fake clock."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.cards import DECK
from controller.config import build_config
from controller.journal import JournalUnavailable, SqliteJournal
from controller.table import TableService


class Clock:
    """A clock that moves on by ``step`` every time it is read."""

    def __init__(self, start: datetime = datetime(2026, 1, 5, 18, 0, tzinfo=UTC), step: float = 1.0) -> None:
        self.now = start
        self.step = timedelta(seconds=step)

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


class Shoe:
    """Draws a random card not yet in the round, with consecutive draw counters; like a real shoe,
    a draw the table did not store is drawn again (same card, same counter)."""

    def __init__(self, table: TableService, seed: int) -> None:
        self.table = table
        self.rng = random.Random(seed)
        self.unstored: str | None = None

    def draw(self) -> None:
        rnd = self.table.round
        dealt = {card.code for card, _ in rnd.dealt()} if rnd is not None else set()
        code = self.unstored or self.rng.choice([c.code for c in DECK if c.code not in dealt])
        counter = (self.table.last_counter or 0) + 1
        try:
            self.table.on_card(code, counter=counter, shoe="TEST")
            self.unstored = None
        except JournalUnavailable:
            self.unstored = code
            raise


def open_table(path: Path, *, game: str = "oasis", clock: Clock | None = None, **store: object) -> TableService:
    config = build_config({"game": game})
    return TableService(config=config, store=SqliteJournal(path=path, **store), clock=clock or Clock())  # type: ignore[arg-type]


def play(table: TableService, rounds: int, *, seed: int = 1) -> None:
    """Play ``rounds`` more rounds to their end (settled) through the autoplayer."""
    shoe = Shoe(table, seed)
    player = AutoPlayer(table=table, draw=shoe.draw, config=AutoplayConfig(pace=0, seed=seed, repeat_rate=0.3))
    target = table.round_no + rounds
    while table.round_no < target or table.round is not None:
        done = player.step()
        assert not done.startswith(("refused", "waiting")), done
