"""One full round of each game, as the shoe deals it and the dealer decides, with what may be face up when.

Each step is a card from the shoe (face up or down as the game deals it) or a box's decision; ``reveal``
lists the cards a step turns face up (the showdown, a turned board card). The no-leak test builds its
own oracle from these, independent of the controller's masking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.engine import Action, BoxBet
from controller.table import Actor, TableService
from tests.controller.roundkit import passes


@dataclass(frozen=True)
class Card:
    code: str
    up: bool = False
    reveal: tuple[str, ...] = ()


@dataclass(frozen=True)
class Act:
    box: int
    action: str
    discard: tuple[int, ...] = ()  # positions in the box's cards
    reveal: tuple[str, ...] = ()


Step = Card | Act


@dataclass(frozen=True)
class Script:
    game: str
    settings: dict[str, Any]
    bets: list[dict[str, Any]]
    steps: list[Step]
    # What the display must show at the showdown, as the rules say (independent of the engine).
    hands: dict[int, str] = field(default_factory=dict)
    dealer_hand: str = ""
    qualifies: str = ""
    results: dict[int, dict[str, int]] = field(default_factory=dict)
    nets: dict[int, int] = field(default_factory=dict)


def _down(codes: list[str]) -> list[Step]:
    return [Card(c) for c in codes]


def _up(codes: str) -> list[Step]:
    return [Card(c, up=True) for c in codes.split()]


# Oasis: box 1 royal flush with a bonus bet (jackpot hit, main win capped at the maximum payout),
# box 2 full house (raise paytable and bonus), box 3 exchanges its first card and loses,
# box 4 folds (its cards are never shown). Dealer two pair: qualifies.
_OASIS_DEAL = passes(
    {1: "As Ks Qs Js Ts", 2: "8c 8d 8h 5s 5c", 3: "2c 3d 4h 7s 9c", 4: "6d 6h Tc Td 2h"}, "9s 9h Jc Jd 3c", n=5
)
_OASIS_SHOWN = ("As", "Ks", "Qs", "Js", "Ts", "8c", "8d", "8h", "5s", "5c", "7d", "3d", "4h", "7s", "9c")
OASIS = Script(
    game="oasis",
    settings={"jackpot": {"enabled": True, "reset": 5000, "contribution": 2}},
    bets=[
        {"box": 1, "ante": 100, "bonus": 5},
        {"box": 2, "ante": 10, "bonus": 5},
        {"box": 3, "ante": 10},
        {"box": 4, "ante": 20},
    ],
    steps=[
        *[Card(c, up=(c == "3c")) for c in _OASIS_DEAL],
        Act(1, "raise"),
        Act(2, "raise"),
        Act(3, "exchange", discard=(0,)),
        Card("7d"),
        Act(3, "raise"),
        Act(4, "fold", reveal=("9s", "9h", "Jc", "Jd", *_OASIS_SHOWN)),
    ],
    hands={1: "Royal flush", 2: "Full house", 3: "Pair"},
    dealer_hand="Two pair",
    qualifies="Dealer qualifies",
    # Box 1: 100 + 100 × 200 = 20,100, capped at 3,000; jackpot 5,000; bonus stake returned.
    results={1: {"ante": 100, "raise": 20000, "bonus": 0}, 2: {"ante": 10, "raise": 140, "bonus": 500}},
    nets={1: 8000, 2: 650, 3: -40, 4: -20},
)

# Casino Hold'em: three aces with the AA bonus; the dealer (king-queen high) does not qualify.
CASINO = Script(
    game="casino-holdem",
    settings={"bonus": {"enabled": True}},
    bets=[{"box": 1, "ante": 10, "bonus": 5}, {"box": 2, "ante": 10}],
    steps=[
        *_down(passes({1: "Ah Ad", 2: "7h 7d"}, "Kc Qd", n=2)),
        *_up("As 4c 2d"),
        Act(1, "call"),
        Act(2, "fold"),
        Card("9h", up=True),
        Card("3s", up=True, reveal=("Ah", "Ad", "Kc", "Qd")),
    ],
    hands={1: "Three of a kind"},
    dealer_hand="High card",
    qualifies="Dealer does not qualify",
    results={1: {"ante": 10, "call": 0, "bonus": 35}},
    nets={1: 45, 2: -10},
)

# Hold'em with exchange: box 1 buys the 4th card, exchanges its king for the ace of diamonds and
# bets with three aces; box 2 folds. Dealer pair of queens: qualifies.
EXCHANGE = Script(
    game="holdem-exchange",
    settings={},
    bets=[{"box": 1, "ante": 10}, {"box": 2, "ante": 10}],
    steps=[
        *_down(passes({1: "Ac Kd", 2: "7h 2s"}, "Qc Jd", n=2)),
        Card("Qs"),  # 4th board card, face down
        Card("2d"),  # 5th board card, face down
        *_up("Ah 5c 9d"),
        Act(1, "buy"),
        Act(2, "fold", reveal=("Qs",)),
        Act(1, "exchange", discard=(1,)),
        Card("Ad"),
        Act(1, "bet", reveal=("2d", "Qc", "Jd", "Ac", "Ad")),
    ],
    hands={1: "Three of a kind"},
    dealer_hand="Pair",
    qualifies="Dealer qualifies",
    results={1: {"ante": 10, "bet": 40}},
    nets={1: 30, 2: -10},
)

# Texas Hold'em Bonus: pocket aces (bonus 30:1) beat the dealer's kings; the ante pushes.
BONUS = Script(
    game="holdem-bonus",
    settings={"bonus": {"enabled": True}},
    bets=[{"box": 1, "ante": 10, "bonus": 5}],
    steps=[
        *_down(passes({1: "Ah Ac"}, "Kd Ks", n=2)),
        Act(1, "bet"),
        *_up("7c 8d 2s"),
        Act(1, "bet"),
        Card("Jh", up=True),
        Act(1, "check"),
        Card("3c", up=True, reveal=("Ah", "Ac", "Kd", "Ks")),
    ],
    hands={1: "Pair"},
    dealer_hand="Pair",
    qualifies="Dealer plays (no qualification)",
    results={1: {"ante": 0, "bonus": 150}},
    nets={1: 180},
)

SCRIPTS = {s.game: s for s in (OASIS, CASINO, EXCHANGE, BONUS)}


def fed_cards(script: Script) -> list[str]:
    return [s.code for s in script.steps if isinstance(s, Card)]


def play_round(table: TableService, script: Script, *, actor: Actor) -> set[str]:
    """The script's round played on the table service itself (no display) and settled; returns the
    cards that were face up by its end (the script's own account)."""
    table.open_round([BoxBet(**b) for b in script.bets], actor=actor)
    counter = 1
    shown: set[str] = set()
    for step in script.steps:
        if isinstance(step, Card):
            table.on_card(step.code, counter=counter)
            counter += 1
            if step.up:
                shown.add(step.code)
        else:
            assert table.round is not None
            cards = table.round.state.boxes[step.box].cards
            table.act(Action(step.box, step.action, discard=tuple(cards[p] for p in step.discard)), actor=actor)
        shown.update(step.reveal)
    table.confirm_settlement(actor=actor)
    return shown
