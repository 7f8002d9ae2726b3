"""Layout checks for the displays, measured in the browser: what is on the screen, not only what is in the page.

``problems(page, ...)`` returns every way the screen fails a dealer: the page scrolls, something that must
be in view is not, an element's content is wider (or a box's taller) than the element, a hand of cards
wraps, an amount breaks across lines, a payout is covered by something else.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from controller.autoplay import choose
from controller.cards import shuffled_deck
from controller.engine import Deal, Decide, Slot
from controller.table import Actor, TableService

DEALER = Actor("dana", "dealer")
SIZES = ((1280, 800), (1920, 1080))

_CHECK = (Path(__file__).parent / "layout_check.js").read_text(encoding="utf-8")

# Must be on the screen and uncovered whenever they are shown.
IN_VIEW = (
    "#expected",
    ".tilt",
    ".tilt button.clear",
    "#decide button",
    "#confirm-settlement",
    "#open-round",
    "#repeat-bets",
    ".banner",
    ".box .net",
    ".box .bet-result",
    ".box .cap",
    ".box .jackpot-result",
    ".box .share",
    ".bet-box",
    ".device",
    "#round-tools button",
)
NO_TALLER = (".box-inner", ".side", ".bets", ".bet-box", ".tilt", "#decide", "#showdown")
ONE_LINE = ".amt, .lines b, .net:not(.even), .badge, #jackpot-meter"


def problems(page: Page, *, required: tuple[str, ...] = ()) -> list[str]:
    """Every layout failure on the screen as it is now (empty: the screen is right)."""
    result: list[str] = page.evaluate(
        _CHECK,
        {"inView": list(IN_VIEW), "required": list(required), "noTaller": list(NO_TALLER), "oneLine": ONE_LINE},
    )
    return result


def settle(page: Page) -> None:
    """Let the page lay itself out after a resize or a change (two animation frames)."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@dataclass
class Dealer:
    """Deals a round of any game from a seeded deck, with some hands fixed (``fixed[target] = codes``),
    and decides for the boxes as the demo's simulated players do, with some decisions forced."""

    table: TableService
    seed: int = 7
    fixed: dict[str, list[str]] = field(default_factory=dict)
    forced: dict[int, str] = field(default_factory=dict)
    counter: int = 1
    deck: list[str] = field(default_factory=list)
    rng: random.Random = field(default_factory=random.Random)

    def new_deck(self) -> None:
        self.rng = random.Random(self.seed)
        reserved = {c for codes in self.fixed.values() for c in codes}
        self.deck = [c.code for c in shuffled_deck(self.rng) if c.code not in reserved]
        self.queues = {k: list(v) for k, v in self.fixed.items()}

    def _card_for(self, slot: Slot) -> str:
        key = f"box{slot.box}" if slot.target == "box" else slot.target
        queue = self.queues.get(key)
        return queue.pop(0) if queue else self.deck.pop(0)

    def steps(self) -> Iterator[str]:
        """Play the open round one step at a time; yields what each step was."""
        while (rnd := self.table.round) is not None:
            step = rnd.expected()
            if isinstance(step, Deal):
                self.table.on_card(self._card_for(step.slot), counter=self.counter, shoe="SIM")
                self.counter += 1
                yield "card"
            elif isinstance(step, Decide):
                action = choose(rnd, step, self.rng)
                wanted = self.forced.get(step.box)
                if wanted and wanted in step.options and wanted != "exchange":
                    action = type(action)(step.box, wanted)
                self.table.act(action, actor=DEALER)
                yield "decision"
            else:
                return

    def until(self, what: str) -> Any:
        """Play until the round waits for a decision ("decide") or is at its showdown ("showdown")."""
        for _ in self.steps():
            rnd = self.table.round
            assert rnd is not None
            step = rnd.expected()
            if what == "decide" and isinstance(step, Decide):
                return step
        return None
