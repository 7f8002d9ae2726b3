"""Checks against the game: what the camera may see now, compared with what the round says.

Pure: no camera, no table service, no clock. The caller gives, for every frame, the round's
expectations (:class:`Expectations`, built from the table) and the tracker's committed events;
:class:`Checker` answers with the findings that have just become certain, each once per round.

Why the checks wait:

- the tracker commits a card only after its vote, so a card merely passing over a zone in the
  dealer's hand never counts;
- a card lies on the table some frames after the shoe read it, so a box that is short of a card
  right after the last card of the deal is not yet a misdeal: counts must be wrong for
  ``settle_frames`` frames in a row;
- a zone covered by a hand is not looked at: its findings neither advance nor reset that frame;
- cards left from an earlier round (or arrived between rounds) are the dealer's to clear, not a
  misdeal of this round: only cards that arrived while this round was open count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from controller.engine import Slot
from controller.tilts import TiltKind
from vision.config import ZoneConfig
from vision.errors import ConfigError
from vision.tracking import CardArrived, CardFlipped, CardRemoved, CardTurnedUp, TableEvent, ZoneCleared

Place = Literal["box", "dealer", "board"]
FindingKind = Literal[
    "card-in-idle-box", "too-few-cards", "too-many-cards", "dealer-card-up", "board-card-up", "identity-mismatch"
]
# The tilt each finding raises: a card in a box that is not playing, or a zone holding fewer or more
# cards than the shoe dealt there, is the deal out of order (a card misplaced, an extra card, a box
# skipped: the dealer would report the same); a card the shoe did not deal there is the camera and the
# shoe disagreeing. (A card that left the shoe unread is the shoe's draw counter's to find.)
TILT_OF: Mapping[FindingKind, TiltKind] = {
    "card-in-idle-box": "deal-sequence",
    "too-few-cards": "deal-sequence",
    "too-many-cards": "deal-sequence",
    "dealer-card-up": "dealer-card-exposed",
    # A board card face up before its turn is one of the dealer's cards exposed (seed 002: "the
    # first four cards: two of himself and two on the flop"): a redeal.
    "board-card-up": "dealer-card-exposed",
    "identity-mismatch": "camera-mismatch",
}
_BOX_NUMBER = re.compile(r"(\d+)$")


@dataclass(frozen=True, slots=True)
class ZonePlace:
    """What a camera zone is in the game: a box (with its number), the dealer's area or the board."""

    place: Place
    box: int = 0

    def describe(self) -> str:
        return f"box {self.box}" if self.place == "box" else f"the {self.place}"

    @classmethod
    def of_slot(cls, slot: Slot) -> ZonePlace:
        """The place a round's slot lies in: its box, the dealer's area or the board."""
        return cls("box", slot.box) if slot.target == "box" else cls(slot.target)


def zone_places(zones: Sequence[ZoneConfig]) -> dict[str, ZonePlace]:
    """Map the configured zones to places in the game; zones of kind ``other`` are not checked.

    A box zone's number is the number its name ends with (``box3``, ``seat-3`` → box 3).

    Raises:
        ConfigError: a box zone whose name has no number, or two zones for one box, the dealer
            or the board.
    """
    out: dict[str, ZonePlace] = {}
    for zone in zones:
        if zone.kind == "other":
            continue
        if zone.kind == "box":
            match = _BOX_NUMBER.search(zone.name)
            if match is None:
                raise ConfigError(f"zones: {zone.name}: a box zone's name must end with the box number")
            place = ZonePlace("box", int(match.group(1)))
        else:
            place = ZonePlace(zone.kind)
        if place in out.values():
            raise ConfigError(f"zones: {zone.name}: a second zone for {place.describe()}")
        out[zone.name] = place
    return out


@dataclass(frozen=True, slots=True)
class ZoneExpectation:
    """What the round says one zone holds now.

    ``playing``: the box has a bet this round (always True for the dealer and the board);
    ``cards``: codes the shoe dealt there that are still there (a box's discards are gone);
    ``face_up``: those of ``cards`` that lie face up now; ``count_due``: the zone must hold exactly
    ``cards`` now (the deal is not under way and the box has not folded).
    """

    place: ZonePlace
    playing: bool
    cards: tuple[str, ...] = ()
    face_up: frozenset[str] = frozenset()
    count_due: bool = False


@dataclass(frozen=True, slots=True)
class Expectations:
    """The round as the checks see it; ``round`` None when no round is open (nothing is checked).

    ``showdown``: nothing more is dealt or decided, so the dealer may turn every card;
    ``paused``: a tilt is open, play is stopped and the supervisor handles the table.
    """

    round: int | None
    zones: Mapping[str, ZoneExpectation] = field(default_factory=dict)
    showdown: bool = False
    paused: bool = False


@dataclass(frozen=True, slots=True)
class SeenCard:
    """A card the tracker committed in a zone, and the round that was open when it arrived."""

    track: int
    face_up: bool
    code: str | None
    round: int | None


class CameraSight:
    """The camera's committed view of the table, folded from tracker events."""

    def __init__(self) -> None:
        self._zones: dict[str, dict[int, SeenCard]] = {}

    def apply(self, events: Iterable[TableEvent], *, round_no: int | None) -> None:
        """Fold one frame's events in; ``round_no`` is the round open now (None between rounds)."""
        for event in events:
            cards = self._zones.setdefault(event.zone, {})
            match event:
                case CardArrived():
                    cards[event.track] = SeenCard(event.track, event.face_up, None, round_no)
                case CardFlipped():
                    # Turned over, readable or not: the side counts at once (a dealer card exposed
                    # but unreadable is still exposed); the identity, if any, follows.
                    old = cards.get(event.track)
                    if old is not None:
                        cards[event.track] = SeenCard(event.track, event.face_up, None, old.round)
                case CardTurnedUp():
                    # A card the tracker saw turn face up without an arrival of its own keeps the
                    # round it arrived in; one never seen arriving is new now.
                    old = cards.get(event.track)
                    cards[event.track] = SeenCard(event.track, True, event.code, old.round if old else round_no)
                case CardRemoved():
                    cards.pop(event.track, None)
                case ZoneCleared():
                    cards.clear()

    def cards(self, zone: str, *, round_no: int | None = None) -> list[SeenCard]:
        """The zone's committed cards; with ``round_no``, only those that arrived in that round."""
        return [c for c in self._zones.get(zone, {}).values() if round_no is None or c.round == round_no]


@dataclass(frozen=True, slots=True)
class Finding:
    """Something the camera sees that the round does not allow; ``tilt`` is the tilt it raises."""

    kind: FindingKind
    zone: str
    detail: str

    @property
    def tilt(self) -> TiltKind:
        return TILT_OF[self.kind]

    @property
    def key(self) -> tuple[str, str]:
        """One finding per kind and zone per round: the same misdeal seen again is not news."""
        return (self.kind, self.zone)


def find(expect: Expectations, sight: CameraSight, *, covered: frozenset[str] = frozenset()) -> list[Finding]:
    """Every finding the committed view gives now, zones under a hand excepted."""
    if expect.round is None:
        return []
    out: list[Finding] = []
    for zone, zx in expect.zones.items():
        if zone in covered:
            continue
        seen = sight.cards(zone, round_no=expect.round)
        where = zx.place.describe()
        if zx.place.place == "box" and not zx.playing:
            if seen:
                out.append(Finding("card-in-idle-box", zone, f"{len(seen)} card(s) in {where}, which is not playing"))
            continue
        up = [c for c in seen if c.face_up]
        if zx.place.place == "dealer" and not expect.showdown and len(up) > len(zx.face_up):
            early = len(up) - len(zx.face_up)
            unread = sum(1 for c in up if c.code is None)
            why = f" ({unread} unreadable)" if unread else ""
            out.append(Finding("dealer-card-up", zone, f"{early} dealer card(s) face up before the showdown{why}"))
        if zx.place.place == "board" and not expect.showdown and len(up) > len(zx.face_up):
            early = len(up) - len(zx.face_up)
            out.append(Finding("board-card-up", zone, f"{early} board card(s) face up before their turn"))
        # A zone still holding cards dealt without identity (a camera-only table) has nothing to
        # disagree with: a card read there is the camera dealer's to reveal, or a duplicate.
        unrevealed = any(code.startswith("?") for code in zx.cards)
        for card in up:
            if card.code is not None and card.code not in zx.cards and not unrevealed:
                out.append(
                    Finding("identity-mismatch", zone, f"the camera reads {card.code} in {where}; the shoe dealt none")
                )
                break
        if zx.count_due and len(seen) != len(zx.cards):
            kind: FindingKind = "too-few-cards" if len(seen) < len(zx.cards) else "too-many-cards"
            out.append(Finding(kind, zone, f"{where} holds {len(seen)} card(s); the shoe dealt {len(zx.cards)}"))
    return out


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """How long a finding must hold, in processed frames, before it is reported.

    ``confirm_frames``: for a card where none may be (on top of the tracker's own vote, so a card
    pushed across a box on its way to the next one is not a misdeal); ``settle_frames``: for a wrong
    count after the deal (the dealer is still putting the last card down); ``identity_frames``: for
    a face-up card that is not the shoe's.
    """

    confirm_frames: int = 5
    settle_frames: int = 45
    identity_frames: int = 1

    def __post_init__(self) -> None:
        for name in ("confirm_frames", "settle_frames", "identity_frames"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")

    def frames_for(self, kind: FindingKind) -> int:
        if kind in ("too-few-cards", "too-many-cards"):
            return self.settle_frames
        return self.identity_frames if kind == "identity-mismatch" else self.confirm_frames


class Checker:
    """Frame by frame: fold the tracker's events, find, and hold findings until they persist.

    Each finding is returned once per round, and at most one per frame: the first tilt stops
    play, and while a tilt is open (``paused``) nothing is returned and nothing advances, so the
    supervisor's handling of the table raises no more tilts. A finding still there once the tilt
    is cleared is returned then.
    """

    def __init__(self, *, settings: CheckSettings | None = None) -> None:
        self.settings = settings or CheckSettings()
        self.sight = CameraSight()
        self._round: int | None = None
        self._held: dict[tuple[str, str], int] = {}
        self._reported: set[tuple[str, str]] = set()

    def update(
        self, expect: Expectations, events: Sequence[TableEvent], *, covered: frozenset[str] = frozenset()
    ) -> list[Finding]:
        """Take one frame's tracker events and the expectations taken after that frame was read;
        return the finding reported from this frame, if any (a list: empty or one)."""
        self.sight.apply(events, round_no=expect.round)
        if expect.round != self._round:
            self._round = expect.round
            self._held.clear()
            self._reported.clear()
        if expect.paused or expect.round is None:
            return []
        found = {f.key: f for f in find(expect, self.sight, covered=covered)}
        # A finding gone from an uncovered zone starts again from zero; in a covered zone it waits.
        for key in list(self._held):
            if key not in found and key[1] not in covered:
                del self._held[key]
        out: list[Finding] = []
        for key, finding in found.items():
            if key in self._reported:
                continue
            self._held[key] = self._held.get(key, 0) + 1
            if self._held[key] >= self.settings.frames_for(finding.kind) and not out:
                self._reported.add(key)
                out.append(finding)
        return out
