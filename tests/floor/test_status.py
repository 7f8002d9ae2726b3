"""Tables' statuses and the second supervisor's approval of large hits, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from controller.journal.base import Entry
from floor import FloorConfigError, FloorRefused, FloorStore, open_store
from floor.jackpots import Account
from floor.units import money_text


@pytest.fixture
def store(floor_url: str) -> Iterator[FloorStore]:
    with open_store(floor_url) as opened:
        yield opened


def _entry(seq: int, kind: str, at: datetime) -> Entry:
    return Entry(seq=seq, kind=kind, data={"n": seq}, actor="dealer:dana", at=at.isoformat(), hash=f"h{seq}")


def test_a_report_is_upserted_and_bumps_the_version_only_when_something_shown_changes(store: FloorStore) -> None:
    store.add_table(table_id="a1", pit="A", game="oasis")
    store.add_table(table_id="b1", pit="B", game="holdem-bonus")
    never = {s.table_id: s for s in store.statuses()}["b1"]
    assert (never.phase, never.updated_at, never.version, never.link(now=datetime.now(UTC))) == (
        "unknown",
        None,
        0,
        "none",
    )
    store.report_status(table_id="a1", phase="dealing", round_no=7, tilts=[], progressive="open")
    first = store.statuses(tables=["a1"])[0]
    assert (first.phase, first.round_no, first.tilts, first.progressive, first.version) == (
        "dealing",
        7,
        (),
        "open",
        1,
    )
    store.report_status(table_id="a1", phase="dealing", round_no=7, tilts=[], progressive="open")  # a heartbeat
    beat = store.statuses(tables=["a1"])[0]
    assert beat.version == 1 and beat.updated_at is not None and first.updated_at is not None
    assert beat.updated_at > first.updated_at
    store.report_status(
        table_id="a1", phase="tilt", round_no=7, tilts=["shoe-link-lost", "duplicate-card"], progressive="closed"
    )
    tilted = store.statuses(tables=["a1"])[0]
    assert (tilted.version, tilted.tilts, tilted.progressive) == (2, ("duplicate-card", "shoe-link-lost"), "closed")
    assert [s.table_id for s in store.statuses()] == ["a1", "b1"]  # by pit, then id
    assert store.heartbeats() == {"a1": (tilted.updated_at, 2)}


def test_link_state_follows_the_age_of_the_last_report(store: FloorStore) -> None:
    store.add_table(table_id="a1", pit="A", game="oasis")
    store.report_status(table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none")
    status = store.statuses()[0]
    assert status.updated_at is not None
    reported = datetime.fromisoformat(status.updated_at)
    assert status.link(now=reported + timedelta(seconds=9), lost_after=10) == "ok"
    assert status.link(now=reported + timedelta(seconds=11), lost_after=10) == "lost"


def test_bad_reports_are_refused_and_record_nothing(store: FloorStore) -> None:
    store.add_table(table_id="a1", pit="A", game="oasis")
    with pytest.raises(FloorConfigError, match="not on the floor"):
        store.report_status(table_id="zz", phase="idle", round_no=1, tilts=[], progressive="none")
    with pytest.raises(FloorConfigError, match="unknown tilt kind 'As'"):
        store.report_status(table_id="a1", phase="tilt", round_no=1, tilts=["As"], progressive="none")
    with pytest.raises(FloorConfigError, match="phase 'Ks Qh'"):
        store.report_status(table_id="a1", phase="Ks Qh", round_no=1, tilts=[], progressive="none")
    with pytest.raises(FloorConfigError, match="progressive 'maybe'"):
        store.report_status(table_id="a1", phase="idle", round_no=1, tilts=[], progressive="maybe")
    with pytest.raises(FloorConfigError, match="round number"):
        store.report_status(table_id="a1", phase="idle", round_no=-1, tilts=[], progressive="none")
    assert store.heartbeats() == {}


def test_rounds_in_the_last_hour_last_seq_and_pending_hits_come_from_the_floor(store: FloorStore) -> None:
    store.add_table(table_id="a1", pit="A", game="oasis")
    store.add_table(table_id="a2", pit="A", game="oasis")
    now = datetime.now(UTC)
    entries = [
        _entry(1, "round-settled", now - timedelta(minutes=90)),  # too old
        _entry(2, "round-opened", now - timedelta(minutes=30)),
        _entry(3, "round-settled", now - timedelta(minutes=30)),
        _entry(4, "round-voided", now - timedelta(minutes=20)),  # not a played round
        _entry(5, "round-settled", now - timedelta(minutes=1)),
        _entry(6, "card", now),
    ]
    store.replicate(table_id="a1", entries=entries)
    store.open_account(name="floor-wide", scope="floor", reset=1_000, increment=10, cap=10_000)
    store.hit(account="floor-wide", table_id="a1", seq=5)
    by_id = {s.table_id: s for s in store.statuses(now=now)}
    assert (by_id["a1"].rounds_last_hour, by_id["a1"].last_seq, by_id["a1"].pending_hits) == (2, 6, 1)
    assert (by_id["a2"].rounds_last_hour, by_id["a2"].last_seq, by_id["a2"].pending_hits) == (0, 0, 0)
    # An hour later the same journal counts no round in the last hour.
    assert store.statuses(tables=["a1"], now=now + timedelta(hours=1))[0].rounds_last_hour == 0
    assert store.statuses(tables=[]) == []


def _hits(store: FloorStore) -> None:
    store.add_table(table_id="a1", pit="A", game="oasis", currency="USD", minor_units=2)
    store.open_account(
        name="big", scope="floor", reset=1_000_000, increment=100, cap=5_000_000, currency="USD", minor_units=2
    )
    store.hit(account="big", table_id="a1", seq=1)  # 1,000,000: above 500,000
    store.hit(account="big", table_id="a1", seq=2, share_bp=1_000)  # 100,000: at or below


def test_a_hit_above_the_amount_needs_two_different_supervisors(store: FloorStore) -> None:
    _hits(store)
    above = 500_000
    refused = r"hit 1 of big \(10,000.00 USD\) is above 5,000.00 USD: a supervisor approves"
    with pytest.raises(FloorRefused, match=refused):
        store.confirm_hit(account="big", hit_no=1, by="sam", second_approval_above=above)
    approved = store.approve_hit(account="big", hit_no=1, by="sam", second_approval_above=above)
    assert (approved.status, approved.approved_by, approved.confirmed_by) == ("pending", "sam", None)
    assert approved.approved_at is not None
    assert store.approve_hit(account="big", hit_no=1, by="sam", second_approval_above=above) == approved
    with pytest.raises(FloorRefused, match="sam approved hit 1 of big and cannot confirm it too"):
        store.confirm_hit(account="big", hit_no=1, by="sam", second_approval_above=above)
    with pytest.raises(FloorRefused, match="approved already by sam: another supervisor confirms it"):
        store.approve_hit(account="big", hit_no=1, by="tess", second_approval_above=above)
    assert store.pending_hits()[0][0] == approved  # the refusals changed nothing
    confirmed = store.confirm_hit(account="big", hit_no=1, by="tess", second_approval_above=above)
    assert (confirmed.status, confirmed.approved_by, confirmed.confirmed_by) == ("confirmed", "sam", "tess")
    assert confirmed.confirmed_at is not None and confirmed.approved_at is not None
    assert confirmed.approved_at <= confirmed.confirmed_at
    with pytest.raises(FloorRefused, match="confirmed already"):
        store.approve_hit(account="big", hit_no=1, by="uma", second_approval_above=above)


def test_a_hit_at_or_below_the_amount_is_confirmed_by_one_supervisor(store: FloorStore) -> None:
    _hits(store)
    with pytest.raises(FloorRefused, match=r"\(1,000.00 USD\) is not above 1,000.00 USD: one supervisor confirms it"):
        store.approve_hit(account="big", hit_no=2, by="sam", second_approval_above=100_000)
    done = store.confirm_hit(account="big", hit_no=2, by="sam", second_approval_above=100_000)
    assert (done.status, done.confirmed_by, done.approved_by) == ("confirmed", "sam", None)
    # Without an amount (the store's callers before the floor service), one supervisor confirms any hit.
    assert store.confirm_hit(account="big", hit_no=1, by="sam").confirmed_by == "sam"
    with pytest.raises(FloorConfigError, match="no hit number 9"):
        store.approve_hit(account="big", hit_no=9, by="sam", second_approval_above=0)


def test_a_jackpots_own_amount_comes_before_the_floors_and_is_logged(store: FloorStore) -> None:
    _hits(store)
    store.add_table(table_id="e1", pit="B", game="oasis", currency="EUR", minor_units=0)
    store.open_account(
        name="euros", scope="pit", scope_value="B", reset=40_000, increment=5, cap=90_000, currency="EUR"
    )
    store.hit(account="euros", table_id="e1", seq=1)  # 40,000 EUR
    # A floor amount of 500,000 means 5,000.00 USD for "big" but 500,000 EUR for "euros": each jackpot sets its own.
    floor_amount = 500_000
    euros = store.set_second_approval(account="euros", above=10_000, by="pat", reason="pit B's limit")
    assert euros.second_approval_above == 10_000 and euros.approval_above(floor_amount) == 10_000
    assert store.account("big").approval_above(floor_amount) == floor_amount
    with pytest.raises(FloorRefused, match=r"hit 1 of euros \(40,000 EUR\) is above 10,000 EUR: a supervisor approves"):
        store.confirm_hit(account="euros", hit_no=1, by="sam", second_approval_above=floor_amount)
    # With no floor amount at all, the jackpot's own still holds.
    assert store.approve_hit(account="euros", hit_no=1, by="sam").approved_by == "sam"
    assert store.confirm_hit(account="euros", hit_no=1, by="tess").confirmed_by == "tess"
    # "big" raised above its hit: one supervisor confirms what the floor's amount would have given to two.
    store.set_second_approval(account="big", above=2_000_000, by="pat", reason="high-limit room")
    with pytest.raises(FloorRefused, match=r"\(10,000.00 USD\) is not above 20,000.00 USD: one supervisor"):
        store.approve_hit(account="big", hit_no=1, by="sam", second_approval_above=floor_amount)
    # Given back to the floor: the floor's amount applies again; with none anywhere, nothing needs approving.
    back = store.set_second_approval(account="big", above=None, by="pat", reason="room closed")
    assert back.second_approval_above is None
    with pytest.raises(FloorRefused, match=r"is above 5,000\.00 USD"):
        store.confirm_hit(account="big", hit_no=1, by="sam", second_approval_above=floor_amount)
    with pytest.raises(FloorRefused, match="needs no approval: neither jackpot big nor this floor has a second-"):
        store.approve_hit(account="big", hit_no=1, by="sam")
    assert [c["reason"] for c in store.parameter_changes("big")] == [
        "second approval above 20,000.00 USD (was the floor's amount): high-limit room",
        "second approval above the floor's amount (was 20,000.00 USD): room closed",
    ]
    assert [(c["old_reset"], c["reset"]) for c in store.parameter_changes("big")] == [(1_000_000, 1_000_000)] * 2
    for bad, message in (
        ({"above": -1, "by": "pat", "reason": "x"}, "a second-approval amount is 0 or more, not -1"),
        ({"above": None, "by": "pat", "reason": "x"}, "its second-approval amount is already the floor's amount"),
        ({"above": 5, "by": "", "reason": "x"}, "needs who sets it and why"),
        ({"above": 5, "by": "pat", "reason": " "}, "needs who sets it and why"),
    ):
        with pytest.raises(FloorConfigError, match=message):
            store.set_second_approval(account="big", **bad)  # type: ignore[arg-type]
    with pytest.raises(FloorConfigError, match="no jackpot account named 'gone'"):
        store.set_second_approval(account="gone", above=5, by="pat", reason="x")
    assert len(store.parameter_changes("big")) == 2  # the refusals logged nothing


def test_pending_hits_list_the_floor_oldest_first_with_their_pit(store: FloorStore) -> None:
    _hits(store)
    assert [(h.account, h.hit_no, h.table_id, pit) for h, pit in store.pending_hits()] == [
        ("big", 1, "a1", "A"),
        ("big", 2, "a1", "A"),
    ]
    store.confirm_hit(account="big", hit_no=2, by="sam")
    assert [h.hit_no for h, _ in store.pending_hits()] == [1]


def test_statuses_and_approvals_survive_a_restart(floor_url: str) -> None:
    with open_store(floor_url) as first:
        _hits(first)
        first.report_status(table_id="a1", phase="showdown", round_no=3, tilts=["deck-changed"], progressive="open")
        first.approve_hit(account="big", hit_no=1, by="sam", second_approval_above=0)
    with open_store(floor_url) as again:
        status = again.statuses()[0]
        assert (status.phase, status.round_no, status.tilts, status.pending_hits) == (
            "showdown",
            3,
            ("deck-changed",),
            2,
        )
        assert again.hits("big")[0].approved_by == "sam"


CAMERA = {"state": "ok", "fps": 29.64, "age_s": 0.031, "zones": 9, "covered": 0}


def test_the_cameras_health_is_kept_its_state_bumps_the_version_its_rate_goes_with_the_heartbeat(
    store: FloorStore,
) -> None:
    store.add_table(table_id="a1", pit="A", game="oasis")
    store.add_table(table_id="b1", pit="B", game="oasis")
    store.report_status(table_id="b1", phase="idle", round_no=0, tilts=[], progressive="none")
    assert store.statuses(tables=["b1"])[0].camera is None  # no camera: none shown
    store.report_status(table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none", camera=CAMERA)
    first = store.statuses(tables=["a1"])[0]
    assert first.camera is not None and first.version == 1
    assert {k: first.camera[k] for k in CAMERA} == {**CAMERA, "fps": 29.6, "age_s": 0.03}
    assert first.camera["at"] == first.updated_at  # the write's time: the floor ages the last frame from it
    assert first.to_json()["camera"] == first.camera
    # Another rate and age: kept, but not a change to signal (a heartbeat).
    store.report_status(
        table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none", camera={**CAMERA, "fps": 30.2}
    )
    beat = store.statuses(tables=["a1"])[0]
    assert beat.version == 1 and beat.camera is not None and beat.camera["fps"] == 30.2
    # The frames stopped: a change the floor is told about at once.
    stale = {**CAMERA, "state": "stale", "age_s": 3.5}
    store.report_status(table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none", camera=stale)
    after = store.statuses(tables=["a1"])[0]
    assert after.version == 2 and after.camera is not None and after.camera["state"] == "stale"
    assert after.camera["age_s"] == 3.5
    # A hand over a zone is shown too; a camera that goes away is.
    covered = {**CAMERA, "covered": 2}
    store.report_status(table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none", camera=covered)
    assert store.statuses(tables=["a1"])[0].version == 3
    store.report_status(table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none")
    gone = store.statuses(tables=["a1"])[0]
    assert gone.version == 4 and gone.camera is None


@pytest.mark.parametrize(
    ("camera", "message"),
    [
        ({**CAMERA, "state": "fine"}, "camera state 'fine': one of"),
        ({**CAMERA, "fps": -1}, "never negative"),
        ({**CAMERA, "fps": float("nan")}, "finite"),
        ({**CAMERA, "age_s": "soon"}, "are numbers"),
        ({**CAMERA, "covered": 10}, "10 zones covered of 9"),
        ({**CAMERA, "cards": {"box1": 2}}, "unknown field 'cards'"),
    ],
)
def test_a_camera_report_that_is_not_one_is_refused_and_nothing_recorded(
    store: FloorStore, camera: dict[str, object], message: str
) -> None:
    store.add_table(table_id="a1", pit="A", game="oasis")
    store.report_status(table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none", camera=CAMERA)
    with pytest.raises(FloorConfigError, match=message):
        store.report_status(table_id="a1", phase="idle", round_no=0, tilts=[], progressive="none", camera=camera)
    kept = store.statuses(tables=["a1"])[0]
    assert kept.version == 1 and kept.camera is not None and kept.camera["state"] == "ok"


def test_amounts_in_messages_are_in_the_jackpots_money() -> None:
    def account(currency: str, minor_units: int) -> Account:
        numbers = dict.fromkeys(("reset", "increment", "cap", "meter", "seeded", "contributions"), 0)
        numbers |= dict.fromkeys(("contribution_count", "overflow", "hits", "won", "corrections"), 0)
        return Account(name="big", scope="floor", scope_value="", currency=currency, minor_units=minor_units, **numbers)

    assert money_text(1_234_567, account("EUR", 0)) == "1,234,567 EUR"
    assert money_text(1_234_567, account("USD", 2)) == "12,345.67 USD"
    assert money_text(5, account("KWD", 3)) == "0.005 KWD"
    # A jackpot whose unit a supervisor has not set yet: the number is not passed off as money.
    assert money_text(1_234_567, account("", 0)) == "1,234,567 (minor units; jackpot big has no currency yet)"
