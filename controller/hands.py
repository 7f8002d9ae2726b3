"""Poker hand evaluation: best five of five to seven cards, single hands and bulk arrays."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from controller.cards import Card
from controller.cards import cards as parse_cards
from controller.errors import CardError
from controller.hand_tables import HASH_SHIFT, N_CLASSES, RANK_BITS, RANK_MASK, SIZES, tables

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
# Strengths run from 1 (7-5-4-3-2, mixed suits) to 7462 (royal flush): the 7,462 classes of
# five-card hands, numbered weakest first. See controller.hand_tables for how they are looked up.
MIN_STRENGTH: Final = 1
MAX_STRENGTH: Final = N_CLASSES
_ACE, _KING = 12, 11
_WRAP: Final = 0xFFFFFFFF
# Hands per step of the bulk path: big enough that numpy's per-call overhead (about 20 calls a
# chunk) is small, small enough that the scratch arrays (about 64 bytes a hand, 1 MiB in all)
# mostly stay in L2. 8,192 to 32,768 measured alike on the development machine.
_CHUNK: Final = 16384
_INDEX: Final = attrgetter("index")
_RANK: Final = attrgetter("rank")
_SINGLE_BITS: Final = np.left_shift(np.uint64(1), np.arange(52, dtype=np.uint64))


@functools.total_ordering
@dataclass(frozen=True, eq=False, slots=True)
class HandValue:
    """A hand's value: compare two values to compare the hands (equal = tie).

    ``strength`` (1..7462, higher is stronger) is the integer the bulk API returns for the same
    cards; ``cards`` are the five that make the hand, the cards that decide ties first (the pair
    before its kickers; a wheel as 5-4-3-2-A).
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


def _pick(pool: Iterable[Card], pattern: tuple[int, ...]) -> tuple[Card, ...]:
    """The cards of ``pool`` that realise ``pattern`` (ranks in significance order).

    Where a rank has more cards than the hand uses, the higher suits are taken, so the choice is
    the same whatever order the cards came in.
    """
    # Highest index first = highest rank, then highest suit: the first card of a rank is the one
    # to take, and list.index() finds it in C.
    ordered = sorted(pool, key=_INDEX, reverse=True)
    ranks = list(map(_RANK, ordered))
    five = []
    for rank in pattern:
        at = ranks.index(rank)
        five.append(ordered[at])
        ranks[at] = -1
    return tuple(five)


def evaluate(cards: Iterable[str | Card], *, ace_king: bool = False) -> HandValue:
    """Evaluate the best five of 5 to 7 cards given as codes (``"As"``) or :class:`Card`.

    With ``ace_king`` a high-card hand holding an ace and a king reports the category
    ``"ace-king"`` (Oasis Poker); the ordering is the same either way.

    Raises:
        CardError: an unknown card, a card twice, or fewer than 5 or more than 7 cards.
    """
    hand = parse_cards(cards)
    size = len(hand)
    if not 5 <= size <= 7:
        raise CardError(f"a hand has 5 to 7 cards, got {size}")
    t = tables()
    keys = t.card_keys_py
    key = 0
    for c in hand:
        key += keys[c.index]
    flush = t.flush_suit_py[size - 5][key >> RANK_BITS]
    pool: Iterable[Card]
    if flush:
        suit = flush - 1
        pool = [c for c in hand if c.suit == suit]
        mask = 0
        for c in pool:
            mask |= 1 << c.rank
        strength = t.flush_values_py[mask]
    else:
        rank_sum = key & RANK_MASK
        slot = (rank_sum + t.offsets_py[size - 5][rank_sum >> HASH_SHIFT]) & _WRAP
        strength = t.values_py[slot]
        pool = hand
    category = CATEGORIES[t.category_py[strength]]
    five = _pick(pool, t.patterns[strength])
    if ace_king and category == "high-card" and five[0].rank == _ACE and five[1].rank == _KING:
        category = "ace-king"
    return HandValue(strength, category, five)


def _as_hand_array(hands: ArrayLike) -> NDArray[np.integer]:
    """The input as an (N, 5..7) integer array, or a CardError saying what is wrong with it."""
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] not in SIZES:
        raise CardError(f"hands must be an (N, 5), (N, 6) or (N, 7) array of card indices, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise CardError(f"card indices must be integers, got dtype {arr.dtype}")
    return arr


def _check_range(arr: NDArray[np.integer]) -> None:
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 51):
        bad = np.flatnonzero(((arr < 0) | (arr > 51)).any(axis=1))[0]
        raise CardError(f"hand {bad}: card indices must be 0..51, got {arr[bad].tolist()}")


def evaluate_many(hands: ArrayLike, *, check: bool = True) -> NDArray[np.int16]:
    """Strengths of many hands at once: row ``i`` of the result is ``evaluate(row i).strength``.

    ``hands`` is an (N, 7), (N, 6) or (N, 5) integer array of card indices (``rank * 4 + suit``,
    see :mod:`controller.cards`). The result is an int16 array of N strengths (1..7462).

    ``check=False`` skips the range and duplicate checks for callers that build their hands from a
    deck and so know them valid; an invalid row then gives a meaningless strength (never a crash
    or an out-of-bounds read).

    Raises:
        CardError: the array is not (N, 5..7) integers, or (with ``check``) an index outside
            0..51 or a card twice in one hand; the message names the first bad hand.
    """
    arr = _as_hand_array(hands)
    n, size = arr.shape
    out = np.empty(n, np.int16)
    if n == 0:
        return out
    if check:
        _check_range(arr)
    t = tables()
    card_keys, values, flush_bits, flush_values = t.card_keys, t.values, t.flush_bits, t.flush_values
    offsets, flush_suit = t.offsets[size - 5], t.flush_suit[size - 5]
    chunk = min(n, _CHUNK)
    # Scratch space reused by every chunk. Each chunk is first copied card-major (one row per
    # card position), so every later pass reads and writes contiguous memory; mode="clip" lets
    # take() write straight into the scratch arrays without a bounds-checked buffered copy.
    columns = np.empty((size, chunk), arr.dtype)
    gathered = np.empty((size, chunk), np.uint32)
    key = np.empty(chunk, np.uint32)
    suits = np.empty(chunk, np.uint32)
    scratch = np.empty(chunk, np.uint32)
    flush = np.empty(chunk, np.int8)
    union = np.empty(chunk, np.uint64)
    bits = np.empty(chunk, np.uint64)
    for start in range(0, n, chunk):
        part = arr[start : start + chunk]
        m = len(part)
        c, g, k, s, x, f = columns[:, :m], gathered[:, :m], key[:m], suits[:m], scratch[:m], flush[:m]
        np.copyto(c, part.T)
        if check:
            _check_distinct(c, union[:m], bits[:m], start)
        np.take(card_keys, c, out=g, mode="clip")
        np.add(g[0], g[1], out=k)
        for j in range(2, size):
            np.add(k, g[j], out=k)
        np.right_shift(k, RANK_BITS, out=s)
        np.bitwise_and(k, RANK_MASK, out=k)
        np.right_shift(k, HASH_SHIFT, out=x)
        np.take(offsets, x, out=x, mode="clip")
        np.add(k, x, out=k)
        np.take(values, k, out=out[start : start + m], mode="clip")
        # Flushes are rare: finish them on the few rows that have one.
        np.take(flush_suit, s, out=f, mode="clip")
        hits = np.flatnonzero(f)
        if hits.size:
            suit = f[hits].astype(np.intp) - 1
            rows = part[hits].astype(np.intp)
            mask = flush_bits.take(rows * 4 + suit[:, None], mode="clip").sum(axis=1, dtype=np.intp)
            out[start + hits] = flush_values.take(mask, mode="clip")
    return out


def _check_distinct(
    columns: NDArray[np.integer], union: NDArray[np.uint64], bits: NDArray[np.uint64], start: int
) -> None:
    """Refuse a chunk (card-major) where some hand holds a card twice: OR-ing its cards' bits
    then loses one."""
    np.take(_SINGLE_BITS, columns[0], out=union, mode="clip")
    for j in range(1, len(columns)):
        np.take(_SINGLE_BITS, columns[j], out=bits, mode="clip")
        np.bitwise_or(union, bits, out=union)
    repeated = np.bitwise_count(union) != len(columns)
    if repeated.any():
        bad = int(np.flatnonzero(repeated)[0])
        raise CardError(f"hand {start + bad}: a card appears twice in {columns[:, bad].tolist()}")


def category_indices(strengths: ArrayLike) -> NDArray[np.int8]:
    """Category of each strength as an index into :data:`CATEGORIES` (0 high card .. 9 royal flush).

    Raises:
        ValueError: a strength that is not an integer in 1..7462.
    """
    s = np.asarray(strengths)
    if s.dtype.kind not in "iu":
        raise ValueError(f"strengths must be integers, got dtype {s.dtype}")
    if s.size and (int(s.min()) < MIN_STRENGTH or int(s.max()) > MAX_STRENGTH):
        raise ValueError(f"strengths must be {MIN_STRENGTH}..{MAX_STRENGTH}")
    result: NDArray[np.int8] = tables().category[s]
    return result


@functools.cache
def ace_king_floor() -> int:
    """The weakest strength that is an ace-king high-card hand (A-K-4-3-2); ace-king hands are the
    high-card strengths from here up."""
    patterns = tables().patterns
    categories = tables().category_py
    return min(
        s for s in range(MIN_STRENGTH, MAX_STRENGTH + 1) if categories[s] == 0 and patterns[s][:2] == (_ACE, _KING)
    )


def category_counts(strengths: ArrayLike, *, ace_king: bool = False) -> dict[str, int]:
    """How many of ``strengths`` fall in each category, lowest first; with ``ace_king`` the
    high-card hands holding an ace and a king are counted apart as ``"ace-king"``.

    Raises:
        ValueError: a strength outside 1..7462.
    """
    s = np.asarray(strengths)
    counts = np.bincount(category_indices(s).ravel(), minlength=len(CATEGORIES))
    result = {name: int(counts[i]) for i, name in enumerate(CATEGORIES)}
    if ace_king:
        floor = ace_king_floor()
        ak = int(np.count_nonzero((s >= floor) & (s <= _highest_high_card())))
        result["high-card"] -= ak
        result["ace-king"] = ak
        result = {name: result[name] for name in HAND_NAMES}
    return result


@functools.cache
def _highest_high_card() -> int:
    return int(np.flatnonzero(tables().category == 0).max())
