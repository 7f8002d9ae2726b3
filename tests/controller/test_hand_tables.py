"""The lookup tables: every entry against phevaluator, random hands against a brute-force
best-of-five, and the shipped hash file against its generator."""

from collections import Counter
from collections.abc import Callable
from itertools import combinations

import numpy as np
import pytest

from controller.hand_arrays import random_hands
from controller.hand_tables import HASH_FILE, _count_vectors, build_offsets, build_tables, tables
from controller.hands import evaluate_many

Disagreements = Callable[[np.ndarray, np.ndarray], int]
Reference = Callable[[np.ndarray], np.ndarray]


def non_flush_hand(counts: np.ndarray) -> list[int]:
    """A concrete hand with these rank counts and no flush: suits dealt round-robin give each suit
    at most two of seven cards, and the copies of one rank consecutive, so different, suits."""
    ranks = np.repeat(np.arange(13), counts)
    return (ranks * 4 + np.arange(len(ranks)) % 4).tolist()


@pytest.mark.parametrize("size", [5, 6, 7])
def test_every_rank_multiset_entry_of_the_table_agrees_with_phevaluator(
    size: int, disagreements: Disagreements, phevaluator_strengths: Reference
) -> None:
    counts = _count_vectors(size)
    hands = np.array([non_flush_hand(c) for c in counts])
    suits = np.bincount((hands % 4).ravel() + 4 * np.repeat(np.arange(len(hands)), size), minlength=4 * len(hands))
    assert suits.max() < 5, "the test's own hands must not be flushes"
    assert len(hands) == {5: 6_175, 6: 18_395, 7: 49_205}[size]
    assert disagreements(evaluate_many(hands), phevaluator_strengths(hands)) == 0


def test_every_one_suit_hand_agrees_with_phevaluator(
    disagreements: Disagreements, phevaluator_strengths: Reference
) -> None:
    for size in (5, 6, 7):
        for suit in range(4):
            hands = np.array([[rank * 4 + suit for rank in ranks] for ranks in combinations(range(13), size)])
            assert disagreements(evaluate_many(hands), phevaluator_strengths(hands)) == 0


def brute_force_key(hand: list[int]) -> tuple[int, ...]:
    """The textbook best-of-five: try every five cards, score category then ranks; no tables."""
    best: tuple[int, ...] = ()
    for five in combinations(hand, 5):
        ranks = sorted((c // 4 for c in five), reverse=True)
        counts = Counter(ranks)
        ordered = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
        shape = sorted(counts.values(), reverse=True)
        flush = len({c % 4 for c in five}) == 1
        straight = -1
        if len(counts) == 5 and ranks[0] - ranks[4] == 4:
            straight = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight = 3
        if straight >= 0:
            key = (8 if flush else 4, straight)
        elif shape[0] == 4:
            key = (7, *ordered)
        elif shape == [3, 2]:
            key = (6, *ordered)
        elif flush:
            key = (5, *ordered)
        elif shape[0] == 3:
            key = (3, *ordered)
        elif shape == [2, 2, 1]:
            key = (2, *ordered)
        else:
            key = (1 if shape[0] == 2 else 0, *ordered)
        best = max(best, key)
    return best


def test_random_hands_agree_with_brute_force_best_of_five(disagreements: Disagreements) -> None:
    rng = np.random.default_rng(11)
    for size in (5, 6, 7):
        hands = random_hands(rng, 3_000, size)
        keys = [brute_force_key(row) for row in hands.tolist()]
        order = {key: i for i, key in enumerate(sorted(set(keys)))}
        theirs = -np.array([order[key] for key in keys])
        assert disagreements(evaluate_many(hands), theirs) == 0


def test_the_shipped_hash_loads_collision_free_and_a_corrupt_one_is_refused() -> None:
    assert tables().values.size < 200_000  # small enough to stay in the L2 cache
    shipped = np.load(HASH_FILE).astype(np.int64)
    build_tables(shipped)
    with pytest.raises(RuntimeError, match="collide"):
        build_tables(np.zeros_like(shipped))
    with pytest.raises(RuntimeError, match="shape"):
        build_tables(shipped[:2])


@pytest.mark.slow
def test_the_shipped_hash_is_what_the_generator_makes() -> None:
    assert (build_offsets() == np.load(HASH_FILE)).all()
