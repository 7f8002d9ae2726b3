"""Misdeals end to end: the simulated shoe in its own process feeds the live table, the test deals
the cards onto the simulated camera's table as a dealer would, and the camera link raises tilts.

The link is stepped frame by frame, so what it has seen is exact; one test runs it in its thread.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.cards import DECK
from controller.config import build_config
from controller.engine import Action, BoxBet, CardDealt, Complete, Deal, Decide, Slot
from controller.live import LiveConfig, LiveTable
from controller.table import Actor
from drivers.camera.base import ByteImage, FrameSource
from drivers.camera.sim import Scene, SimCard, SimulatedCamera, TableView, to_px
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess
from tests.vision.camera_kit import Gate
from tests.waiting import wait_for
from vision.calibration import Calibration
from vision.checks import CheckSettings
from vision.config import PointConfig, TableVision, VisionSettings, ZoneConfig
from vision.deck import DeckProfile
from vision.errors import ConfigError
from vision.link import CameraLink, LinkSettings
from vision.tracking import CardTurnedUp

pytestmark = pytest.mark.hil
DEALER = Actor("dana", "dealer")
VIEW = TableView(width_px=1280, height_px=720, table_w_mm=700, table_h_mm=394)


def rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


BOX_LEFT = {1: 20.0, 2: 250.0, 3: 480.0}
ZONES = [
    ZoneConfig(name="dealer", kind="dealer", polygon_mm=rect(200, 10, 500, 120)),
    ZoneConfig(name="board", kind="board", polygon_mm=rect(150, 128, 550, 232)),
    *(ZoneConfig(name=f"box{n}", polygon_mm=rect(x, 260, x + 200, 390)) for n, x in BOX_LEFT.items()),
]
# Short holds, so a scenario needs few frames; the defaults are sized for 30 frames a second.
CHECKS = CheckSettings(confirm_frames=2, settle_frames=4)


def spot(slot: Slot) -> tuple[float, float]:
    """Where the dealer puts the card for a slot, in table millimetres."""
    if slot.target == "box":
        return BOX_LEFT[slot.box] + 50 + 70 * slot.index, 325
    if slot.target == "dealer":
        return 300 + 70 * slot.index, 65
    return 190 + 70 * slot.index, 180


class Rig:
    """A simulated shoe process, a live casino hold'em table on it, and a camera over the table."""

    def __init__(self, tmp: Path, deck: DeckProfile) -> None:
        self.sim = SimulatedShoeProcess(config=SimConfig(seed=5, shoe_id="CAM-1"))
        self.sim.start()
        config = build_config({"game": "casino-holdem"})
        self.live = LiveTable(config=LiveConfig(data=tmp, shoe=self.sim.device_path, table=config))
        self.live.start()
        wait_for(self.live.link_up.is_set, "the shoe link")
        self.table = self.live.table
        self.camera = SimulatedCamera(deck=deck, view=VIEW, seed=1)
        self.link = CameraLink(
            table=self.table,
            source=self.camera,
            deck=deck,
            calibration=Calibration(homography=VIEW.homography(), rms_px=0.0),
            zones=ZONES,
            settings=LinkSettings(checks=CHECKS, max_fps=None),
        )
        self.cards: list[SimCard] = []

    def close(self) -> None:
        self.link.stop()
        self.live.stop()
        self.sim.stop()

    def open_round(self) -> None:
        self.sim.command("shuffle")
        self.table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=20)], actor=DEALER)

    def draw(self) -> CardDealt:
        """Draw the next card from the shoe; return where the round put it."""
        before = self.table.last_counter or 0  # a draw moves the counter (a new-deck entry does not)
        self.sim.draw()
        wait_for(lambda: (self.table.last_counter or 0) > before, "the card to reach the table")
        assert self.table.round is not None and not self.table.tilts, self.table.expected()
        event = self.table.round.events[-1]
        assert isinstance(event, CardDealt)
        return event

    def put(self, code: str, slot: Slot, *, face_up: bool | None = None) -> None:
        """The dealer lays a card down for ``slot`` (face as the slot says unless told)."""
        x, y = spot(slot)
        up = slot.face_up if face_up is None else face_up
        self.cards.append(SimCard(code=code, x_mm=x, y_mm=y, angle_deg=2.0 * (slot.index % 3 - 1), face_up=up))
        self.camera.scene = Scene(cards=tuple(self.cards))

    def turn_up(self, *, where: Callable[[SimCard], bool]) -> None:
        self.cards = [SimCard(c.code, c.x_mm, c.y_mm, c.angle_deg, face_up=True) if where(c) else c for c in self.cards]
        self.camera.scene = Scene(cards=tuple(self.cards))

    def deal(self, *, until: Callable[[], bool] | None = None) -> None:
        """Draw and lay down every card the round expects now, each where it belongs."""
        while self.table.round is not None and isinstance(self.table.round.expected(), Deal):
            if until is not None and until():
                return
            event = self.draw()
            self.put(event.card.code, event.slot)

    def frames(self, count: int) -> None:
        for _ in range(count):
            assert self.link.step() is not None

    def frames_until_tilt(self, limit: int = 30) -> str:
        """Step frames until a tilt is open (at most ``limit``); the tilt's kind."""
        for _ in range(limit):
            self.link.step()
            if self.table.tilts:
                (tilt,) = self.table.tilts.values()
                return tilt.kind
        raise AssertionError(f"no tilt after {limit} frames")


def next_slot(rig: Rig) -> Slot:
    assert rig.table.round is not None
    step = rig.table.round.expected()
    assert isinstance(step, Deal)
    return step.slot


@pytest.fixture
def rig(tmp_path: Path, kennard: DeckProfile) -> Iterator[Rig]:
    r = Rig(tmp_path, kennard)
    yield r
    r.close()


def test_a_correct_round_raises_nothing_through_the_showdown(rig: Rig) -> None:
    rig.open_round()
    rig.deal()
    assert rig.table.round is not None and isinstance(rig.table.round.expected(), Decide)
    rig.frames(CHECKS.settle_frames + 6)
    rig.table.act(Action(1, "call"), actor=DEALER)
    rig.table.act(Action(3, "call"), actor=DEALER)
    rig.deal()
    assert isinstance(rig.table.round.expected(), Complete)
    rig.frames(5)
    # The showdown: the dealer turns his cards and the boxes' cards; every read is the shoe's card.
    rig.turn_up(where=lambda c: True)
    rig.frames(CHECKS.settle_frames + 6)
    assert rig.table.tilts == {} and rig.link.reported == []
    counts = rig.link.tracker.counts()
    assert {z: counts[z].face_up for z in ("dealer", "board", "box1", "box2", "box3")} == {
        "dealer": 2,
        "board": 5,
        "box1": 2,
        "box2": 0,
        "box3": 2,
    }
    rig.table.confirm_settlement(actor=DEALER)


def test_a_card_dealt_to_a_box_that_is_not_playing(rig: Rig) -> None:
    rig.open_round()
    first = rig.draw()
    assert first.slot.box == 1
    rig.put(first.card.code, Slot("box", 0, box=2))  # box 1's card, laid in the empty box 2
    assert rig.frames_until_tilt() == "deal-sequence"
    (entry,) = rig.link.reported
    assert entry.actor == "camera:camera" and "box 2" in entry.data["message"]


def test_a_dealer_card_flipped_face_up_early(rig: Rig) -> None:
    rig.open_round()
    rig.deal(until=lambda: rig.table.round is not None and rig.table.round.cards_dealt == 2)
    dealer = rig.draw()
    assert dealer.slot.target == "dealer" and not dealer.slot.face_up
    rig.put(dealer.card.code, dealer.slot, face_up=True)
    assert rig.frames_until_tilt() == "dealer-card-exposed"


def test_a_box_short_of_a_card_after_the_deal(rig: Rig) -> None:
    rig.open_round()
    while rig.table.round is not None and isinstance(rig.table.round.expected(), Deal):
        event = rig.draw()
        if not (event.slot.target == "box" and event.slot.box == 3 and event.slot.index == 1):
            rig.put(event.card.code, event.slot)  # box 3's second card never reaches the felt
    assert rig.frames_until_tilt() == "deal-sequence"
    (tilt,) = rig.table.tilts.values()
    assert "box 3 holds 1 card(s); the shoe dealt 2" in tilt.message


def test_a_face_up_card_that_is_not_the_shoes(rig: Rig) -> None:
    rig.open_round()
    rig.deal(until=lambda: next_slot(rig).target == "board")
    rig.frames(4)
    assert rig.table.tilts == {}
    flop = rig.draw()
    assert rig.table.round is not None
    other = next(c.code for c in DECK if c not in rig.table.round.state.seen)
    rig.put(other, flop.slot)  # the camera sees another card than the one the shoe read
    assert rig.frames_until_tilt() == "camera-mismatch"
    (tilt,) = rig.table.tilts.values()
    assert other in tilt.message


def test_the_link_runs_in_its_thread(rig: Rig) -> None:
    rig.open_round()
    first = rig.draw()
    assert rig.link.health().state == "idle"
    rig.link.start()
    rig.put(first.card.code, Slot("box", 0, box=2))
    wait_for(lambda: rig.table.tilts, "the camera's tilt", timeout=60)
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "deal-sequence"
    health = rig.link.health()
    assert health.state == "running" and health.frames >= 1 and health.tilts == 1
    assert health.cards["box2"] == 1 and health.cards["box1"] == 0
    rig.link.stop()
    assert not rig.link.failed.is_set() and rig.link.health().state == "stopped"


def test_a_camera_that_fails_shows_in_the_links_health_and_stops_play(rig: Rig) -> None:
    rig.open_round()
    rig.link.start()
    rig.camera.scene = Scene(cards=(SimCard(code="Zz", x_mm=100, y_mm=100),))  # cannot be drawn
    assert rig.link.failed.wait(60)
    health = rig.link.health()
    assert health.state == "failed" and "Zz" in health.failure
    # The floor sees it as a tilt: the misdeal checks are off until a supervisor plays on without them.
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "camera-link-lost" and "Zz" in tilt.message


class Faulty:
    """Recognition with a fault: raises on the frames ``fails`` says, like a pipeline bug would."""

    def __init__(self, real: Any, fails: Callable[[int], bool]) -> None:
        self.real, self.fails, self.calls = real, fails, 0

    def read(self, image: ByteImage) -> Any:
        self.calls += 1
        if self.fails(self.calls):
            raise IndexError("card Ah: index 7 is out of bounds")  # a message naming a card
        return self.real.read(image)


def test_a_frame_recognition_fails_on_is_skipped(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    rig.open_round()
    faulty = Faulty(rig.link.recognizer, fails=lambda n: n == 2)
    monkeypatch.setattr(rig.link, "recognizer", faulty)
    first = rig.draw()
    rig.link.start()
    rig.put(first.card.code, Slot("box", 0, box=2))  # a misdeal the checks must still find
    wait_for(lambda: rig.table.tilts, "the camera's tilt", timeout=60)
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "deal-sequence" and faulty.calls > 2
    assert not rig.link.failed.is_set()


def test_recognition_failing_on_every_frame_is_the_camera_failing(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    rig.open_round()
    monkeypatch.setattr(rig.link, "recognizer", Faulty(rig.link.recognizer, fails=lambda n: n > 1))
    rig.link.start()
    assert rig.link.failed.wait(60)
    assert "30 frames in a row (IndexError)" in rig.link.health().failure
    # The floor sees a tilt, and its message (shown to every role) does not repeat the error's text.
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "camera-link-lost" and "IndexError" in tilt.message and "Ah" not in tilt.message


def test_cards_are_sized_by_the_calibration_so_a_frame_of_fans_alone_is_read(rig: Rig) -> None:
    # No single card on the layout to measure a card by: the calibration says how big cards are.
    fan = [SimCard(code=c, x_mm=330 + 22 * k, y_mm=325, angle_deg=0.0) for k, c in enumerate(["7c", "Qd", "3s"])]
    rig.camera.scene = Scene(cards=tuple(fan))
    rig.frames(6)
    assert rig.link.last is not None and rig.link.last.counts["box2"].total == 3
    reading = rig.link.recognizer.read(rig.camera.read().image)  # type: ignore[union-attr]
    assert sorted(c.code for c in reading.cards) == ["3s", "7c", "Qd"]


def test_an_oblique_camera_is_read_as_the_benchmark_measures_it(rig: Rig, kennard: DeckProfile) -> None:
    """A camera 30 degrees off vertical with a barrel lens: the far cards look much smaller than the
    near ones. The link reads in the plane its calibration rectifies (every card one known size);
    sized by one height for the whole frame, as it once was, it left the dealer's and the board's
    cards unread. The readings' corners are image pixels, so each card lands in its zone."""
    view = TableView(width_px=1280, height_px=720, table_w_mm=700, table_h_mm=394, tilt_deg=30, distortion_k1=-0.05)
    camera = SimulatedCamera(deck=kennard, view=view, seed=1)
    link = CameraLink(
        table=rig.table,
        source=camera,
        deck=kennard,
        calibration=Calibration(homography=view.homography(), rms_px=0.0),
        zones=ZONES,
        settings=LinkSettings(checks=CHECKS, max_fps=None),
    )
    up = {"dealer": ["Qh"], "board": ["9s", "Kc", "4d"], "box1": ["2c", "Ts"], "box3": ["6d", "Jc"]}
    where = {"dealer": [(300, 65)], "board": [(190, 180), (260, 180), (330, 180)], "box1": [(70, 325), (140, 325)]}
    where["box3"] = [(530, 325), (600, 325)]
    cards = [
        SimCard(code=c, x_mm=x, y_mm=y, angle_deg=3.0 * (k % 3 - 1))
        for z in up
        for k, (c, (x, y)) in enumerate(zip(up[z], where[z], strict=True))
    ]
    cards += [
        SimCard(code="7d", x_mm=370, y_mm=65, face_up=False),
        SimCard(code="8h", x_mm=300, y_mm=325, face_up=False),
    ]
    camera.scene = Scene(cards=tuple(cards))
    read: dict[str, list[str]] = {}
    for _ in range(6):
        step = link.step()
        assert step is not None
        for event in step.update.events:
            if isinstance(event, CardTurnedUp):
                read.setdefault(event.zone, []).append(event.code)
    assert {zone: sorted(codes) for zone, codes in read.items()} == {zone: sorted(codes) for zone, codes in up.items()}
    counts = link.tracker.counts()
    assert {zone: (c.face_up, c.face_down, c.unidentified) for zone, c in counts.items()} == {
        "dealer": (1, 1, 0),
        "board": (3, 0, 0),
        "box1": (2, 0, 0),
        "box2": (0, 1, 0),
        "box3": (2, 0, 0),
    }
    link.stop()


class _Still(FrameSource):
    """A camera that is not simulated and cannot calibrate itself."""

    def _grab(self) -> ByteImage | None:
        return None


def test_a_link_from_the_table_configuration(rig: Rig) -> None:
    corners = np.array([[0.0, 0.0], [700.0, 0.0], [700.0, 394.0], [0.0, 394.0]])
    points = [
        PointConfig(x_mm=mm[0], y_mm=mm[1], u_px=px[0], v_px=px[1])
        for mm, px in zip(corners, to_px(VIEW.homography(), corners), strict=True)
    ]
    vision = TableVision(vision=VisionSettings(points=points, vote_frames=4, vote_needed=2), zones=ZONES)
    link = CameraLink.from_config(table=rig.table, vision=vision, source=rig.camera)
    assert link.tracker.settings.vote_needed == 2 and link.places == rig.link.places
    for mine, theirs in zip(link.tracker.zones.polygons_px, rig.link.tracker.zones.polygons_px, strict=True):
        assert np.allclose(mine, theirs, atol=0.01)
    # The simulated camera calibrates itself from its own geometry; another camera must be told.
    assert CameraLink.from_config(table=rig.table, vision=TableVision(zones=ZONES), source=rig.camera).places
    with pytest.raises(ConfigError, match="markers or points"):
        CameraLink.from_config(table=rig.table, vision=TableVision(zones=ZONES), source=_Still(name="still"))
    with pytest.raises(ConfigError, match="zones"):
        CameraLink.from_config(table=rig.table, vision=TableVision(), source=rig.camera)


def test_the_links_health_gives_the_frame_rate_the_last_frames_age_zones_and_cards(rig: Rig) -> None:
    before = rig.link.health()
    assert before.fps == 0.0 and before.last_frame_age is None and before.as_dict()["last_frame_age_s"] is None
    rig.camera.scene = Scene(cards=(SimCard(code="9h", x_mm=330, y_mm=325, face_up=False),))
    rig.frames(6)
    health = rig.link.health()
    assert health.fps > 0.0 and health.last_frame_age is not None and 0.0 <= health.last_frame_age < 30.0
    shown = health.as_dict()
    assert shown["frames"] == 6 and shown["cards_per_zone"]["box2"] == 1  # type: ignore[index]
    assert shown["zones_covered"] == [] and shown["state"] == "idle"
    time.sleep(0.2)
    assert rig.link.health().last_frame_age >= health.last_frame_age + 0.15  # type: ignore[operator]


def test_the_tables_snapshot_shows_the_cameras_health_with_counts_and_no_card(rig: Rig) -> None:
    views: list[dict[str, object]] = []
    unsubscribe = rig.table.subscribe(views.append)
    try:
        rig.camera.scene = Scene(cards=(SimCard(code="9h", x_mm=330, y_mm=325, face_up=False),))
        rig.frames(6)
    finally:
        unsubscribe()
    # The first frame's counts went out at once; nothing else changed after it, within a second.
    assert views, "the camera's frames reached no display"
    camera = rig.table.view()["camera"]
    assert camera["state"] == "starting"  # stepped, not started: the lamp says so
    assert camera["role"] == "checks" and camera["zones"] == 5 and camera["frames"] == 6 and camera["fps"] > 0
    assert camera["cards"] == {"dealer": 0, "board": 0, "box1": 0, "box2": 1, "box3": 0}
    assert camera["covered"] == [] and camera["last_frame_age_s"] is not None and camera["last_frame_at"]
    # The card face down under the camera is a count, never an identity, in anything a display gets.
    assert all("9h" not in json.dumps(view) for view in views)
    assert "9h" not in json.dumps(rig.table.view())
    # The shoe beside it reports its link.
    assert rig.table.view()["shoe"] == {"state": "ok"}


def camera_only_table(folder: Path, deck: DeckProfile, source: FrameSource) -> tuple[LiveTable, CameraLink]:
    """A Casino Hold'em table with no shoe, and a link from ``source`` over it at 10 frames a second."""
    live = LiveTable(config=LiveConfig(data=folder, shoe=None, table=build_config({"game": "casino-holdem"})))
    link = CameraLink(
        table=live.table,
        source=source,
        deck=deck,
        calibration=Calibration(homography=VIEW.homography(), rms_px=0.0),
        zones=ZONES,
        settings=LinkSettings(checks=CHECKS, max_fps=10.0),
    )
    return live, link


def test_a_camera_whose_frames_stop_turns_stale_and_back(tmp_path: Path, kennard: DeckProfile) -> None:
    gate = Gate(SimulatedCamera(deck=kennard, view=VIEW, seed=1))
    live, link = camera_only_table(tmp_path, kennard, gate)
    views: list[dict[str, Any]] = []
    unsubscribe = live.table.subscribe(views.append)
    try:
        assert live.table.view()["shoe"] is None  # no shoe on this table: no shoe lamp
        link.start()
        wait_for(lambda: live.table.view()["camera"]["state"] == "ok", "frames from the camera", timeout=60)
        gate.open.clear()
        assert gate.waiting.wait(30)
        # No frame for longer than the stale limit: the lamp turns stale, the age keeps growing.
        wait_for(lambda: live.table.view()["camera"]["state"] == "stale", "the lamp to turn stale", timeout=30)
        stale = live.table.view()["camera"]
        assert stale["last_frame_age_s"] >= stale["stale_after_s"] == 2.0  # (rounded to 0.01 s)
        gate.open.set()
        wait_for(lambda: live.table.view()["camera"]["state"] == "ok", "frames again", timeout=60)
        # The displays were sent the camera's reports while it ran (at least once a second).
        assert sum(1 for v in views if v["camera"] and v["camera"]["state"] == "ok") >= 2
    finally:
        unsubscribe()
        link.stop()
        # (The thread ends after the frame in hand, which a busy machine may still be reading.)
        wait_for(lambda: live.table.view()["camera"]["state"] == "stopped", "the camera to stop", timeout=60)
        live.stop()


class _Hanging(FrameSource):
    """The simulated camera until ``hang`` is set: then a read blocks until ``give`` (a network
    camera whose stream stalls); notes whether it was closed while a read was in progress."""

    def __init__(self, camera: SimulatedCamera) -> None:
        super().__init__(name="sim:// (hanging)")
        self.camera = camera
        self.hang, self.give, self.in_read = threading.Event(), threading.Event(), threading.Event()
        self.closed_in_read = False
        self.released = threading.Event()

    def _grab(self) -> ByteImage | None:
        if self.hang.is_set():
            self.in_read.set()
            self.give.wait(60)
            self.in_read.clear()
        frame = self.camera.read()
        return None if frame is None else frame.image

    def _release(self) -> None:
        self.closed_in_read = self.in_read.is_set()
        self.released.set()


def test_a_read_that_hangs_is_not_waited_for_and_its_source_is_not_closed_under_it(
    tmp_path: Path, kennard: DeckProfile
) -> None:
    source = _Hanging(SimulatedCamera(deck=kennard, view=VIEW, seed=1))
    live, link = camera_only_table(tmp_path, kennard, source)
    try:
        link.start()
        wait_for(lambda: link.frames >= 1, "a first frame", timeout=60)
        source.hang.set()
        assert source.in_read.wait(30)
        link.stop(timeout=0.2)
        # Stopped as far as the table can tell, the read still in hand: the source is left open under it.
        assert link.health().state == "stopped" and not source.released.is_set()
        source.give.set()
        assert source.released.wait(30)  # closed by the thread once its read returned
        assert not source.closed_in_read and not link.failed.is_set()
    finally:
        source.give.set()
        live.stop()
