"""Properties every hand evaluation must have, whatever the cards (hypothesis)."""

import random
from collections import Counter
from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import DECK, Card
from controller.hands import CATEGORIES, CATEGORY_INDEX, category_indices, evaluate, evaluate_many

hands = st.integers(min_value=5, max_value=7).flatmap(
    lambda size: st.lists(st.sampled_from(DECK), min_size=size, max_size=size, unique=True)
)
seven_cards = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)
suit_maps = st.permutations(range(4))


def with_suits(hand: list[Card], suit_map: list[int]) -> list[Card]:
    return [DECK[c.rank * 4 + suit_map[c.suit]] for c in hand]


@given(hands, suit_maps)
def test_renaming_suits_never_changes_a_hand(hand: list[Card], suit_map: list[int]) -> None:
    before, after = evaluate(hand), evaluate(with_suits(hand, suit_map))
    assert before.strength == after.strength and before.category == after.category


@given(hands, st.randoms(use_true_random=False))
def test_the_order_of_the_cards_is_irrelevant(hand: list[Card], rnd: random.Random) -> None:
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert evaluate(shuffled) == evaluate(hand)
    assert evaluate(shuffled).cards == evaluate(hand).cards


@settings(max_examples=300)
@given(seven_cards)
def test_best_of_seven_is_the_best_five_card_subset(hand: list[Card]) -> None:
    best = evaluate(hand)
    subsets = [evaluate(five) for five in combinations(hand, 5)]
    assert all(best >= five for five in subsets)
    assert best == max(subsets)


@given(hands)
def test_the_five_cards_make_the_hand_in_significance_order(hand: list[Card]) -> None:
    value = evaluate(hand)
    assert len(set(value.cards)) == 5 and set(value.cards) <= set(hand)
    assert evaluate(value.cards) == value and evaluate(value.cards).cards == value.cards
    ranks = [c.rank for c in value.cards]
    counts = Counter(ranks)
    if value.category in ("straight", "straight-flush", "royal-flush"):
        top = ranks[0]
        wheel = ranks == [3, 2, 1, 0, 12]
        assert wheel or ranks == list(range(top, top - 5, -1))
    else:  # bigger groups first, higher ranks first within the same group size
        keys = [(counts[r], r) for r in ranks]
        assert keys == sorted(keys, reverse=True)


@given(hands)
def test_bulk_and_single_agree_and_name_the_same_category(hand: list[Card]) -> None:
    value = evaluate(hand)
    strengths = evaluate_many(np.array([[c.index for c in hand]]))
    assert strengths.tolist() == [value.strength]
    assert CATEGORIES[int(category_indices(strengths)[0])] == value.category


@given(hands)
def test_ace_king_is_a_name_not_a_different_value(hand: list[Card]) -> None:
    plain, named = evaluate(hand), evaluate(hand, ace_king=True)
    assert plain == named and plain.cards == named.cards
    ranks = {c.rank for c in plain.cards}
    expect_ak = plain.category == "high-card" and {12, 11} <= ranks
    assert (named.category == "ace-king") == expect_ak
    assert named.at_least("ace-king") == (expect_ak or plain.category != "high-card")


@given(hands, hands)
def test_a_higher_category_always_wins(first: list[Card], second: list[Card]) -> None:
    a, b = evaluate(first), evaluate(second)
    if CATEGORY_INDEX[a.category] > CATEGORY_INDEX[b.category]:
        assert a > b
    if a == b:
        assert a.category == b.category
        assert [c.rank for c in a.cards] == [c.rank for c in b.cards]
