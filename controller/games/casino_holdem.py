"""Casino Hold'em (seed 001): call or fold on the flop, dealer qualifies with fours, AA bonus."""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, StrictInt

from controller.config import GameRules, Qualification, TableConfig
from controller.engine import BoxState, Complete, Decide, RoundState, Slot, Step, deal_passes
from controller.games import CategoryPaytable, Game, compare, qualifies, rules_of, showdown
from controller.hands import HandValue, evaluate
from controller.settlement import DealerResult, MainResult, Stake

_ACE = 12
FLOP = [Slot("board", i, face_up=True, label=f"flop card {i + 1}") for i in range(3)]
TURN_RIVER = [
    Slot("board", 3, face_up=True, label="the turn"),
    Slot("board", 4, face_up=True, label="the river"),
]


class CasinoHoldemRules(GameRules):
    """Casino Hold'em's settings; defaults are docs/rules.md's."""

    qualify: Qualification = Qualification(category="pair", min_rank="4")
    call_multiple: StrictInt = Field(default=2, ge=1, description="the call, in antes")
    ante_paytable: CategoryPaytable = Field(
        default_factory=lambda: {
            "royal-flush": 100,
            "straight-flush": 20,
            "four-of-a-kind": 10,
            "full-house": 3,
            "flush": 2,
            "straight": 1,
            "three-of-a-kind": 1,
            "two-pair": 1,
            "pair": 1,
            "high-card": 1,
        }
    )
    decision_seconds: StrictInt = Field(default=0, ge=0, description="fold after this long; 0 = no timer")
    bonus_lost_on_fold: StrictBool = True


def _rules(state: RoundState) -> CasinoHoldemRules:
    return rules_of(state.config, CasinoHoldemRules)


def advance(state: RoundState) -> Step:
    """Two passes face down and the flop; each box calls or folds; then the turn and river."""
    deal = state.first_missing([*deal_passes(state.box_numbers, passes=2), *FLOP])
    if deal:
        return deal
    for box in state.in_play():
        if not box.actions:
            return Decide(box.box, ("call", "fold"), stage="decision")
    if not state.in_play():
        return Complete()
    return state.first_missing(TURN_RIVER) or Complete()


def stakes(config: TableConfig, box: BoxState) -> list[Stake]:
    rules = rules_of(config, CasinoHoldemRules)
    placed = [Stake("ante", box.bet.ante)]
    if box.did("call"):
        placed.append(Stake("call", box.bet.ante * rules.call_multiple))
    return placed


def settle_main(state: RoundState) -> tuple[DealerResult, dict[int, MainResult]]:
    rules = _rules(state)
    board = state.board_cards()
    showdown_reached = len(board) == 5
    dealer = evaluate([*state.dealer, *board]) if showdown_reached else None
    dealer_qualifies = qualifies(dealer, rules.qualify) if dealer else None
    results: dict[int, MainResult] = {}
    for number in state.box_numbers:
        box = state.boxes[number]
        placed = stakes(state.config, box)
        hand = evaluate([*box.cards, *board])
        if box.folded or dealer is None:
            results[number] = MainResult("fold", hand, showdown(placed, outcome="fold"))
            continue
        ante_pays = rules.ante_paytable[hand.category]
        if not dealer_qualifies:
            pays = {"ante": ante_pays, "call": 0}
            results[number] = MainResult("win", hand, showdown(placed, outcome="win", pays=pays))
        else:
            outcome = compare(hand, dealer)
            pays = {"ante": ante_pays, "call": 1}
            results[number] = MainResult(outcome, hand, showdown(placed, outcome=outcome, pays=pays))
    return DealerResult(tuple(state.dealer), dealer, dealer_qualifies), results


def _bonus_hand(state: RoundState, box: BoxState) -> HandValue:
    return evaluate([*box.cards, *state.board_cards()[:3]])


def bonus_key(state: RoundState, box: BoxState) -> str | None:
    """The AA bonus settles on the two hole cards and the flop; a pair counts only if aces."""
    if box.folded and _rules(state).bonus_lost_on_fold:
        return None
    hand = _bonus_hand(state, box)
    if hand.category == "pair":
        return "pair-of-aces" if hand.cards[0].rank == _ACE else None
    return None if hand.category == "high-card" else hand.category


def jackpot_hand(state: RoundState, box: BoxState) -> HandValue | None:
    if box.folded and _rules(state).bonus_lost_on_fold:
        return None
    return _bonus_hand(state, box)


DEFAULTS: dict[str, Any] = {
    "min_bet": 10,
    "max_bet": 100,
    "max_payout": 3000,
    "bonus": {
        "enabled": True,
        "min_bet": 5,
        "max_bet": 100,
        "paytable": {
            "royal-flush": 100,
            "straight-flush": 50,
            "four-of-a-kind": 40,
            "full-house": 30,
            "flush": 20,
            "straight": 7,
            "three-of-a-kind": 7,
            "two-pair": 7,
            "pair-of-aces": 7,
        },
    },
    "jackpot": {"enabled": False},
}

GAME = Game(
    name="casino-holdem",
    title="Casino Hold'em",
    actions=frozenset({"call", "fold"}),
    rules_model=CasinoHoldemRules,
    defaults=DEFAULTS,
    board_size=5,
    bonus_keys=(
        "pair-of-aces",
        "two-pair",
        "three-of-a-kind",
        "straight",
        "flush",
        "full-house",
        "four-of-a-kind",
        "straight-flush",
        "royal-flush",
    ),
    advance=advance,
    stakes=stakes,
    settle_main=settle_main,
    bonus_key=bonus_key,
    jackpot_hand=jackpot_hand,
)
