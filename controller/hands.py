"""Poker hand evaluation: best five of five to seven cards, single hands and bulk arrays."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import total_ordering
from itertools import combinations
from typing import Final

from controller.cards import Card
from controller.cards import cards as parse_cards
from controller.errors import CardError

# Low to high. "ace-king" is not a category of its own in the ordering: it is a high-card hand that
# holds an ace and a king, which Oasis Poker names and pays separately (see evaluate(ace_king=True)).
CATEGORIES: Final = (
    "high-card",
    "pair",
    "two-pair",
    "three-of-a-kind",
    "straight",
    "flush",
    "full-house",
    "four-of-a-kind",
    "straight-flush",
    "royal-flush",
)
HAND_NAMES: Final = (*CATEGORIES[:1], "ace-king", *CATEGORIES[1:])
CATEGORY_INDEX: Final = {name: i for i, name in enumerate(CATEGORIES)}
_ACE, _KING = 12, 11


@total_ordering
@dataclass(frozen=True, eq=False, slots=True)
class HandValue:
    """A hand's value: compare two values to compare the hands (equal = tie).

    ``strength`` is the integer the bulk API returns for the same cards; ``cards`` are the five
    that make the hand, the cards that decide ties first.
    """

    strength: int
    category: str
    cards: tuple[Card, ...]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandValue) and self.strength == other.strength

    def __lt__(self, other: HandValue) -> bool:
        return self.strength < other.strength

    def __hash__(self) -> int:
        return hash(self.strength)

    def at_least(self, category: str) -> bool:
        """True when this hand's category is ``category`` or higher (``ace-king`` allowed)."""
        if category == "ace-king":
            return self.category != "high-card" or self.is_ace_king
        return (
            CATEGORY_INDEX[self.category if self.category != "ace-king" else "high-card"] >= (CATEGORY_INDEX[category])
        )

    @property
    def is_ace_king(self) -> bool:
        """A high-card hand holding an ace and a king (Oasis Poker's "ace-king")."""
        ranks = {c.rank for c in self.cards}
        return self.category in ("high-card", "ace-king") and _ACE in ranks and _KING in ranks


def _five(hand: tuple[Card, ...]) -> tuple[int, tuple[int, ...], tuple[Card, ...]]:
    """Category index, tie-break ranks and the cards in significance order, for five cards."""
    counts = Counter(c.rank for c in hand)
    # Order ranks by (count, rank): the pair before its kickers, the trips before the pair.
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    ordered = tuple(sorted(hand, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True))
    flush = len({c.suit for c in hand}) == 1
    ranks = sorted(counts, reverse=True)
    straight_high = -1
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_high = ranks[0]
        elif ranks == [_ACE, 3, 2, 1, 0]:  # the wheel, A-2-3-4-5: the ace plays low
            straight_high = 3
            ordered = (*ordered[1:], ordered[0])
    shape = sorted(counts.values(), reverse=True)
    if straight_high >= 0 and flush:
        cat = 9 if straight_high == _ACE else 8
        return cat, (straight_high,), ordered
    if shape[0] == 4:
        return 7, tuple(order), ordered
    if shape == [3, 2]:
        return 6, tuple(order), ordered
    if flush:
        return 5, tuple(order), ordered
    if straight_high >= 0:
        return 4, (straight_high,), ordered
    if shape[0] == 3:
        return 3, tuple(order), ordered
    if shape == [2, 2, 1]:
        return 2, tuple(order), ordered
    if shape[0] == 2:
        return 1, tuple(order), ordered
    return 0, tuple(order), ordered


def _strength(category: int, ranks: tuple[int, ...]) -> int:
    value = category
    for i in range(5):
        value = value * 13 + (ranks[i] if i < len(ranks) else 0)
    return value


def evaluate(cards: Iterable[str | Card], *, ace_king: bool = False) -> HandValue:
    """Evaluate the best five of 5 to 7 cards given as codes (``"As"``) or :class:`Card`.

    With ``ace_king`` a high-card hand holding an ace and a king reports the category
    ``"ace-king"`` (Oasis Poker); the ordering is the same either way.

    Raises:
        CardError: an unknown card, a card twice, or fewer than 5 or more than 7 cards.
    """
    hand = parse_cards(cards)
    if not 5 <= len(hand) <= 7:
        raise CardError(f"a hand has 5 to 7 cards, got {len(hand)}")
    best: tuple[int, tuple[int, ...], tuple[Card, ...]] | None = None
    for five in combinations(hand, 5):
        cand = _five(five)
        if best is None or (cand[0], cand[1]) > (best[0], best[1]):
            best = cand
    assert best is not None
    value = HandValue(_strength(best[0], best[1]), CATEGORIES[best[0]], best[2])
    if ace_king and value.is_ace_king:
        return HandValue(value.strength, "ace-king", value.cards)
    return value
