"""The evaluator against independent ones (phevaluator, treys) on random hands, both APIs.

Orderings are compared, not numbers (see conftest.count_disagreements): zero disagreements means
every two hands compare the same way (higher, lower, tie) under both evaluators.
"""

from collections.abc import Callable

import numpy as np
import pytest
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from controller.cards import DECK
from controller.hand_arrays import random_hands
from controller.hands import evaluate, evaluate_many

Disagreements = Callable[[np.ndarray, np.ndarray], int]
Reference = Callable[[np.ndarray], np.ndarray]


def test_the_comparison_itself_catches_a_swapped_order_and_a_split_tie(disagreements: Disagreements) -> None:
    ours = np.array([1, 2, 3, 3])
    assert disagreements(ours, np.array([9, 8, 7, 7])) == 0
    assert disagreements(ours, np.array([8, 9, 7, 7])) > 0
    assert disagreements(ours, np.array([9, 8, 7, 6])) > 0
    assert disagreements(ours, np.array([9, 7, 7, 7])) > 0


def test_a_million_random_seven_card_hands_bulk_api_agrees_with_phevaluator(
    disagreements: Disagreements, phevaluator_strengths: Reference
) -> None:
    hands = random_hands(np.random.default_rng(20261122), 1_000_000, 7)
    assert disagreements(evaluate_many(hands), phevaluator_strengths(hands)) == 0


# The single-hand API costs about 14 µs a hand in Python: a hundred thousand in every run, the million
# (about 15 s on CI's machines) with the exhaustive checks.
@pytest.mark.parametrize("chunks", [1, pytest.param(10, marks=pytest.mark.slow)], ids=["100k", "1M"])
def test_random_seven_card_hands_single_api_agrees_with_phevaluator(
    chunks: int, disagreements: Disagreements, phevaluator_strengths: Reference
) -> None:
    rng = np.random.default_rng(7462)
    for _ in range(chunks):  # 100,000 hands each: keeps the Python objects for one chunk alive at a time
        hands = random_hands(rng, 100_000, 7)
        ours = np.array([evaluate([DECK[i] for i in row]).strength for row in hands.tolist()])
        assert disagreements(ours, phevaluator_strengths(hands)) == 0


@pytest.mark.parametrize("size", [5, 6])
def test_random_five_and_six_card_hands_agree_with_phevaluator(
    size: int, disagreements: Disagreements, phevaluator_strengths: Reference
) -> None:
    hands = random_hands(np.random.default_rng(size), 200_000, size)
    assert disagreements(evaluate_many(hands), phevaluator_strengths(hands)) == 0


def test_random_seven_card_hands_agree_with_treys(disagreements: Disagreements) -> None:
    # treys is pure Python (about 25 µs a hand): a second opinion on a smaller sample.
    hands = random_hands(np.random.default_rng(3), 40_000, 7)
    treys_cards = [TreysCard.new(c.code) for c in DECK]
    evaluator = TreysEvaluator()
    theirs = np.array(
        [evaluator.evaluate([treys_cards[i] for i in row[:2]], [treys_cards[i] for i in row[2:]]) for row in hands]
    )
    assert disagreements(evaluate_many(hands), theirs) == 0
