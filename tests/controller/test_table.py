"""The live table service: rounds, journal replay, tilts and every resolution, jackpot, recall."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from controller.config import build_config
from controller.engine import Action, BoxBet
from controller.errors import RuleViolation
from controller.journal import SqliteJournal
from controller.record import loads, parse_record, settle_record
from controller.table import CAMERA, SYSTEM, Actor, PermissionDenied, TableError, TableService
from tests.clock import Clock
from tests.controller.roundkit import passes

DEALER = Actor("dana", "dealer")
SUPER = Actor("sam", "supervisor")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite3"


def table(path: Path, game: str = "oasis", clock: Clock | None = None, **settings: Any) -> TableService:
    config = build_config({"game": game, **settings})
    return TableService(config=config, store=SqliteJournal(path=path), clock=clock or Clock())


def deal(t: TableService, cards: list[str], start: int = 1) -> None:
    for i, code in enumerate(cards):
        t.on_card(code, counter=start + i, shoe="SIM")


OASIS_CARDS = passes({1: "Kc Kd Kh 4s 4c", 2: "8c 8d 4d 5s 6c"}, "9s 9h Jc Jd 3c", n=5)


def play_oasis_round(t: TableService, *, start: int = 1) -> None:
    t.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(t, OASIS_CARDS, start)
    t.act(Action(1, "raise"), actor=DEALER)
    t.act(Action(2, "fold"), actor=DEALER)


def test_a_round_from_bets_to_settlement_and_its_record_settles_the_same(data: Path) -> None:
    t = table(data)
    play_oasis_round(t)
    assert t.phase() == "showdown"
    assert t.settlement is not None
    t.confirm_settlement(actor=DEALER)
    assert t.phase() == "idle"
    (done,) = t.recall
    line = json.dumps(done.to_json())
    again = settle_record(parse_record(loads(line))).to_json()
    assert again == done.settlement.to_json() == json.loads(line)["settlement"]
    assert again["boxes"][0]["main"] == 150


def test_the_table_says_what_it_expects_next(data: Path) -> None:
    t = table(data)
    assert t.expected() == "take the bets and open a round"
    t.open_round([BoxBet(box=4, ante=10)], actor=DEALER)
    assert t.expected() == "deal card 1 to box 4, face down"
    deal(t, ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Td"])
    assert t.expected() == "deal card 5 to the dealer, face up"
    deal(t, ["Jc"], start=10)
    assert t.expected() == "box 4 to decide: fold or raise or exchange"


def test_restart_replays_the_journal_to_the_same_state(data: Path) -> None:
    t = table(data)
    play_oasis_round(t)
    t.confirm_settlement(actor=DEALER)
    t.open_round([BoxBet(box=3, ante=10)], actor=DEALER)
    deal(t, ["2c", "3c", "4c"], start=21)
    before = (t.round_no, t.expected(), [r.to_json() for r in t.recall], t.jackpot_meter)
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert (again.round_no, again.expected(), [r.to_json() for r in again.recall], again.jackpot_meter) == before


def test_commands_are_checked_before_anything_is_written(data: Path) -> None:
    t = table(data)
    seq = t.version
    with pytest.raises(RuleViolation, match="maximum bet"):
        t.open_round([BoxBet(box=1, ante=500)], actor=DEALER)
    with pytest.raises(TableError, match="no round is open"):
        t.act(Action(1, "raise"), actor=DEALER)
    assert t.version == seq
    play_oasis_round(t)
    with pytest.raises(TableError, match="still open"):
        t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)


def test_repeat_last_bets(data: Path) -> None:
    t = table(data)
    with pytest.raises(TableError, match="no previous bets"):
        t.repeat_last_bets(actor=DEALER)
    play_oasis_round(t)
    t.confirm_settlement(actor=DEALER)
    t.repeat_last_bets(actor=DEALER)
    assert t.round is not None
    assert [b.ante for b in t.round.bets] == [10, 20]


# ---------------------------------------------------------------- tilts


def open_with_cards(t: TableService, n: int) -> None:
    t.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(t, OASIS_CARDS[:n])


def only_tilt(t: TableService) -> Any:
    (tilt,) = t.tilts.values()
    return tilt


def test_duplicate_card_tilts_holds_the_card_and_burn_restores_the_sequence(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_card("Kc", counter=4)  # Kc was dealt to box 1 already
    tilt = only_tilt(t)
    assert tilt.kind == "duplicate-card"
    assert tilt.held == ("Kc",)
    with pytest.raises(TableError, match="play is stopped"):
        t.act(Action(1, "raise"), actor=DEALER)
    with pytest.raises(PermissionDenied):
        t.clear_tilt(tilt.id, resolution="burn", actor=DEALER, why="x")
    with pytest.raises(TableError, match="say why"):
        t.clear_tilt(tilt.id, resolution="burn", actor=SUPER, why=" ")
    t.clear_tilt(tilt.id, resolution="burn", actor=SUPER, why="card misread, set aside")
    assert not t.tilts
    deal(t, OASIS_CARDS[3:], start=5)
    assert t.phase() == "deciding"


def test_unknown_card_is_entered_by_the_supervisor(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_card("??", counter=4)
    tilt = only_tilt(t)
    assert tilt.kind == "unknown-card"
    with pytest.raises(TableError, match="cannot be dealt"):
        t.clear_tilt(tilt.id, resolution="enter-card", actor=SUPER, why="read it", card="Kc")
    t.clear_tilt(tilt.id, resolution="enter-card", actor=SUPER, why="read it: eight of clubs", card=OASIS_CARDS[3])
    assert t.round is not None and t.round.cards_dealt == 4


def test_card_with_no_round_open_is_burned(data: Path) -> None:
    t = table(data)
    t.on_card("As", counter=1)
    tilt = only_tilt(t)
    assert (tilt.kind, tilt.round, tilt.resolutions) == ("unexpected-card", None, ("burn", "continue"))
    with pytest.raises(TableError, match="no round is open"):
        t.clear_tilt(tilt.id, resolution="continue", actor=SUPER, why="x")
    t.clear_tilt(tilt.id, resolution="burn", actor=SUPER, why="dealer drew early")
    assert not t.tilts


def test_a_gap_in_the_draw_counter_is_a_missing_card(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_card(OASIS_CARDS[4], counter=5)  # counter 4 never arrived
    tilt = only_tilt(t)
    assert tilt.kind == "missing-card"
    t.clear_tilt(tilt.id, resolution="enter-card", actor=SUPER, why="found it under the shoe", card=OASIS_CARDS[3])
    assert t.round is not None and t.round.cards_dealt == 5


def test_cards_during_a_link_loss_are_held_then_dealt_on_continue(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_link(False, detail="no heartbeat")
    t.on_link(False)
    tilt = only_tilt(t)
    assert tilt.kind == "shoe-link-lost"
    t.on_card(OASIS_CARDS[3], counter=4)
    t.on_card(OASIS_CARDS[4], counter=5)
    t.on_link(True)
    assert only_tilt(t).held == (OASIS_CARDS[3], OASIS_CARDS[4])
    t.clear_tilt(tilt.id, resolution="continue", actor=SUPER, why="cable reseated")
    assert t.round is not None and t.round.cards_dealt == 5


def test_a_camera_lost_for_good_stops_play_until_a_supervisor_plays_on_without_it(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_camera_link(False, detail="/dev/video0: no frame for 10 s")
    t.on_camera_link(False)  # one tilt for one lost camera
    tilt = only_tilt(t)
    assert tilt.kind == "camera-link-lost" and "/dev/video0" in tilt.message
    assert tilt.resolutions == ("continue", "void", "cancel")
    assert "technician" in tilt.instruction
    t.on_card(OASIS_CARDS[3], counter=4)  # the shoe still reads: the card waits for the supervisor
    assert only_tilt(t).held == (OASIS_CARDS[3],)
    # The tilt is in the journal: a restart still shows it.
    t._store.close()
    again = table(data)
    assert only_tilt(again).kind == "camera-link-lost"
    again.clear_tilt(tilt.id, resolution="continue", actor=SUPER, why="camera unplugged; dealer checks by eye")
    assert not again.tilts and again.round is not None and again.round.cards_dealt == 4


def test_shoe_fault_then_void_returns_every_stake(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 7)
    t.on_shoe_status("jam")
    t.on_shoe_status("jam")
    tilt = only_tilt(t)
    assert tilt.kind == "shoe-fault"
    t.clear_tilt(tilt.id, resolution="void", actor=SUPER, why="shoe jammed mid-deal")
    assert t.round is None
    (voided,) = t.recall
    assert voided.settlement.void is not None and "malfunction" in voided.settlement.void
    assert all(b.net == 0 for b in voided.settlement.boxes)


def test_dealer_card_exposed_redeal_keeps_the_bets_and_starts_a_new_round(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 7)
    t.report("dealer-card-exposed", actor=DEALER, detail="flipped while dealing")
    tilt = only_tilt(t)
    assert t.resolutions(tilt) == ("redeal", "cancel")  # Oasis: no show-early procedure
    t.clear_tilt(tilt.id, resolution="redeal", actor=SUPER, why="exposed card")
    assert t.round_no == 2
    assert t.round is not None and t.round.cards_dealt == 0
    assert [b.ante for b in t.round.bets] == [10, 20]
    assert t.recall[-1].settlement.void is not None


def test_the_camera_reports_a_mismatch_and_continue_keeps_the_round(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 7)
    dealt = t.inspect(lambda tab: tab.round.cards_dealt if tab.round else 0)
    entry = t.report("camera-mismatch", actor=CAMERA, detail="camera reads Qh in box 1")
    assert entry.actor == "camera:camera"
    tilt = only_tilt(t)
    assert tilt.kind == "camera-mismatch" and "disagree" in tilt.message and "call a supervisor" in tilt.instruction
    assert tilt.resolutions == ("continue", "redeal", "cancel", "void")
    t.clear_tilt(tilt.id, resolution="continue", actor=SUPER, why="camera misread a glare")
    assert t.round is not None and t.round.cards_dealt == dealt and not t.tilts


@pytest.mark.parametrize(
    ("report", "says"),
    [
        ("wrong-box", "a card went to the wrong box"),
        ("extra-card", "a box got an extra card"),
        ("skipped-box", "a playing box was skipped"),
    ],
)
@pytest.mark.parametrize("resolution", ["continue", "redeal", "cancel"])
def test_the_dealer_reports_the_deal_out_of_order(data: Path, report: str, says: str, resolution: str) -> None:
    """Broken deal sequence (docs/irregularities.md): restored on the felt, the round plays on with the
    cards as the shoe recorded them; else it is dealt again with the same bets, or cancelled. The
    tilt and its clearing survive a restart."""
    t = table(data)
    open_with_cards(t, 3)
    dealt = t.inspect(lambda tab: tab.round.cards_dealt if tab.round else 0)
    t.report(report, actor=DEALER, detail="box 2")
    tilt = only_tilt(t)
    assert (tilt.kind, tilt.message) == ("deal-sequence", f"{says}: box 2")
    assert tilt.resolutions == ("continue", "redeal", "cancel")
    with pytest.raises(TableError, match="play is stopped"):
        t.confirm_settlement(actor=DEALER)
    t.clear_tilt(tilt.id, resolution=resolution, actor=SUPER, why="restored by the dealer")
    if resolution == "continue":
        assert t.round is not None and t.round_no == 1 and t.round.cards_dealt == dealt
    elif resolution == "redeal":
        assert t.round is not None and t.round_no == 2 and t.round.cards_dealt == 0
        assert "redeal" in (t.recall[-1].record.void or "")
    else:
        assert t.round is None and t.recall[-1].record.void is not None
    before = t.view()
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert again.view() == before


def test_a_deal_out_of_order_needs_a_deal(data: Path) -> None:
    t = table(data)
    with pytest.raises(TableError, match="no round is open"):
        t.report("wrong-box", actor=DEALER)
    with pytest.raises(TableError, match=r"cannot report 'shuffled': one of .*wrong-box, extra-card, skipped-box"):
        t.report("shuffled", actor=DEALER)
    assert t.version == 1  # nothing but the configuration was written


def test_cancel_and_supervisor_void(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 2)
    t.report("missing-card", actor=DEALER, detail="box 2 got none")
    t.clear_tilt(only_tilt(t).id, resolution="cancel", actor=SUPER, why="cannot restore")
    assert t.round is None
    t.deck_shuffled(actor=DEALER)  # a cancelled round's cards are known: a new deck first
    open_with_cards(t, 2)
    with pytest.raises(PermissionDenied):
        t.void_round(actor=DEALER, why="x")
    t.void_round(actor=SUPER, why="player dispute")
    assert t.round is None and len(t.recall) == 2


def test_open_tilts_come_back_after_a_restart(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_card("Kc", counter=4)
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert only_tilt(again).kind == "duplicate-card"
    assert only_tilt(again).held == ("Kc",)


# --------------------------------------------------------------- jackpot


def test_jackpot_hit_shows_pending_until_a_supervisor_confirms(data: Path) -> None:
    t = table(data, jackpot={"reset": 5000, "contribution": 2})
    t.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=10)], actor=DEALER)
    deal(t, passes({1: "As Ks Qs Js Ts", 2: "2c 3d 5h 7s 8c"}, "9s 9h Jc Jd 3c", n=5))
    t.act(Action(1, "raise"), actor=DEALER)
    t.act(Action(2, "raise"), actor=DEALER)
    assert t.settlement is not None and t.settlement.jackpot.won == 5000
    t.confirm_settlement(actor=DEALER)
    account = t.jackpot_account()
    assert account is not None
    assert account.meter == 5002 and account.won == 5000 and account.contributions == 2
    (hit,) = account.pending
    assert (hit.box, hit.hand, hit.amount) == (1, "royal-flush", 5000)
    with pytest.raises(PermissionDenied):
        t.confirm_jackpot(hit.hit, actor=DEALER)
    t.confirm_jackpot(hit.hit, actor=SUPER)
    account = t.jackpot_account()
    assert account is not None and not account.pending and account.hits[0].confirmed_by == "supervisor:sam"
    with pytest.raises(TableError, match="no pending jackpot hit"):
        t.confirm_jackpot(hit.hit, actor=SUPER)


def test_decision_timer_folds_the_box(data: Path) -> None:
    clock = Clock()
    t = table(data, "casino-holdem", clock=clock, rules={"decision_seconds": 30})
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, ["2c", "3c", "4c", "5c", "6c", "7c", "8c"])
    assert t.tick() is None
    clock.now += timedelta(seconds=31)
    entry = t.tick()
    assert entry is not None and entry.actor == "system:decision-timer"
    assert t.round is not None and t.round.state.boxes[1].folded


def test_a_configuration_given_at_start_under_an_open_round_waits_for_its_end(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 1)
    t._store.close()
    changed = table(data, max_payout=5000)
    assert changed.config.max_payout == 3000  # the open round keeps the configuration it began under
    assert changed.staged is not None and changed.staged.actor == str(SYSTEM)
    changed.void_round(actor=SUPER, why="test")
    assert changed.config.max_payout == 5000 and changed.staged is None
    changed._store.close()
    same = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert same.config.max_payout == 5000


# ------------------------------------------------------ no hidden cards


def test_no_snapshot_reveals_a_card_before_it_is_face_up(data: Path) -> None:
    t = table(data)
    seen: list[dict[str, Any]] = []
    t.subscribe(seen.append)
    t.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(t, OASIS_CARDS)
    upcard = OASIS_CARDS[-1]
    for view in seen:
        text = json.dumps(view)
        for code in OASIS_CARDS:
            if code != upcard:
                assert f'"{code}"' not in text
    t.act(Action(1, "raise"), actor=DEALER)
    t.act(Action(2, "fold"), actor=DEALER)
    final = json.dumps(seen[-1])
    # At the showdown the dealer and the raised box are face up; the folded box never is.
    assert '"Kc"' in final and '"9s"' in final
    for code in ("8c", "8d", "4d", "5s", "6c"):
        assert f'"{code}"' not in final


def test_shoe_reported_gaps_and_unreadable_draws_keep_the_counter_in_step(data: Path) -> None:
    t = table(data)
    open_with_cards(t, 3)
    t.on_shoe_status("unreadable", counter=4)
    assert only_tilt(t).kind == "unknown-card"
    t.clear_tilt(only_tilt(t).id, resolution="enter-card", actor=SUPER, why="read by hand", card=OASIS_CARDS[3])
    t.on_draw_gap(5, 6, shoe="SIM")
    assert only_tilt(t).kind == "missing-card" and "draws 5-6" in only_tilt(t).message
    assert t.last_counter == 6
    t.clear_tilt(only_tilt(t).id, resolution="cancel", actor=SUPER, why="two cards lost")
    t.on_shoe_status("new-deck")
    # The next draw continues from counter 7 without a second, false, gap.
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    t.on_card("2c", counter=7)
    assert not t.tilts


def test_an_admin_reconfigures_between_rounds_and_it_survives_a_restart(data: Path) -> None:
    t = table(data)
    bigger = build_config({"game": "oasis", "max_payout": 5000})
    with pytest.raises(PermissionDenied):
        t.reconfigure(bigger, actor=SUPER)
    with pytest.raises(TableError, match="needs its own data folder"):
        t.reconfigure(build_config({"game": "casino-holdem"}), actor=Actor("ada", "admin"))
    entry = t.reconfigure(bigger, actor=Actor("ada", "admin"))
    assert entry.actor == "admin:ada" and t.config.max_payout == 5000
    t._store.close()
    assert TableService(store=SqliteJournal(path=data), clock=Clock()).config.max_payout == 5000


def test_a_table_refuses_another_currency_or_decimals_and_keeps_its_money_as_journaled(data: Path) -> None:
    t = table(data, currency="USD", minor_units=2)
    t.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=10)], actor=DEALER)
    deal(t, OASIS_CARDS)
    t.act(Action(1, "raise"), actor=DEALER)
    t.act(Action(2, "fold"), actor=DEALER)
    admin = Actor("ada", "admin")
    # 10 journaled as "USD 0.10" would read "EUR 0.10" or "USD 10" after the change: refused, by an
    # admin in play or between rounds, and on a restart under an edited configuration.
    for other in ({"currency": "EUR", "minor_units": 2}, {"currency": "USD", "minor_units": 0}):
        changed = build_config({"game": "oasis", **other})
        with pytest.raises(TableError, match=r"keeps its money in USD with 2 decimals; .* needs its own data folder"):
            t.reconfigure(changed, actor=admin)
    assert t.staged is None
    t.confirm_settlement(actor=DEALER)
    with pytest.raises(TableError, match=r"EUR with 2 decimals needs its own data folder"):
        t.reconfigure(build_config({"game": "oasis", "currency": "EUR", "minor_units": 2}), actor=admin)
    seq = t.journal_store.last_seq
    t.journal_store.close()
    with pytest.raises(TableError, match=r"keeps its money in USD with 2 decimals; EUR with 0 decimals"):
        table(data)
    again = table(data, currency="USD", minor_units=2, max_payout=9000)  # any other change still applies
    assert (again.config.currency, again.config.minor_units, again.config.max_payout) == ("USD", 2, 9000)
    assert again.journal_store.last_seq == seq + 1  # the refused start journaled nothing; this one its change


def test_the_decision_timer_deadline_is_in_the_snapshot(data: Path) -> None:
    t = table(data, "casino-holdem", rules={"decision_seconds": 30})
    t.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(t, ["2c", "3c", "4c", "5c", "6c", "7c", "8c"])
    deadline = t.view()["decide"]["deadline"]
    assert deadline is not None
    assert datetime.fromisoformat(deadline) - t.now() > timedelta(seconds=29)


def test_a_table_restarts_after_a_redeal_once_the_jackpot_has_moved_on(data: Path) -> None:
    """A redealt round starts from the meter as it stood at the redeal, in play and in every replay
    (the replay used to take the meter as it is at restart, and refused the journal)."""
    t = table(data, jackpot={"enabled": True, "reset": 1000, "contribution": 5})
    play_oasis_round(t)
    t.confirm_settlement(actor=DEALER)
    t.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(t, OASIS_CARDS[:7], start=11)
    t.report("dealer-card-exposed", actor=DEALER, detail="flipped while dealing")
    t.clear_tilt(only_tilt(t).id, resolution="redeal", actor=SUPER, why="exposed card")
    meter_at_redeal = t.jackpot_meter
    assert t.round is not None and t.round.jackpot_meter == meter_at_redeal
    t.deck_shuffled(actor=DEALER)
    deal(t, OASIS_CARDS, start=18)
    t.act(Action(1, "raise"), actor=DEALER)
    t.act(Action(2, "fold"), actor=DEALER)
    t.confirm_settlement(actor=DEALER)
    assert t.jackpot_meter > meter_at_redeal  # the folded box fed the meter
    play_oasis_round(t, start=28)
    t.confirm_settlement(actor=DEALER)
    before = [item.to_json() for item in t.recall]
    t._store.close()
    again = TableService(store=SqliteJournal(path=data), clock=Clock())
    assert [item.to_json() for item in again.recall] == before
    assert again.recall[-2].record.jackpot_meter == meter_at_redeal


def test_a_deal_out_of_order_shows_where_the_cards_lie_as_recorded(data: Path) -> None:
    """The resolution says where each card goes: the places and counts the shoe recorded (no card's
    identity), which the dealer restores the felt to before continue."""
    t = table(data)
    open_with_cards(t, 5)  # box 1, box 2, dealer, box 1, box 2
    t.report("wrong-box", actor=DEALER, detail="box 2's second card went to box 3")
    (tilt,) = t.view()["tilts"]
    assert tilt["restore"] == [
        {"place": "box 1", "cards": 2},
        {"place": "box 2", "cards": 2},
        {"place": "dealer", "cards": 1},
    ]
    t.clear_tilt(tilt["id"], resolution="continue", actor=SUPER, why="card moved back to box 2")
    assert t.view()["tilts"] == []
