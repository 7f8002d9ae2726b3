"""The pure round state machine: what is expected next, checking and applying cards and decisions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from controller.cards import Card
from controller.errors import RuleViolation

if TYPE_CHECKING:
    from controller.config import TableConfig
    from controller.games import Game
    from controller.settlement import RoundSettlement

Target = Literal["box", "dealer", "board"]
_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


@dataclass(frozen=True, slots=True)
class Bettor:
    """One player's stake on a shared box; the first bettor listed owns the box and decides."""

    name: str
    ante: int
    bonus: int = 0


@dataclass(frozen=True, slots=True)
class BoxBet:
    """The bets on one box when the round opens."""

    box: int
    ante: int
    bonus: int = 0
    blind: bool = False
    bettors: tuple[Bettor, ...] = ()


@dataclass(frozen=True, slots=True)
class Slot:
    """Where one card from the shoe goes: a box, the dealer or the board, at a position."""

    target: Target
    index: int
    box: int = 0
    face_up: bool = False
    label: str = ""

    def describe(self) -> str:
        where = {"box": f"box {self.box}", "dealer": "the dealer", "board": "the board"}[self.target]
        face = "face up" if self.face_up else "face down"
        what = self.label or f"card {self.index + 1}"
        return f"deal {what} to {where}, {face}"


@dataclass(frozen=True, slots=True)
class Deal:
    """The next card from the shoe is expected, for this slot."""

    slot: Slot

    def describe(self) -> str:
        return self.slot.describe()


@dataclass(frozen=True, slots=True)
class Decide:
    """A box must decide; ``options`` are the legal actions now."""

    box: int
    options: tuple[str, ...]
    stage: str = ""

    def describe(self) -> str:
        return f"box {self.box} to decide: {' or '.join(self.options)}"


@dataclass(frozen=True, slots=True)
class Complete:
    """Nothing more is dealt or decided: the round can be settled."""

    def describe(self) -> str:
        return "round complete: settle"


Step = Deal | Decide | Complete


@dataclass(frozen=True, slots=True)
class Action:
    """A box's decision. ``discard`` is given with exchanges."""

    box: int
    action: str
    discard: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class CardDealt:
    """Event: a card left the shoe and was placed in a slot."""

    number: int
    card: Card
    slot: Slot


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """Event: a decision was checked and applied; ``stage`` is the decision round it belonged to."""

    number: int
    action: Action
    stage: str


Event = CardDealt | ActionTaken


@dataclass(slots=True)
class BoxState:
    """One box during the round. Mutated only by the engine while applying checked events."""

    bet: BoxBet
    cards: list[Card] = field(default_factory=list)
    received: list[Card] = field(default_factory=list)
    discards: list[Card] = field(default_factory=list)
    actions: list[ActionTaken] = field(default_factory=list)
    folded: bool = False

    @property
    def box(self) -> int:
        return self.bet.box

    def actions_in(self, stage: str) -> list[str]:
        return [a.action.action for a in self.actions if a.stage == stage]

    def did(self, action: str) -> int:
        """How many times the box took ``action``."""
        return sum(1 for a in self.actions if a.action.action == action)


@dataclass(slots=True)
class RoundState:
    """Everything the rules look at: the config, boxes, dealer, board and cards still owed."""

    config: TableConfig
    boxes: dict[int, BoxState]
    dealer: list[Card] = field(default_factory=list)
    board: list[Card | None] = field(default_factory=list)
    pending: list[Slot] = field(default_factory=list)
    seen: set[Card] = field(default_factory=set)
    flags: set[str] = field(default_factory=set)  # what the dealer has done, e.g. "dealer-shown"

    @property
    def box_numbers(self) -> list[int]:
        return sorted(self.boxes)

    def in_play(self) -> list[BoxState]:
        """Boxes still in the round, in ascending order."""
        return [self.boxes[b] for b in self.box_numbers if not self.boxes[b].folded]

    def filled(self, slot: Slot) -> bool:
        if slot.target == "box":
            return len(self.boxes[slot.box].received) > slot.index
        if slot.target == "dealer":
            return len(self.dealer) > slot.index
        return self.board[slot.index] is not None

    def first_missing(self, plan: Iterable[Slot]) -> Deal | None:
        for slot in plan:
            if not self.filled(slot):
                return Deal(slot)
        return None

    def board_cards(self) -> list[Card]:
        return [c for c in self.board if c is not None]


def deal_passes(boxes: Sequence[int], *, passes: int, dealer_face_up: Iterable[int] = ()) -> list[Slot]:
    """Round-robin deal: each pass gives one card to every box in ascending order, then the dealer."""
    up = set(dealer_face_up)
    plan: list[Slot] = []
    for i in range(passes):
        plan.extend(Slot("box", i, box=b) for b in boxes)
        plan.append(Slot("dealer", i, face_up=i in up))
    return plan


def ordinal(i: int) -> str:
    return _ORDINAL[i] if i < len(_ORDINAL) else f"#{i + 1}"


class Round:
    """One round of one game, driven by cards and decisions; every step is checked first.

    The round is pure: no I/O, clock or randomness. Each accepted card or decision is kept as an
    immutable event, and :meth:`replay` rebuilds the same round from them.
    """

    def __init__(self, *, config: TableConfig, bets: Sequence[BoxBet], jackpot_meter: int = 0) -> None:
        from controller.games import get_game

        self.game: Game = get_game(config.game)
        self.config = config
        self.jackpot_meter = jackpot_meter
        self.bets = tuple(sorted(bets, key=lambda b: b.box))
        self.game.check_bets(config, self.bets)
        if jackpot_meter < 0:
            raise RuleViolation("jackpot.meter", f"the jackpot meter cannot be negative ({jackpot_meter})")
        self.state = RoundState(
            config=config,
            boxes={b.box: BoxState(bet=b) for b in self.bets},
            board=[None] * self.game.board_size,
        )
        self._events: list[Event] = []

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    @property
    def cards_dealt(self) -> int:
        return sum(1 for e in self._events if isinstance(e, CardDealt))

    def expected(self) -> Step:
        """What the round waits for now."""
        if self.state.pending:
            return Deal(self.state.pending[0])
        return self.game.advance(self.state)

    def check_card(self, card: Card) -> Slot:
        """The slot ``card`` would fill; raises if no card is expected or it was dealt already.

        Raises:
            RuleViolation: ``deal.not-expected`` or ``deal.duplicate-card``.
        """
        step = self.expected()
        if not isinstance(step, Deal):
            raise RuleViolation("deal.not-expected", f"no card is expected now: {step.describe()}")
        if card in self.state.seen:
            raise RuleViolation("deal.duplicate-card", f"card {card} was already dealt this round")
        return step.slot

    def deal(self, card: Card) -> CardDealt:
        """Place the next card from the shoe.

        Raises:
            RuleViolation: as :meth:`check_card`.
        """
        slot = self.check_card(card)
        state = self.state
        if state.pending and state.pending[0] == slot:
            state.pending.pop(0)
        if slot.target == "box":
            box = state.boxes[slot.box]
            box.cards.append(card)
            box.received.append(card)
        elif slot.target == "dealer":
            state.dealer.append(card)
        else:
            state.board[slot.index] = card
        state.seen.add(card)
        event = CardDealt(number=len(self._events) + 1, card=card, slot=slot)
        self._events.append(event)
        return event

    def check_action(self, action: Action) -> Decide:
        """Check a decision against the rules without applying it.

        Raises:
            RuleViolation: the box is not to decide now, the action is not legal now, or its
                details (e.g. the cards to exchange) are wrong; the rule is named.
        """
        if action.box == 0:
            return self._check_table_action(action)
        if action.box not in self.state.boxes:
            raise RuleViolation("decide.no-such-box", f"box {action.box} is not playing this round")
        if action.action not in self.game.actions:
            raise RuleViolation(
                f"{self.game.name}.actions",
                f"{action.action!r} is not an action of {self.game.title} "
                f"(actions: {', '.join(sorted(self.game.actions))})",
            )
        step = self.expected()
        if not isinstance(step, Decide):
            raise RuleViolation("decide.not-expected", f"no decision is expected now: {step.describe()}")
        if step.box != action.box:
            raise RuleViolation("decide.out-of-turn", f"box {action.box} cannot decide now: {step.describe()}")
        if action.action not in step.options:
            raise RuleViolation(
                f"{self.game.name}.{step.stage or 'decision'}",
                f"box {action.box} cannot {action.action} now: {step.describe()}",
            )
        if action.discard and action.action != "exchange":
            raise RuleViolation("decide.discard", f"only an exchange discards cards, not {action.action}")
        self.game.check_action(self.state, action)
        return step

    def _check_table_action(self, action: Action) -> Decide:
        """The dealer's own actions (box 0), e.g. showing his hand early in Hold'em with exchange."""
        if action.action not in self.game.table_actions:
            raise RuleViolation(
                f"{self.game.name}.table-actions",
                f"{action.action!r} is not a dealer action of {self.game.title}",
            )
        step = self.expected()
        if not isinstance(step, Decide):
            raise RuleViolation("decide.not-expected", f"{action.action} only while boxes decide: {step.describe()}")
        self.game.check_action(self.state, action)
        return Decide(0, (action.action,), stage="dealer")

    def act(self, action: Action) -> ActionTaken:
        """Apply a decision after checking it.

        Raises:
            RuleViolation: as :meth:`check_action`.
        """
        step = self.check_action(action)
        event = ActionTaken(number=len(self._events) + 1, action=action, stage=step.stage)
        if action.box:
            self.state.boxes[action.box].actions.append(event)
        self.state.pending.extend(self.game.apply_action(self.state, action))
        self._events.append(event)
        return event

    def settle(self) -> RoundSettlement:
        """Settle the completed round.

        Raises:
            RuleViolation: ``settle.incomplete`` when cards or decisions are still expected.
        """
        from controller.settlement import settle_round

        step = self.expected()
        if not isinstance(step, Complete):
            raise RuleViolation("settle.incomplete", f"the round is not complete: {step.describe()}")
        return settle_round(self)

    def void(self, reason: str) -> RoundSettlement:
        """Cancel the round: every stake goes back and nothing is paid (RULES: irregularities)."""
        from controller.settlement import void_round

        return void_round(self, reason)

    @classmethod
    def replay(
        cls,
        *,
        config: TableConfig,
        bets: Sequence[BoxBet],
        events: Iterable[Card | Action],
        jackpot_meter: int = 0,
    ) -> Round:
        """Rebuild a round from its setup and its cards and decisions, in order.

        Raises:
            RuleViolation: an event the rules refuse at that point of the replay.
        """
        rnd = cls(config=config, bets=bets, jackpot_meter=jackpot_meter)
        for item in events:
            if isinstance(item, Action):
                rnd.act(item)
            else:
                rnd.deal(item)
        return rnd
