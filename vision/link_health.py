"""The camera link's health: its frame record, the technician's snapshot and the displays' report."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from vision.tracking import TrackerUpdate

# A running camera with no frame for this long shows "stale" (longer when its frame rate is slower: see
# stale_after_for). The displays age the last frame's time themselves between reports.
STALE_AFTER = 2.0


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


def stale_after_for(max_fps: float | None) -> float:
    """Seconds without a frame after which the camera shows "stale": :data:`STALE_AFTER`, or three
    frame periods when the link is paced slower than that allows (a demo camera at 0.5 frames/s)."""
    return max(STALE_AFTER, 3.0 / max_fps) if max_fps else STALE_AFTER


def display_report(health: LinkHealth, *, stale_after: float, role: str) -> dict[str, Any]:
    """The camera's health as the displays show it: the lamp's state, the camera's ``role``, frames per
    second, when the last frame was read (UTC) and its age now, the zones watched and covered, and how
    many cards lie in each zone. Counts only: never a card's identity."""
    age = health.last_frame_age
    at = None if age is None else datetime.now(UTC) - timedelta(seconds=age)
    return {
        "state": health.lamp(stale_after=stale_after),
        "role": role,
        "fps": round(health.fps, 1),
        "last_frame_at": None if at is None else at.isoformat(timespec="milliseconds"),
        "last_frame_age_s": None if age is None else round(age, 2),
        "stale_after_s": stale_after,
        "frames": health.frames,
        "zones": len(health.zones),
        "covered": sorted(health.covered),
        "cards": {zone: health.cards.get(zone, 0) for zone in health.zones},
        "failure": health.failure,
    }


class FrameRecord:
    """The frames a link processed: how many, when (for the rate), the last one's tracker update, and
    whether the displays must hear of a frame at once (see :meth:`add`)."""

    def __init__(self, *, zones: tuple[str, ...], report_every: float) -> None:
        self.zones = zones
        self.report_every = report_every
        self.frames = 0  # frames processed
        self.last: TrackerUpdate | None = None  # the last frame's update
        self._times: deque[float] = deque(maxlen=64)  # monotonic times of the last frames
        self._shown: tuple[object, ...] | None = None  # the covered zones and counts last sent
        self._shown_at = 0.0

    def add(self, update: TrackerUpdate) -> bool:
        """Record one processed frame. True when its health is to be sent to the displays now: the
        covered zones or the card counts changed, or ``report_every`` seconds passed since the last."""
        self.frames += 1
        self.last = update
        now = time.monotonic()
        self._times.append(now)
        shown = (update.covered, tuple(sorted((z, c.total) for z, c in update.counts.items())))
        if shown != self._shown or now - self._shown_at >= self.report_every:
            self._shown, self._shown_at = shown, now
            return True
        return False

    def health(self, *, state: str, failure: str, tilts: int, started: float | None) -> LinkHealth:
        """A snapshot of the link in ``state`` (started at monotonic time ``started``, None if not);
        cheap, safe from any thread."""
        last = self.last
        times = list(self._times)
        now = time.monotonic()
        # Frames per second over the last few seconds (one frame alone gives no rate).
        recent = [t for t in times if now - t <= 5.0]
        fps = (len(recent) - 1) / (recent[-1] - recent[0]) if len(recent) > 1 and recent[-1] > recent[0] else 0.0
        return LinkHealth(
            state=state,
            frames=self.frames,
            failure=failure,
            covered=last.covered if last else frozenset(),
            cards={zone: count.total for zone, count in last.counts.items()} if last else {},
            tilts=tilts,
            fps=fps,
            last_frame_age=now - times[-1] if times else None,
            zones=self.zones,
            running_for=None if started is None else now - started,
        )
