"""Casino Hold'em: every rule and decided point of docs/rules.md, as settled round records."""

from __future__ import annotations

from typing import Any

import pytest

from controller.errors import RecordError, RuleViolation
from tests.controller.roundkit import bets, box, holdem_round


def holdem(*args: Any, **kw: Any) -> dict[str, Any]:
    return holdem_round("casino-holdem", *args, **kw)


def call(b: int) -> dict[str, object]:
    return {"box": b, "action": "call"}


def test_qualified_dealer_beaten_pays_the_ante_by_paytable_and_the_call_even() -> None:
    # Player: flush in hearts; dealer: pair of nines (qualifies).
    s = holdem({1: "Ah 7h"}, "9c 9d", "2h 5h Kh 3c Jd", actions=[call(1)])
    assert s["dealer"] == {"cards": ["9c", "9d"], "hand": "pair", "qualifies": True}
    assert s["board"] == ["2h", "5h", "Kh", "3c", "Jd"]
    assert box(s, 1)["hand"] == "flush"
    assert bets(s, 1) == {"ante": 20, "call": 20}


def test_dealer_qualifies_with_a_pair_of_fours_but_not_threes() -> None:
    fours = holdem({1: "Ac Kd"}, "4c 4d", "2h 8s Jh 9c 6d", actions=[call(1)])
    assert fours["dealer"]["qualifies"] is True
    assert bets(fours, 1) == {"ante": -10, "call": -20}
    threes = holdem({1: "Ac Kd"}, "3c 3d", "2h 8s Jh 9c 6d", actions=[call(1)])
    assert threes["dealer"]["qualifies"] is False
    # Not qualified: ante by the paytable (high card 1:1), call returned.
    assert bets(threes, 1) == {"ante": 10, "call": 0}


def test_non_qualifying_dealer_pays_the_ante_paytable_for_a_big_hand() -> None:
    s = holdem({1: "Ah Kh"}, "3c 2d", "Qh Jh Th 7c 8d", actions=[call(1)], table={"max_payout": 5000})
    assert box(s, 1)["hand"] == "royal-flush"
    assert bets(s, 1) == {"ante": 1000, "call": 0}


@pytest.mark.parametrize(
    ("hole", "board", "hand", "ante_pays"),
    [
        ("9h 8h", "7h 6h 5h 2c 2d", "straight-flush", 20),
        ("Ac Ad", "As Ah 5h 2c 3d", "four-of-a-kind", 10),
        ("Kc Kd", "Ks 5h 5c 2c 3d", "full-house", 3),
        ("Ah 8h", "Jh 3h 5h Kc 9d", "flush", 2),
        ("9c Td", "Jh Qh 8s 2c 3d", "straight", 1),
    ],
)
def test_ante_paytable_rows(hole: str, board: str, hand: str, ante_pays: int) -> None:
    s = holdem({1: hole}, "4c 4d", board, actions=[call(1)])
    assert box(s, 1)["hand"] == hand
    assert bets(s, 1) == {"ante": 10 * ante_pays, "call": 20}


def test_ante_win_over_the_cap_is_cut_and_shown() -> None:
    s = holdem({1: "Ah Kh"}, "4c 4d", "Qh Jh Th 7c 8d", stakes=[{"box": 1, "ante": 100}], actions=[call(1)])
    assert box(s, 1)["capped"] is True
    assert box(s, 1)["main"] == 3000
    assert box(s, 1)["cap_cut"] == 10000 + 200 - 3000


def test_equal_hands_push_and_kickers_decide() -> None:
    tie = holdem({1: "2c 3d"}, "2h 3s", "Ac Ad Qh Js 9c", actions=[call(1)])
    assert box(tie, 1)["outcome"] == "push"
    assert box(tie, 1)["main"] == 0
    kicker = holdem({1: "Ac 9d"}, "Ad 8s", "As 7h 4c 3d 2s", actions=[call(1)])
    assert box(kicker, 1)["outcome"] == "win"


def test_fold_loses_ante_and_bonus_and_all_folding_ends_the_round_after_the_flop() -> None:
    s = holdem(
        {1: "Ac Ad"},
        "4c 4d",
        "As Kd 2c",
        stakes=[{"box": 1, "ante": 10, "bonus": 10}],
        actions=[{"box": 1, "action": "fold"}],
    )
    assert box(s, 1)["outcome"] == "fold"
    assert bets(s, 1) == {"ante": -10, "bonus": -10}
    assert s["dealer"]["qualifies"] is None
    with pytest.raises(RecordError, match="too many cards"):
        holdem({1: "Ac Ad"}, "4c 4d", "As Kd 2c 7h", actions=[{"box": 1, "action": "fold"}])


@pytest.mark.parametrize(
    ("hole", "flop", "pays"),
    [
        ("Ah Kh", "Qh Jh Th", 100),
        ("9h 8h", "7h 6h 5h", 50),
        ("Ac Ad", "As Ah 5h", 40),
        ("Kc Kd", "Ks 5h 5c", 30),
        ("Ah 8h", "Jh 3h 5h", 20),
        ("9c Td", "Jh Qh 8s", 7),
        ("9c 9d", "9h Qh 8s", 7),
        ("9c 8d", "9h 8h 2s", 7),
        ("Ac Ad", "9h 8h 2s", 7),
        ("Kc Kd", "9h 8h 2s", None),
        ("Ac Qd", "9h 8h 2s", None),
    ],
)
def test_aa_bonus_rows_on_hole_cards_and_flop(hole: str, flop: str, pays: int | None) -> None:
    # The turn and river make quads for nobody's bonus: they do not count.
    s = holdem({1: hole}, "4c 4d", f"{flop} 4h 4s", stakes=[{"box": 1, "ante": 10, "bonus": 5}], actions=[call(1)])
    assert bets(s, 1)["bonus"] == (5 * pays if pays else -5)


def test_only_call_or_fold() -> None:
    with pytest.raises(RuleViolation, match=r"casino-holdem\.actions"):
        holdem({1: "Ac Kd"}, "4c 4d", "2h 8s Jh 9c 6d", actions=[{"box": 1, "action": "raise"}])


def test_no_blind_boxes_in_casino_holdem() -> None:
    with pytest.raises(RuleViolation, match=r"casino-holdem\.no-blind"):
        holdem(
            {1: "Ac Kd"},
            "4c 4d",
            "2h 8s Jh 9c 6d",
            stakes=[{"box": 1, "ante": 10, "blind": True}],
            actions=[],
        )
