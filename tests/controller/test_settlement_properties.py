"""Property tests: random rounds of every game replay identically, respect the cap and balance."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cards import DECK
from controller.config import build_config
from controller.engine import Bettor, BoxBet, Complete, Deal, Decide, Round
from controller.games import game_names
from controller.record import loads, parse_record, record_from_round, settle_record
from tests.controller.strategies import decision


@st.composite
def rounds(draw: st.DrawFn) -> tuple[Round, dict[str, Any]]:
    """A random complete round of a random game, played through the engine move by move."""
    game = draw(st.sampled_from(game_names()))
    table: dict[str, Any] = {
        "min_bet": 10,
        "max_bet": 100,
        "max_payout": draw(st.integers(20, 3000)),
    }
    config = build_config({"game": game, **table})
    numbers = draw(st.lists(st.integers(1, config.boxes), min_size=1, max_size=5, unique=True))
    bets = []
    for n in sorted(numbers):
        bonus = 0
        if config.bonus.enabled and draw(st.booleans()):
            bonus = draw(st.integers(config.bonus.min_bet, config.bonus.max_bet))
        if draw(st.integers(0, 3)) == 0:
            antes = draw(st.lists(st.integers(10, 33), min_size=2, max_size=config.max_bettors))
            bonuses = [draw(st.sampled_from([0, bonus])) if bonus else 0 for _ in antes]
            people = tuple(Bettor(f"B{n}P{i}", a, b) for i, (a, b) in enumerate(zip(antes, bonuses, strict=True)))
            bets.append(BoxBet(box=n, ante=sum(antes), bonus=sum(bonuses), bettors=people))
        else:
            blind = config.game == "oasis" and draw(st.integers(0, 4)) == 0
            bets.append(BoxBet(box=n, ante=draw(st.integers(10, 100)), bonus=bonus, blind=blind))
    rnd = Round(config=config, bets=bets, jackpot_meter=draw(st.integers(0, 50_000)))
    deck = list(draw(st.permutations(DECK)))
    while not isinstance(step := rnd.expected(), Complete):
        if isinstance(step, Deal):
            rnd.deal(deck.pop())
        else:
            assert isinstance(step, Decide)
            rnd.act(decision(draw, rnd, step))
    return rnd, table


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(rounds())
def test_replaying_a_record_twice_gives_the_same_settlement(case: tuple[Round, dict[str, Any]]) -> None:
    rnd, table = case
    live = rnd.settle().to_json()
    text = json.dumps(record_from_round(rnd, table=table).to_json())
    first = settle_record(parse_record(loads(text))).to_json()
    second = settle_record(parse_record(loads(text))).to_json()
    assert first == second == live


@PROPERTY
@given(rounds())
def test_no_box_main_win_exceeds_the_cap(case: tuple[Round, dict[str, Any]]) -> None:
    rnd, _ = case
    settlement = rnd.settle()
    for box in settlement.boxes:
        wagers_won = sum(b.result for b in box.bets if b.kind in ("wager", "cap") and b.result > 0)
        cut = box.cap_cut
        assert wagers_won - cut <= rnd.config.max_payout
        assert box.main <= rnd.config.max_payout
        assert box.capped == (cut > 0)


@PROPERTY
@given(rounds())
def test_what_players_win_is_what_the_house_and_jackpot_pay(case: tuple[Round, dict[str, Any]]) -> None:
    rnd, _ = case
    settlement = rnd.settle()
    assert sum(b.net for b in settlement.boxes) == settlement.house_pays + settlement.jackpot.won
    for box in settlement.boxes:
        if box.bettors:
            assert sum(p.net for p in box.bettors) == box.net
            total = sum(p.ante for p in box.bettors)
            for p in box.bettors[1:]:
                # Nobody but the owner gets more than their exact share of the main result.
                assert abs(p.main) <= abs(box.main) * p.ante / total
        assert box.net == box.main + box.bonus + box.jackpot


@PROPERTY
@given(rounds())
def test_voiding_any_round_returns_every_stake(case: tuple[Round, dict[str, Any]]) -> None:
    rnd, _ = case
    void = rnd.void("malfunction voids all pays and plays")
    assert all(b.net == 0 and b.outcome == "void" for b in void.boxes)
    assert void.house_pays == 0
    assert void.jackpot.meter_after == rnd.jackpot_meter
