"""Card codes: parsing, canonical output, index arithmetic, refusals."""

import random

import pytest

from controller.cards import DECK, card, cards, codes, shuffled_deck
from controller.errors import CardError


def test_every_card_round_trips_through_its_code() -> None:
    assert len({c.code for c in DECK}) == 52
    for c in DECK:
        assert card(c.code) is c
        assert c.index == c.rank * 4 + c.suit


@pytest.mark.parametrize(
    ("given", "canonical"),
    [("As", "As"), ("as", "As"), ("AS", "As"), ("10d", "Td"), ("td", "Td"), (" 2c ", "2c")],
)
def test_codes_are_case_insensitive_and_accept_10(given: str, canonical: str) -> None:
    assert card(given).code == canonical


def test_index_order_is_rank_major_suits_cdhs() -> None:
    assert card("2c").index == 0
    assert card("2s").index == 3
    assert card("Ac").index == 48
    assert card("As").index == 51


@pytest.mark.parametrize("bad", ["1s", "Ax", "", "AAs", "11h", "Joker"])
def test_unknown_codes_are_refused_by_name(bad: str) -> None:
    with pytest.raises(CardError, match="unknown card code"):
        card(bad)


def test_a_card_twice_is_refused_and_named() -> None:
    with pytest.raises(CardError, match="Kd appears twice"):
        cards(["As", "Kd", "kd"])


def test_shuffled_deck_is_a_permutation_driven_by_the_callers_rng() -> None:
    a = shuffled_deck(random.Random(7))
    assert sorted(codes(a)) == sorted(codes(DECK))
    assert a == shuffled_deck(random.Random(7))
    assert a != shuffled_deck(random.Random(8))
