"""The camera beside the shoe: frames → recognition → tracking → checks → tilts on the live table.

One :class:`CameraLink` per table. It runs in its own thread at the camera's frame rate
(:meth:`CameraLink.start`) or one frame at a time (:meth:`CameraLink.step`, for tests and tools).
For every frame the round's expectations are taken *after* the frame was read: every card in the
frame left the shoe before, so a card the camera sees is never ahead of the round.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.engine import Deal
from controller.errors import ControllerError
from controller.journal import Entry, JournalError
from controller.table import CAMERA, Actor, TableService
from controller.view import visible_cards
from drivers.camera import open_frame_source
from drivers.camera.base import FrameSource
from drivers.camera.errors import CameraError
from drivers.camera.sim import SimulatedCamera
from vision.calibration import Calibration, ZoneMap, calibrate_markers, calibrate_points
from vision.camera_only import CameraDealer, CameraOnlySettings
from vision.checks import Checker, CheckSettings, Expectations, Finding, ZoneExpectation, ZonePlace, zone_places
from vision.config import TableVision, ZoneConfig
from vision.deck import DeckProfile, default_deck, load_deck
from vision.errors import ConfigError
from vision.lens import Lens
from vision.link_health import FrameRecord, LinkHealth, display_report, stale_after_for
from vision.link_loop import FrameLoop
from vision.recognize import Recognizer, RecognizerSettings
from vision.scenes import view_calibration
from vision.tracking import Tracker, TrackerSettings, TrackerUpdate

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class LinkSettings:
    """How the link runs: tracking and check settings, and a frame-rate cap.

    ``max_fps`` paces sources that do not pace themselves (the simulated camera, a folder); a
    real camera's own rate is slower and wins. None: as fast as frames come.
    """

    tracker: TrackerSettings = field(default_factory=TrackerSettings)
    checks: CheckSettings = field(default_factory=CheckSettings)
    recognizer: RecognizerSettings | None = None
    max_fps: float | None = 30.0
    # A table with no reading shoe: the camera deals and reveals the cards (vision.camera_only).
    camera_only: CameraOnlySettings | None = None
    # Seconds between the health reports sent to the displays while frames come (a change of the
    # covered zones or of the card counts is sent at once): often enough that the last frame's time
    # they show is never near STALE_AFTER (vision.link_health) old while the camera runs.
    report_every: float = 1.0
    # Frames in a row that recognition may fail on (a fault in the pipeline, not the camera) before
    # the link counts the camera as failed: one odd frame is skipped, a pipeline that fails on every
    # frame must not leave the table believing its misdeal checks still run.
    max_failed_frames: int = 30

    def __post_init__(self) -> None:
        if self.max_failed_frames < 1:
            raise ValueError("max_failed_frames must be at least 1")


@dataclass(frozen=True, slots=True)
class LinkStep:
    """What one frame did: the tracker's update, the findings and every journal entry it wrote
    (tilts; on a camera-only table also the cards it dealt and revealed)."""

    update: TrackerUpdate
    findings: tuple[Finding, ...]
    entries: tuple[Entry, ...]


def expectations(table: TableService, places: Mapping[str, ZonePlace]) -> Expectations:
    """The round as the camera checks it, read consistently under the table's lock."""
    return table.inspect(lambda t: _expectations(t, places))


def _expectations(table: TableService, places: Mapping[str, ZonePlace]) -> Expectations:
    rnd = table.round
    if rnd is None:
        return Expectations(round=None, paused=bool(table.tilts))
    state = rnd.state
    step = rnd.expected()
    shown = visible_cards(rnd)
    dealing = isinstance(step, Deal)
    zones: dict[str, ZoneExpectation] = {}
    for zone, place in places.items():
        if place.place == "box":
            box = state.boxes.get(place.box)
            if box is None:
                zones[zone] = ZoneExpectation(place=place, playing=False)
                continue
            codes = tuple(c.code for c in box.cards)
            # A folded box's cards are mucked: however many are left is the dealer's business.
            due = not dealing and not box.folded
        elif place.place == "dealer":
            codes = tuple(c.code for c in state.dealer)
            due = not dealing
        else:
            codes = tuple(c.code for c in state.board_cards())
            due = not dealing
        zones[zone] = ZoneExpectation(
            place=place, playing=True, cards=codes, face_up=frozenset(shown.intersection(codes)), count_due=due
        )
    return Expectations(round=table.round_no, zones=zones, showdown=rnd.at_showdown(), paused=bool(table.tilts))


def _calibrate(source: FrameSource, vision: TableVision) -> Calibration:
    s = vision.vision
    if s.points:
        if s.lens_k1 is None:
            return calibrate_points(s.points)
        frame = source.read()  # the lens bends about the frame's centre: its size is needed
        if frame is None:
            raise CameraError(f"{source.name}: no frame to measure the picture's size on")
        height, width = frame.image.shape[:2]
        return calibrate_points(s.points, lens=Lens(k1=s.lens_k1, width=width, height=height))
    if s.markers:
        frame = source.read()
        if frame is None:
            raise CameraError(f"{source.name}: no frame to find the calibration markers in")
        return calibrate_markers(frame.image, s.markers, lens_k1=s.lens_k1)
    if isinstance(source, SimulatedCamera):
        return view_calibration(source.renderer.view)
    raise ConfigError("vision: give calibration markers or points (vision.markers or vision.points)")


class CameraLink:
    """Runs one camera against one live table and reports what the checks find as tilts.

    Each finding is reported once per round, as the actor ``camera:camera``. Its thread is a
    :class:`~vision.link_loop.FrameLoop`; its health, a :class:`~vision.link_health.FrameRecord`.
    """

    def __init__(
        self,
        *,
        table: TableService,
        source: FrameSource,
        deck: DeckProfile,
        calibration: Calibration,
        zones: Sequence[ZoneConfig],
        settings: LinkSettings | None = None,
        actor: Actor = CAMERA,
    ) -> None:
        """Set the pipeline up; nothing is read until :meth:`step` or :meth:`start`.

        Raises:
            ConfigError: a box zone without a number, or two zones for one place.
            ValueError: tracker or check settings that contradict themselves.
        """
        self.settings = settings or LinkSettings()
        self.table = table
        self.source = source
        self.actor = actor
        self.places = zone_places(zones)
        recognizer = (self.settings.recognizer or RecognizerSettings()).sized_by(calibration, zones)
        # The calibrated path, as the benchmark measures it: the frame is rectified to a top-down
        # view of the layout, where every card is a rectangle of one known size.
        self.recognizer = Recognizer(deck=deck, settings=recognizer, calibration=calibration)
        self.tracker = Tracker(zones=ZoneMap.build(zones, calibration), settings=self.settings.tracker)
        self.checker = Checker(settings=self.settings.checks)
        self.dealer: CameraDealer | None = None
        if self.settings.camera_only is not None:
            self.dealer = CameraDealer(table=table, places=self.places, settings=self.settings.camera_only, actor=actor)
        self.zones = tuple(z.name for z in zones)
        self.record = FrameRecord(zones=self.zones, report_every=self.settings.report_every)
        self.reported: list[Entry] = []
        self._loop = FrameLoop(
            step=lambda: self.step() is None,
            source=source,
            max_fps=self.settings.max_fps,
            max_failed_frames=self.settings.max_failed_frames,
            on_lost=self._lost,
            on_changed=self._changed,
        )
        self.failed = self._loop.failed
        self._lock = threading.Lock()  # one frame at a time, whether stepped or threaded
        # The displays show this camera's health beside the shoe's (the one place a table's camera is
        # made known to them, whoever runs the link: `run`, the demo, a test).
        table.attach_device("camera", self.report)

    @classmethod
    def from_config(
        cls,
        *,
        table: TableService,
        vision: TableVision,
        source: FrameSource | None = None,
        calibration: Calibration | None = None,
        deck: DeckProfile | None = None,
        checks: CheckSettings | None = None,
        max_fps: float | None = 30.0,
        camera_only: CameraOnlySettings | None = None,
    ) -> CameraLink:
        """A link as a table configuration's ``[vision]`` and ``[[zones]]`` describe it.

        ``source`` defaults to the configured camera and ``deck`` to the configured deck profile
        (else the shipped default); ``camera_only`` makes the camera deal and
        reveal the cards (a table with no reading shoe). Calibration, unless given: the configured
        points, else the configured markers found in the source's first frame, else (simulated
        camera only) the simulated view's own geometry.

        Raises:
            CameraError: the camera cannot be opened or gives no frame to calibrate from.
            CalibrationError: the configured markers are not in the first frame.
            DeckError: the configured deck profile cannot be loaded.
            ConfigError: no zones, no way to calibrate, or zones as :meth:`__init__` refuses them.
        """
        s = vision.vision
        if not vision.zones:
            raise ConfigError("zones: the camera link needs the table's zones (boxes, dealer, board)")
        if deck is None:
            deck = load_deck(Path(s.deck)) if s.deck else default_deck()
        source = source or open_frame_source(s.camera)
        try:
            calibration = calibration or _calibrate(source, vision)
        except BaseException:
            source.close()
            raise
        settings = LinkSettings(
            tracker=TrackerSettings.from_config(s),
            checks=checks or CheckSettings(),
            recognizer=RecognizerSettings.from_config(s),
            max_fps=max_fps,
            camera_only=camera_only,
        )
        return cls(
            table=table, source=source, deck=deck, calibration=calibration, zones=vision.zones, settings=settings
        )

    @property
    def frames(self) -> int:
        """Frames processed."""
        return self.record.frames

    @property
    def last(self) -> TrackerUpdate | None:
        """The last frame's tracker update (None before the first)."""
        return self.record.last

    @property
    def failure(self) -> str:
        """Why the link failed ("" unless :attr:`failed` is set)."""
        return self._loop.failure

    def step(self) -> LinkStep | None:
        """Read, recognise and track one frame, check it against the round and report findings.

        Returns None when a finite source has ended.

        Raises:
            CameraError: the source failed for good.
            JournalError: the table could not record a tilt (nothing more can be recorded).
        """
        with self._lock:
            frame = self.source.read()
            if frame is None:
                return None
            update = self.tracker.update(self.recognizer.read(frame.image))
            entries: list[Entry] = []
            if self.dealer is not None:
                # Deal and reveal first: the checks then see this frame's cards in the round.
                dealt = self.dealer.update(update.events, covered=update.covered, counts=update.counts)
                self.reported.extend(e for e in dealt if e.kind == "tilt-raised")
                entries.extend(dealt)
            expect = expectations(self.table, self.places)
            findings = self.checker.update(expect, update.events, covered=update.covered)
            for finding in findings:
                entry = self._report(finding)
                if entry is not None:
                    entries.append(entry)
            if self.record.add(update):
                self.table.device_changed()
            return LinkStep(update=update, findings=tuple(findings), entries=tuple(entries))

    def _report(self, finding: Finding) -> Entry | None:
        kind = finding.tilt
        try:
            entry = self.table.report(kind, actor=self.actor, detail=f"camera: {finding.detail}")
        except JournalError:
            raise
        except ControllerError as exc:
            # The table refused (e.g. the round ended meanwhile): the finding is stale, not fatal.
            log.warning("camera finding %s not reported: %s", finding.kind, exc)
            return None
        self.reported.append(entry)
        log.info("camera raised %s: %s", kind, finding.detail)
        return entry

    def health(self) -> LinkHealth:
        """A snapshot for the console and the displays; cheap, safe from any thread."""
        return self.record.health(
            state=self._loop.state, failure=self.failure, tilts=len(self.reported), started=self._loop.started
        )

    @property
    def stale_after(self) -> float:
        """Seconds without a frame after which the camera shows "stale" (:func:`vision.link_health.stale_after_for`)."""
        return stale_after_for(self.settings.max_fps)

    def report(self) -> dict[str, Any]:
        """The camera's health as the displays show it (TableService.attach_device): the lamp's state,
        frames per second, when the last frame was read (UTC) and its age now, the zones watched and
        covered, and how many cards lie in each zone. Counts only: never a card's identity."""
        role = "checks" if self.dealer is None else "deals"
        return display_report(self.health(), stale_after=self.stale_after, role=role)

    def _changed(self) -> None:
        """Tell the displays the camera's state changed (started, stopped, failed)."""
        try:
            self.table.device_changed()
        except ControllerError as exc:  # the table's journal closed first: nothing left to show it on
            log.warning("camera state not shown: %s", exc)

    def _lost(self, exc: CameraError) -> None:
        """Record the camera's failure for good as a tilt: the misdeal checks are off."""
        try:
            self.table.on_camera_link(False, detail=str(exc))
        except ControllerError as report_exc:
            log.critical("the camera's failure could not be recorded: %s", report_exc)

    def start(self) -> None:
        """Run :meth:`step` in a thread until :meth:`stop`, the source's end or a failure
        (then :attr:`failed` is set and :attr:`failure` says why).

        Raises:
            RuntimeError: already started.
        """
        self._loop.start()

    def stop(self, *, timeout: float = 2.0) -> None:
        """Stop the thread (after the frame in hand) and close the source.

        A read that has not returned within ``timeout`` seconds (a network camera that hangs) is not
        waited for: the source is then closed by the thread when the read returns, never under it (a
        capture released while another thread reads it is undefined in OpenCV)."""
        self._loop.stop(timeout=timeout)
