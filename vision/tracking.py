"""Frame-to-frame tracking: per-zone votes turn noisy reads into committed card events."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from vision.calibration import ZoneMap
from vision.config import VisionSettings
from vision.recognize import BACK, UNKNOWN, FrameReading

_ABSENT: Final = ""  # a frame in which the track's card was not seen
_Seen = tuple[str, float, tuple[float, float]]  # code, confidence, centre (px)


@dataclass(frozen=True, slots=True)
class CardArrived:
    """A card was committed in a zone; ``face_up`` tells how it lies (its identity comes later).

    ``renamed_from``: the track of the same card just removed, when the tracker gives a card it
    saw turn a new track (a known card turned back down, or read as another card); None for a
    card new to the zone.
    """

    zone: str
    track: int
    face_up: bool
    frame: int
    renamed_from: int | None = None


@dataclass(frozen=True, slots=True)
class CardTurnedUp:
    """A card in a zone is face up and its identity is committed (reads agreed over the vote)."""

    zone: str
    track: int
    code: str
    confidence: float
    frame: int


@dataclass(frozen=True, slots=True)
class CardFlipped:
    """A committed card now lies the other side up, whether or not its face can be read.

    Face up: emitted before any :class:`CardTurnedUp`, so a card turned face up that stays
    unreadable (blur, glare, its index under another card) is still known to be face up. Face down:
    an unidentified face-up card turned back over (a known one is removed and arrives again).
    """

    zone: str
    track: int
    face_up: bool
    frame: int


@dataclass(frozen=True, slots=True)
class CardRemoved:
    """A committed card is gone from its zone (``code`` None if it was never identified)."""

    zone: str
    track: int
    code: str | None
    frame: int


@dataclass(frozen=True, slots=True)
class ZoneCleared:
    """The last committed card left the zone."""

    zone: str
    frame: int


TableEvent = CardArrived | CardFlipped | CardTurnedUp | CardRemoved | ZoneCleared


@dataclass(frozen=True, slots=True)
class ZoneCount:
    """Committed cards in one zone: face down, face up identified, face up not (yet) identified."""

    face_down: int = 0
    face_up: int = 0
    unidentified: int = 0

    @property
    def total(self) -> int:
        """All committed cards in the zone."""
        return self.face_down + self.face_up + self.unidentified


@dataclass(frozen=True)
class TrackerUpdate:
    """What one frame changed: events in order, every zone's counts, and zones skipped as covered."""

    frame: int
    events: tuple[TableEvent, ...]
    counts: Mapping[str, ZoneCount]
    covered: frozenset[str]


@dataclass(frozen=True, slots=True)
class TrackerSettings:
    """How many frames make a decision; see docs/vision.md."""

    vote_frames: int = 5  # the window a vote looks at
    vote_needed: int = 3  # agreeing frames needed to commit an arrival, a side or an identity
    absent_frames: int = 5  # frames unseen (zone not covered) before a card counts as removed
    occlusion_share: float = 0.12  # share of a zone under unexplained non-felt (a hand): skip it
    min_confidence: float = 0.5  # reads below this do not vote for an identity

    @classmethod
    def from_config(cls, settings: VisionSettings) -> TrackerSettings:
        """The tracking part of a table's ``[vision]`` settings."""
        return cls(
            vote_frames=settings.vote_frames,
            vote_needed=settings.vote_needed,
            absent_frames=settings.absent_frames,
            occlusion_share=settings.occlusion_share,
        )


@dataclass(slots=True)
class _Track:
    id: int
    zone: str
    pos: tuple[float, float]
    votes: deque[str]
    confidences: dict[str, float] = field(default_factory=dict)
    committed: bool = False
    face_up: bool | None = None
    code: str | None = None
    absent: int = 0


class Tracker:
    """Feeds on one :class:`FrameReading` per frame; emits events only for what a vote confirms.

    A zone covered by something that is not a card (a hand) is skipped for that frame: its tracks
    neither vote nor age. An identity, once committed, never silently changes: if another card
    is read at the same place for a whole vote, the old card is removed and the new one arrives.
    """

    def __init__(self, *, zones: ZoneMap, settings: TrackerSettings | None = None) -> None:
        self.zones = zones
        self.settings = settings or TrackerSettings()
        if self.settings.vote_needed > self.settings.vote_frames:
            raise ValueError("vote_needed must not exceed vote_frames")
        self._tracks: dict[str, list[_Track]] = {name: [] for name in zones.names}
        self._next_id = 1
        self._frame = -1

    def counts(self) -> dict[str, ZoneCount]:
        """Committed cards per zone right now."""
        out: dict[str, ZoneCount] = {}
        for name, tracks in self._tracks.items():
            live = [t for t in tracks if t.committed]
            out[name] = ZoneCount(
                face_down=sum(1 for t in live if t.face_up is False),
                face_up=sum(1 for t in live if t.face_up and t.code is not None),
                unidentified=sum(1 for t in live if t.face_up and t.code is None),
            )
        return out

    def update(self, reading: FrameReading) -> TrackerUpdate:
        """Take one frame's reading; return the events it completes."""
        self._frame += 1
        frame = self._frame
        events: list[TableEvent] = []
        covered: set[str] = set()
        per_zone: dict[str, list[_Seen]] = {n: [] for n in self.zones.names}
        for card in reading.cards:
            zone = self.zones.zone_of(card.center)
            if zone is not None:
                per_zone[zone].append((card.code, card.confidence, card.center))
        card_px = reading.card_height_px or 150.0
        for name, poly in zip(self.zones.names, self.zones.polygons_px, strict=True):
            if reading.clutter_share(poly) > self.settings.occlusion_share:
                covered.add(name)
                continue
            events.extend(self._update_zone(name, per_zone[name], frame, match_px=0.3 * card_px))
        return TrackerUpdate(frame=frame, events=tuple(events), counts=self.counts(), covered=frozenset(covered))

    def _update_zone(
        self,
        zone: str,
        seen: Sequence[tuple[str, float, tuple[float, float]]],
        frame: int,
        *,
        match_px: float,
    ) -> list[TableEvent]:
        s = self.settings
        tracks = self._tracks[zone]
        had_cards = any(t.committed for t in tracks)
        # Nearest pairs first, each read to at most one track.
        pairs = sorted((math.dist(t.pos, obs[2]), ti, oi) for ti, t in enumerate(tracks) for oi, obs in enumerate(seen))
        t_used: set[int] = set()
        o_used: set[int] = set()
        for dist, ti, oi in pairs:
            if dist > match_px or ti in t_used or oi in o_used:
                continue
            t_used.add(ti)
            o_used.add(oi)
            track = tracks[ti]
            code, conf, pos = seen[oi]
            track.pos = (0.7 * track.pos[0] + 0.3 * pos[0], 0.7 * track.pos[1] + 0.3 * pos[1])
            vote = code if code in (BACK, UNKNOWN) or conf >= s.min_confidence else UNKNOWN
            track.votes.append(vote)
            track.confidences[vote] = max(track.confidences.get(vote, 0.0), conf)
            track.absent = 0
        for ti, track in enumerate(tracks):
            if ti not in t_used:
                track.votes.append(_ABSENT)
                track.absent += 1
        for oi, (code, conf, pos) in enumerate(seen):
            if oi not in o_used:
                track = _Track(id=self._next_id, zone=zone, pos=pos, votes=deque(maxlen=s.vote_frames))
                self._next_id += 1
                track.votes.append(code if code in (BACK, UNKNOWN) or conf >= s.min_confidence else UNKNOWN)
                track.confidences[track.votes[-1]] = conf
                tracks.append(track)
        events: list[TableEvent] = []
        for track in list(tracks):
            events.extend(self._decide(track, frame))
            if track.absent >= s.absent_frames or (not track.committed and _present(track.votes) == 0):
                tracks.remove(track)
                if track.committed:
                    events.append(CardRemoved(zone=zone, track=track.id, code=track.code, frame=frame))
        if had_cards and not any(t.committed for t in tracks):
            events.append(ZoneCleared(zone=zone, frame=frame))
        return events

    def _decide(self, track: _Track, frame: int) -> list[TableEvent]:
        s = self.settings
        votes = [v for v in track.votes if v != _ABSENT]
        if len(votes) < s.vote_needed:
            return []
        backs = votes.count(BACK)
        faces = [v for v in votes if v != BACK]
        identities = {v for v in faces if v != UNKNOWN}
        events: list[TableEvent] = []
        face_up: bool | None = None
        if backs >= s.vote_needed:
            face_up = False
        elif len(faces) >= s.vote_needed:
            face_up = True
        if not track.committed:
            if face_up is None:
                return []
            track.committed = True
            track.face_up = face_up
            events.append(CardArrived(zone=track.zone, track=track.id, face_up=face_up, frame=frame))
        elif face_up is not None and face_up != track.face_up:
            if face_up is False and track.code is not None:
                # A known card turned back down: the table service decides whether that is legal;
                # here it is a removal of the face-up card and the arrival of a face-down one.
                events.append(CardRemoved(zone=track.zone, track=track.id, code=track.code, frame=frame))
                old, track.id, self._next_id = track.id, self._next_id, self._next_id + 1
                track.code = None
                events.append(
                    CardArrived(zone=track.zone, track=track.id, face_up=False, frame=frame, renamed_from=old)
                )
            else:
                events.append(CardFlipped(zone=track.zone, track=track.id, face_up=face_up, frame=frame))
            track.face_up = face_up
        if track.face_up and len(identities) == 1:
            (code,) = identities
            agreeing = faces.count(code)
            # Commit only on agreement with no dissent: any other identity in the window, or too
            # few reads, and the card stays unidentified a while longer.
            if agreeing >= s.vote_needed and code != track.code:
                if track.code is not None:
                    events.append(CardRemoved(zone=track.zone, track=track.id, code=track.code, frame=frame))
                    old, track.id, self._next_id = track.id, self._next_id, self._next_id + 1
                    events.append(
                        CardArrived(zone=track.zone, track=track.id, face_up=True, frame=frame, renamed_from=old)
                    )
                track.code = code
                events.append(
                    CardTurnedUp(
                        zone=track.zone,
                        track=track.id,
                        code=code,
                        confidence=round(track.confidences.get(code, 0.0), 4),
                        frame=frame,
                    )
                )
        return events


def _present(votes: deque[str]) -> int:
    return sum(1 for v in votes if v != _ABSENT)
