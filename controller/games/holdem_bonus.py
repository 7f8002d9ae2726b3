"""Texas Hold'em Bonus (seeds 003, 004): flop bet or fold, then turn and river bets or checks."""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, StrictInt, field_validator

from controller.config import GameRules, TableConfig
from controller.engine import BoxState, Complete, Decide, RoundState, Slot, Step, deal_passes
from controller.games import Game, compare, rules_of, showdown
from controller.hands import CATEGORIES, HandValue, evaluate
from controller.settlement import DealerResult, MainResult, Stake

FLOP = [Slot("board", i, face_up=True, label=f"flop card {i + 1}") for i in range(3)]
TURN = Slot("board", 3, face_up=True, label="the turn")
RIVER = Slot("board", 4, face_up=True, label="the river")
PREFLOP, ON_FLOP, ON_TURN = "pre-flop", "flop", "turn"
_T, _J, _Q, _K, _A = 8, 9, 10, 11, 12
BONUS_KEYS = (
    "aa-vs-dealer-aa",
    "aa",
    "ak-suited",
    "aq-aj-suited",
    "ak-offsuit",
    "kk-qq-jj",
    "aq-aj-offsuit",
    "22-tt",
)


class HoldemBonusRules(GameRules):
    """Texas Hold'em Bonus settings; defaults are docs/rules.md's."""

    flop_multiple: StrictInt = Field(default=2, ge=1, description="the flop bet, in antes")
    turn_multiple: StrictInt = Field(default=1, ge=1, description="the turn bet, in antes")
    river_multiple: StrictInt = Field(default=1, ge=1, description="the river bet, in antes")
    ante_pays_from: str = Field(default="straight", description="the ante wins only with this hand or better")
    bonus_lost_on_fold: StrictBool = False  # decided: the bonus is paid after a fold too

    @field_validator("ante_pays_from")
    @classmethod
    def _hand(cls, value: str) -> str:
        if value not in CATEGORIES:
            raise ValueError(f"unknown hand {value!r} (one of {', '.join(CATEGORIES)})")
        return value


def _rules(state: RoundState) -> HoldemBonusRules:
    return rules_of(state.config, HoldemBonusRules)


def advance(state: RoundState) -> Step:
    """Two passes; bet or fold; flop; bet or check; turn; bet or check; river."""
    deal = state.first_missing(deal_passes(state.box_numbers, passes=2))
    if deal:
        return deal
    streets: list[tuple[str, tuple[str, ...], list[Slot]]] = [
        (PREFLOP, ("bet", "fold"), FLOP),
        (ON_FLOP, ("bet", "check"), [TURN]),
        (ON_TURN, ("bet", "check"), [RIVER]),
    ]
    for stage, options, cards in streets:
        for box in state.in_play():
            if not box.actions_in(stage):
                return Decide(box.box, options, stage=stage)
        if not state.in_play():
            return Complete()
        deal = state.first_missing(cards)
        if deal:
            return deal
    return Complete()


def stakes(config: TableConfig, box: BoxState) -> list[Stake]:
    rules = rules_of(config, HoldemBonusRules)
    ante = box.bet.ante
    placed = [Stake("ante", ante)]
    for stage, name, multiple in (
        (PREFLOP, "flop", rules.flop_multiple),
        (ON_FLOP, "turn", rules.turn_multiple),
        (ON_TURN, "river", rules.river_multiple),
    ):
        if "bet" in box.actions_in(stage):
            placed.append(Stake(name, ante * multiple))
    return placed


def settle_main(state: RoundState) -> tuple[DealerResult, dict[int, MainResult]]:
    rules = _rules(state)
    board = state.board_cards()
    dealer = evaluate([*state.dealer, *board]) if len(board) == 5 else None
    results: dict[int, MainResult] = {}
    for number in state.box_numbers:
        box = state.boxes[number]
        placed = stakes(state.config, box)
        hand = evaluate([*box.cards, *board]) if len(board) >= 3 else None
        if box.folded or dealer is None or hand is None:
            results[number] = MainResult("fold", hand, showdown(placed, outcome="fold"))
            continue
        outcome = compare(hand, dealer)
        # No qualification; on a win the ante pays only with a straight or better, else pushes.
        pays = {"ante": 1 if hand.at_least(rules.ante_pays_from) else 0}
        results[number] = MainResult(outcome, hand, showdown(placed, outcome=outcome, pays=pays))
    return DealerResult(tuple(state.dealer), dealer, True if dealer else None), results


def bonus_key(state: RoundState, box: BoxState) -> str | None:
    """The bonus reads the two hole cards (and the dealer's, for AA against AA)."""
    if box.folded and _rules(state).bonus_lost_on_fold:
        return None
    hole = box.received[:2]
    high, low = sorted((c.rank for c in hole), reverse=True)
    suited = hole[0].suit == hole[1].suit
    if high == low:
        if high == _A:
            dealer_aces = len(state.dealer) >= 2 and all(c.rank == _A for c in state.dealer[:2])
            return "aa-vs-dealer-aa" if dealer_aces else "aa"
        if high in (_K, _Q, _J):
            return "kk-qq-jj"
        return "22-tt"
    if high == _A and low == _K:
        return "ak-suited" if suited else "ak-offsuit"
    if high == _A and low in (_Q, _J):
        return "aq-aj-suited" if suited else "aq-aj-offsuit"
    return None


def jackpot_hand(state: RoundState, box: BoxState) -> HandValue | None:
    """If an operator links the jackpot, it is judged on the box's final seven cards."""
    board = state.board_cards()
    return None if box.folded or len(board) < 5 else evaluate([*box.cards, *board])


DEFAULTS: dict[str, Any] = {
    "min_bet": 10,
    "max_bet": 100,
    "max_payout": 3000,
    "bonus": {
        "enabled": True,
        "min_bet": 5,
        "max_bet": 100,
        "paytable": {
            "aa-vs-dealer-aa": 1000,
            "aa": 30,
            "ak-suited": 25,
            "aq-aj-suited": 20,
            "ak-offsuit": 15,
            "kk-qq-jj": 10,
            "aq-aj-offsuit": 5,
            "22-tt": 3,
        },
    },
    "jackpot": {"enabled": False},
}

GAME = Game(
    name="holdem-bonus",
    title="Texas Hold'em Bonus",
    actions=frozenset({"fold", "bet", "check"}),
    rules_model=HoldemBonusRules,
    defaults=DEFAULTS,
    board_size=5,
    bonus_keys=BONUS_KEYS,
    advance=advance,
    stakes=stakes,
    settle_main=settle_main,
    bonus_key=bonus_key,
    jackpot_hand=jackpot_hand,
)
