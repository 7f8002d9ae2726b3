"""Cards dealt without identity (tables with no reading shoe): placeholders, reveals, what settlement
needs, records and the journal. Random rounds check that a camera-only round pays exactly what the
same round dealt by a reading shoe pays."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cards import DECK, Card, card
from controller.config import build_config
from controller.engine import Action, BoxBet, Complete, Deal, Decide, Identify, Placeholder, Reveal, Round, Unrevealed
from controller.errors import RecordError, RuleViolation
from controller.games import game_names
from controller.journal import SqliteJournal
from controller.record import loads, parse_record, record_from_round, settle_record
from controller.table import Actor, TableError, TableService
from tests.controller.strategies import decision

DEALER = Actor("dana", "dealer")
SUPERVISOR = Actor("sam", "supervisor")
HOLDEM = build_config({"game": "casino-holdem"})


def hidden_deal(rnd: Round, faces: list[str]) -> dict[int, str]:
    """Deal what the round expects: face-down slots without identity, face-up ones from ``faces``.
    Returns the identity each placeholder really has (the next card of ``faces``)."""
    truth: dict[int, str] = {}
    while isinstance(step := rnd.expected(), Deal):
        code = faces.pop(0)
        if step.slot.face_up:
            rnd.deal(card(code))
        else:
            truth[rnd.deal_unknown().card.number] = code  # type: ignore[attr-defined]
    return truth


def holdem_round() -> tuple[Round, dict[int, str]]:
    rnd = Round(config=HOLDEM, bets=[BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=10)])
    faces = "As Kd 2c Ah Kh 3c Qs Js Ts 9d 8d".split()
    truth = hidden_deal(rnd, faces)
    return rnd, truth


def test_a_placeholder_fills_the_next_face_down_slot_and_hides_its_identity() -> None:
    rnd, truth = holdem_round()
    assert truth == {1: "As", 2: "Kd", 3: "2c", 4: "Ah", 5: "Kh", 6: "3c"}
    first = rnd.card_number(1)
    assert isinstance(first, Placeholder) and first.code == "?1"
    with pytest.raises(Unrevealed, match="card 1 has not been revealed"):
        _ = first.rank
    assert [c.code for c in rnd.state.board_cards()] == ["Qs", "Js", "Ts"]
    assert isinstance(rnd.expected(), Decide)


def test_a_face_up_slot_is_never_dealt_without_identity() -> None:
    rnd = Round(config=HOLDEM, bets=[BoxBet(box=1, ante=10)])
    for _ in range(4):
        rnd.deal_unknown()
    with pytest.raises(RuleViolation, match=r"deal\.face-up-unknown"):
        rnd.deal_unknown()
    assert rnd.cards_dealt == 4


def test_reveals_are_checked_before_they_apply() -> None:
    rnd, _ = holdem_round()
    events = len(rnd.events)
    with pytest.raises(RuleViolation, match=r"reveal\.no-such-card"):
        rnd.reveal(12, card("9c"))
    with pytest.raises(RuleViolation, match=r"reveal\.known"):
        rnd.reveal(7, card("9c"))  # the first flop card was dealt face up, with its identity
    with pytest.raises(RuleViolation, match=r"deal\.duplicate-card"):
        rnd.reveal(1, card("Qs"))  # already on the board
    assert len(rnd.events) == events and isinstance(rnd.card_number(1), Placeholder)
    rnd.reveal(1, card("As"))
    assert rnd.state.boxes[1].cards[0] is card("As")
    with pytest.raises(RuleViolation, match=r"deal\.duplicate-card"):
        rnd.reveal(2, card("As"))


def test_the_round_waits_at_the_showdown_for_the_cards_the_settlement_needs() -> None:
    rnd, truth = holdem_round()
    rnd.act(Action(1, "call"))
    rnd.act(Action(2, "fold"))
    rnd.deal(card("9d"))
    rnd.deal(card("8d"))
    needed: list[int] = []
    while isinstance(step := rnd.expected(), Identify):
        assert isinstance(rnd.card_number(step.number), Placeholder)
        with pytest.raises(RuleViolation, match=r"settle\.incomplete"):
            rnd.settle()
        needed.append(step.number)
        rnd.reveal(step.number, card(truth[step.number]))
    # The dealer's two and box 1's two (with its bonus); box 2 folded: its cards stay unknown.
    assert sorted(needed) == [1, 3, 4, 6]
    assert isinstance(rnd.expected(), Complete)
    paid = rnd.settle().to_json()
    box2 = paid["boxes"][1]
    assert box2["cards"] == ["?2", "?5"] and box2["hand"] is None and box2["outcome"] == "fold"
    assert box2["net"] == -10


@pytest.mark.parametrize(("lost_on_fold", "needed"), [(True, [1, 3, 4, 6]), (False, [1, 2, 3, 4, 5, 6])])
def test_a_folded_box_is_revealed_only_if_its_bonus_stands(lost_on_fold: bool, needed: list[int]) -> None:
    config = build_config({"game": "casino-holdem", "rules": {"bonus_lost_on_fold": lost_on_fold}})
    rnd = Round(config=config, bets=[BoxBet(box=1, ante=10), BoxBet(box=2, ante=10, bonus=5)])
    truth = hidden_deal(rnd, "As Kd 2c Ah Kh 3c Qs Js Ts".split())
    rnd.act(Action(1, "call"))
    rnd.act(Action(2, "fold"))
    for code in ("9d", "8d"):
        rnd.deal(card(code))
    numbers = []
    while isinstance(step := rnd.expected(), Identify):
        numbers.append(step.number)
        rnd.reveal(step.number, card(truth[step.number]))
    # Where the AA bonus stands after a fold, the folded box's cards are needed for it.
    assert sorted(numbers) == needed


def test_a_record_keeps_placeholders_reveals_and_discards_by_number() -> None:
    config = build_config({"game": "oasis"})
    rnd = Round(config=config, bets=[BoxBet(box=1, ante=10)])
    faces = "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc".split()
    truth = hidden_deal(rnd, faces)
    dealer_up = rnd.state.dealer[4]
    assert not isinstance(dealer_up, Placeholder)  # the dealer's fifth card is dealt face up
    # The player exchanges his second card, still unknown: named by number, "?3".
    rnd.act(Action(1, "exchange", discard=(rnd.state.boxes[1].cards[1],)))
    rnd.deal_unknown()
    truth[11] = "Qh"
    rnd.act(Action(1, "raise"))
    while isinstance(step := rnd.expected(), Identify):
        rnd.reveal(step.number, card(truth[step.number]))
    rec = record_from_round(rnd, table={}).to_json()
    assert rec["cards"][:2] == [None, None] and rec["actions"][0] == {"box": 1, "action": "exchange", "discard": ["?3"]}
    again = settle_record(parse_record(loads(json.dumps(rec))))
    assert again.to_json() == rnd.settle().to_json()
    # The same round dealt with identities pays the same.
    items: list[Card | Action] = [card(truth.get(n, c.code)) for n, (c, _) in enumerate(rnd.dealt()[:10], 1)]
    items.insert(10, Action(1, "exchange", discard=(card(truth[3]),)))
    items += [card("Qh"), Action(1, "raise")]
    shoe = Round.replay(config=config, bets=rnd.bets, events=items)
    ours, theirs = rnd.settle().to_json(), shoe.settle().to_json()
    assert ours["boxes"][0]["net"] == theirs["boxes"][0]["net"] and ours["dealer"] == theirs["dealer"]
    assert ours["boxes"][0]["discards"] == ["?3"] and theirs["boxes"][0]["discards"] == [truth[3]]


@pytest.mark.parametrize(
    ("reveals", "message"),
    [
        ([{"card": 7, "code": "9c"}], "was dealt with its identity"),
        ([{"card": 1, "code": "As"}, {"card": 1, "code": "Ah"}], "revealed twice"),
        ([{"card": 30, "code": "As"}], "there is no card 30"),
        ([{"card": 1, "code": "Zz"}], "unknown card code"),
        ([{"card": 1}], "reveals\\[0\\].code: required"),
        ([{"card": 1, "code": "Qs"}], r"cards\[6\]: card Qs was already dealt"),
    ],
)
def test_a_bad_reveal_in_a_record_is_named(reveals: list[dict[str, Any]], message: str) -> None:
    rnd, _ = holdem_round()
    rec = record_from_round(rnd, table={}).to_json()
    rec["reveals"] = reveals
    with pytest.raises((RecordError, RuleViolation, ValueError), match=message):
        settle_record(parse_record(loads(json.dumps(rec))))


def test_a_record_missing_a_needed_reveal_is_refused() -> None:
    rnd, truth = holdem_round()
    rnd.act(Action(1, "call"))
    rnd.act(Action(2, "call"))
    rnd.deal(card("9d"))
    rnd.deal(card("8d"))
    rec = record_from_round(rnd, table={}).to_json()
    rec["reveals"] = [{"card": n, "code": truth[n]} for n in (1, 2, 3, 4, 5)]  # card 6 never read
    with pytest.raises(RecordError, match="card 6 \\(the dealer card 2\\) was dealt without identity"):
        settle_record(parse_record(rec))


def test_the_table_journals_placeholders_and_reveals_and_replays_them(tmp_path: Path) -> None:
    store = SqliteJournal(path=tmp_path / "j.sqlite3")
    table = TableService(store=store, config=HOLDEM)
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    assert table.round is not None
    first = table.round.expected()
    assert isinstance(first, Deal)
    table.on_camera_card(first.slot)
    with pytest.raises(TableError, match="no card is expected for box 1 card 1"):
        table.on_camera_card(first.slot)  # the camera is behind: that slot is filled
    while isinstance(step := table.round.expected(), Deal):
        table.on_camera_card(step.slot, code=None if not step.slot.face_up else ["Qs", "Js", "Ts"][step.slot.index])
    table.reveal(1, "As")
    with pytest.raises(RuleViolation, match=r"deal\.duplicate-card"):
        table.reveal(2, "as")
    view = table.view()
    assert view["boxes"][0]["cards"] == [{"code": None, "face_up": False}] * 2
    assert [c["code"] for c in view["board"] if c] == ["Qs", "Js", "Ts"]
    table.act(Action(1, "call"), actor=DEALER)
    for slot_code in ("9d", "8d"):
        step = table.round.expected()
        assert isinstance(step, Deal)
        table.on_camera_card(step.slot, code=slot_code)
    step = table.round.expected()
    assert isinstance(step, Identify) and table.phase() == "showdown"
    with pytest.raises(TableError, match="not waiting for its identity"):
        table.report_unknown(number=1, detail="card 1")
    table.report_unknown(number=step.number, detail=f"card {step.number}")
    (tilt,) = table.tilts.values()
    assert tilt.card == step.number and tilt.resolutions == ("enter-card", "redeal", "cancel", "void")
    with pytest.raises(TableError, match="cannot be entered"):
        table.clear_tilt(tilt.id, resolution="enter-card", actor=SUPERVISOR, why="read", card="As")
    table.clear_tilt(tilt.id, resolution="enter-card", actor=SUPERVISOR, why="read", card="2h")
    for number, code in zip([n for n, _ in table.round.unrevealed()], ["Kd", "Kh"], strict=True):
        table.reveal(number, code)
    assert isinstance(table.round.expected(), Complete)
    # A restart replays the journal: the same cards in the same places, the same settlement.
    again = TableService(store=store)
    assert again.round is not None
    assert [(c.code, s) for c, s in again.round.dealt()] == [(c.code, s) for c, s in table.round.dealt()]
    assert again.settlement is not None and table.settlement is not None
    assert again.settlement.to_json() == table.settlement.to_json()
    table.confirm_settlement(actor=DEALER)
    recalled = table.recall[-1]
    assert settle_record(parse_record(recalled.record.to_json())).to_json() == recalled.settlement.to_json()
    store.close()


@st.composite
def camera_rounds(draw: st.DrawFn) -> tuple[Round, Round]:
    """A random round of a random game dealt twice: by a camera (face-down cards without identity,
    revealed at random moments and at the showdown as needed) and by a reading shoe."""
    game = draw(st.sampled_from(game_names()))
    config = build_config({"game": game, "max_payout": draw(st.integers(20, 3000))})
    numbers = draw(st.lists(st.integers(1, config.boxes), min_size=1, max_size=4, unique=True))
    bets = []
    for n in sorted(numbers):
        bonus = config.bonus.min_bet if config.bonus.enabled and draw(st.booleans()) else 0
        blind = game == "oasis" and draw(st.integers(0, 4)) == 0
        bets.append(BoxBet(box=n, ante=draw(st.integers(10, 100)), bonus=bonus, blind=blind))
    meter = draw(st.integers(0, 50_000))
    camera = Round(config=config, bets=bets, jackpot_meter=meter)
    shoe = Round(config=config, bets=bets, jackpot_meter=meter)
    deck = list(draw(st.permutations(DECK)))
    truth: dict[int, Card] = {}

    def real(c: Card) -> Card:
        return truth[c.number] if isinstance(c, Placeholder) else c

    while not isinstance(step := camera.expected(), Complete):
        hidden = camera.unrevealed()
        if hidden and draw(st.integers(0, 5)) == 0:
            number, _ = draw(st.sampled_from(hidden))
            camera.reveal(number, truth[number])  # a player looks at his card, or it is turned
            continue
        if isinstance(step, Identify):
            camera.reveal(step.number, truth[step.number])
        elif isinstance(step, Deal):
            c = deck.pop()
            shoe.deal(c)
            if step.slot.face_up:
                camera.deal(c)
            else:
                truth[camera.deal_unknown().card.number] = c  # type: ignore[attr-defined]
        else:
            assert isinstance(step, Decide)
            action = decision(draw, camera, step)
            camera.act(action)
            # The shoe's round holds the real cards the camera's placeholders stand for.
            shoe.act(replace(action, discard=tuple(real(c) for c in action.discard)))
    assert isinstance(shoe.expected(), Complete)
    return camera, shoe


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(camera_rounds())
def test_a_camera_only_round_pays_what_the_same_round_dealt_by_a_shoe_pays(case: tuple[Round, Round]) -> None:
    camera, shoe = case
    ours, theirs = camera.settle().to_json(), shoe.settle().to_json()
    for mine, real in zip(ours["boxes"], theirs["boxes"], strict=True):
        mask: dict[str, Any] = {}
        if any(c.startswith("?") for c in mine["cards"]) or (mine["hand"] is None and real["hand"] is not None):
            # A box that folded with a hand nobody could read: its stakes are lost, it has no hand.
            assert mine["outcome"] == "fold" and mine["hand"] is None
            mask = {"cards": [], "discards": [], "hand": None}
        elif any(c.startswith("?") for c in mine["discards"]):
            mask = {"discards": []}  # thrown face down, never read: everything else is the shoe's
        assert {**mine, **mask} == {**real, **mask}
    if ours["dealer"]["hand"] is None:
        # No showdown (every box folded): the dealer's hand was never needed, nor perhaps read.
        ours["dealer"]["cards"] = theirs["dealer"]["cards"] = []
    # Face-down board cards (hold'em with exchange) nobody needed stay unread, as "?n".
    assert all(b.startswith("?") or a == b for a, b in zip(theirs["board"], ours["board"], strict=True))
    theirs["board"] = ours["board"]
    assert {k: v for k, v in ours.items() if k != "boxes"} == {k: v for k, v in theirs.items() if k != "boxes"}
    # The record replays to the same settlement (re-settling a dispute).
    record = record_from_round(camera, table={"max_payout": camera.config.max_payout}).to_json()
    assert settle_record(parse_record(loads(json.dumps(record)))).to_json() == camera.settle().to_json()


def test_a_replay_item_list_rebuilds_a_camera_only_round() -> None:
    rnd, truth = holdem_round()
    rnd.reveal(4, card(truth[4]))
    copy = Round.replay(
        config=HOLDEM,
        bets=rnd.bets,
        events=[None, None, None, None, None, None, card("Qs"), card("Js"), card("Ts"), Reveal(4, card(truth[4]))],
    )
    assert [(c.code, s) for c, s in copy.dealt()] == [(c.code, s) for c, s in rnd.dealt()]


def test_no_card_is_needed_when_every_box_folds() -> None:
    # Hold'em with exchange deals board cards 4 and 5 face down; nobody buys, everybody folds.
    rnd = Round(config=build_config({"game": "holdem-exchange"}), bets=[BoxBet(box=1, ante=10)])
    truth = hidden_deal(rnd, "As Kd Ah Kh 2c 3c Qs Js Ts".split())
    rnd.reveal(1, card(truth[1]))  # the player looked at both his cards
    rnd.reveal(3, card(truth[3]))
    rnd.act(Action(1, "fold"))
    assert isinstance(rnd.expected(), Complete)
    paid = rnd.settle().to_json()
    assert paid["boxes"][0]["hand"] is None and paid["boxes"][0]["net"] == -10
    assert paid["board"][3:] == ["?5", "?6"] and paid["dealer"]["hand"] is None


def test_the_displays_name_no_hand_while_a_board_card_waits_for_its_identity(tmp_path: Path) -> None:
    # Hold'em with exchange deals board cards 4 and 5 face down: on a table with no reading shoe
    # they are still unread when the player's cards are turned at the showdown.
    store = SqliteJournal(path=tmp_path / "j.sqlite3")
    table = TableService(store=store, config=build_config({"game": "holdem-exchange"}))
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    assert table.round is not None
    flop = iter(["Qs", "Js", "Ts"])
    while isinstance(step := table.round.expected(), Deal):
        table.on_camera_card(step.slot, code=next(flop) if step.slot.face_up else None)
    table.act(Action(1, "bet"), actor=DEALER)
    for number, slot in table.round.unrevealed():
        if slot.target == "box":
            table.reveal(number, ["As", "Kd"][slot.index])
    assert table.view()["boxes"][0]["hand"] is None
    for number, slot in table.round.unrevealed():
        if slot.target == "board":
            table.reveal(number, ["2c", "3h"][slot.index - 3])
    assert table.view()["boxes"][0]["hand"] == "straight"
    store.close()
