"""Hold'em with exchange: every rule and decided point of docs/rules.md, as settled round records."""

from __future__ import annotations

import pytest

from controller.errors import ConfigError, RuleViolation
from tests.controller.roundkit import bets, box, passes, record, settle


def hx(
    boxes: dict[int, str],
    dealer: str,
    *,
    board: str,
    actions: list[dict[str, object]],
    replacements: str = "",
    stakes: list[dict[str, object]] | None = None,
    **kw: object,
) -> dict[str, object]:
    """``board`` is in board order (flop 1-3, then 4th and 5th); the shoe gives 4th and 5th first."""
    b = board.split()
    stakes = stakes or [{"box": n, "ante": 10} for n in sorted(boxes)]
    cards = [*passes(boxes, dealer, n=2), b[3], b[4], b[0], b[1], b[2], *replacements.split()]
    return settle(record("holdem-exchange", boxes=stakes, cards=cards, actions=actions, **kw))  # type: ignore[arg-type]


def act(b: int, name: str, *discard: str) -> dict[str, object]:
    out: dict[str, object] = {"box": b, "action": name}
    if discard:
        out["discard"] = list(discard)
    return out


def test_face_down_board_cards_are_drawn_before_the_flop_and_count_as_4th_and_5th() -> None:
    s = hx({1: "Ac Ad"}, "Kc Kd", board="2h 7s 9d Jc 3s", actions=[act(1, "bet")])
    assert s["board"] == ["2h", "7s", "9d", "Jc", "3s"]
    assert s["dealer"]["qualifies"] is True
    assert bets(s, 1) == {"ante": 10, "bet": 20}


def test_dealer_without_a_pair_does_not_qualify_ante_even_bet_returned() -> None:
    s = hx({1: "2c 3d"}, "Kc Qd", board="5h 7s 9d Jc 4s", actions=[act(1, "bet")])
    assert s["dealer"]["qualifies"] is False
    assert bets(s, 1) == {"ante": 10, "bet": 0}


@pytest.mark.parametrize(
    ("hole", "board", "hand", "pays"),
    [
        ("Ah Kh", "Qh Jh Th 2c 3d", "royal-flush", 100),
        ("9h 8h", "7h 6h 5h 2c 3d", "straight-flush", 15),
        ("Ac Ad", "As Ah 5h 2c 3d", "four-of-a-kind", 15),
        ("Kc Kd", "Ks 5h 5c 2c 3d", "full-house", 6),
        ("Ah 8h", "Jh 3h 5h Kc 9d", "flush", 2),
        ("9c Td", "Jh Qh 8s 2c 3d", "straight", 2),
        ("9c 9d", "9h Qh 8s 2c 3d", "three-of-a-kind", 2),
        ("Qc 8d", "Qh 8h 2s 4c 3d", "two-pair", 1),
        ("Ac 7d", "Ah Qh 2s 4c 3d", "pair", 1),
    ],
)
def test_bet_paytable_rows_including_the_decided_sf_flush_straight(hole: str, board: str, hand: str, pays: int) -> None:
    s = hx({1: hole}, "6c 6d", board=board, actions=[act(1, "bet")], table={"max_payout": 5000})
    assert box(s, 1)["hand"] == hand
    assert bets(s, 1) == {"ante": 10, "bet": 20 * pays}


def test_identical_hands_stay() -> None:
    s = hx({1: "2c 3d"}, "2h 3s", board="Ac Ad Qh Js 9c", actions=[act(1, "bet")])
    assert box(s, 1)["outcome"] == "push"
    assert box(s, 1)["main"] == 0


def test_buy_then_exchange_two_then_bet_fees_are_never_returned() -> None:
    s = hx(
        {1: "2c 3d", 2: "Kc Kd"},
        "6c 6d",
        board="Ah Qs 9d Js 4h",
        actions=[
            act(1, "buy"),
            act(2, "bet"),
            act(1, "exchange", "2c", "3d"),
            act(1, "bet"),
        ],
        replacements="Ac Qc",
    )
    b1 = box(s, 1)
    assert b1["cards"] == ["Ac", "Qc"]
    assert b1["discards"] == ["2c", "3d"]
    assert b1["hand"] == "two-pair"
    assert bets(s, 1) == {"ante": 10, "bet": 20, "buy-fee": -10, "exchange-fee": -10}
    assert b1["main"] == 10
    assert bets(s, 2) == {"ante": 10, "bet": 20}


def test_replacements_follow_box_order_and_buyers_decide_after_every_first_decision() -> None:
    s = hx(
        {1: "2c 3d", 3: "4c 5d"},
        "6c 6d",
        board="Ah Qs 9d Js 8h",
        actions=[
            act(1, "buy"),
            act(3, "buy"),
            act(1, "exchange", "2c"),
            act(1, "bet"),
            act(3, "exchange", "4c", "5d"),
            act(3, "fold"),
        ],
        replacements="Ac Kc Kd",
    )
    assert box(s, 1)["cards"] == ["3d", "Ac"]
    assert box(s, 3)["cards"] == ["Kc", "Kd"]
    assert bets(s, 3) == {"ante": -10, "buy-fee": -10, "exchange-fee": -10}
    assert box(s, 3)["outcome"] == "fold"


def test_a_buyer_may_not_decide_again_before_every_box_has_decided_once() -> None:
    with pytest.raises(RuleViolation, match=r"decide\.out-of-turn"):
        hx(
            {1: "2c 3d", 2: "Kc Kd"},
            "6c 6d",
            board="Ah Qs 9d Js 4h",
            actions=[act(1, "buy"), act(1, "bet"), act(2, "bet")],
        )


def test_exchange_only_after_buying_and_at_most_two_own_cards() -> None:
    with pytest.raises(RuleViolation, match=r"cannot exchange now"):
        hx({1: "2c 3d"}, "6c 6d", board="Ah Qs 9d Js 4h", actions=[act(1, "exchange", "2c")])
    with pytest.raises(RuleViolation, match=r"holdem-exchange\.exchange-own-card"):
        hx({1: "2c 3d"}, "6c 6d", board="Ah Qs 9d Js 4h", actions=[act(1, "buy"), act(1, "exchange", "Ah")])


def test_up_to_three_bettors_on_a_box_each_at_least_the_minimum() -> None:
    three = [{"name": n, "ante": 10} for n in "ABC"]
    s = hx(
        {1: "Ac Ad"},
        "Kc Kd",
        board="2h 7s 9d Jc 3s",
        stakes=[{"box": 1, "ante": 30, "bettors": three}],
        actions=[act(1, "bet")],
    )
    assert [p["net"] for p in box(s, 1)["bettors"]] == [30, 30, 30]
    with pytest.raises(RuleViolation, match=r"table\.min-bet"):
        hx(
            {1: "Ac Ad"},
            "Kc Kd",
            board="2h 7s 9d Jc 3s",
            stakes=[{"box": 1, "ante": 15, "bettors": [{"name": "A", "ante": 10}, {"name": "B", "ante": 5}]}],
            actions=[act(1, "bet")],
        )


def test_no_dark_play_and_no_bonus_bet() -> None:
    with pytest.raises(RuleViolation, match=r"holdem-exchange\.no-blind"):
        hx(
            {1: "Ac Ad"},
            "Kc Kd",
            board="2h 7s 9d Jc 3s",
            stakes=[{"box": 1, "ante": 10, "blind": True}],
            actions=[],
        )
    with pytest.raises(RuleViolation, match=r"bonus\.offered"):
        hx(
            {1: "Ac Ad"},
            "Kc Kd",
            board="2h 7s 9d Jc 3s",
            stakes=[{"box": 1, "ante": 10, "bonus": 5}],
            actions=[],
        )
    with pytest.raises(ConfigError, match="no bonus bet"):
        hx({1: "Ac Ad"}, "Kc Kd", board="2h 7s 9d Jc 3s", actions=[], table={"bonus": {"enabled": True}})


def test_dealer_showing_early_lets_the_undecided_only_fold_or_withdraw() -> None:
    s = hx(
        {1: "Kc Kd", 2: "2c 3d", 3: "4c 5d"},
        "6c 6d",
        board="Ah Qs 9d Js 8h",
        actions=[
            act(1, "bet"),
            {"action": "dealer-shown"},
            act(2, "withdraw"),
            act(3, "fold"),
        ],
    )
    assert box(s, 1)["outcome"] == "win"  # decided boxes keep their decisions
    assert box(s, 2)["outcome"] == "withdrawn"
    assert bets(s, 2) == {"ante": 0}
    assert bets(s, 3) == {"ante": -10}
    with pytest.raises(RuleViolation, match=r"box 2 cannot bet now: box 2 to decide: fold or withdraw"):
        hx(
            {1: "Kc Kd", 2: "2c 3d"},
            "6c 6d",
            board="Ah Qs 9d Js 8h",
            actions=[act(1, "bet"), {"action": "dealer-shown"}, act(2, "bet")],
        )


def test_a_buyer_who_withdraws_after_an_early_show_keeps_paying_the_fee() -> None:
    s = hx(
        {1: "2c 3d"},
        "6c 6d",
        board="Ah Qs 9d Js 8h",
        actions=[act(1, "buy"), {"action": "dealer-shown"}, act(1, "withdraw")],
    )
    assert bets(s, 1) == {"ante": 0, "buy-fee": -10}
    assert s["dealer"]["hand"] is None


def test_early_show_as_a_tilt_instead_is_a_setting() -> None:
    with pytest.raises(RuleViolation, match=r"holdem-exchange\.early-show"):
        hx(
            {1: "Kc Kd", 2: "2c 3d"},
            "6c 6d",
            board="Ah Qs 9d Js 8h",
            actions=[act(1, "bet"), {"action": "dealer-shown"}],
            table={"rules": {"withdraw_on_early_show": False}},
        )


def test_a_player_plays_only_one_box() -> None:
    with pytest.raises(RuleViolation, match=r"holdem-exchange\.one-box"):
        hx(
            {1: "Ac Ad", 2: "Kc Kd"},
            "2c 3d",
            board="2h 7s 9d Jc 3s",
            stakes=[
                {"box": 1, "ante": 20, "bettors": [{"name": "A", "ante": 10}, {"name": "B", "ante": 10}]},
                {"box": 2, "ante": 20, "bettors": [{"name": "C", "ante": 10}, {"name": "A", "ante": 10}]},
            ],
            actions=[act(1, "bet"), act(2, "bet")],
        )
