"""The pure checks: which findings each table state gives, and when the checker reports them."""

from __future__ import annotations

import pytest

from vision.checks import (
    CameraSight,
    Checker,
    CheckSettings,
    Expectations,
    Finding,
    ZoneExpectation,
    ZonePlace,
    find,
    zone_places,
)
from vision.config import ZoneConfig
from vision.errors import ConfigError
from vision.tracking import CardArrived, CardFlipped, CardRemoved, CardTurnedUp, TableEvent, ZoneCleared

SQUARE = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)]
BOX1, BOX2, DEALER = ZonePlace("box", 1), ZonePlace("box", 2), ZonePlace("dealer")


def expect(
    *,
    box1: tuple[str, ...] = ("As", "Kd"),
    dealer: tuple[str, ...] = ("2c", "3c"),
    dealer_up: frozenset[str] = frozenset(),
    due: bool = True,
    showdown: bool = False,
    paused: bool = False,
    round_no: int | None = 1,
) -> Expectations:
    """Box 1 plays, box 2 does not; the dealer holds two cards, face down unless said."""
    return Expectations(
        round=round_no,
        zones={
            "box1": ZoneExpectation(place=BOX1, playing=True, cards=box1, count_due=due),
            "box2": ZoneExpectation(place=BOX2, playing=False),
            "dealer": ZoneExpectation(place=DEALER, playing=True, cards=dealer, face_up=dealer_up, count_due=due),
        },
        showdown=showdown,
        paused=paused,
    )


def sight(*events: TableEvent, round_no: int | None = 1) -> CameraSight:
    s = CameraSight()
    s.apply(events, round_no=round_no)
    return s


def down(zone: str, track: int) -> CardArrived:
    return CardArrived(zone=zone, track=track, face_up=False, frame=0)


def up(zone: str, track: int, code: str) -> list[TableEvent]:
    return [
        CardArrived(zone=zone, track=track, face_up=True, frame=0),
        CardTurnedUp(zone=zone, track=track, code=code, confidence=0.9, frame=0),
    ]


CORRECT = (down("box1", 1), down("box1", 2), down("dealer", 3), down("dealer", 4))


def kinds(findings: list[Finding]) -> list[tuple[str, str]]:
    return [(f.kind, f.zone) for f in findings]


def test_a_correct_deal_finds_nothing() -> None:
    assert find(expect(), sight(*CORRECT)) == []


def test_a_card_in_a_box_that_is_not_playing() -> None:
    found = find(expect(), sight(*CORRECT, down("box2", 9)))
    assert kinds(found) == [("card-in-idle-box", "box2")]
    assert found[0].tilt == "deal-sequence"


def test_counts_are_checked_only_once_the_deal_is_done() -> None:
    short = sight(down("box1", 1), down("dealer", 3), down("dealer", 4))
    assert find(expect(due=False), short) == []
    found = find(expect(), short)
    assert kinds(found) == [("too-few-cards", "box1")] and found[0].tilt == "deal-sequence"
    extra = sight(*CORRECT, down("box1", 7))
    assert [(f.kind, f.tilt) for f in find(expect(), extra)] == [("too-many-cards", "deal-sequence")]


def test_a_dealer_card_face_up_before_the_showdown() -> None:
    events = [down("box1", 1), down("box1", 2), down("dealer", 3), *up("dealer", 4, "3c")]
    found = find(expect(), sight(*events))
    assert kinds(found) == [("dealer-card-up", "dealer")] and found[0].tilt == "dealer-card-exposed"
    # Dealt face up by the plan, or at the showdown: allowed.
    assert find(expect(dealer_up=frozenset({"3c"})), sight(*events)) == []
    assert find(expect(showdown=True), sight(*events)) == []


def test_a_dealer_card_exposed_but_unreadable() -> None:
    flipped = CardFlipped(zone="dealer", track=4, face_up=True, frame=1)
    s = sight(*CORRECT, flipped)
    assert [(c.face_up, c.code) for c in s.cards("dealer")] == [(False, None), (True, None)]
    found = find(expect(), s)
    assert kinds(found) == [("dealer-card-up", "dealer")] and "unreadable" in found[0].detail
    # Turned back down before anyone saw it: nothing left to report.
    s.apply([CardFlipped(zone="dealer", track=4, face_up=False, frame=2)], round_no=1)
    assert find(expect(), s) == []


def test_a_flip_keeps_the_round_the_card_arrived_in() -> None:
    s = sight(down("dealer", 3), round_no=1)
    s.apply([CardFlipped(zone="dealer", track=3, face_up=True, frame=1)], round_no=2)
    assert [c.round for c in s.cards("dealer")] == [1]
    # A flip of a card the sight never committed (it arrived before the camera started) adds none.
    s.apply([CardFlipped(zone="box1", track=8, face_up=True, frame=1)], round_no=2)
    assert s.cards("box1") == []


def test_a_face_up_card_the_shoe_did_not_deal_there() -> None:
    events = [down("box1", 1), *up("box1", 2, "Qh"), down("dealer", 3), down("dealer", 4)]
    found = find(expect(), sight(*events))
    assert kinds(found) == [("identity-mismatch", "box1")] and found[0].tilt == "camera-mismatch"
    assert "Qh" in found[0].detail
    # A player looking at his own card (the shoe's card) is no finding.
    events = [down("box1", 1), *up("box1", 2, "Kd"), down("dealer", 3), down("dealer", 4)]
    assert find(expect(), sight(*events)) == []


def test_a_card_read_where_cards_wait_for_their_identity_is_no_mismatch() -> None:
    # Camera-only: box 1's second card was dealt without identity; the camera reading it is a
    # reveal for the camera dealer, not a disagreement with a shoe. Once revealed it is checked.
    events = [down("box1", 1), *up("box1", 2, "Qh"), down("dealer", 3), down("dealer", 4)]
    assert find(expect(box1=("As", "?2")), sight(*events)) == []
    assert kinds(find(expect(box1=("As", "Kd")), sight(*events))) == [("identity-mismatch", "box1")]


def test_covered_zones_and_no_round_find_nothing() -> None:
    s = sight(*CORRECT, down("box2", 9))
    assert find(expect(), s, covered=frozenset({"box2"})) == []
    assert find(expect(round_no=None), s) == []


def test_cards_from_an_earlier_round_do_not_count() -> None:
    s = sight(down("box2", 9), round_no=1)
    s.apply(CORRECT, round_no=2)
    assert find(expect(round_no=2), s) == []
    assert kinds(find(expect(round_no=1, due=False), s)) == [("card-in-idle-box", "box2")]


def test_sight_follows_removals_and_clears() -> None:
    s = sight(*CORRECT, *up("box2", 9, "9s"))
    s.apply([CardRemoved(zone="box2", track=9, code="9s", frame=1)], round_no=1)
    assert s.cards("box2") == []
    s.apply([ZoneCleared(zone="box1", frame=2)], round_no=1)
    assert s.cards("box1") == [] and len(s.cards("dealer")) == 2


def test_zone_places_from_configuration() -> None:
    zones = [
        ZoneConfig(name="box3", polygon_mm=SQUARE),
        ZoneConfig(name="seat-12", polygon_mm=SQUARE),
        ZoneConfig(name="dealer", kind="dealer", polygon_mm=SQUARE),
        ZoneConfig(name="chips", kind="other", polygon_mm=SQUARE),
    ]
    assert zone_places(zones) == {"box3": ZonePlace("box", 3), "seat-12": ZonePlace("box", 12), "dealer": DEALER}
    with pytest.raises(ConfigError, match="box number"):
        zone_places([ZoneConfig(name="left", polygon_mm=SQUARE)])
    with pytest.raises(ConfigError, match="second zone"):
        zone_places([ZoneConfig(name="a1", polygon_mm=SQUARE), ZoneConfig(name="b1", polygon_mm=SQUARE)])


def test_checker_reports_once_after_the_finding_holds() -> None:
    checker = Checker(settings=CheckSettings(confirm_frames=3))
    assert checker.update(expect(), [*CORRECT, down("box2", 9)]) == []
    assert checker.update(expect(), []) == []
    assert kinds(checker.update(expect(), [])) == [("card-in-idle-box", "box2")]
    assert all(checker.update(expect(), []) == [] for _ in range(5))


def test_checker_waits_for_a_short_box_to_settle() -> None:
    checker = Checker(settings=CheckSettings(settle_frames=4))
    checker.update(expect(), [down("box1", 1), down("dealer", 3), down("dealer", 4)])
    checker.update(expect(), [])
    # The dealer puts the last card down in time: the count is right, the count starts again.
    checker.update(expect(), [down("box1", 2)])
    assert all(checker.update(expect(), []) == [] for _ in range(6))
    # The card is taken away again: four frames later, and only then, the box is short.
    assert checker.update(expect(), [CardRemoved(zone="box1", track=2, code=None, frame=9)]) == []
    assert [checker.update(expect(), []) for _ in range(2)] == [[], []]
    assert kinds(checker.update(expect(), [])) == [("too-few-cards", "box1")]


def test_checker_holds_nothing_under_a_hand_and_while_paused() -> None:
    checker = Checker(settings=CheckSettings(confirm_frames=2))
    hand = frozenset({"box2"})
    checker.update(expect(), [*CORRECT, down("box2", 9)], covered=hand)
    assert all(checker.update(expect(), [], covered=hand) == [] for _ in range(5))
    assert all(checker.update(expect(paused=True), []) == [] for _ in range(5))
    assert checker.update(expect(), []) == []
    assert kinds(checker.update(expect(), [])) == [("card-in-idle-box", "box2")]


def test_a_new_round_reports_again() -> None:
    checker = Checker(settings=CheckSettings(confirm_frames=1))
    assert kinds(checker.update(expect(), [*CORRECT, down("box2", 9)])) == [("card-in-idle-box", "box2")]
    assert checker.update(expect(), []) == []
    assert checker.update(expect(round_no=2), []) == []  # the old card belongs to round 1
    assert kinds(checker.update(expect(round_no=2), [down("box2", 10)])) == [("card-in-idle-box", "box2")]


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="settle_frames"):
        CheckSettings(settle_frames=0)


def test_one_finding_per_frame_the_next_once_play_resumes() -> None:
    checker = Checker(settings=CheckSettings(confirm_frames=1, settle_frames=1))
    # Box 1's second card laid in box 2: box 2 holds a card, box 1 is short.
    first = checker.update(expect(), [down("box1", 1), down("box2", 2), down("dealer", 3), down("dealer", 4)])
    assert kinds(first) == [("too-few-cards", "box1")]
    assert checker.update(expect(paused=True), []) == []
    assert kinds(checker.update(expect(), [])) == [("card-in-idle-box", "box2")]
    assert checker.update(expect(), []) == []
