"""Oasis Poker (seed 000): five-card stud against the dealer, one exchange, blind boxes, jackpot."""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, StrictInt

from controller.config import GameRules, Qualification, TableConfig
from controller.engine import Action, BoxState, Complete, Decide, RoundState, Slot, Step, deal_passes
from controller.errors import RuleViolation
from controller.games import Game, Paytable, compare, qualifies, rules_of, showdown
from controller.hands import HandValue, evaluate
from controller.settlement import DealerResult, MainResult, Stake

HAND_SIZE = 5


class OasisRules(GameRules):
    """Oasis Poker's settings; defaults are docs/rules.md's."""

    qualify: Qualification = Qualification(category="ace-king")
    raise_multiple: StrictInt = Field(default=2, ge=1, description="the raise, in antes")
    exchange_fee: StrictInt = Field(default=1, ge=0, description="the exchange fee, in antes")
    exchanges: StrictInt = Field(default=1, ge=0, le=1, description="exchanges allowed per box")
    raise_paytable: Paytable = Field(
        default_factory=lambda: {
            "royal-flush": 100,
            "straight-flush": 50,
            "four-of-a-kind": 20,
            "full-house": 7,
            "flush": 5,
            "straight": 4,
            "three-of-a-kind": 3,
            "two-pair": 2,
            "pair": 1,
            "ace-king": 1,
            "high-card": 1,
        }
    )
    bonus_lost_on_exchange: StrictBool = True
    bonus_lost_on_fold: StrictBool = True  # decided


def _rules(state: RoundState) -> OasisRules:
    return rules_of(state.config, OasisRules)


def _plan(state: RoundState) -> list[Slot]:
    return deal_passes(state.box_numbers, passes=HAND_SIZE, dealer_face_up=[HAND_SIZE - 1])


def advance(state: RoundState) -> Step:
    """Deal five passes, then each box (not blind) in turn: fold, raise or exchange once."""
    deal = state.first_missing(_plan(state))
    if deal:
        return deal
    limit = _rules(state).exchanges
    for box in state.in_play():
        if box.bet.blind or box.did("raise"):
            continue
        options = ("fold", "raise", "exchange") if box.did("exchange") < limit else ("fold", "raise")
        return Decide(box.box, options, stage="decision")
    return Complete()


def check_action(state: RoundState, action: Action) -> None:
    """An exchange discards exactly one card the box holds."""
    if action.action != "exchange":
        return
    box = state.boxes[action.box]
    if len(action.discard) != 1:
        raise RuleViolation("oasis.exchange-one", f"box {action.box}: an exchange discards exactly one card")
    if action.discard[0] not in box.cards:
        raise RuleViolation("oasis.exchange-own-card", f"box {action.box} does not hold {action.discard[0]}")


def apply_action(state: RoundState, action: Action) -> list[Slot]:
    box = state.boxes[action.box]
    if action.action == "fold":
        box.folded = True
    elif action.action == "exchange":
        box.cards.remove(action.discard[0])
        box.discards.append(action.discard[0])
        return [Slot("box", len(box.received), box=box.box, label="the exchanged card")]
    return []


def stakes(config: TableConfig, box: BoxState) -> list[Stake]:
    rules = rules_of(config, OasisRules)
    ante = box.bet.ante
    placed = [Stake("ante", ante)]
    if box.bet.blind or box.did("raise"):
        placed.append(Stake("raise", ante * rules.raise_multiple))
    placed.extend(Stake("exchange-fee", ante * rules.exchange_fee, "fee") for _ in range(box.did("exchange")))
    return placed


def settle_main(state: RoundState) -> tuple[DealerResult, dict[int, MainResult]]:
    rules = _rules(state)
    # No box left in play: no showdown, the dealer's hand is never shown.
    dealer = evaluate(state.dealer, ace_king=True) if state.in_play() else None
    dealer_qualifies = qualifies(dealer, rules.qualify) if dealer else None
    results: dict[int, MainResult] = {}
    for number in state.box_numbers:
        box = state.boxes[number]
        placed = stakes(state.config, box)
        hand = evaluate(box.cards, ace_king=True)
        if box.folded or dealer is None:
            results[number] = MainResult("fold", hand, showdown(placed, outcome="fold"))
        elif not dealer_qualifies:
            # The ante wins 1:1, the raise comes back.
            results[number] = MainResult("win", hand, showdown(placed, outcome="win", pays={"raise": 0}))
        else:
            outcome = compare(hand, dealer)
            pays = {"raise": rules.raise_paytable[hand.category]}
            results[number] = MainResult(outcome, hand, showdown(placed, outcome=outcome, pays=pays))
    return DealerResult(tuple(state.dealer), dealer, dealer_qualifies), results


def _dealt_five(box: BoxState) -> HandValue:
    return evaluate(box.received[:HAND_SIZE], ace_king=True)


def _bonus_live(state: RoundState, box: BoxState) -> bool:
    rules = _rules(state)
    if box.folded and rules.bonus_lost_on_fold:
        return False
    return not (box.did("exchange") and rules.bonus_lost_on_exchange)


def bonus_key(state: RoundState, box: BoxState) -> str | None:
    """The bonus settles on the five cards as dealt."""
    return _dealt_five(box).category if _bonus_live(state, box) else None


def jackpot_hand(state: RoundState, box: BoxState) -> HandValue | None:
    return _dealt_five(box) if _bonus_live(state, box) else None


DEFAULTS: dict[str, Any] = {
    "min_bet": 10,
    "max_bet": 100,
    "max_payout": 3000,
    "max_bettors": 3,
    "bonus": {
        "enabled": True,
        "min_bet": 2,
        "max_bet": 5,
        "paytable": {
            "straight": 40,
            "flush": 60,
            "full-house": 100,
            "four-of-a-kind": 200,
            "straight-flush": 500,
            "royal-flush": 1000,
        },
    },
    "jackpot": {"enabled": True, "reset": 10_000, "contribution": 1, "hit_hands": {"royal-flush": 100}},
}

GAME = Game(
    name="oasis",
    title="Oasis Poker",
    actions=frozenset({"fold", "raise", "exchange"}),
    rules_model=OasisRules,
    defaults=DEFAULTS,
    board_size=0,
    bonus_keys=(
        "three-of-a-kind",
        "straight",
        "flush",
        "full-house",
        "four-of-a-kind",
        "straight-flush",
        "royal-flush",
    ),
    blind_boxes=True,
    advance=advance,
    check_action=check_action,
    apply_action=apply_action,
    stakes=stakes,
    settle_main=settle_main,
    bonus_key=bonus_key,
    jackpot_hand=jackpot_hand,
)
