"""The camera beside the shoe: frames → recognition → tracking → checks → tilts on the live table.

One :class:`CameraLink` per table. It runs in its own thread at the camera's frame rate
(:meth:`CameraLink.start`) or one frame at a time (:meth:`CameraLink.step`, for tests and tools).
For every frame the round's expectations are taken *after* the frame was read: every card in the
frame left the shoe before, so a card the camera sees is never ahead of the round.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
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
from vision.recognize import Recognizer, RecognizerSettings
from vision.scenes import view_calibration
from vision.tracking import Tracker, TrackerSettings, TrackerUpdate

log = logging.getLogger(__name__)

# A running camera with no frame for this long shows "stale" (longer when its frame rate is slower: see
# CameraLink.stale_after). The displays age the last frame's time themselves between reports.
STALE_AFTER = 2.0


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
    # they show is never near STALE_AFTER old while the camera runs.
    report_every: float = 1.0
    # Frames in a row that recognition may fail on (a fault in the pipeline, not the camera) before
    # the link counts the camera as failed: one odd frame is skipped, a pipeline that fails on every
    # frame must not leave the table believing its misdeal checks still run.
    max_failed_frames: int = 30

    def __post_init__(self) -> None:
        if self.max_failed_frames < 1:
            raise ValueError("max_failed_frames must be at least 1")


@dataclass(frozen=True, slots=True)
class LinkHealth:
    """What a technician checks: is the camera running, how far it got, what it sees now.

    ``state``: ``idle`` (not started), ``running``, ``stopped`` or ``failed`` (``failure`` says
    why); ``covered``: zones the last frame skipped (a hand, or a camera that is blocked);
    ``cards``: committed cards per zone after the last frame; ``fps``: frames processed per
    second over the last few seconds; ``last_frame_age``: seconds since the last frame was
    processed (None before the first); ``zones``: every zone the camera watches; ``running_for``:
    seconds since :meth:`CameraLink.start` (None before).
    """

    state: str
    frames: int
    failure: str = ""
    covered: frozenset[str] = frozenset()
    cards: Mapping[str, int] = field(default_factory=dict)
    tilts: int = 0
    fps: float = 0.0
    last_frame_age: float | None = None
    zones: tuple[str, ...] = ()
    running_for: float | None = None

    def lamp(self, *, stale_after: float = STALE_AFTER) -> str:
        """The state a display's camera lamp shows: ``starting`` (not started, or no frame yet),
        ``ok``, ``stale`` (running, but no frame for more than ``stale_after`` seconds), ``stopped``
        (the source ended or the link was stopped) or ``lost`` (failed for good)."""
        if self.state == "failed":
            return "lost"
        if self.state == "stopped":
            return "stopped"
        if self.state != "running":
            return "starting"
        age = self.last_frame_age if self.last_frame_age is not None else self.running_for
        if age is not None and age > stale_after:
            return "stale"
        return "ok" if self.last_frame_age is not None else "starting"

    def as_dict(self) -> dict[str, object]:
        """Plain JSON-ready values (zones sorted), for a display or a technician's console."""
        return {
            "state": self.state,
            "frames": self.frames,
            "fps": round(self.fps, 1),
            "last_frame_age_s": None if self.last_frame_age is None else round(self.last_frame_age, 2),
            "zones_covered": sorted(self.covered),
            "cards_per_zone": dict(sorted(self.cards.items())),
            "tilts": self.tilts,
            "failure": self.failure,
        }


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

    Each finding is reported once per round, as the actor ``camera:camera``.
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
        self.frames = 0  # frames processed
        self.zones = tuple(z.name for z in zones)
        self.last: TrackerUpdate | None = None  # the last frame's update, for health()
        self._frame_times: deque[float] = deque(maxlen=64)  # monotonic times of the last frames
        self.reported: list[Entry] = []
        self.failure = ""
        self.failed = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started: float | None = None  # monotonic time of start()
        self._lock = threading.Lock()  # one frame at a time, whether stepped or threaded
        # Who closes the source: stop(), or the thread itself when stop() found it still in a read.
        self._closing = threading.Lock()
        self._ran_out = False  # the thread has left its loop (under _closing)
        self._close_when_out = False  # stop() left the closing to the thread (under _closing)
        self._reported: tuple[object, ...] | None = None  # the covered zones and counts last sent
        self._reported_at = 0.0
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
            self.frames += 1
            self.last = update
            now = time.monotonic()
            self._frame_times.append(now)
            shown = (update.covered, tuple(sorted((z, c.total) for z, c in update.counts.items())))
            if shown != self._reported or now - self._reported_at >= self.settings.report_every:
                self._reported, self._reported_at = shown, now
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
        if self.failed.is_set():
            state = "failed"
        elif self._thread is None:
            state = "idle"
        else:  # (stopped once asked to, even while a hung read keeps its thread a little longer)
            state = "running" if self._thread.is_alive() and not self._stop.is_set() else "stopped"
        last = self.last
        times = list(self._frame_times)
        now = time.monotonic()
        # Frames per second over the last few seconds (one frame alone gives no rate).
        recent = [t for t in times if now - t <= 5.0]
        fps = (len(recent) - 1) / (recent[-1] - recent[0]) if len(recent) > 1 and recent[-1] > recent[0] else 0.0
        return LinkHealth(
            state=state,
            frames=self.frames,
            failure=self.failure,
            covered=last.covered if last else frozenset(),
            cards={zone: count.total for zone, count in last.counts.items()} if last else {},
            tilts=len(self.reported),
            fps=fps,
            last_frame_age=now - times[-1] if times else None,
            zones=self.zones,
            running_for=None if self._started is None else now - self._started,
        )

    @property
    def stale_after(self) -> float:
        """Seconds without a frame after which the camera shows "stale": :data:`STALE_AFTER`, or three
        frame periods when the link is paced slower than that allows (a demo camera at 0.5 frames/s)."""
        fps = self.settings.max_fps
        return max(STALE_AFTER, 3.0 / fps) if fps else STALE_AFTER

    def report(self) -> dict[str, Any]:
        """The camera's health as the displays show it (TableService.attach_device): the lamp's state,
        frames per second, when the last frame was read (UTC) and its age now, the zones watched and
        covered, and how many cards lie in each zone. Counts only: never a card's identity."""
        health = self.health()
        age = health.last_frame_age
        at = None if age is None else datetime.now(UTC) - timedelta(seconds=age)
        return {
            "state": health.lamp(stale_after=self.stale_after),
            "role": "checks" if self.dealer is None else "deals",
            "fps": round(health.fps, 1),
            "last_frame_at": None if at is None else at.isoformat(timespec="milliseconds"),
            "last_frame_age_s": None if age is None else round(age, 2),
            "stale_after_s": self.stale_after,
            "frames": health.frames,
            "zones": len(health.zones),
            "covered": sorted(health.covered),
            "cards": {zone: health.cards.get(zone, 0) for zone in health.zones},
            "failure": health.failure,
        }

    def _changed(self) -> None:
        """Tell the displays the camera's state changed (started, stopped, failed)."""
        try:
            self.table.device_changed()
        except ControllerError as exc:  # the table's journal closed first: nothing left to show it on
            log.warning("camera state not shown: %s", exc)

    def start(self) -> None:
        """Run :meth:`step` in a thread until :meth:`stop`, the source's end or a failure
        (then :attr:`failed` is set and :attr:`failure` says why).

        Raises:
            RuntimeError: already started.
        """
        if self._thread is not None:
            raise RuntimeError("the camera link is already running")
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="camera-link", daemon=True)
        self._thread.start()
        self._changed()

    def stop(self, *, timeout: float = 2.0) -> None:
        """Stop the thread (after the frame in hand) and close the source.

        A read that has not returned within ``timeout`` seconds (a network camera that hangs) is not
        waited for: the source is then closed by the thread when the read returns, never under it (a
        capture released while another thread reads it is undefined in OpenCV)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._closing:
            hung = self._thread is not None and not self._ran_out
            self._close_when_out = hung
        if hung:
            log.warning("the camera's read did not return within %.1f s: its source closes when it does", timeout)
        else:
            self.source.close()
        self._changed()

    def _step_guarded(self, failed_in_row: int) -> tuple[bool, int]:
        """One :meth:`step`; a fault of the pipeline itself (any error that is not the camera's or
        the journal's) skips the frame, logged with its traceback for the technician.

        Returns (the source has ended, frames failed in a row now).

        Raises:
            CameraError: the source failed for good, or recognition failed on
                ``max_failed_frames`` frames in a row.
            JournalError: the table could not record a tilt.
        """
        try:
            return self.step() is None, 0
        except (CameraError, JournalError):
            raise
        except Exception as exc:
            failed_in_row += 1
            log.exception("the camera link could not process a frame (%d in a row)", failed_in_row)
            if failed_in_row >= self.settings.max_failed_frames:
                # Only the error's type: its text may name a card, and a tilt is shown to everyone.
                raise CameraError(
                    f"card recognition failed on {failed_in_row} frames in a row ({type(exc).__name__}); "
                    "the table's log has the details"
                ) from exc
            return False, failed_in_row

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            with self._closing:
                self._ran_out = True
                close = self._close_when_out
            if close:
                self.source.close()

    def _loop(self) -> None:
        period = 1.0 / self.settings.max_fps if self.settings.max_fps else 0.0
        next_at = time.monotonic()
        failed_in_row = 0
        try:
            while not self._stop.is_set():
                ended, failed_in_row = self._step_guarded(failed_in_row)
                if ended:
                    break
                next_at = max(next_at + period, time.monotonic())
                self._stop.wait(max(0.0, next_at - time.monotonic()))
        except (CameraError, JournalError) as exc:
            self.failure = str(exc)
            log.critical("the camera link stops: %s", exc)
            if isinstance(exc, CameraError):
                # The floor must know: the misdeal checks are off (and a table without a reading
                # shoe has nothing left to deal with). A journal that failed records nothing more.
                # (Before `failed` is set: whoever waits on it finds the tilt already there.)
                try:
                    self.table.on_camera_link(False, detail=str(exc))
                except ControllerError as report_exc:
                    log.critical("the camera's failure could not be recorded: %s", report_exc)
            self.failed.set()
            self._changed()
