"""Hand evaluation: categories, ordering rules from RULES.md and the seeds' examples."""

import pytest

from controller.errors import CardError
from controller.hands import evaluate


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
