"""Arrays of hands for the bulk evaluator: every k-card hand in chunks, and uniform random hands."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from math import comb

import numpy as np
from numpy.typing import NDArray

from controller.errors import CardError


@functools.cache
def _colex(n: int, k: int) -> NDArray[np.uint8]:
    """Every k-subset of range(n) as sorted rows, in colex order (ordered by the largest card).

    In colex order the subsets of range(m) are the first comb(m, k) rows, for any m <= n: that is
    what lets :func:`all_hands` reuse one array for every prefix of the deck. Cached: read only.
    """
    if k == 0:
        return np.zeros((1, 0), np.uint8)
    smaller = _colex(n, k - 1)
    parts = [
        np.column_stack([smaller[: comb(top, k - 1)], np.full(comb(top, k - 1), top, np.uint8)])
        for top in range(k - 1, n)
    ]
    result = np.concatenate(parts) if parts else np.zeros((0, k), np.uint8)
    result.flags.writeable = False
    return result


def all_hands(size: int) -> Iterator[NDArray[np.uint8]]:
    """Every ``size``-card hand from one deck, exactly once, as (M, size) uint8 chunks.

    Chunks hold at most comb(50, size - 2) hands (2.1 million for seven cards), so the full
    133,784,560 seven-card hands never need to sit in memory at once.

    Raises:
        CardError: ``size`` is not 2..7.
    """
    if not 2 <= size <= 7:
        raise CardError(f"hand size must be 2..7, got {size}")
    rest = _colex(50, size - 2)
    for first in range(52):
        for second in range(first + 1, 52):
            above = 51 - second  # cards higher than `second`, from which the other size-2 come
            tail = rest[: comb(above, size - 2)] + np.uint8(second + 1)
            head = np.broadcast_to(np.array([first, second], np.uint8), (len(tail), 2))
            yield np.hstack([head, tail])


def random_hands(rng: np.random.Generator, count: int, size: int) -> NDArray[np.uint8]:
    """``count`` independent uniformly random ``size``-card hands (distinct cards, random order).

    Raises:
        CardError: ``size`` is not 1..52 or ``count`` is negative.
    """
    if not 1 <= size <= 52 or count < 0:
        raise CardError(f"need 1..52 cards per hand and a count >= 0, got {size} and {count}")
    hands = rng.integers(0, 52, (count, size), dtype=np.uint8)
    todo = np.arange(count)
    # Redraw the rows that hold a card twice: each row is then uniform over the distinct hands.
    while True:
        ordered = np.sort(hands[todo], axis=1)
        todo = todo[(ordered[:, 1:] == ordered[:, :-1]).any(axis=1)]
        if not todo.size:
            return hands
        hands[todo] = rng.integers(0, 52, (len(todo), size), dtype=np.uint8)
