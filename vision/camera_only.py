"""Camera-only dealing: on a table with no reading shoe, the camera's committed events deal and reveal cards.

A card the tracker commits in the place of the slot the round expects is dealt there: without
identity when the slot is face down (a placeholder), with the identity the camera reads when it is
dealt face up. A card turned face up later reveals the placeholder it arrived as: the dealer knows
which card is which because each placeholder remembers the tracker track it arrived as (a card
that lost its track, e.g. pushed across the box, is revealed by elimination when it is the zone's
only unrevealed card). What the round cannot accept becomes a tilt: an arrival where no card is
due (``unexpected-card``), a card read that is already in the round (``duplicate-card``), a card
whose identity is needed but that the camera cannot read (``unknown-card``, which a supervisor
clears by entering the card).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from controller.engine import Deal, Identify, Placeholder, Slot, Step
from controller.errors import ControllerError
from controller.journal import Entry, JournalError
from controller.table import CAMERA, Actor, TableService
from vision.checks import ZonePlace
from vision.tracking import CardArrived, CardRemoved, CardTurnedUp, TableEvent, ZoneCount

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CameraOnlySettings:
    """``identify_frames``: processed frames a needed identity may stay unread before the camera
    raises ``unknown-card`` for a supervisor to enter it. Only frames that show the problem count:
    the zone uncovered and holding a face-up card the camera cannot read, or (for a face-down card
    the settlement needs) the card nowhere on the table. A needed card still lying face down is the
    dealer's to turn (the display says which), not a tilt."""

    identify_frames: int = 90

    def __post_init__(self) -> None:
        if self.identify_frames < 1:
            raise ValueError("identify_frames must be at least 1")


@dataclass(slots=True)
class _Arrival:
    """A committed card waiting for the round to expect it (or for its identity, face-up slots)."""

    zone: str
    track: int
    code: str | None = None
    waited: int = 0  # frames it has been the card the round expects, with no identity to deal it with


@dataclass(slots=True)
class _RoundSight:
    """What the dealer side of the link knows about the open round."""

    round: int
    tracks: dict[int, int] = field(default_factory=dict)  # tracker track -> card number in the round
    codes: dict[int, str] = field(default_factory=dict)  # tracker track -> identity the camera committed
    pending: list[_Arrival] = field(default_factory=list)
    refused: set[tuple[int, str]] = field(default_factory=set)  # (track, code) a reveal or deal refused
    identify_wait: dict[int, int] = field(default_factory=dict)  # card number -> frames waited
    reported: set[tuple[str, int]] = field(default_factory=set)  # (tilt kind, track or card number)


class CameraDealer:
    """Turns one table's tracker events into deals, reveals and tilts (see the module docstring).

    Called once per processed frame, after the tracker, before the checks (so the checks see the
    round with this frame's cards dealt and revealed).
    """

    def __init__(
        self,
        *,
        table: TableService,
        places: Mapping[str, ZonePlace],
        settings: CameraOnlySettings | None = None,
        actor: Actor = CAMERA,
    ) -> None:
        self.table = table
        self.places = dict(places)
        self.zones = {place: zone for zone, place in self.places.items()}
        self.settings = settings or CameraOnlySettings()
        self.actor = actor
        self.sight: _RoundSight | None = None

    # ------------------------------------------------------------------ frame

    def update(
        self,
        events: Sequence[TableEvent],
        *,
        covered: frozenset[str] = frozenset(),
        counts: Mapping[str, ZoneCount] | None = None,
    ) -> list[Entry]:
        """Fold one frame's events in, deal what the round expects, reveal what turned up, raise
        what cannot be accepted. ``counts`` are the tracker's committed cards per zone (which zones
        hold a face-up card it cannot read). Returns the journal entries written.

        Raises:
            JournalError: the table could not record (nothing more can be recorded).
        """
        round_no = self.table.inspect(lambda t: t.round_no if t.round is not None else None)
        if round_no is None:
            self.sight = None  # cards between rounds are the dealer's to clear, not this round's
            return []
        if self.sight is None or self.sight.round != round_no:
            self.sight = _RoundSight(round=round_no)
        sight = self.sight
        self._fold(sight, events)
        entries: list[Entry] = []
        unreadable = frozenset(z for z, c in (counts or {}).items() if c.unidentified and z not in covered)
        entries.extend(self._deal(sight, unreadable))
        entries.extend(self._reveal(sight))
        entries.extend(self._identify(sight, covered, unreadable))
        return entries

    def _fold(self, sight: _RoundSight, events: Sequence[TableEvent]) -> None:
        skip = False
        for i, event in enumerate(events):
            if skip:
                skip = False
                continue
            if event.zone not in self.places:
                continue
            match event:
                case CardRemoved():
                    after = events[i + 1] if i + 1 < len(events) else None
                    if isinstance(after, CardArrived) and after.renamed_from == event.track:
                        # The tracker renames a card it saw turn (a known card turned back down, or
                        # read as another card): the same card, a new track. (Another card arriving
                        # as this one's track expires is a new card, not this one.)
                        self._rename(sight, event.track, after.track)
                        skip = True
                    else:
                        self._forget(sight, event.track)
                case CardArrived():
                    sight.pending.append(_Arrival(zone=event.zone, track=event.track))
                case CardTurnedUp():
                    sight.codes[event.track] = event.code
                    for arrival in sight.pending:
                        if arrival.track == event.track:
                            arrival.code = event.code
                case _:
                    pass

    def _rename(self, sight: _RoundSight, old: int, new: int) -> None:
        if old in sight.tracks:
            sight.tracks[new] = sight.tracks.pop(old)
        for arrival in sight.pending:
            if arrival.track == old:
                arrival.track = new
                arrival.code = None
        sight.codes.pop(old, None)

    def _forget(self, sight: _RoundSight, track: int) -> None:
        # A dealt card that leaves its zone (mucked after a fold, collected) keeps its place in the
        # round; only the camera's link to it is lost.
        sight.tracks.pop(track, None)
        sight.codes.pop(track, None)
        sight.pending = [a for a in sight.pending if a.track != track]

    # ------------------------------------------------------------------ deal

    def _deal(self, sight: _RoundSight, unreadable: frozenset[str]) -> list[Entry]:
        entries: list[Entry] = []
        while sight.pending:
            now = self.table.inspect(partial(_now, ahead=True))
            step, upcoming, paused = now.step, now.upcoming, now.paused
            if paused:
                return entries  # the supervisor is handling the table; the cards wait
            stray = self._stray(sight, upcoming)
            if stray is not None:
                sight.pending.remove(stray)
                entries.extend(self._report_stray(stray, step))
                continue
            if not isinstance(step, Deal):
                return entries
            place = ZonePlace.of_slot(step.slot)
            arrival = next((a for a in sight.pending if self.places[a.zone] == place), None)
            if arrival is None:
                return entries  # the expected card has not arrived yet; later ones wait their turn
            if step.slot.face_up and arrival.code is None:
                if arrival.zone in unreadable:
                    arrival.waited += 1
                if (
                    arrival.waited >= self.settings.identify_frames
                    and ("unknown-card", -arrival.track) not in sight.reported
                ):
                    sight.reported.add(("unknown-card", -arrival.track))
                    detail = f"the camera cannot read the card dealt face up for {step.slot.where()}"
                    entries.extend(
                        self._call(partial(self.table.report_unknown, number=None, detail=detail, actor=self.actor))
                    )
                return entries
            code = arrival.code if step.slot.face_up else None
            if code is not None and (arrival.track, code) in sight.refused:
                return entries
            try:
                entry = self.table.on_camera_card(step.slot, code=code, actor=self.actor)
            except JournalError:
                raise
            except ControllerError as exc:
                if code is not None and getattr(exc, "rule", "") == "deal.duplicate-card":
                    sight.refused.add((arrival.track, code))
                    sight.pending.remove(arrival)
                    entries.extend(self._report_duplicate(sight, arrival.track, code, step.slot))
                    continue
                log.info("camera deal not taken now: %s", exc)
                return entries
            sight.pending.remove(arrival)
            # Only the camera deals on a table with no reading shoe: this card is the next number.
            sight.tracks[arrival.track] = now.dealt + 1
            entries.append(entry)
        return entries

    def _stray(self, sight: _RoundSight, upcoming: Sequence[Slot]) -> _Arrival | None:
        """The first waiting card with no place among the slots still to be dealt before the next
        decision (each slot takes one card, in arrival order) and that is not a dealt card found
        again. Idle boxes are the checks' to report (``card-in-idle-box``)."""
        free: dict[ZonePlace, int] = {}
        for slot in upcoming:
            place = ZonePlace.of_slot(slot)
            free[place] = free.get(place, 0) + 1
        tracked = set(sight.tracks.values())
        for arrival in list(sight.pending):
            place = self.places[arrival.zone]
            orphans = self.table.inspect(partial(_orphans, place=place, tracked=tracked))
            if orphans:
                # A dealt card the camera has no track for, seen (again) in its place: after a
                # restart, a card the camera lost (moved further than a track follows) or a card a
                # supervisor entered. Several of one place are matched in deal order: they are one
                # hand, so the order never changes what is paid.
                sight.tracks[arrival.track] = orphans[0]
                tracked.add(orphans[0])
                sight.pending.remove(arrival)
                continue
            if free.get(place, 0) > 0:
                free[place] -= 1
                continue
            if place.place == "box" and place.box not in self.table.inspect(_playing):
                continue
            return arrival
        return None

    def _report_stray(self, arrival: _Arrival, step: Step | None) -> list[Entry]:
        where = self.places[arrival.zone].describe()
        now = step.describe() if step is not None else "no round is open"
        detail = f"camera: a card arrived in {where}, where none is due now ({now})"
        return self._call(lambda: self.table.report("unexpected-card", actor=self.actor, detail=detail))

    def _report_duplicate(self, sight: _RoundSight, track: int, code: str, slot: Slot) -> list[Entry]:
        key = ("duplicate-card", track)
        if key in sight.reported:
            return []
        sight.reported.add(key)
        # The message names the card; the displays redact it unless it is face up.
        detail = f"camera: {slot.where()} reads {code}, which is already in this round"
        return self._call(lambda: self.table.report("duplicate-card", actor=self.actor, detail=detail))

    # ---------------------------------------------------------------- reveal

    def _reveal(self, sight: _RoundSight) -> list[Entry]:
        entries: list[Entry] = []
        # One look at the round per frame: most read cards are known already as what they read.
        codes = self.table.inspect(_dealt_codes)
        for track, number in list(sight.tracks.items()):
            code = sight.codes.get(track)
            if code is None or (track, code) in sight.refused or sight.tracks.get(track) != number:
                continue
            if number <= len(codes) and codes[number - 1] == code:
                continue  # this very card, known: nothing to match or reveal
            known = self.table.inspect(partial(_known_in_place, number=number, code=code))
            if known is not None:
                # The card is another one of the same place, already known: the camera matched the
                # tracks of that place's cards the other way round (after a restart or a lost
                # track). Only the camera's matching changes, never the round.
                other = next((t for t, n in sight.tracks.items() if n == known), None)
                sight.tracks[track] = known
                if other is not None:
                    sight.tracks[other] = number
                continue
            state = self.table.inspect(partial(_revealable, number=number))
            if state is None:
                continue
            try:
                entries.append(self.table.reveal(number, code, actor=self.actor))
            except JournalError:
                raise
            except ControllerError as exc:
                sight.refused.add((track, code))
                if getattr(exc, "rule", "") == "deal.duplicate-card":
                    entries.extend(self._report_duplicate(sight, track, code, state))
                else:
                    log.info("camera reveal not taken: %s", exc)
        return entries

    # -------------------------------------------------------------- identify

    def _identify(self, sight: _RoundSight, covered: frozenset[str], unreadable: frozenset[str]) -> list[Entry]:
        now = self.table.inspect(_now)
        step, paused = now.step, now.paused
        if paused or not isinstance(step, Identify):
            return []
        zone = self.zones.get(ZonePlace.of_slot(step.slot))
        if zone is not None and zone in covered:
            return []
        on_table = step.number in sight.tracks.values()
        if on_table and zone not in unreadable:
            sight.identify_wait.pop(step.number, None)  # face down still: the dealer's to turn
            return []
        waited = sight.identify_wait.get(step.number, 0) + 1
        sight.identify_wait[step.number] = waited
        key = ("unknown-card", step.number)
        if waited < self.settings.identify_frames or key in sight.reported:
            return []
        sight.reported.add(key)
        detail = f"the camera cannot read card {step.number} ({step.slot.where()}), which the settlement needs"
        return self._call(lambda: self.table.report_unknown(number=step.number, detail=detail, actor=self.actor))

    def _call(self, command: Callable[[], Entry]) -> list[Entry]:
        try:
            entry = command()
        except JournalError:
            raise
        except ControllerError as exc:
            log.warning("camera report not taken: %s", exc)
            return []
        log.info("camera raised %s", entry.data.get("kind"))
        return [entry]


def _dealt_codes(table: TableService) -> tuple[str, ...]:
    """The codes of the round's cards in deal order (``?n`` for a card dealt without identity)."""
    return tuple(card.code for card, _slot in table.round.dealt()) if table.round is not None else ()


def _revealable(table: TableService, *, number: int) -> Slot | None:
    """The slot of card ``number`` if it waits for its identity and the camera may take it now: a
    box's card at any time (a player looking at his own card), the dealer's and the board's only
    once the rules have them face up (before that, a face-up dealer card is an exposure the checks
    report, never a reveal)."""
    rnd = table.round
    if rnd is None or not 1 <= number <= rnd.cards_dealt:
        return None
    card, slot = rnd.dealt()[number - 1]
    if not isinstance(card, Placeholder):
        return None
    if slot.target == "box" or slot.face_up or slot in rnd.game.turned(rnd.state):
        return slot
    return slot if rnd.at_showdown() and rnd.state.in_play() else None


@dataclass(frozen=True, slots=True)
class _Now:
    step: Step | None
    upcoming: tuple[Slot, ...]
    paused: bool
    dealt: int


def _now(table: TableService, *, ahead: bool = False) -> _Now:
    """The round now; with ``ahead``, also the slots still to be dealt before the next decision."""
    rnd = table.round
    if rnd is None:
        return _Now(step=None, upcoming=(), paused=True, dealt=0)
    paused = bool(table.tilts)
    # (What is still to come costs a scratch replay of the round: not worth it while paused.)
    upcoming = rnd.upcoming() if ahead and not paused else ()
    return _Now(step=rnd.expected(), upcoming=upcoming, paused=paused, dealt=rnd.cards_dealt)


def _playing(table: TableService) -> frozenset[int]:
    return frozenset(table.round.state.boxes) if table.round is not None else frozenset()


def _orphans(table: TableService, *, place: ZonePlace, tracked: set[int]) -> list[int]:
    """Numbers of the cards lying in ``place`` (discards excluded) that the camera has no track for."""
    rnd = table.round
    if rnd is None:
        return []
    state = rnd.state
    lying: list[object] = list(state.dealer) if place.place == "dealer" else list(state.board_cards())
    if place.place == "box":
        box = state.boxes.get(place.box)
        lying = list(box.cards) if box is not None else []
    return [
        n
        for n, (card, slot) in enumerate(rnd.dealt(), 1)
        if ZonePlace.of_slot(slot) == place and n not in tracked and any(card is c for c in lying)
    ]


def _known_in_place(table: TableService, *, number: int, code: str) -> int | None:
    """The number of the card ``code`` if it is already known and lies in the same place as card
    ``number`` (which is not it)."""
    rnd = table.round
    if rnd is None or not 1 <= number <= rnd.cards_dealt:
        return None
    dealt = rnd.dealt()
    place = ZonePlace.of_slot(dealt[number - 1][1])
    for n, (card, slot) in enumerate(dealt, 1):
        if n != number and card.code == code and ZonePlace.of_slot(slot) == place:
            return n
    return None
