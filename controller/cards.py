"""Cards and decks: parsing card codes, the 52 canonical cards, and index arithmetic."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

from controller.errors import CardError

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"
RANK_NAMES: Final = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)  # fmt: skip


class Card:
    """One of the 52 cards; ``index = rank * 4 + suit`` (rank 0..12 = 2..A, suit order c d h s).

    There is exactly one instance per card (use :func:`card` or :data:`DECK`), so cards compare
    and hash by identity as cheaply as ints.
    """

    __slots__ = ("code", "index", "rank", "suit")

    index: int
    rank: int
    suit: int
    code: str

    def __init__(self, index: int) -> None:
        self.index = index
        self.rank, self.suit = divmod(index, 4)
        self.code = RANKS[self.rank] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        return self.code

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index


DECK: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))
_BY_CODE: Final[dict[str, Card]] = {c.code.lower(): c for c in DECK}
for _c in DECK:
    if _c.code[0] == "T":
        _BY_CODE["10" + _c.code[1]] = _c


def card(code: str | Card) -> Card:
    """Return the card for a code such as ``"As"``, ``"td"`` or ``"10d"`` (case-insensitive).

    Raises:
        CardError: the code is not one of the 52 cards.
    """
    if isinstance(code, Card):
        return code
    if not isinstance(code, str):
        raise CardError(f"card code must be a string like 'As', got {code!r}")
    found = _BY_CODE.get(code.strip().lower())
    if found is None:
        raise CardError(f"unknown card code {code!r} (rank 2-9 T J Q K A or 10, suit c d h s)")
    return found


def cards(codes: Iterable[str | Card], *, distinct: bool = True) -> tuple[Card, ...]:
    """Parse several card codes; with ``distinct`` a card given twice is refused.

    Raises:
        CardError: an unknown code, or (with ``distinct``) the same card twice.
    """
    parsed = tuple(card(c) for c in codes)
    if distinct and len(set(parsed)) != len(parsed):
        seen: set[Card] = set()
        for c in parsed:
            if c in seen:
                raise CardError(f"card {c} appears twice")
            seen.add(c)
    return parsed


def codes(hand: Iterable[Card]) -> list[str]:
    """Canonical codes of cards, e.g. ``["As", "Td"]``."""
    return [c.code for c in hand]


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A freshly shuffled 52-card deck; the caller owns the randomness (the engine has none)."""
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def indices(hand: Sequence[Card]) -> list[int]:
    """Card indices (``rank * 4 + suit``) for the bulk evaluator."""
    return [c.index for c in hand]
