"""Hand evaluation: categories, ordering rules from docs/rules.md and the seeds' examples."""

import numpy as np
import pytest

from controller.cards import card
from controller.errors import CardError
from controller.hand_arrays import all_hands
from controller.hand_tables import SIZES
from controller.hands import (
    CATEGORIES,
    HAND_NAMES,
    MAX_STRENGTH,
    MIN_STRENGTH,
    HandValue,
    category_counts,
    category_indices,
    evaluate,
    evaluate_many,
)


def v(hand: str) -> object:
    return evaluate(hand.split())


@pytest.mark.parametrize(
    ("hand", "category"),
    [
        ("As Ks Qs Js Ts", "royal-flush"),
        ("9h Th Jh Qh Kh", "straight-flush"),
        ("Ad 2d 3d 4d 5d", "straight-flush"),
        ("7c 7d 7h 7s 2c", "four-of-a-kind"),
        ("6c 6d 6h Kc Kd", "full-house"),
        ("Ah 8h 5h 4h 2h", "flush"),
        ("9c 8d 7h 6s 5c", "straight"),
        ("Ac 2d 3h 4s 5c", "straight"),
        ("9c 9d 9h Qs 4c", "three-of-a-kind"),
        ("Ac Ad 5h 5s Tc", "two-pair"),
        ("8c 8d Kh 4s 2c", "pair"),
        ("Ac Kd 8h 7s 3c", "high-card"),
        ("Jc Td 7h 5s 2c", "high-card"),
    ],
)
def test_categories(hand: str, category: str) -> None:
    assert evaluate(hand.split()).category == category


def test_no_wrap_around_straight() -> None:
    assert evaluate("4c 3d 2h As Kc".split()).category == "high-card"


def test_ace_king_is_named_only_when_asked() -> None:
    assert evaluate("Ac Kd 8h 7s 3c".split(), ace_king=True).category == "ace-king"
    assert evaluate("Ac Qd 8h 7s 3c".split(), ace_king=True).category == "high-card"
    assert evaluate("Ac Kd 8h 8s 3c".split(), ace_king=True).category == "pair"


@pytest.mark.parametrize(
    ("higher", "lower"),
    [  # the seed's own examples (000), then the wheel and kickers
        ("Ac Kd Jh 3s 2c", "Ah Kc Td 9s 8c"),
        ("5c 5d 4h 3s 2c", "4c 4d Ah Ks Qc"),
        ("5c 5d Qh 3s 2c", "5h 5s Jd Tc 9c"),
        ("Ac Ad 2h 2s 3c", "Kc Kd Qh Qs Ac"),
        ("Kc Kd Kh Ts Tc", "Qc Qd Qh Td Th"),
        ("Ac Kd Qh Js Tc", "5c 4d 3h 2s Ac"),
        ("Ah 8h 5h 4h 2h", "Kd Qd Td 5d 3d"),
        ("3c 3d 3h 2s 2c", "2d 2h 2s Ac Ad"),
        ("Tc Td Th Ts 5c", "8c 8d 8h 8s 7c"),
        ("Qs Js Ts 9s 8s", "Th 9h 8h 7h 6h"),
        ("6c 5d 4h 3s 2c", "5c 4d 3h 2s Ac"),
    ],
)
def test_ordering(higher: str, lower: str) -> None:
    assert evaluate(higher.split()) > evaluate(lower.split())


def test_suits_never_break_ties_and_best_five_of_seven_plays() -> None:
    assert evaluate("As Ks Qs Js Ts".split()) == evaluate("Ah Kh Qh Jh Th".split())
    # Board plays for both: the two extra cards never count.
    board = "Ac Kd Qh Js 9c".split()
    assert evaluate([*board, "2c", "3d"]) == evaluate([*board, "2h", "4s"])
    assert evaluate([*board, "Tc", "2d"]).category == "straight"


@pytest.mark.parametrize("bad", [["As", "Ks", "Qs", "Js"], ["As"] * 5, ["As", "Ks", "Qs", "Js", "Xx"]])
def test_bad_hands_are_refused(bad: list[str]) -> None:
    with pytest.raises(CardError):
        evaluate(bad)


def codes_of(value: object) -> list[str]:
    assert isinstance(value, HandValue)
    return [c.code for c in value.cards]


@pytest.mark.parametrize(
    ("hand", "five"),
    [  # the cards that make the hand, the ones that decide ties first
        ("2c Kd 8h 8s 3c Qd 4h", "8s 8h Kd Qd 4h"),
        ("Kc Kd 5h 5s 9c 9d Ah", "Kd Kc 9d 9c Ah"),
        ("Tc Td Th 4s 4c 4d 2h", "Th Td Tc 4s 4d"),
        ("7c 7d 7h 7s Ac Ad Ah", "7s 7h 7d 7c Ah"),
        ("Ac 2d 3h 4s 5c 9d 9h", "5c 4s 3h 2d Ac"),
        ("Ad 2d 3d 4d 5d 6c 7c", "5d 4d 3d 2d Ad"),
        ("9h 8h 2h 3h Jh Kh Kd", "Kh Jh 9h 8h 3h"),
        ("As Ks Qs Js Ts 2c 3d", "As Ks Qs Js Ts"),
        ("9c 8d 8h 7s 6c 5d 2h", "9c 8h 7s 6c 5d"),
    ],
)
def test_the_five_cards_come_in_significance_order(hand: str, five: str) -> None:
    assert codes_of(evaluate(hand.split())) == five.split()


def test_strength_runs_from_1_to_7462() -> None:
    assert evaluate("7c 5d 4h 3s 2c".split()).strength == MIN_STRENGTH == 1
    assert evaluate("As Ks Qs Js Ts".split()).strength == MAX_STRENGTH == 7462
    assert evaluate("Ks Qs Js Ts 9s".split()).strength == 7461


def test_ace_king_is_reported_from_seven_cards_and_never_changes_the_order() -> None:
    plain = evaluate("Ac Kd 8h 7s 3c 2d 4h".split())
    named = evaluate("Ac Kd 8h 7s 3c 2d 4h".split(), ace_king=True)
    assert (plain.category, named.category) == ("high-card", "ace-king")
    assert plain == named and plain.strength == named.strength
    assert named.is_ace_king and named.at_least("ace-king") and not named.at_least("pair")


def test_bulk_matches_single_for_every_hand_size() -> None:
    hands = [
        "As Ks Qs Js Ts 2c 3d",
        "Ac 2d 3h 4s 5c 9d 9h",
        "Kc Kd 5h 5s 9c 9d Ah",
        "7c 7d 7h 7s Ac Ad Ah",
        "2c 4d 6h 8s Tc Qd 3h",
    ]
    for size in SIZES:
        rows = [[card(c).index for c in h.split()[:size]] for h in hands]
        expected = [evaluate(h.split()[:size]).strength for h in hands]
        assert evaluate_many(np.array(rows)).tolist() == expected
        assert evaluate_many(rows, check=False).tolist() == expected


def test_bulk_reads_any_memory_layout_and_leaves_the_input_alone() -> None:
    rows = np.array([[card(c).index for c in h.split()] for h in ("Ac 2d 3h 4s 5c 9d 9h", "Kc Kd 5h 5s 9c 9d Ah")])
    expected = evaluate_many(rows).tolist()
    assert evaluate_many(np.asfortranarray(rows)).tolist() == expected
    assert evaluate_many(rows[:, ::-1]).tolist() == expected
    assert evaluate_many(np.repeat(rows, 2, axis=0)[::2]).tolist() == expected
    before = rows.copy()
    evaluate_many(rows)
    assert (rows == before).all()


def test_bulk_accepts_every_integer_dtype_and_empty_input() -> None:
    row = [card(c).index for c in "Ac 2d 3h 4s 5c 9d 9h".split()]
    for dtype in (np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64, np.uint64):
        assert evaluate_many(np.array([row], dtype)).tolist() == [5854]
    assert evaluate_many(np.zeros((0, 7), np.uint8)).shape == (0,)
    assert evaluate_many(np.zeros((0, 7), np.uint8)).dtype == np.int16


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (np.arange(7), "shape"),
        (np.arange(8).reshape(2, 4), "shape"),
        (np.arange(16).reshape(2, 8), "shape"),
        (np.arange(7.0).reshape(1, 7), "dtype"),
        (np.ones((1, 7), bool), "dtype"),
        (np.array([[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 52]]), "hand 1: card indices must be 0..51"),
        (np.array([[0, 1, 2, 3, -1]]), "hand 0: card indices must be 0..51"),
        (np.array([[0, 1, 2, 3, 4, 5], [9, 1, 2, 3, 4, 9]]), "hand 1: a card appears twice"),
    ],
)
def test_bulk_refuses_bad_input_naming_the_problem(hands: np.ndarray, message: str) -> None:
    with pytest.raises(CardError, match=message):
        evaluate_many(hands)


def test_bulk_finds_a_repeated_card_in_a_later_chunk() -> None:
    hands = np.tile(np.arange(7, dtype=np.uint8), (20_000, 1))
    hands[19_999, 6] = 0
    with pytest.raises(CardError, match="hand 19999: a card appears twice"):
        evaluate_many(hands)


def test_unchecked_bulk_input_never_reads_out_of_bounds() -> None:
    # Garbage in, meaningless strengths out, but no crash: callers who skip checks own validity.
    garbage = np.array([[0, 0, 0, 0, 0, 0, 0], [51] * 7, [200, 1, 2, 3, 4, 5, 6]], np.uint8)
    assert evaluate_many(garbage, check=False).shape == (3,)


def five_card_counts() -> dict[str, int]:
    totals: dict[str, int] = dict.fromkeys(HAND_NAMES, 0)
    for chunk in all_hands(5):
        for name, n in category_counts(evaluate_many(chunk), ace_king=True).items():
            totals[name] += n
    return totals


def test_every_five_card_hand_counts_as_rules_md_says() -> None:
    assert five_card_counts() == {
        "royal-flush": 4,
        "straight-flush": 36,
        "four-of-a-kind": 624,
        "full-house": 3_744,
        "flush": 5_108,
        "straight": 10_200,
        "three-of-a-kind": 54_912,
        "two-pair": 123_552,
        "pair": 1_098_240,
        "ace-king": 167_280,
        "high-card": 1_302_540 - 167_280,
    }


@pytest.mark.slow
def test_every_seven_card_hand_counts_as_rules_md_says() -> None:
    counts = np.zeros(len(CATEGORIES), np.int64)
    hands = 0
    for chunk in all_hands(7):
        counts += np.bincount(category_indices(evaluate_many(chunk)), minlength=len(CATEGORIES))
        hands += len(chunk)
    assert hands == 133_784_560
    assert dict(zip(CATEGORIES, counts.tolist(), strict=True)) == {
        "royal-flush": 4_324,
        "straight-flush": 37_260,
        "four-of-a-kind": 224_848,
        "full-house": 3_473_184,
        "flush": 4_047_644,
        "straight": 6_180_020,
        "three-of-a-kind": 6_461_620,
        "two-pair": 31_433_400,
        "pair": 58_627_800,
        "high-card": 23_294_460,
    }


def test_category_helpers_refuse_strengths_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"strengths must be 1\.\.7462"):
        category_indices([0])
    with pytest.raises(ValueError, match=r"strengths must be 1\.\.7462"):
        category_counts([7463])
    with pytest.raises(ValueError, match="integers"):
        category_indices([1.0])
    assert category_counts([1, 7462, 7462]) == {
        **dict.fromkeys(CATEGORIES, 0),
        "high-card": 1,
        "royal-flush": 2,
    }
