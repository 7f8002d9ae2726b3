"""Shared helpers for the hand evaluation tests: compare our ordering with another evaluator's."""

from collections.abc import Callable

import numpy as np
import phevaluator
import pytest

PHEVALUATOR = {5: phevaluator.evaluate_5cards, 6: phevaluator.evaluate_6cards, 7: phevaluator.evaluate_7cards}


def count_disagreements(ours: np.ndarray, theirs_lower_is_better: np.ndarray) -> int:
    """How many strength classes are not matched one-to-one, in the same order, by the other side.

    Zero means: for every two hands, both evaluators say the same (higher, lower or tie). Strength
    numbers differ between evaluators (phevaluator's and treys' 1 is the best hand), so this
    compares the orderings they induce, not the numbers.
    """
    pairs = np.unique(
        np.column_stack([np.asarray(ours, np.int64), -np.asarray(theirs_lower_is_better, np.int64)]), axis=0
    )
    # Sorted by our strength: the other side must be strictly increasing along it, and equal
    # strengths must map to exactly one of theirs (and back).
    not_increasing = int(np.count_nonzero(np.diff(pairs[:, 1]) <= 0))
    return not_increasing + (len(pairs) - len(np.unique(ours))) + (len(pairs) - len(np.unique(pairs[:, 1])))


def evaluate_with_phevaluator(hands: np.ndarray) -> np.ndarray:
    """phevaluator's strengths (1 = best) for an (N, 5..7) array of card indices (same indexing)."""
    evaluate_n = PHEVALUATOR[hands.shape[1]]
    return np.array([evaluate_n(*row) for row in hands.tolist()], np.int64)


@pytest.fixture
def disagreements() -> Callable[[np.ndarray, np.ndarray], int]:
    return count_disagreements


@pytest.fixture
def phevaluator_strengths() -> Callable[[np.ndarray], np.ndarray]:
    return evaluate_with_phevaluator
