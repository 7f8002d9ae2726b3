"""The camera link's thread: a paced frame loop that skips faulty frames and closes its source safely."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from controller.journal import JournalError
from drivers.camera.base import FrameSource
from drivers.camera.errors import CameraError

# The table's log names the whole link "vision.link", its thread included (one name to filter on).
log = logging.getLogger("vision.link")


class FrameLoop:
    """Runs one step per frame in its own thread until :meth:`stop`, the source's end or a failure
    (then :attr:`failed` is set and :attr:`failure` says why), and closes the source when it stops."""

    def __init__(
        self,
        *,
        step: Callable[[], bool],
        source: FrameSource,
        max_fps: float | None,
        max_failed_frames: int,
        on_lost: Callable[[CameraError], None],
        on_changed: Callable[[], None],
    ) -> None:
        """``step`` processes one frame and says whether the source has ended; ``on_lost`` reports a
        camera that failed for good (before :attr:`failed` is set); ``on_changed`` tells the displays
        the state changed (started, stopped, failed)."""
        self._step = step
        self.source = source
        self.max_fps = max_fps
        self.max_failed_frames = max_failed_frames
        self._on_lost = on_lost
        self._on_changed = on_changed
        self.failure = ""
        self.failed = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started: float | None = None  # monotonic time of start()
        # Who closes the source: stop(), or the thread itself when stop() found it still in a read.
        self._closing = threading.Lock()
        self._ran_out = False  # the thread has left its loop (under _closing)
        self._close_when_out = False  # stop() left the closing to the thread (under _closing)

    @property
    def state(self) -> str:
        """``idle`` (not started), ``running``, ``stopped`` or ``failed``."""
        if self.failed.is_set():
            return "failed"
        if self._thread is None:
            return "idle"
        # (stopped once asked to, even while a hung read keeps its thread a little longer)
        return "running" if self._thread.is_alive() and not self._stop.is_set() else "stopped"

    def start(self) -> None:
        """Start the thread.

        Raises:
            RuntimeError: already started.
        """
        if self._thread is not None:
            raise RuntimeError("the camera link is already running")
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="camera-link", daemon=True)
        self._thread.start()
        self._on_changed()

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
        self._on_changed()

    def _step_guarded(self, failed_in_row: int) -> tuple[bool, int]:
        """One step; a fault of the pipeline itself (any error that is not the camera's or the
        journal's) skips the frame, logged with its traceback for the technician.

        Returns (the source has ended, frames failed in a row now).

        Raises:
            CameraError: the source failed for good, or recognition failed on
                ``max_failed_frames`` frames in a row.
            JournalError: the table could not record a tilt.
        """
        try:
            return self._step(), 0
        except (CameraError, JournalError):
            raise
        except Exception as exc:
            failed_in_row += 1
            log.exception("the camera link could not process a frame (%d in a row)", failed_in_row)
            if failed_in_row >= self.max_failed_frames:
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
        period = 1.0 / self.max_fps if self.max_fps else 0.0
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
                self._on_lost(exc)
            self.failed.set()
            self._on_changed()
