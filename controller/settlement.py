"""Settlement: each bet's result, the maximum-payout cap, bonus, jackpot and shared-box splits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from controller.cards import Card, codes
from controller.hands import HandValue

if TYPE_CHECKING:
    from controller.engine import BoxState, Round

BetKind = Literal["wager", "fee", "bonus", "cap"]
Outcome = Literal["win", "lose", "push", "fold", "withdrawn", "void"]


@dataclass(frozen=True, slots=True)
class Stake:
    """Chips a box has put on one betting spot (``kind`` says how the cap treats them)."""

    bet: str
    amount: int
    kind: BetKind = "wager"


@dataclass(frozen=True, slots=True)
class BetResult:
    """One bet's result for the player: positive won, negative lost, zero pushed or returned."""

    bet: str
    stake: int
    result: int
    kind: BetKind = "wager"


@dataclass(frozen=True, slots=True)
class MainResult:
    """A game's verdict on one box's main game, before the cap, bonus and jackpot."""

    outcome: Outcome
    hand: HandValue | None
    bets: tuple[BetResult, ...]


@dataclass(frozen=True, slots=True)
class DealerResult:
    """The dealer's cards, hand and qualification (``None`` when the round ended before a showdown)."""

    cards: tuple[Card, ...]
    hand: HandValue | None
    qualifies: bool | None


@dataclass(frozen=True, slots=True)
class BettorResult:
    """One bettor's share of a shared box."""

    name: str
    ante: int
    main: int
    bonus: int
    jackpot: int

    @property
    def net(self) -> int:
        return self.main + self.bonus + self.jackpot


@dataclass(frozen=True, slots=True)
class BoxSettlement:
    """Everything a box won or lost this round, bet by bet."""

    box: int
    cards: tuple[Card, ...]
    discards: tuple[Card, ...]
    hand: HandValue | None
    outcome: Outcome
    bets: tuple[BetResult, ...]
    main: int
    bonus: int
    jackpot: int
    capped: bool
    bettors: tuple[BettorResult, ...] = ()

    @property
    def net(self) -> int:
        return self.main + self.bonus + self.jackpot

    @property
    def dealer_pays(self) -> int:
        """What the dealer pays the box at the showdown (negative: collects): main game and bonus; a
        jackpot is paid once a supervisor confirms it."""
        return self.main + self.bonus

    @property
    def cap_cut(self) -> int:
        return -sum(b.result for b in self.bets if b.kind == "cap")


@dataclass(frozen=True, slots=True)
class JackpotHit:
    """A box whose hand hit the progressive jackpot, and what it won."""

    box: int
    hand: str
    amount: int


@dataclass(frozen=True, slots=True)
class JackpotResult:
    """The progressive meter across this round."""

    meter: int
    contribution: int
    hits: tuple[JackpotHit, ...]
    meter_after: int

    @property
    def won(self) -> int:
        return sum(h.amount for h in self.hits)


@dataclass(frozen=True, slots=True)
class RoundSettlement:
    """The settled round: the dealer, the board, every box, the jackpot and the house's result."""

    game: str
    dealer: DealerResult
    board: tuple[Card, ...]
    boxes: tuple[BoxSettlement, ...]
    jackpot: JackpotResult
    house_pays: int
    void: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The settlement as documented in docs/round-format.md."""
        return {
            "game": self.game,
            "void": self.void,
            "dealer": {
                "cards": codes(self.dealer.cards),
                "hand": self.dealer.hand.category if self.dealer.hand else None,
                "qualifies": self.dealer.qualifies,
            },
            "board": codes(self.board),
            "boxes": [_box_json(b) for b in self.boxes],
            "jackpot": {
                "meter": self.jackpot.meter,
                "hits": [{"box": h.box, "hand": h.hand, "amount": h.amount} for h in self.jackpot.hits],
                "won": self.jackpot.won,
                "contribution": self.jackpot.contribution,
                "meter_after": self.jackpot.meter_after,
            },
            "house_pays": self.house_pays,
        }


def _box_json(box: BoxSettlement) -> dict[str, Any]:
    out: dict[str, Any] = {
        "box": box.box,
        "cards": codes(box.cards),
        "discards": codes(box.discards),
        "hand": box.hand.category if box.hand else None,
        "outcome": box.outcome,
        "main": box.main,
        "bonus": box.bonus,
        "jackpot": box.jackpot,
        "net": box.net,
        "capped": box.capped,
        "cap_cut": box.cap_cut,
        "bets": [{"bet": b.bet, "stake": b.stake, "result": b.result} for b in box.bets],
    }
    if box.bettors:
        out["bettors"] = [
            {
                "name": b.name,
                "ante": b.ante,
                "main": b.main,
                "bonus": b.bonus,
                "jackpot": b.jackpot,
                "net": b.net,
            }
            for b in box.bettors
        ]
    return out


def split(amount: int, weights: Sequence[int]) -> list[int]:
    """Share ``amount`` in proportion to ``weights``; the remainder goes to the first (the owner).

    Every share but the first is rounded toward zero, so nobody else is paid, or charged, more
    than their exact share; the parts always add up to ``amount``.
    """
    total = sum(weights)
    if total <= 0:
        return [amount] + [0] * (len(weights) - 1)
    sign = -1 if amount < 0 else 1
    shares = [sign * (abs(amount) * w // total) for w in weights]
    shares[0] += amount - sum(shares)
    return shares


def apply_cap(bets: Sequence[BetResult], max_payout: int) -> tuple[BetResult, ...]:
    """Cut the main game's winnings (wagers only, never fees or returned stakes) to the cap.

    The cut is kept as its own ``cap`` line so the display can show it: never a silent trim.
    """
    won = sum(b.result for b in bets if b.kind == "wager" and b.result > 0)
    if won <= max_payout:
        return tuple(bets)
    return (*bets, BetResult("cap", 0, max_payout - won, kind="cap"))


def _jackpot_hits(rnd: Round) -> dict[int, tuple[str, int]]:
    """Box -> (hand, percent of the meter) for every box whose hand hits the jackpot."""
    cfg = rnd.config.jackpot
    if not cfg.enabled:
        return {}
    hits: dict[int, tuple[str, int]] = {}
    for box in rnd.state.boxes.values():
        if cfg.requires_bonus and not box.bet.bonus:
            continue
        hand = rnd.game.jackpot_hand(rnd.state, box)
        if hand is not None and hand.category in cfg.hit_hands:
            hits[box.box] = (hand.category, cfg.hit_hands[hand.category])
    return hits


def _jackpot_amounts(meter: int, hits: dict[int, tuple[str, int]], *, share: bool) -> dict[int, int]:
    """What each hit wins, from the meter as it stood at the first hit.

    Each hit claims its percentage of that meter. With ``share`` (docs/rules.md: decided) the hits of one
    round never take more than the meter holds: when the claims add up to more, they are scaled
    down in proportion (two royal flushes split the meter equally), rounded down, the remainder
    to the lowest box. Without it each hit is paid its whole claim and the house funds any excess.
    """
    boxes = sorted(hits)
    claims = [meter * hits[b][1] // 100 for b in boxes]
    if share and sum(claims) > meter:
        claims = split(meter, claims)
    return dict(zip(boxes, claims, strict=True))


def _bonus_results(rnd: Round, box: BoxState, jackpot_replaces_bonus: bool) -> list[int]:
    """The bonus result for each bonus stake on the box (one per bettor on a shared box).

    A paytable row of 0 returns the stake; a hand with no row loses it.
    """
    stakes = [b.bonus for b in box.bet.bettors] if box.bet.bettors else [box.bet.bonus]
    if not box.bet.bonus:
        return [0] * len(stakes)
    if jackpot_replaces_bonus:
        return [0] * len(stakes)  # the jackpot replaces the bonus pay; the stake comes back
    key = rnd.game.bonus_key(rnd.state, box)
    pays = rnd.config.bonus.paytable.get(key) if key else None
    return [-s if pays is None else s * pays for s in stakes]


def _settle_mains(rnd: Round) -> tuple[DealerResult, dict[int, MainResult]]:
    """The game's main results. A box that folded loses every stake whatever its cards, so when
    its hand cannot be read (a table with no reading shoe: its cards were mucked face down, or the
    board has cards nobody turned) the game judges the other boxes and the folded box gets its fold
    with no hand. Anything else that needs an unrevealed card (a bonus, the jackpot, a withdrawal,
    a box in play) raises ``Unrevealed``."""
    from controller.engine import Placeholder

    state = rnd.state
    board_unread = any(isinstance(c, Placeholder) for c in state.board_cards())
    hidden = [
        n
        for n, box in state.boxes.items()
        if box.folded and box.did("fold") and (board_unread or any(isinstance(c, Placeholder) for c in box.cards))
    ]
    if not hidden:
        return rnd.game.settle_main(state)
    shadow = replace(state, boxes={n: b for n, b in state.boxes.items() if n not in hidden})
    from controller.games import showdown  # (games build on this module)

    dealer, mains = rnd.game.settle_main(shadow)
    for n in hidden:
        mains[n] = MainResult("fold", None, showdown(rnd.game.stakes(rnd.config, state.boxes[n]), outcome="fold"))
    return dealer, mains


def settle_round(rnd: Round) -> RoundSettlement:
    """Settle a complete round (use :meth:`Round.settle`, which checks it is complete).

    Raises:
        Unrevealed: a card the settlement needs was dealt without identity and is not revealed.
    """
    state, config = rnd.state, rnd.config
    dealer, mains = _settle_mains(rnd)
    hits = _jackpot_hits(rnd)
    amounts = _jackpot_amounts(rnd.jackpot_meter, hits, share=config.jackpot.share_hits)
    boxes: list[BoxSettlement] = []
    house_pays = 0
    losing = 0
    for number in state.box_numbers:
        box = state.boxes[number]
        main = mains[number]
        bets = apply_cap(main.bets, config.max_payout)
        main_net = sum(b.result for b in bets)
        # A hit, whole meter or a share of it, is paid instead of the bonus pay for that hand (docs/rules.md).
        bonus_parts = _bonus_results(rnd, box, number in hits)
        jackpot = amounts.get(number, 0)
        if box.bet.bonus:
            bets = (*bets, BetResult("bonus", box.bet.bonus, sum(bonus_parts), kind="bonus"))
        bettors: tuple[BettorResult, ...] = ()
        if box.bet.bettors:
            people = box.bet.bettors
            mains_split = split(main_net, [p.ante for p in people])
            bonus_weights = [p.bonus for p in people]
            # The jackpot follows the bonus stakes; the owner takes the remainder if they bet one.
            order = sorted(range(len(people)), key=lambda i: (bonus_weights[i] == 0, i))
            jp = split(jackpot, [bonus_weights[i] for i in order]) if jackpot else [0] * len(people)
            jackpot_parts = [0] * len(people)
            for pos, i in enumerate(order):
                jackpot_parts[i] = jp[pos]
            bettors = tuple(
                BettorResult(p.name, p.ante, m, b, j)
                for p, m, b, j in zip(people, mains_split, bonus_parts, jackpot_parts, strict=True)
            )
            house_pays += sum(b.main + b.bonus for b in bettors)
        else:
            house_pays += main_net + sum(bonus_parts)
        if main.outcome in ("lose", "fold"):
            losing += 1
        boxes.append(
            BoxSettlement(
                box=number,
                cards=tuple(box.cards),
                discards=tuple(box.discards),
                hand=main.hand,
                outcome=main.outcome,
                bets=bets,
                main=main_net,
                bonus=sum(bonus_parts),
                jackpot=jackpot,
                capped=any(b.kind == "cap" for b in bets),
                bettors=bettors,
            )
        )
    cfg = config.jackpot
    contribution = losing * cfg.contribution if cfg.enabled else 0
    meter = rnd.jackpot_meter
    won = sum(amounts.values())
    after = (max(cfg.reset, meter - won) if hits else meter) + contribution
    jackpot_result = JackpotResult(
        meter=meter,
        contribution=contribution,
        hits=tuple(JackpotHit(b, hits[b][0], amounts[b]) for b in sorted(hits)),
        meter_after=after,
    )
    return RoundSettlement(
        game=rnd.game.name,
        dealer=dealer,
        board=tuple(state.board_cards()),
        boxes=tuple(boxes),
        jackpot=jackpot_result,
        house_pays=house_pays,
    )


def void_round(rnd: Round, reason: str) -> RoundSettlement:
    """Cancel the round: every stake placed so far goes back, nothing is paid or contributed."""
    state = rnd.state
    boxes = []
    for number in state.box_numbers:
        box = state.boxes[number]
        stakes = rnd.game.stakes(rnd.config, box)
        if box.bet.bonus:
            stakes = [*stakes, Stake("bonus", box.bet.bonus, "bonus")]
        boxes.append(
            BoxSettlement(
                box=number,
                cards=tuple(box.cards),
                discards=tuple(box.discards),
                hand=None,
                outcome="void",
                bets=tuple(BetResult(s.bet, s.amount, 0, s.kind) for s in stakes),
                main=0,
                bonus=0,
                jackpot=0,
                capped=False,
                bettors=tuple(BettorResult(p.name, p.ante, 0, 0, 0) for p in box.bet.bettors),
            )
        )
    return RoundSettlement(
        game=rnd.game.name,
        dealer=DealerResult(tuple(state.dealer), None, None),
        board=tuple(state.board_cards()),
        boxes=tuple(boxes),
        jackpot=JackpotResult(rnd.jackpot_meter, 0, (), rnd.jackpot_meter),
        house_pays=0,
        void=reason,
    )
