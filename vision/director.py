"""The simulated dealer's hands: lays the live table's cards onto the simulated camera's scene.

The demo's table has a card-reading shoe but no felt: :class:`SceneDirector` watches the table
service and keeps :attr:`SimulatedCamera.scene` showing what a dealer would have put down. Each
card the shoe dealt lies in its slot's spot in its zone, face down or face up as the round says
(dealt face up, turned by the dealer, the showdown); discards and folded hands are mucked; after
settlement the table is cleared. On :meth:`SceneDirector.tick` a dealer's hand sometimes passes
over a zone and the room light sometimes changes, as at a real table.

The scene is derived from the table's state after each change, under the table's lock, so the
camera is never ahead of the shoe: it sees a card only once the round has it.
"""

from __future__ import annotations

import math
import random
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from controller.engine import ActionTaken, CardDealt, Round
from controller.table import TableService
from controller.view import visible_cards
from drivers.camera.sim import (
    CARD_H_MM,
    CARD_W_MM,
    Lighting,
    Marker,
    SimCard,
    SimHand,
    SimulatedCamera,
    TableView,
)
from vision.checks import CheckSettings, ZonePlace, zone_places
from vision.config import TableVision, ZoneConfig, load_table_vision
from vision.deck import DeckProfile, default_deck, load_deck
from vision.link import CameraLink
from vision.link_health import LinkHealth

DEMO_LAYOUT: Final = Path(__file__).parent / "data" / "demo_table.toml"
# The checks' holds are counted in processed frames; the defaults are sized for 30 frames a
# second, the demo's camera runs a few. A count must stay wrong longer than the tracker takes to
# see a discard go (absent_frames) and a new card arrive (vote_frames).
DEMO_CHECKS: Final = CheckSettings(confirm_frames=2, settle_frames=8, identity_frames=1)
_GAP_MM = 7.0  # between neighbouring cards in a zone


@dataclass(frozen=True, kw_only=True)
class DirectorSettings:
    """How lively the simulated dealer is, per :meth:`SceneDirector.tick`.

    ``hand_rate``: chance a hand starts to pass over a zone; ``hand_ticks``: how long it stays;
    ``light_rate``: chance the room light changes; ``jitter_mm`` / ``jitter_deg``: how far a card
    lies from its spot's centre and square (fixed per card, so a card does not wander).
    """

    hand_rate: float = 0.04
    hand_ticks: int = 3
    light_rate: float = 0.02
    jitter_mm: float = 3.0
    jitter_deg: float = 3.0
    seed: int | None = None

    def __post_init__(self) -> None:
        for name in ("hand_rate", "light_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.hand_ticks < 1:
            raise ValueError("hand_ticks must be at least 1")
        if self.jitter_mm < 0 or self.jitter_deg < 0:
            raise ValueError("jitter_mm and jitter_deg must not be negative")


def spots(polygon_mm: Sequence[tuple[float, float]], *, count: int) -> list[tuple[float, float]]:
    """Centres of ``count`` card spots in rows inside a zone's bounding box, left to right, top to
    bottom; when they do not all fit, the rows overlap (a spread) rather than leave the zone."""
    xs = [p[0] for p in polygon_mm]
    ys = [p[1] for p in polygon_mm]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    per_row = max(1, min(count, int((x1 - x0 + _GAP_MM) // (CARD_W_MM + _GAP_MM))))
    rows = max(1, math.ceil(count / per_row))
    pitch_x = CARD_W_MM + _GAP_MM
    pitch_y = CARD_H_MM + _GAP_MM
    if rows > 1 and rows * pitch_y - _GAP_MM > y1 - y0:
        pitch_y = max(0.0, (y1 - y0 - CARD_H_MM) / (rows - 1))
    out = []
    for k in range(count):
        row, col = divmod(k, per_row)
        in_row = min(per_row, count - row * per_row)
        left = (x0 + x1) / 2 - (in_row * pitch_x - _GAP_MM) / 2 + CARD_W_MM / 2
        top = (y0 + y1) / 2 - (rows * pitch_y - (pitch_y - CARD_H_MM)) / 2 + CARD_H_MM / 2
        out.append((left + col * pitch_x, top + row * pitch_y))
    return out


class SceneDirector:
    """Keeps a simulated camera's scene in step with one live table.

    ``capacity``: spots laid out per zone (a box needs room for its hand and its exchanged
    cards: a replacement goes to the spot its discard left).
    """

    def __init__(
        self,
        *,
        table: TableService,
        camera: SimulatedCamera,
        zones: Sequence[ZoneConfig],
        settings: DirectorSettings | None = None,
        capacity: Mapping[str, int] | None = None,
    ) -> None:
        """Lay out every zone's spots; nothing is shown until :meth:`refresh` or :meth:`attach`.

        Raises:
            ConfigError: zones as :func:`vision.checks.zone_places` refuses them.
        """
        self.table = table
        self.camera = camera
        self.settings = settings or DirectorSettings()
        places = zone_places(zones)
        self._zone_of: dict[ZonePlace, str] = {place: name for name, place in places.items()}
        by_name = {z.name: z for z in zones}
        want = {"box": 6, "dealer": 5, "board": 5, **(capacity or {})}
        self._spots: dict[str, list[tuple[float, float]]] = {
            name: spots(by_name[name].polygon_mm, count=want[place.place]) for name, place in places.items()
        }
        self._centres = {name: _centre(by_name[name].polygon_mm) for name in places}
        self._rng = random.Random(self.settings.seed)
        self._cards: tuple[SimCard, ...] = ()
        self._hand: tuple[SimHand, int] | None = None  # the hand and the ticks it has left
        self._lighting = Lighting()
        self._lock = threading.Lock()
        self._unsubscribe: Callable[[], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the cards

    def spot(self, zone: str, index: int) -> tuple[float, float]:
        """The centre of a zone's ``index``-th card spot, in table millimetres.

        Raises:
            KeyError: no such zone; IndexError: the zone has fewer spots.
        """
        return self._spots[zone][index]

    def zone_of(self, place: ZonePlace) -> str | None:
        """The zone that watches a place in the game (a box, the dealer, the board), if any."""
        return self._zone_of.get(place)

    def lay(self) -> tuple[SimCard, ...]:
        """The cards a dealer would have on the table now, read under the table's lock."""
        return self.table.inspect(lambda t: self._lay(t.round_no, t.round))

    def _lay(self, round_no: int, rnd: Round | None) -> tuple[SimCard, ...]:
        if rnd is None:
            return ()  # between rounds the table is clear
        shown = visible_cards(rnd)
        taken: dict[str, dict[str, int]] = {}  # zone -> card code -> spot
        for event in rnd.events:
            if isinstance(event, CardDealt):
                slot = event.slot
                zone = self._zone_of.get(ZonePlace.of_slot(slot))
                if zone is None:
                    continue  # the camera does not watch that place
                used = taken.setdefault(zone, {})
                spot = slot.index if slot.target != "box" else _first_free(used.values())
                if spot < len(self._spots[zone]):
                    used[event.card.code] = spot
            elif isinstance(event, ActionTaken) and event.action.discard:
                # The discards are mucked; the replacements take their spots.
                zone = self._zone_of.get(ZonePlace("box", event.action.box))
                for card in event.action.discard:
                    taken.get(zone or "", {}).pop(card.code, None)
        folded = {
            zone
            for number, box in rnd.state.boxes.items()
            if box.folded and (zone := self._zone_of.get(ZonePlace("box", number))) is not None
        }
        out = []
        for zone, used in taken.items():
            if zone in folded:
                continue  # a folded hand is mucked
            for code, spot in used.items():
                x, y = self._spots[zone][spot]
                dx, dy, da = self._jitter(round_no, code)
                out.append(SimCard(code=code, x_mm=x + dx, y_mm=y + dy, angle_deg=da, face_up=code in shown))
        return tuple(out)

    def _jitter(self, round_no: int, code: str) -> tuple[float, float, float]:
        """A card's own small offset and turn: fixed for the round, different for every card."""
        h = zlib.crc32(f"{round_no}:{code}".encode())
        u = [((h >> s) & 0x3FF) / 1023.0 * 2.0 - 1.0 for s in (0, 10, 20)]
        s = self.settings
        return u[0] * s.jitter_mm, u[1] * s.jitter_mm, u[2] * s.jitter_deg

    # ------------------------------------------------------------------ the scene

    def refresh(self) -> None:
        """Show the table's cards as they are now (called after every change of the table)."""
        cards = self.lay()
        with self._lock:
            self._cards = cards
            self._show()

    def _show(self) -> None:
        hands = (self._hand[0],) if self._hand is not None else ()
        scene = self.camera.scene
        self.camera.scene = replace(scene, cards=self._cards, hands=hands, lighting=self._lighting)

    def tick(self) -> None:
        """One step of the room: a hand comes, moves on or leaves; sometimes the light changes."""
        s = self.settings
        with self._lock:
            if self._hand is not None:
                hand, left = self._hand
                moved = SimHand(x_mm=hand.x_mm + self._rng.uniform(-15, 15), y_mm=hand.y_mm, angle_deg=hand.angle_deg)
                self._hand = (moved, left - 1) if left > 1 else None
            elif self._centres and self._rng.random() < s.hand_rate:
                # The dealer reaches from his side of the table (the top): fingers towards the players.
                zone = self._rng.choice(sorted(self._centres))
                x, y = self._centres[zone]
                self._hand = (SimHand(x_mm=x, y_mm=y, angle_deg=90.0 + self._rng.uniform(-15, 15)), s.hand_ticks)
            if self._rng.random() < s.light_rate:
                self._lighting = Lighting(
                    brightness=self._rng.uniform(0.85, 1.1),
                    falloff=self._rng.uniform(0.0, 0.3),
                    falloff_angle_deg=self._rng.uniform(0.0, 360.0),
                )
            self._show()

    # ------------------------------------------------------------------ running

    def attach(self) -> None:
        """Follow the table: the scene is refreshed after every change (and now)."""
        if self._unsubscribe is None:
            self._unsubscribe = self.table.subscribe(self._changed)
        self.refresh()

    def _changed(self, view: dict[str, Any]) -> None:
        # Called under the table's lock, right after the change: the scene is never stale for
        # longer than the change takes, and never ahead of it.
        self.refresh()

    def start(self, *, period: float = 0.25) -> None:
        """:meth:`attach`, and :meth:`tick` every ``period`` seconds in a thread until :meth:`stop`.

        Raises:
            RuntimeError: already started.
        """
        if self._thread is not None:
            raise RuntimeError("the scene director is already running")
        self.attach()
        self._thread = threading.Thread(target=self._run, args=(period,), name="scene-director", daemon=True)
        self._thread.start()

    def _run(self, period: float) -> None:
        while not self._stop.wait(period):
            self.tick()

    def stop(self, *, timeout: float = 5.0) -> None:
        """Stop following the table and ticking."""
        self._stop.set()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._thread is not None:
            self._thread.join(timeout)


def _first_free(used: Any) -> int:
    taken = set(used)
    k = 0
    while k in taken:
        k += 1
    return k


def _centre(polygon_mm: Sequence[tuple[float, float]]) -> tuple[float, float]:
    xs = [p[0] for p in polygon_mm]
    ys = [p[1] for p in polygon_mm]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


class DemoCamera:
    """The demo's camera: a simulated camera over the demo layout, the director laying the table's
    cards on it, and a :class:`CameraLink` checking the deal, paced to ``fps`` frames a second.

    The link calibrates from the layout's ArUco markers in the first frame, as a real table's
    does. Recognition of a 1920x1080 frame costs tens of milliseconds, so a few frames a second
    keep the demo light; the checks' holds (:data:`DEMO_CHECKS`) are sized for that rate.
    """

    def __init__(
        self,
        *,
        table: TableService,
        layout: TableVision | None = None,
        deck: DeckProfile | None = None,
        view: TableView | None = None,
        fps: float | None = 3.0,
        checks: CheckSettings = DEMO_CHECKS,
        director: DirectorSettings | None = None,
    ) -> None:
        """Build the camera, the director and the link (calibrated); nothing runs until :meth:`start`.

        Raises:
            ConfigError: the layout cannot be read or its zones are refused.
            DeckError: the deck profile (the layout's, else the shipped one) cannot be loaded.
            CalibrationError: the layout's markers are not found in the first frame.
            CameraError: the simulated camera cannot render its first frame.
        """
        vision = layout or load_table_vision(DEMO_LAYOUT)
        if deck is None:
            deck = load_deck(Path(vision.vision.deck)) if vision.vision.deck else default_deck()
        markers = [Marker(id=m.id, x_mm=m.x_mm, y_mm=m.y_mm, size_mm=m.size_mm) for m in vision.vision.markers]
        self.camera = SimulatedCamera(
            deck=deck,
            view=view or TableView(),
            zones=[np.asarray(z.polygon_mm, dtype=np.float64) for z in vision.zones],
            markers=markers,
            seed=0 if director is None or director.seed is None else director.seed,
        )
        self.director = SceneDirector(table=table, camera=self.camera, zones=vision.zones, settings=director)
        # The link reads the deck the camera shows (a layout's configured deck is only the default).
        self.link = CameraLink.from_config(
            table=table, vision=vision, source=self.camera, deck=deck, checks=checks, max_fps=fps
        )

    def start(self) -> None:
        """Lay the table's cards and run the camera, each in its own thread."""
        self.director.start()
        self.link.start()

    def stop(self) -> None:
        """Stop the camera (after the frame in hand) and the director."""
        self.link.stop()
        self.director.stop()

    def health(self) -> LinkHealth:
        """The camera link's health (:meth:`CameraLink.health`)."""
        return self.link.health()

    def wait_until_clear(self, *, timeout: float = 10.0) -> bool:
        """Wait until the camera has seen every zone empty, as a dealer waits for a clear layout
        before the next round (the next round's cards land on the same spots: seen before the
        last ones were gone, they would pass for the same cards). False after ``timeout``
        seconds, or at once when the camera is not running."""
        deadline = time.monotonic() + timeout
        start = self.link.frames
        while True:
            health = self.link.health()
            if health.state != "running":
                return False
            if health.frames > start and not any(health.cards.values()):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
