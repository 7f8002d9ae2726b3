"""Test kit for reports: real tables playing real rounds (the table service and the autoplayer) on a clock the
test drives, with tilts raised and cleared, and an independent sum over the journal to check reports against."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
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


@dataclass
class Played:
    folder: Path
    table: TableService
    clock: Clock
    tilts: list[tuple[str, float]] = field(default_factory=list)  # (kind, seconds it was open)


def play(
    folder: Path,
    *,
    game: str = "oasis",
    rounds: int,
    start: datetime = START,
    step: timedelta = timedelta(seconds=3),
    seed: int = 1,
    tilt_every: int = 0,
) -> Played:
    """Play ``rounds`` settled rounds on a fresh table in ``folder``; every ``tilt_every``-th round a tilt is
    reported mid-deal and cleared by a supervisor a while later (missing-card → continue, or every other
    one a dealer-card-exposed → cancel, which voids that round). The jackpot hits often (two pair, 2 %)."""
    folder.mkdir(parents=True, exist_ok=True)
    clock = Clock(start, step)
    config = build_config(
        {
            "game": game,
            "jackpot": {"enabled": True, "reset": 10_000, "contribution": 2, "hit_hands": {"two-pair": 2}}
            | ({"requires_bonus": False}),
        }
    )
    store = SqliteJournal(path=folder / "journal.sqlite3", durable=False)
    table = TableService(config=config, store=store, clock=clock)
    rng = random.Random(seed)
    deck: list[str] = []
    counter = iter(range(1, 10**7))

    def shuffle() -> None:
        deck[:] = [c.code for c in shuffled_deck(rng)]

    def draw() -> None:
        table.on_card(deck.pop(), counter=next(counter), shoe="TEST")

    player = AutoPlayer(
        table=table, draw=draw, new_round=shuffle, config=AutoplayConfig(pace=0, seed=seed, showdown_steps=0)
    )
    played = Played(folder=folder, table=table, clock=clock)
    settled = 0
    tilted = 0
    while settled < rounds:
        done = player.step()
        if done == "confirmed the settlement":
            settled += 1
        rnd = table.round
        if (
            tilt_every
            and rnd is not None
            and rnd.cards_dealt == 2
            and table.round_no % tilt_every == 0
            and table.round_no > tilted
        ):
            tilted = table.round_no
            kind = "dealer-card-exposed" if (tilted // tilt_every) % 2 == 0 else "missing-card"
            raised = table.report(kind, actor=DEALER)
            clock.now += timedelta(seconds=30 + tilted)
            cleared = table.clear_tilt(
                raised.data["tilt"],
                resolution="cancel" if kind == "dealer-card-exposed" else "continue",
                actor=SUPER,
                why="checked",
            )
            took = datetime.fromisoformat(cleared.at) - datetime.fromisoformat(raised.at)
            played.tilts.append((kind, took.total_seconds()))
        assert not player.errors, list(player.errors)
    return played


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
