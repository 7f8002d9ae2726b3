"""Hand arrays: every k-card hand exactly once, and uniform random hands without repeated cards."""

from math import comb

import numpy as np
import pytest

from controller.errors import CardError
from controller.hand_arrays import all_hands, random_hands


@pytest.mark.parametrize("size", [2, 3, 4])
def test_all_hands_lists_each_hand_once(size: int) -> None:
    rows = np.concatenate(list(all_hands(size)))
    assert len(rows) == comb(52, size)
    assert (np.diff(rows.astype(int), axis=1) > 0).all()  # sorted, so distinct cards
    assert len(np.unique(rows, axis=0)) == len(rows)
    assert rows.min() == 0 and rows.max() == 51


def test_all_hands_counts_five_card_hands_in_chunks_by_the_two_lowest_cards() -> None:
    chunks = list(all_hands(5))
    assert len(chunks) == comb(52, 2)
    assert sum(len(chunk) for chunk in chunks) == 2_598_960


def test_random_hands_never_repeat_a_card_and_cover_the_deck() -> None:
    hands = random_hands(np.random.default_rng(1), 50_000, 7)
    assert hands.shape == (50_000, 7) and hands.dtype == np.uint8
    ordered = np.sort(hands, axis=1)
    assert not (ordered[:, 1:] == ordered[:, :-1]).any()
    counts = np.bincount(hands.ravel(), minlength=52)
    # Each card is expected 50,000 * 7 / 52 = 6,731 times; 5 sigma is about 400.
    assert np.abs(counts - 50_000 * 7 / 52).max() < 400


@pytest.mark.parametrize(("count", "size"), [(10, 0), (10, 53), (-1, 7)])
def test_hand_array_sizes_are_checked(count: int, size: int) -> None:
    with pytest.raises(CardError):
        random_hands(np.random.default_rng(0), count, size)
    if count >= 0:
        with pytest.raises(CardError):
            next(all_hands(size))
