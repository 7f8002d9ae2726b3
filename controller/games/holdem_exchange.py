"""Hold'em with exchange (seed 002): bet, fold or buy the fourth board card, then exchange hole cards."""

from __future__ import annotations

from typing import Any

from pydantic import Field, StrictBool, StrictInt

from controller.config import GameRules, Qualification, TableConfig
from controller.engine import Action, BoxState, Complete, Decide, RoundState, Slot, Step, deal_passes
from controller.errors import RuleViolation
from controller.games import CategoryPaytable, Game, compare, qualifies, rules_of, showdown
from controller.hands import HandValue, evaluate
from controller.settlement import DealerResult, MainResult, Stake

# The two face-down board cards (4th and 5th) come out of the shoe before the flop.
BOARD = [
    Slot("board", 3, label="board card 4"),
    Slot("board", 4, label="board card 5"),
    *(Slot("board", i, face_up=True, label=f"flop card {i + 1}") for i in range(3)),
]
FIRST, SECOND = "first-decision", "after-buying"
SHOWN = "dealer-shown"
# Seed 002: "if the dealer, opening the sixth card, opens the seventh instead, the game continues as
# usual": the 5th board card was turned where the 4th was due, and it counts as the 4th.
FIFTH = "fifth-turned"


class HoldemExchangeRules(GameRules):
    """Hold'em with exchange's settings; defaults are docs/rules.md's (decided points marked there)."""

    qualify: Qualification = Qualification(category="pair")
    bet_multiple: StrictInt = Field(default=2, ge=1, description="the bet, in antes (decided)")
    buy_fee: StrictInt = Field(default=1, ge=0, description="the price of the 4th card, in antes")
    exchange_fee: StrictInt = Field(default=1, ge=0, description="the exchange fee, in antes")
    max_exchange: StrictInt = Field(default=2, ge=1, le=2, description="hole cards one exchange may replace")
    not_qualified_ante_pays: StrictInt = Field(default=1, ge=0, description="decided: ante 1:1, bet returned")
    withdraw_on_early_show: StrictBool = Field(
        default=True,
        description="dealer shows his hand before all decisions: the undecided may fold or withdraw (decided)",
    )
    bet_paytable: CategoryPaytable = Field(
        default_factory=lambda: {
            "royal-flush": 100,
            "straight-flush": 15,
            "four-of-a-kind": 15,
            "full-house": 6,
            "flush": 2,
            "straight": 2,
            "three-of-a-kind": 2,
            "two-pair": 1,
            "pair": 1,
            "high-card": 1,
        }
    )


def _rules(state: RoundState) -> HoldemExchangeRules:
    return rules_of(state.config, HoldemExchangeRules)


def advance(state: RoundState) -> Step:
    """Deal; every box: fold, bet or buy; then each buyer: fold, bet or exchange (then fold or bet)."""
    deal = state.first_missing([*deal_passes(state.box_numbers, passes=2), *BOARD])
    if deal:
        return deal
    # Once the dealer has shown his hand, a box still to decide may only fold or withdraw.
    shown = SHOWN in state.flags
    for box in state.in_play():
        if not box.actions_in(FIRST):
            return Decide(box.box, ("fold", "withdraw") if shown else ("fold", "bet", "buy"), stage=FIRST)
    # Every box has decided once; the dealer has turned the 4th card if anyone bought.
    for box in state.in_play():
        if box.actions_in(FIRST) == ["buy"] and not box.did("bet"):
            options = ("fold", "bet") if box.did("exchange") else ("fold", "bet", "exchange")
            return Decide(box.box, ("fold", "withdraw") if shown else options, stage=SECOND)
    return Complete()


def turned(state: RoundState) -> frozenset[Slot]:
    """Once every box has decided once and any bought, the dealer turns board card 4 face up; a
    dealer who shows his hand early turns his own two."""
    boxes = list(state.boxes.values())
    up: set[Slot] = set()
    if all(b.folded or b.actions_in(FIRST) for b in boxes) and any(b.actions_in(FIRST) == ["buy"] for b in boxes):
        up.add(BOARD[0])
    if BOARD[0] in up and FIFTH in state.flags:
        up.discard(BOARD[0])
        up.add(BOARD[1])  # the 5th card was turned instead: it counts as the 4th
    if SHOWN in state.flags:
        up.update(Slot("dealer", i) for i in range(2))
    return frozenset(up)


def check_action(state: RoundState, action: Action) -> None:
    """An exchange replaces one or two of the box's own hole cards; the dealer shows early once; the
    5th board card turned for the 4th is said once, while the buyers decide."""
    if action.action == FIFTH:
        if FIFTH in state.flags:
            raise RuleViolation("holdem-exchange.fifth-turned", "the 5th board card already counts as the 4th")
        if BOARD[0] not in turned(state):
            raise RuleViolation(
                "holdem-exchange.fifth-turned", "no board card is turned yet: the 4th is turned once every box decided"
            )
        return
    if action.action == SHOWN:
        if not _rules(state).withdraw_on_early_show:
            raise RuleViolation(
                "holdem-exchange.early-show",
                "this table treats a dealer hand shown early as an exposed card: report it (redeal or cancel)",
            )
        if SHOWN in state.flags:
            raise RuleViolation("holdem-exchange.early-show", "the dealer's hand is already shown")
        return
    if action.action != "exchange":
        return
    box = state.boxes[action.box]
    limit = _rules(state).max_exchange
    if not 1 <= len(action.discard) <= limit:
        raise RuleViolation(
            "holdem-exchange.exchange-count",
            f"box {action.box}: an exchange replaces 1 to {limit} hole cards",
        )
    if len(set(action.discard)) != len(action.discard):
        raise RuleViolation("holdem-exchange.exchange-count", f"box {action.box}: a card is discarded twice")
    for c in action.discard:
        if c not in box.cards:
            raise RuleViolation("holdem-exchange.exchange-own-card", f"box {action.box} does not hold {c}")


def apply_action(state: RoundState, action: Action) -> list[Slot]:
    if action.action in (SHOWN, FIFTH):
        state.flags.add(action.action)
        return []
    box = state.boxes[action.box]
    if action.action in ("fold", "withdraw"):
        box.folded = True
    elif action.action == "exchange":
        for c in action.discard:
            box.cards.remove(c)
            box.discards.append(c)
        first = len(box.received)
        return [
            Slot("box", first + i, box=box.box, label=f"replacement card {i + 1}") for i in range(len(action.discard))
        ]
    return []


def stakes(config: TableConfig, box: BoxState) -> list[Stake]:
    rules = rules_of(config, HoldemExchangeRules)
    ante = box.bet.ante
    placed = [Stake("ante", ante)]
    if box.did("bet"):
        placed.append(Stake("bet", ante * rules.bet_multiple))
    if box.did("buy"):
        placed.append(Stake("buy-fee", ante * rules.buy_fee, "fee"))
    placed.extend(Stake("exchange-fee", ante * rules.exchange_fee, "fee") for _ in range(box.did("exchange")))
    return placed


def settle_main(state: RoundState) -> tuple[DealerResult, dict[int, MainResult]]:
    rules = _rules(state)
    board = state.board_cards()
    # No box left in play: no showdown, the dealer's hand is never shown.
    dealer = evaluate([*state.dealer, *board]) if state.in_play() else None
    dealer_qualifies = qualifies(dealer, rules.qualify) if dealer else None
    results: dict[int, MainResult] = {}
    for number in state.box_numbers:
        box = state.boxes[number]
        placed = stakes(state.config, box)
        hand = evaluate([*box.cards, *board])
        if box.did("withdraw"):
            # Stakes returned; fees are never returned (docs/rules.md: decided, the dealer showed early).
            results[number] = MainResult("withdrawn", hand, showdown(placed, outcome="push"))
        elif box.folded or dealer is None:
            results[number] = MainResult("fold", hand, showdown(placed, outcome="fold"))
        elif not dealer_qualifies:
            pays = {"ante": rules.not_qualified_ante_pays, "bet": 0}
            results[number] = MainResult("win", hand, showdown(placed, outcome="win", pays=pays))
        else:
            outcome = compare(hand, dealer)
            pays = {"ante": 1, "bet": rules.bet_paytable[hand.category]}
            results[number] = MainResult(outcome, hand, showdown(placed, outcome=outcome, pays=pays))
    return DealerResult(tuple(state.dealer), dealer, dealer_qualifies), results


def bonus_key(state: RoundState, box: BoxState) -> str | None:
    """The game has no bonus bet (the configuration refuses one)."""
    return None


def jackpot_hand(state: RoundState, box: BoxState) -> HandValue | None:
    """If an operator links the jackpot, it is judged on the box's final hand."""
    return None if box.folded else evaluate([*box.cards, *state.board_cards()])


DEFAULTS: dict[str, Any] = {
    "min_bet": 10,
    "max_bet": 100,
    "max_payout": 3000,
    "max_bettors": 3,
    "bonus": {"enabled": False},
    "jackpot": {"enabled": False, "requires_bonus": False},
}

GAME = Game(
    name="holdem-exchange",
    title="Hold'em with exchange",
    actions=frozenset({"fold", "bet", "buy", "exchange", "withdraw"}),
    table_actions=frozenset({SHOWN, FIFTH}),
    one_box_per_player=True,
    rules_model=HoldemExchangeRules,
    defaults=DEFAULTS,
    board_size=5,
    advance=advance,
    check_action=check_action,
    apply_action=apply_action,
    stakes=stakes,
    turned=turned,
    settle_main=settle_main,
    bonus_key=bonus_key,
    jackpot_hand=jackpot_hand,
)
