"""Texas Hold'em Bonus: every rule and decided point of docs/rules.md, as settled round records."""

from __future__ import annotations

from typing import Any

import pytest

from controller.errors import RuleViolation
from tests.controller.roundkit import bets, box, holdem_round


def thb(*args: Any, **kw: Any) -> dict[str, Any]:
    return holdem_round("holdem-bonus", *args, **kw)


def a(b: int, name: str) -> dict[str, object]:
    return {"box": b, "action": name}


def test_win_with_a_straight_pays_ante_and_every_street_bet_even() -> None:
    s = thb({1: "9c Td"}, "Ac Ad", "Jh Qh 8s 2c 3d", actions=[a(1, "bet"), a(1, "bet"), a(1, "bet")])
    assert s["dealer"]["qualifies"] is True
    assert bets(s, 1) == {"ante": 10, "flop": 20, "turn": 10, "river": 10}


def test_win_below_a_straight_pushes_the_ante() -> None:
    s = thb({1: "Kc Kd"}, "Qc Qd", "2h 7s 9d Jc 3s", actions=[a(1, "bet"), a(1, "check"), a(1, "bet")])
    assert bets(s, 1) == {"ante": 0, "flop": 20, "river": 10}
    assert box(s, 1)["outcome"] == "win"


def test_ante_pays_from_flush_is_a_setting() -> None:
    s = thb(
        {1: "9c Td"},
        "Ac Ad",
        "Jh Qh 8s 2c 3d",
        actions=[a(1, "bet"), a(1, "check"), a(1, "check")],
        table={"rules": {"ante_pays_from": "flush"}},
    )
    assert bets(s, 1) == {"ante": 0, "flop": 20}


def test_dealer_higher_takes_every_bet_and_equal_pushes_all() -> None:
    lose = thb({1: "Qc Qd"}, "Kc Kd", "2h 7s 9d Jc 3s", actions=[a(1, "bet"), a(1, "bet"), a(1, "check")])
    assert bets(lose, 1) == {"ante": -10, "flop": -20, "turn": -10}
    tie = thb({1: "2c 3d"}, "2h 3s", "Ac Kd Qh Js 9c", actions=[a(1, "bet"), a(1, "bet"), a(1, "bet")])
    assert box(tie, 1)["outcome"] == "push"
    assert box(tie, 1)["main"] == 0


def test_fold_before_the_flop_loses_the_ante_and_all_folding_deals_no_board() -> None:
    s = thb({1: "7c 2d"}, "Kc Kd", "", actions=[a(1, "fold")])
    assert box(s, 1)["outcome"] == "fold"
    assert bets(s, 1) == {"ante": -10}
    assert s["board"] == []


def test_only_flop_bet_or_fold_first_then_bet_or_check() -> None:
    with pytest.raises(RuleViolation, match=r"holdem-bonus\.pre-flop"):
        thb({1: "7c 2d"}, "Kc Kd", "", actions=[a(1, "check")])
    with pytest.raises(RuleViolation, match=r"holdem-bonus\.flop"):
        thb({1: "7c 2d"}, "Kc Kd", "2h 7s 9d", actions=[a(1, "bet"), a(1, "fold")])


@pytest.mark.parametrize(
    ("hole", "dealer", "pays"),
    [
        ("Ac Ad", "Ah As", 1000),
        ("Ac Ad", "Kh Ks", 30),
        ("Ah Kh", "2c 3d", 25),
        ("Ah Qh", "2c 3d", 20),
        ("As Js", "2c 3d", 20),
        ("Ah Kc", "2c 3d", 15),
        ("Kc Kd", "2c 3d", 10),
        ("Qc Qd", "2c 3d", 10),
        ("Jc Jd", "2c 3d", 10),
        ("Ah Qc", "2c 3d", 5),
        ("Ad Jc", "2h 3d", 5),
        ("2h 2s", "4c 3d", 3),
        ("Tc Td", "2c 3d", 3),
        ("Ah Tc", "2c 3d", None),
        ("Kh Qh", "2c 3d", None),
    ],
)
def test_bonus_rows_on_the_hole_cards_paid_even_after_a_fold(hole: str, dealer: str, pays: int | None) -> None:
    s = thb({1: hole}, dealer, "", stakes=[{"box": 1, "ante": 10, "bonus": 5}], actions=[a(1, "fold")])
    assert bets(s, 1)["bonus"] == (5 * pays if pays else -5)
    assert box(s, 1)["main"] == -10


def test_street_bet_wins_are_capped_at_the_table_maximum() -> None:
    s = thb(
        {1: "9c Td"},
        "Ac Ad",
        "Jh Qh 8s 2c 3d",
        stakes=[{"box": 1, "ante": 100}],
        actions=[a(1, "bet"), a(1, "bet"), a(1, "bet")],
        table={"max_payout": 300},
    )
    assert box(s, 1)["main"] == 300
    assert box(s, 1)["cap_cut"] == 200
