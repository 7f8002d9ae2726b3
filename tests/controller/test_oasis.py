"""Oasis Poker: every rule and decided point of docs/rules.md, as settled round records."""

from __future__ import annotations

import pytest

from controller.errors import ConfigError, RuleViolation
from tests.controller.roundkit import bets, box, passes, record, settle

# A qualifying dealer (two pair) and a non-qualifying one (queen high).
DEALER_2P = "9s 9h Jc Jd 3c"
DEALER_NQ = "Qc 9d 7c 4d 2s"


def oasis(
    boxes: dict[int, str],
    dealer: str,
    *,
    antes: dict[int, int] | None = None,
    actions: list[dict[str, object]] | None = None,
    extra: str = "",
    **kw: object,
) -> dict[str, object]:
    antes = antes or {}
    stakes = kw.pop("stakes", None) or [{"box": b, "ante": antes.get(b, 10)} for b in sorted(boxes)]
    cards = passes(boxes, dealer, n=5) + extra.split()
    return settle(record("oasis", boxes=stakes, cards=cards, actions=actions, **kw))  # type: ignore[arg-type]


def dealer_ace_king(player: str) -> str:
    """A barely qualifying dealer hand (A-K-8-6-3, not suited) using none of the player's cards."""
    taken = set(player.split())
    out: list[str] = []
    for rank in "AK863":
        suit = next(s for s in "cdhs" if rank + s not in taken and (len(out) < 4 or s != out[0][1]))
        out.append(rank + suit)
    return " ".join(out)


def raise_(b: int) -> dict[str, object]:
    return {"box": b, "action": "raise"}


def test_seed_worked_example_full_house_wins_ante_plus_seven_times_the_raise() -> None:
    s = oasis({1: "Kc Kd Kh 4s 4c"}, DEALER_2P, actions=[raise_(1)])
    assert s["dealer"] == {"cards": ["9s", "9h", "Jc", "Jd", "3c"], "hand": "two-pair", "qualifies": True}
    assert bets(s, 1) == {"ante": 10, "raise": 140}
    assert box(s, 1)["main"] == 150
    assert box(s, 1)["outcome"] == "win"


def test_seed_royal_flush_pays_2010_then_the_cap_cuts_it() -> None:
    rf = {1: "As Ks Qs Js Ts"}
    uncapped = oasis(rf, DEALER_2P, actions=[raise_(1)], table={"max_payout": 3000})
    assert box(uncapped, 1)["main"] == 2010
    assert not box(uncapped, 1)["capped"]
    capped = oasis(rf, DEALER_2P, actions=[raise_(1)], table={"max_payout": 2000})
    assert box(capped, 1)["main"] == 2000
    assert box(capped, 1)["capped"] is True
    assert box(capped, 1)["cap_cut"] == 10
    assert bets(capped, 1) == {"ante": 10, "raise": 2000, "cap": -10}


def test_exchange_then_raise_against_a_non_qualifying_dealer_nets_zero() -> None:
    s = oasis(
        {1: "2c 5d 8h Jc Kd"},
        DEALER_NQ,
        actions=[{"box": 1, "action": "exchange", "discard": ["2c"]}, raise_(1)],
        extra="3h",
    )
    assert s["dealer"]["qualifies"] is False
    assert bets(s, 1) == {"ante": 10, "raise": 0, "exchange-fee": -10}
    assert box(s, 1)["main"] == 0
    assert box(s, 1)["cards"] == ["5d", "8h", "Jc", "Kd", "3h"]
    assert box(s, 1)["discards"] == ["2c"]


def test_non_qualifying_dealer_pays_the_ante_and_returns_the_raise_whatever_the_hand() -> None:
    s = oasis({1: "As Ks Qs Js Ts", 2: "2c 3d 5h 7s 8c"}, DEALER_NQ, actions=[raise_(1), raise_(2)])
    assert bets(s, 1) == {"ante": 10, "raise": 0}
    assert bets(s, 2) == {"ante": 10, "raise": 0}


def test_dealer_qualifies_with_ace_king_and_not_with_ace_queen() -> None:
    player = {1: "8c 8d 4h 5s 6c"}
    ak = oasis(player, "Ac Kh 7d 4d 2s", actions=[raise_(1)])
    assert ak["dealer"]["hand"] == "ace-king"
    assert ak["dealer"]["qualifies"] is True
    assert bets(ak, 1) == {"ante": 10, "raise": 20}
    aq = oasis(player, "Ac Qh 7d 4d 2s", actions=[raise_(1)])
    assert aq["dealer"]["hand"] == "high-card"
    assert aq["dealer"]["qualifies"] is False


def test_ace_king_beating_ace_king_pays_the_raise_one_to_one() -> None:
    s = oasis({1: "Ad Ks Jh 3c 2d"}, "Ac Kh Td 9d 8s", actions=[raise_(1)])
    assert box(s, 1)["hand"] == "ace-king"
    assert bets(s, 1) == {"ante": 10, "raise": 20}


def test_lower_hand_loses_ante_and_raise_and_equal_hands_push() -> None:
    lower = oasis({1: "8c 8d 4h 5s 6c"}, DEALER_2P, actions=[raise_(1)])
    assert box(lower, 1)["outcome"] == "lose"
    assert bets(lower, 1) == {"ante": -10, "raise": -20}
    tie = oasis({1: "9c 9d Jh Js 3d"}, DEALER_2P, actions=[raise_(1)])
    assert box(tie, 1)["outcome"] == "push"
    assert box(tie, 1)["main"] == 0


@pytest.mark.parametrize(
    ("cards", "hand", "multiple"),
    [
        ("As Ks Qs Js Ts", "royal-flush", 100),
        ("9h Th Jh Qh Kh", "straight-flush", 50),
        ("7c 7d 7h 7s 2c", "four-of-a-kind", 20),
        ("Kc Kd Kh 4s 4c", "full-house", 7),
        ("Ah 8h 5h 4h 2h", "flush", 5),
        ("Kc Qd Jh Ts 9c", "straight", 4),
        ("Ac 2d 3h 4s 5c", "straight", 4),
        ("Qc Qd Qh 5s 2c", "three-of-a-kind", 3),
        ("Kc Kd 4h 4s 2c", "two-pair", 2),
        ("Ac Ad 5h 4s 2c", "pair", 1),
    ],
)
def test_raise_paytable_row(cards: str, hand: str, multiple: int) -> None:
    s = oasis({1: cards}, dealer_ace_king(cards), actions=[raise_(1)])
    assert s["dealer"]["hand"] == "ace-king"
    assert box(s, 1)["hand"] == hand
    assert bets(s, 1) == {"ante": 10, "raise": 20 * multiple}


def test_no_wrap_around_straight_is_just_ace_king() -> None:
    s = oasis({1: "4c 3d 2h As Kc"}, "Ad Qh 7d 6d 5s", table={"max_payout": 3000}, actions=[raise_(1)])
    assert box(s, 1)["hand"] == "ace-king"


def test_fold_loses_the_ante_and_the_bonus_even_with_a_bonus_hand() -> None:
    s = oasis(
        {1: "Kc Qd Jh Ts 9c"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}],
        actions=[{"box": 1, "action": "fold"}],
    )
    assert box(s, 1)["outcome"] == "fold"
    assert bets(s, 1) == {"ante": -10, "bonus": -5}


@pytest.mark.parametrize(
    ("cards", "pays"),
    [
        ("Kc Qd Jh Ts 9c", 40),
        ("Ah 8h 5h 4h 2h", 60),
        ("Kc Kd Kh 4s 4c", 100),
        ("7c 7d 7h 7s 2c", 200),
        ("9h Th Jh Qh Kh", 500),
        ("Qc Qd Qh 5s 2c", None),
        ("Kc Kd 4h 4s 2c", None),
    ],
)
def test_bonus_paytable_rows_settle_on_the_dealt_five_whatever_the_dealer(cards: str, pays: int | None) -> None:
    # The dealer beats most of these hands: the bonus ignores the dealer.
    s = oasis({1: cards}, "Ac Ad As 3c 3d", stakes=[{"box": 1, "ante": 10, "bonus": 5}], actions=[raise_(1)])
    assert box(s, 1)["bonus"] == (5 * pays if pays else -5)


def test_royal_flush_bonus_pays_1000_when_the_table_has_no_jackpot() -> None:
    s = oasis(
        {1: "As Ks Qs Js Ts"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}],
        actions=[raise_(1)],
        table={"jackpot": {"enabled": False}},
    )
    assert box(s, 1)["bonus"] == 5000
    assert box(s, 1)["jackpot"] == 0


def test_three_of_a_kind_bonus_is_a_setting() -> None:
    s = oasis(
        {1: "Qc Qd Qh 5s 2c"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}],
        actions=[raise_(1)],
        table={"bonus": {"paytable": {"three-of-a-kind": 5, "straight": 40, "royal-flush": 1000}}},
    )
    assert box(s, 1)["bonus"] == 25


def test_bonus_is_lost_after_an_exchange_even_if_the_new_hand_is_a_straight() -> None:
    s = oasis(
        {1: "Kc Qd Jh Ts 9c"},
        DEALER_NQ,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}],
        actions=[{"box": 1, "action": "exchange", "discard": ["9c"]}, raise_(1)],
        extra="Ac",
    )
    assert box(s, 1)["hand"] == "straight"
    assert bets(s, 1)["bonus"] == -5


def test_royal_flush_with_a_bonus_wins_the_jackpot_instead_of_the_bonus_pay() -> None:
    s = oasis(
        {1: "As Ks Qs Js Ts", 2: "2c 3d 5h 7s 8c"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}, {"box": 2, "ante": 10}],
        actions=[raise_(1), raise_(2)],
        meter=25000,
        table={"jackpot": {"reset": 10000, "contribution": 3}},
    )
    b1 = box(s, 1)
    assert b1["jackpot"] == 25000
    assert b1["bonus"] == 0  # the bonus stake is returned with the jackpot
    assert b1["main"] == 2010
    assert b1["net"] == 27010
    # One losing box (box 2) contributes; the meter resets first.
    assert s["jackpot"] == {
        "meter": 25000,
        "hits": [{"box": 1, "hand": "royal-flush", "amount": 25000}],
        "won": 25000,
        "contribution": 3,
        "meter_after": 10003,
    }


def test_royal_flush_without_a_bonus_wins_no_jackpot() -> None:
    s = oasis({1: "As Ks Qs Js Ts"}, DEALER_2P, actions=[raise_(1)], meter=25000)
    assert box(s, 1)["jackpot"] == 0
    assert s["jackpot"]["meter_after"] == 25000


def test_two_jackpot_hits_share_the_meter_as_it_stood_remainder_to_the_lower_box() -> None:
    s = oasis(
        {1: "As Ks Qs Js Ts", 3: "Ah Kh Qh Jh Th"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}, {"box": 3, "ante": 10, "bonus": 5}],
        actions=[raise_(1), raise_(3)],
        meter=25001,
    )
    assert [box(s, 1)["jackpot"], box(s, 3)["jackpot"]] == [12501, 12500]
    assert s["jackpot"]["meter_after"] == 10000


def test_losing_and_folded_boxes_each_contribute_to_the_jackpot() -> None:
    s = oasis(
        {1: "8c 8d 4h 5s 6c", 2: "2c 3d 5h 7s 8h", 3: "Kc Kd Kh 4s 4c"},
        DEALER_2P,
        actions=[raise_(1), {"box": 2, "action": "fold"}, raise_(3)],
        meter=20000,
        table={"jackpot": {"contribution": 2}},
    )
    assert s["jackpot"]["contribution"] == 4
    assert s["jackpot"]["meter_after"] == 20004


def test_blind_box_posts_its_raise_and_takes_no_decision() -> None:
    s = oasis(
        {1: "Kc Kd 4h 4s 2c", 2: "8c 8d 4d 5s 6c"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "blind": True}, {"box": 2, "ante": 10}],
        actions=[raise_(2)],
    )
    assert bets(s, 1) == {"ante": 10, "raise": 40}
    with pytest.raises(RuleViolation, match="box 1 cannot decide now"):
        oasis(
            {1: "Kc Kd 4h 4s 2c", 2: "8c 8d 4d 5s 6c"},
            DEALER_2P,
            stakes=[{"box": 1, "ante": 10, "blind": True}, {"box": 2, "ante": 10}],
            actions=[{"box": 1, "action": "fold"}, raise_(2)],
        )


def test_shared_box_results_are_shared_by_stake_remainder_to_the_owner() -> None:
    # Royal flush capped at 1000 on a box of 30 staked 20/7/3: 1000 does not divide by 30.
    s = oasis(
        {4: "As Ks Qs Js Ts"},
        DEALER_2P,
        stakes=[
            {
                "box": 4,
                "ante": 30,
                "bettors": [
                    {"name": "A", "ante": 20, "bonus": 5},
                    {"name": "B", "ante": 7},
                    {"name": "C", "ante": 3, "bonus": 2},
                ],
            }
        ],
        actions=[raise_(4)],
        table={"min_bet": 1, "max_payout": 1000, "jackpot": {"enabled": False}},
    )
    b4 = box(s, 4)
    assert b4["main"] == 1000
    assert b4["capped"] is True
    shares = {p["name"]: p for p in b4["bettors"]}
    assert shares["B"]["main"] == 233  # 1000 * 7 / 30 = 233.3, rounded down
    assert shares["C"]["main"] == 100
    assert shares["A"]["main"] == 667  # 666.6 plus the remainder
    assert shares["A"]["bonus"] == 5000 and shares["C"]["bonus"] == 2000
    assert sum(p["net"] for p in b4["bettors"]) == b4["net"]


def test_shared_box_jackpot_follows_the_bonus_stakes() -> None:
    s = oasis(
        {4: "As Ks Qs Js Ts"},
        DEALER_2P,
        stakes=[
            {
                "box": 4,
                "ante": 30,
                "bettors": [{"name": "A", "ante": 20}, {"name": "B", "ante": 10, "bonus": 5}],
            }
        ],
        actions=[raise_(4)],
        meter=12345,
    )
    shares = {p["name"]: p["jackpot"] for p in box(s, 4)["bettors"]}
    assert shares == {"A": 0, "B": 12345}


def test_decisions_are_taken_box_by_box_in_ascending_order() -> None:
    with pytest.raises(RuleViolation, match=r"decide\.out-of-turn"):
        oasis({1: "Kc Kd 4h 4s 2c", 2: "8c 8d 4d 5s 6c"}, DEALER_2P, actions=[raise_(2), raise_(1)])


def test_one_exchange_per_box_then_only_raise_or_fold() -> None:
    with pytest.raises(RuleViolation, match=r"box 1 cannot exchange now.*oasis\.decision"):
        oasis(
            {1: "2c 5d 8h Jc Kd"},
            DEALER_NQ,
            actions=[
                {"box": 1, "action": "exchange", "discard": ["2c"]},
                {"box": 1, "action": "exchange", "discard": ["5d"]},
            ],
            extra="3h 4h",
        )


@pytest.mark.parametrize(
    ("discard", "rule"),
    [(["2c", "5d"], "oasis.exchange-one"), (["Ah"], "oasis.exchange-own-card")],
)
def test_an_exchange_discards_one_card_the_box_holds(discard: list[str], rule: str) -> None:
    with pytest.raises(RuleViolation) as info:
        oasis({1: "2c 5d 8h Jc Kd"}, DEALER_NQ, actions=[{"box": 1, "action": "exchange", "discard": discard}])
    assert info.value.rule == rule


@pytest.mark.parametrize(
    ("stakes", "rule"),
    [
        ([{"box": 1, "ante": 5}], "table.min-bet"),
        ([{"box": 1, "ante": 200}], "table.max-bet"),
        ([{"box": 1, "ante": 10, "bonus": 50}], "bonus.limits"),
        ([{"box": 9, "ante": 10}], "table.boxes"),
        (
            [{"box": 1, "ante": 110, "bettors": [{"name": "A", "ante": 60}, {"name": "B", "ante": 50}]}],
            "table.max-bet",
        ),
        (
            [
                {
                    "box": 1,
                    "ante": 40,
                    "bettors": [{"name": n, "ante": 10} for n in "ABCD"],
                }
            ],
            "shared-box.max-bettors",
        ),
    ],
)
def test_bets_outside_the_limits_are_refused_by_rule(stakes: list[dict[str, object]], rule: str) -> None:
    with pytest.raises(RuleViolation) as info:
        oasis({1: "Kc Kd 4h 4s 2c"}, DEALER_2P, stakes=stakes, actions=[raise_(1)])
    assert info.value.rule == rule


def test_unknown_table_setting_is_named() -> None:
    with pytest.raises(ConfigError, match="max_payot"):
        oasis({1: "Kc Kd 4h 4s 2c"}, DEALER_2P, actions=[raise_(1)], table={"max_payot": 5})


def test_partial_jackpot_hits_never_take_more_than_the_meter_and_replace_the_bonus_pay() -> None:
    # A royal flush (whole meter) and a straight flush (10 %) in one round share 10,000.
    table = {"jackpot": {"hit_hands": {"royal-flush": 100, "straight-flush": 10}}}
    s = oasis(
        {1: "As Ks Qs Js Ts", 2: "8d 7d 6d 5d 4d"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}, {"box": 2, "ante": 10, "bonus": 5}],
        actions=[raise_(1), raise_(2)],
        meter=10_000,
        table=table,
    )
    assert s["jackpot"]["won"] == 10_000
    assert [box(s, 1)["jackpot"], box(s, 2)["jackpot"]] == [9091, 909]
    assert box(s, 1)["bonus"] == 0  # the whole-meter hit replaces the bonus pay
    assert box(s, 2)["bonus"] == 0  # so does a partial hit: not the 500:1 bonus as well (stake returned)
    assert s["jackpot"]["meter_after"] == 10_000  # reset value; nothing contributed (no losing box)
    unshared = oasis(
        {1: "As Ks Qs Js Ts", 2: "8d 7d 6d 5d 4d"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}, {"box": 2, "ante": 10, "bonus": 5}],
        actions=[raise_(1), raise_(2)],
        meter=10_000,
        table={"jackpot": {**table["jackpot"], "share_hits": False}},
    )
    assert [box(unshared, 1)["jackpot"], box(unshared, 2)["jackpot"]] == [10_000, 1000]


def test_when_every_box_folds_the_dealer_hand_is_never_shown() -> None:
    s = oasis({1: "2c 3d 5h 7s 8c"}, DEALER_2P, actions=[{"box": 1, "action": "fold"}])
    assert s["dealer"]["hand"] is None and s["dealer"]["qualifies"] is None


def test_a_bonus_row_of_zero_returns_the_stake() -> None:
    s = oasis(
        {1: "Kc Qd Jh Ts 9c"},
        DEALER_2P,
        stakes=[{"box": 1, "ante": 10, "bonus": 5}],
        actions=[raise_(1)],
        table={"bonus": {"paytable": {"straight": 0, "flush": 60}}},
    )
    assert bets(s, 1)["bonus"] == 0
