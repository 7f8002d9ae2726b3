"""Test kit for reports: real tables playing real rounds (the table service and the autoplayer) on a clock the
test drives, with tilts raised and cleared, and an independent sum over the journal to check reports against."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.cards import shuffled_deck
from controller.config import build_config
from controller.journal import SqliteJournal
from controller.table import Actor, TableService

SUPER = Actor("sam", "supervisor")
DEALER = Actor("dana", "dealer")
START = datetime(2026, 11, 24, 5, 0, tzinfo=UTC)


class Clock:
    """Moves ``step`` at every reading; a test may jump it (a tilt that takes a while to clear)."""

    def __init__(self, start: datetime, step: timedelta) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


class Table:
    """A real table in ``folder`` (jackpot hitting often: two pair, 2 %), played by the autoplayer on ``clock``;
    its money in ``currency`` with ``minor_units`` decimals."""

    def __init__(
        self,
        folder: Path,
        *,
        game: str = "oasis",
        start: datetime = START,
        step: timedelta = timedelta(seconds=3),
        seed: int = 1,
        keep_months: int | None = 2,
        currency: str = "EUR",
        minor_units: int = 0,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.clock = Clock(start, step)
        config = build_config(
            {
                "game": game,
                "currency": currency,
                "minor_units": minor_units,
                "jackpot": {
                    "enabled": True,
                    "reset": 10_000,
                    "contribution": 2,
                    "hit_hands": {"two-pair": 2},
                    "requires_bonus": False,
                },
            }
        )
        self.store = SqliteJournal(path=folder / "journal.sqlite3", durable=False, keep_months=keep_months)
        self.table = TableService(config=config, store=self.store, clock=self.clock)
        rng = random.Random(seed)
        deck: list[str] = []
        counter = iter(range(1, 10**7))

        def shuffle() -> None:
            deck[:] = [c.code for c in shuffled_deck(rng)]

        def draw() -> None:
            self.table.on_card(deck.pop(), counter=next(counter), shoe="TEST")

        self.player = AutoPlayer(
            table=self.table, draw=draw, new_round=shuffle, config=AutoplayConfig(pace=0, seed=seed, showdown_steps=0)
        )
        self.tilts: list[tuple[str, float]] = []  # (kind, seconds from raised to cleared)
        self._tilted = 0

    def play(self, rounds: int, *, tilt_every: int = 0) -> None:
        """Play ``rounds`` settled rounds; every ``tilt_every``-th round a tilt is reported mid-deal and cleared
        by a supervisor a while later (missing-card → continue, or every other one a dealer-card-exposed →
        cancel, which voids that round)."""
        settled = 0
        table = self.table
        while settled < rounds:
            if self.player.step() == "confirmed the settlement":
                settled += 1
            rnd = table.round
            due = tilt_every and table.round_no % tilt_every == 0 and table.round_no > self._tilted
            if due and rnd is not None and rnd.cards_dealt == 2:
                self._tilted = table.round_no
                kind = "dealer-card-exposed" if (self._tilted // tilt_every) % 2 == 0 else "missing-card"
                raised = table.report(kind, actor=DEALER)
                self.clock.now += timedelta(seconds=30 + self._tilted)
                cleared = table.clear_tilt(
                    raised.data["tilt"],
                    resolution="cancel" if kind == "dealer-card-exposed" else "continue",
                    actor=SUPER,
                    why="checked",
                )
                took = datetime.fromisoformat(cleared.at) - datetime.fromisoformat(raised.at)
                self.tilts.append((kind, took.total_seconds()))
            assert not self.player.errors, list(self.player.errors)

    def entries(self) -> list[Any]:
        from controller.journal.archive import Segments

        segments = Segments(journal=self.folder / "journal.sqlite3")
        try:
            return list(segments.entries())
        finally:
            segments.close()

    def close(self) -> None:
        self.store.close()


def independent_sums(entries: list[Any], *, start: str, end: str) -> dict[str, Any]:
    """The figures a report must show, summed straight from the settlements of the entries in ``[start, end)``."""
    out: dict[str, Any] = {"rounds": 0, "drop": 0, "win": 0, "payouts": 0, "jp_contrib": 0, "jp_hits": 0}
    out |= {"jp_won": 0, "voided": 0, "by_bet": {}}
    for e in entries:
        if not start <= e.at < end:
            continue
        if e.kind == "round-settled":
            s = e.data["settlement"]
            out["rounds"] += 1
            out["win"] += -s["house_pays"]
            out["jp_contrib"] += s["jackpot"]["contribution"]
            out["jp_hits"] += len(s["jackpot"]["hits"])
            out["jp_won"] += sum(h["amount"] for h in s["jackpot"]["hits"])
            for b in s["boxes"]:
                out["payouts"] += max(0, b["main"] + b["bonus"])
                for bet in b["bets"]:
                    if bet["bet"] != "cap":
                        out["drop"] += bet["stake"]
                        out["by_bet"][bet["bet"]] = out["by_bet"].get(bet["bet"], 0) + bet["stake"]
        elif e.kind == "round-voided" or (e.kind == "tilt-cleared" and e.data["resolution"] in ("cancel", "void")):
            out["voided"] += 1
    return out
