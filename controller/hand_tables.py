"""Lookup tables behind controller.hands: strength classes, a rank-key perfect hash and flush tables.

Every hand of five to seven cards gets one of the 7,462 standard equivalence classes of five-card
poker hands as its ``strength``: 1 is the weakest (7-5-4-3-2 of mixed suits), 7,462 a royal flush.
Two hands tie exactly when their strengths are equal.

How a hand is looked up (the same arithmetic for one hand and for a numpy array of them):

* Each card has a 32-bit key: ``RANK_KEYS[rank]`` in the low 23 bits and ``SUIT_KEYS[suit] << 23``
  above. ``RANK_KEYS`` are chosen so that the sums of any 5, 6 or 7 of them (each rank at most four
  times) are all different, so the low 23 bits of a hand's key sum name its rank multiset; the top
  nine bits count the diamonds, hearts and spades in base 8 (clubs are what is left).
* The rank sum is up to 7.8 million, too sparse for a direct table that stays in cache, so a
  displacement perfect hash squeezes it: ``slot = rank_sum + offsets[size][rank_sum >> HASH_SHIFT]``
  (unsigned 32-bit wrap-around) is distinct for every multiset, and ``values[slot]`` is the best
  non-flush strength of that multiset.
* The suit counts say whether five or more cards share a suit; only then (about 3% of random
  seven-card hands) the 13-bit mask of that suit's ranks indexes ``flush_values``. With at most seven
  cards a flush excludes a full house and four of a kind, so the flush value simply wins.

The displacement offsets are the one part that is slow to search for (seconds), so they are
computed once by :func:`build_offsets` and shipped as ``hand_hash.npy``; everything else is rebuilt
from first principles on first use in well under a second, and the hash is checked to be
collision-free every time it is loaded. Regenerate the file with ``python -m controller.hand_tables``.
"""

from __future__ import annotations

import functools
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
from numpy.typing import NDArray

# SKPokerEval's rank keys: sums of up to seven of them (each at most four times) are unique for a
# fixed number of cards; build_tables() re-checks that, so a wrong constant cannot go unnoticed.
RANK_KEYS: Final = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
RANK_BITS: Final = 23  # the largest seven-card rank sum, 7,825,759, fits in 23 bits
RANK_MASK: Final = (1 << RANK_BITS) - 1
SUIT_KEYS: Final = (0, 1, 8, 64)  # c d h s: base-8 counts of d, h, s; clubs = cards - the rest
HASH_SHIFT: Final = 10
SIZES: Final = (5, 6, 7)
N_CLASSES: Final = 7462
HASH_FILE: Final = Path(__file__).with_name("hand_hash.npy")
MAX_RANK_SUM: Final = 4 * RANK_KEYS[12] + 3 * RANK_KEYS[11]  # four aces and three kings
_N_ROWS: Final = (MAX_RANK_SUM >> HASH_SHIFT) + 1  # rows of the hash, the same for every size
_ACE: Final = 12
# Category numbers follow controller.hands.CATEGORIES (0 high card ... 9 royal flush).
_HIGH, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT, _FLUSH, _FULL, _QUADS, _SF, _ROYAL = range(10)
_BASE: Final = 13**5  # raw values: category * 13**5 + up to five rank digits in base 13


@dataclass(frozen=True, slots=True, eq=False)
class Tables:
    """Everything the evaluator looks up; numpy arrays for the bulk path, arrays for single hands."""

    card_keys: NDArray[np.uint32]  # (52,) per-card key, see the module docstring
    offsets: NDArray[np.uint32]  # (3, rows) per hand size, wrapped so that adding gives the slot
    values: NDArray[np.int16]  # (slots,) best non-flush strength of a rank multiset
    flush_suit: NDArray[np.int8]  # (3, 512) per hand size and suit-count key: flush suit + 1, or 0
    flush_bits: NDArray[np.uint16]  # (208,) at card*4 + suit: the card's rank bit if of that suit
    flush_values: NDArray[np.int16]  # (8192,) best strength of a one-suit rank mask (5+ bits)
    category: NDArray[np.int8]  # (7463,) category number per strength (index 0 unused: -1)
    patterns: tuple[tuple[int, ...], ...]  # per strength: the five ranks in significance order
    # The same data as stdlib arrays: indexing them from Python returns plain ints, fast.
    card_keys_py: array[int]
    offsets_py: tuple[array[int], ...]
    values_py: array[int]
    flush_suit_py: tuple[array[int], ...]
    flush_values_py: array[int]
    category_py: array[int]


@functools.cache
def _count_vectors(size: int) -> NDArray[np.int64]:
    """Every rank multiset of ``size`` cards (each rank at most four times) as a (M, 13) count array.

    Cached and shared: callers must not modify the result.
    """
    vectors = _small_count_vectors()
    result: NDArray[np.int64] = vectors[vectors.sum(axis=1) == size].astype(np.int64)
    return result


@functools.cache
def _small_count_vectors() -> NDArray[np.int8]:
    """Rank count vectors of every multiset of at most seven cards, built one rank at a time."""
    vectors = np.zeros((1, 13), np.int8)
    totals = np.zeros(1, np.int8)
    for rank in range(13):
        parts, part_totals = [], []
        for count in range(5):
            keep = totals + count <= max(SIZES)
            part = vectors[keep]
            part[:, rank] = count
            parts.append(part)
            part_totals.append(totals[keep] + count)
        vectors, totals = np.concatenate(parts), np.concatenate(part_totals)
    return vectors


def _all_different(values: NDArray[np.int64]) -> bool:
    ordered = np.sort(values)
    return not (ordered[1:] == ordered[:-1]).any()


def _straight_high(ranks_desc: NDArray[np.int64]) -> NDArray[np.int64]:
    """Top rank of the straight made by five distinct ranks (sorted high to low), or -1."""
    high = np.where(ranks_desc[:, 0] - ranks_desc[:, 4] == 4, ranks_desc[:, 0], -1)
    wheel = (ranks_desc == np.array([_ACE, 3, 2, 1, 0])).all(axis=1)
    return np.where(wheel, 3, high)


def _digits(ranks: NDArray[np.int64]) -> NDArray[np.int64]:
    """Ranks (padded with zeros to five columns) as one base-13 number, most significant first."""
    return ranks @ (13 ** np.arange(4, -1, -1, dtype=np.int64))


def _five_card_raw() -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Raw values and significance-ordered rank patterns of every five-card hand shape.

    Returns (raw value and pattern of each non-flush rank multiset, in ``_count_vectors(5)`` order)
    and (raw value and pattern of each one-suit hand, indexed by 13-bit rank mask; -1 elsewhere).
    Raw values order hands exactly as poker does; they are then numbered 1..7462.
    """
    counts = _count_vectors(5)
    ranks = np.arange(13, dtype=np.int64)
    # Distinct ranks ordered by (count, rank), highest first: the pair before its kickers.
    order_key = np.where(counts > 0, counts * 16 + ranks, -1)
    order = np.argsort(-order_key, axis=1, kind="stable")[:, :5]
    order_counts = np.take_along_axis(counts, order, axis=1)
    distinct = np.where(order_counts > 0, order, 0)
    first, second = order_counts[:, 0], order_counts[:, 1]
    straight = np.where(first == 1, _straight_high(distinct), -1)
    category = np.select(
        [first == 4, (first == 3) & (second == 2), straight >= 0, first == 3, (first == 2) & (second == 2)],
        [_QUADS, _FULL, _STRAIGHT, _TRIPS, _TWO_PAIR],
        default=np.where(first == 2, _PAIR, _HIGH),
    )
    straight_digits = np.where(straight >= 0, straight * 13**4, 0)
    raw = category * _BASE + np.where(straight >= 0, straight_digits, _digits(distinct))
    # One rank per card, significance order; the wheel's ace plays low, so it goes last.
    pattern = np.repeat(distinct.ravel(), order_counts.ravel()).reshape(-1, 5)
    wheel = straight == 3
    pattern[wheel] = (3, 2, 1, 0, _ACE)

    masks = np.arange(1 << 13)
    bit_counts = np.bitwise_count(masks)
    five = masks[bit_counts == 5]
    has = (five[:, None] >> ranks[::-1]) & 1  # columns: ace first
    flush_ranks = np.sort(np.nonzero(has)[1].reshape(-1, 5), axis=1)
    flush_ranks = 12 - flush_ranks  # back to ranks, highest first
    flush_straight = _straight_high(flush_ranks)
    flush_category = np.where(flush_straight == _ACE, _ROYAL, np.where(flush_straight >= 0, _SF, _FLUSH))
    # Royal and straight flushes share one scale (a royal is the top straight flush).
    flush_raw = np.where(
        flush_straight >= 0,
        _SF * _BASE + flush_straight * 13**4,
        flush_category * _BASE + _digits(flush_ranks),
    )
    flush_pattern = flush_ranks.copy()
    flush_pattern[flush_straight == 3] = (3, 2, 1, 0, _ACE)
    raw_by_mask = np.full(1 << 13, -1, np.int64)
    raw_by_mask[five] = flush_raw
    pattern_by_mask = np.zeros((1 << 13, 5), np.int64)
    pattern_by_mask[five] = flush_pattern
    return raw, pattern, raw_by_mask, pattern_by_mask


def _rank_sums(counts: NDArray[np.int64]) -> NDArray[np.int64]:
    sums: NDArray[np.int64] = counts @ np.array(RANK_KEYS, np.int64)
    return sums


def _best_of_larger(
    counts: NDArray[np.int64], smaller_sums: NDArray[np.int64], smaller_values: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Best value of each multiset = the best over dropping one card (the smaller size's values)."""
    order = np.argsort(smaller_sums)
    sorted_sums, sorted_values = smaller_sums[order], smaller_values[order]
    sums = _rank_sums(counts)
    best = np.zeros(len(counts), np.int64)
    for rank in range(13):
        present = counts[:, rank] > 0
        sub = sums[present] - RANK_KEYS[rank]
        at = np.searchsorted(sorted_sums, sub)
        if not (sorted_sums[at] == sub).all():  # pragma: no cover - would mean RANK_KEYS collide
            raise RuntimeError("hand tables: a smaller rank multiset is missing")
        best[present] = np.maximum(best[present], sorted_values[at])
    return best


def _hash_rows(sums: NDArray[np.int64]) -> NDArray[np.int64]:
    rows: NDArray[np.int64] = sums >> HASH_SHIFT
    return rows


def _multiset_sums() -> dict[int, NDArray[np.int64]]:
    sums = {size: _rank_sums(_count_vectors(size)) for size in SIZES}
    for size, s in sums.items():
        if not _all_different(s):
            raise RuntimeError(f"hand tables: RANK_KEYS sums of {size} cards collide")
    return sums


def build_offsets() -> NDArray[np.int64]:
    """Search the displacement of each hash row (first fit, biggest rows first); takes seconds.

    Returns a (3, rows) array: row ``r`` of size ``SIZES[i]`` starts at slot ``offsets[i, r]``.
    """
    sums = _multiset_sums()
    row_ids = np.concatenate([_hash_rows(sums[size]) + i * _N_ROWS for i, size in enumerate(SIZES)])
    cols = np.concatenate([sums[size] & ((1 << HASH_SHIFT) - 1) for size in SIZES])
    order = np.lexsort((cols, row_ids))
    row_ids, cols = row_ids[order], cols[order]
    starts = np.r_[0, np.flatnonzero(np.diff(row_ids)) + 1]
    ends = np.r_[starts[1:], len(row_ids)]
    taken = np.zeros(len(row_ids) * 4 + (2 << HASH_SHIFT), bool)
    offsets = np.zeros(len(SIZES) * _N_ROWS, np.int64)
    window = np.arange(256)
    first_free = 0
    for i in np.argsort(-(ends - starts), kind="stable"):
        row_cols = cols[starts[i] : ends[i]]
        shift = max(0, first_free - int(row_cols[0]))
        while True:
            clash = taken[row_cols[:, None] + (shift + window)].any(axis=0)
            free = np.flatnonzero(~clash)
            if len(free):
                shift += int(free[0])
                break
            shift += len(window)
        taken[row_cols + shift] = True
        offsets[row_ids[starts[i]]] = shift
        while taken[first_free]:
            first_free += 1
    return offsets.reshape(len(SIZES), _N_ROWS)


def build_tables(displacements: NDArray[np.int64]) -> Tables:
    """Compute every table from the rules, given the hash row displacements.

    Raises:
        RuntimeError: the displacements do not give a collision-free hash (a corrupt file).
    """
    raw5, pattern5, flush_raw, flush_pattern = _five_card_raw()
    classes = np.unique(np.concatenate([raw5, flush_raw[flush_raw >= 0]]))
    if len(classes) != N_CLASSES:  # pragma: no cover - a bug in the raw values above
        raise RuntimeError(f"hand tables: {len(classes)} five-card classes, expected {N_CLASSES}")
    strength5 = np.searchsorted(classes, raw5) + 1

    patterns = np.zeros((N_CLASSES + 1, 5), np.int64)
    patterns[strength5] = pattern5
    flush_masks = np.flatnonzero(flush_raw >= 0)
    flush_strength5 = np.searchsorted(classes, flush_raw[flush_masks]) + 1
    patterns[flush_strength5] = flush_pattern[flush_masks]
    category = (classes // _BASE).astype(np.int8)
    top_straight_flush = (classes == _SF * _BASE + _ACE * 13**4).nonzero()[0]
    category[top_straight_flush] = _ROYAL
    category = np.r_[np.int8(-1), category].astype(np.int8)

    # Non-flush values for 5, 6, 7 cards: a bigger hand is worth its best one-card-smaller part.
    sums = _multiset_sums()
    values = {5: strength5}
    for size in (6, 7):
        values[size] = _best_of_larger(_count_vectors(size), sums[size - 1], values[size - 1])

    if displacements.shape != (len(SIZES), _N_ROWS):
        raise RuntimeError(f"hand tables: hash offsets have shape {displacements.shape}")
    slots = {
        size: sums[size] - (_hash_rows(sums[size]) << HASH_SHIFT) + displacements[i, _hash_rows(sums[size])]
        for i, size in enumerate(SIZES)
    }
    all_slots = np.concatenate(list(slots.values()))
    if all_slots.min() < 0 or not _all_different(all_slots):
        raise RuntimeError("hand tables: the hash offsets collide; regenerate hand_hash.npy")
    table = np.zeros(int(all_slots.max()) + 1, np.int16)
    for size in SIZES:
        table[slots[size]] = values[size]
    row_starts = np.arange(_N_ROWS, dtype=np.int64) << HASH_SHIFT
    offsets = ((displacements - row_starts) & 0xFFFFFFFF).astype(np.uint32)

    flush_values = np.zeros(1 << 13, np.int64)
    flush_values[flush_masks] = flush_strength5
    masks = np.arange(1 << 13)
    bit_counts = np.bitwise_count(masks)
    for bits in (6, 7):
        bigger = masks[bit_counts == bits]
        for rank in range(13):
            has = (bigger >> rank) & 1 == 1
            sub = flush_values[bigger[has] & ~(1 << rank)]
            flush_values[bigger[has]] = np.maximum(flush_values[bigger[has]], sub)

    suit_keys = np.arange(512)
    suit_counts = np.stack([suit_keys & 7, (suit_keys >> 3) & 7, suit_keys >> 6], axis=1)
    flush_suit = np.zeros((len(SIZES), 512), np.int8)
    for i, size in enumerate(SIZES):
        clubs = size - suit_counts.sum(axis=1)
        per_suit = np.column_stack([clubs, suit_counts])
        valid = clubs >= 0
        has_flush = valid & (per_suit >= 5).any(axis=1)
        flush_suit[i, has_flush] = per_suit[has_flush].argmax(axis=1) + 1

    indices = np.arange(52)
    card_keys = (np.array(RANK_KEYS, np.int64)[indices // 4] | (np.array(SUIT_KEYS)[indices % 4] << RANK_BITS)).astype(
        np.uint32
    )
    flush_bits = np.zeros(52 * 4, np.uint16)
    flush_bits[indices * 4 + indices % 4] = 1 << (indices // 4)

    return Tables(
        card_keys=card_keys,
        offsets=offsets,
        values=table,
        flush_suit=flush_suit,
        flush_bits=flush_bits,
        flush_values=flush_values.astype(np.int16),
        category=category,
        patterns=tuple(map(tuple, patterns.tolist())),
        card_keys_py=array("q", card_keys.tolist()),
        offsets_py=tuple(array("q", row.tolist()) for row in offsets),
        values_py=array("h", table.tolist()),
        flush_suit_py=tuple(array("b", row.tolist()) for row in flush_suit),
        flush_values_py=array("h", flush_values.tolist()),
        category_py=array("b", category.tolist()),
    )


@functools.cache
def tables() -> Tables:
    """The evaluator's tables, built on first use (not at import: the CLI should start fast).

    Raises:
        RuntimeError: ``hand_hash.npy`` is missing or corrupt.
    """
    try:
        displacements = np.load(HASH_FILE, allow_pickle=False).astype(np.int64)
    except OSError as exc:
        raise RuntimeError(f"hand tables: cannot read {HASH_FILE.name}: {exc}") from exc
    return build_tables(displacements)


def main() -> int:
    """Regenerate ``hand_hash.npy`` (only needed if RANK_KEYS or HASH_SHIFT change)."""
    offsets = build_offsets()
    build_tables(offsets)  # refuse to write a file that does not work
    np.save(HASH_FILE, offsets.astype(np.int32))
    sys.stderr.write(f"wrote {HASH_FILE} ({offsets.shape[1]} rows per size)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
