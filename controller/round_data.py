"""The round's data: bets, the deal plan's slots, the steps expected, the events kept and the state shown."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, overload

from controller.cards import Card
from controller.errors import RuleViolation

if TYPE_CHECKING:
    from controller.config import TableConfig

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


class _Unread:
    """A :class:`Card` field a placeholder cannot answer: reading it raises :class:`Unrevealed`."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _Unread: ...
    @overload
    def __get__(self, obj: Placeholder, owner: type | None = None) -> int: ...
    def __get__(self, obj: Placeholder | None, owner: type | None = None) -> int | _Unread:
        if obj is None:
            return self
        raise Unrevealed(obj.number)

    def __set__(self, obj: Placeholder, value: int) -> None:
        raise AttributeError(f"a placeholder has no {self.name}")


class Placeholder(Card):
    """A card dealt without its identity (a table with no reading shoe): it fills its slot until
    the camera or a supervisor reveals it.

    Its ``code`` is ``?n``, n its number among the round's cards (from 1). Its rank, suit and
    index cannot be read: any rule that would judge a hand on it raises :class:`Unrevealed`, so
    nothing is ever settled on a card nobody has read. A placeholder that only names a card
    number (parsed from ``?n``) is resolved by the round to the card it points at.
    """

    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        # Card's index, rank and suit slots stay empty: the _Unread descriptors stand in for them.
        self.number = number
        self.code = f"?{number}"

    def __repr__(self) -> str:
        return f"Placeholder({self.number})"

    index = _Unread()
    rank = _Unread()
    suit = _Unread()


class Unrevealed(RuleViolation):
    """A rule needed the identity of a card dealt without one (``number``: its number in the round)."""

    def __init__(self, number: int) -> None:
        super().__init__("settle.unrevealed", f"card {number} has not been revealed")
        self.number = number


def placeholder_ref(code: str) -> Placeholder | None:
    """``?n`` (a card dealt without identity, by number) as a reference, or None for any other text."""
    text = code.strip()
    if len(text) > 1 and text[0] == "?" and text[1:].isdigit() and int(text[1:]) >= 1:
        return Placeholder(int(text[1:]))
    return None


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

    def where(self) -> str:
        """The place, e.g. ``box 3 card 2``, ``the dealer card 1``, ``the board flop card 1``."""
        owner = {"box": f"box {self.box}", "dealer": "the dealer", "board": "the board"}[self.target]
        return f"{owner} {self.label or f'card {self.index + 1}'}"


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


@dataclass(frozen=True, slots=True)
class Identify:
    """Everything is dealt and decided, but the settlement needs the identity of card ``number``
    (dealt without one, in ``slot``): the camera reads it when it is turned up, or a supervisor enters it."""

    slot: Slot
    number: int

    def describe(self) -> str:
        return f"turn up card {self.number} ({self.slot.where()}): the settlement needs it"


Step = Deal | Decide | Complete | Identify


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


@dataclass(frozen=True, slots=True)
class CardRevealed:
    """Event: card ``dealt`` (its number among the round's cards), dealt without identity, is ``card``."""

    number: int
    dealt: int
    card: Card
    slot: Slot


@dataclass(frozen=True, slots=True)
class Reveal:
    """A replay item: card ``dealt`` of the round is ``card`` (see :meth:`Round.reveal`)."""

    dealt: int
    card: Card


Event = CardDealt | ActionTaken | CardRevealed


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
