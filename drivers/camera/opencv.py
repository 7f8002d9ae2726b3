"""OpenCV capture backends: a device index, a video file, or an RTSP/HTTP stream that reconnects."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import cv2
import numpy as np

from drivers.camera.base import ByteImage, FrameSource
from drivers.camera.errors import CameraError


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` the backends use."""

    def isOpened(self) -> bool: ...
    def read(self) -> tuple[bool, Any]: ...
    def release(self) -> None: ...


CaptureFactory = Callable[[str | int], Capture]


def _open_capture(target: str | int) -> Capture:
    capture: Capture = cv2.VideoCapture(target)
    return capture


class CaptureSource(FrameSource):
    """Frames from ``cv2.VideoCapture``: a device index, a file, or a network stream.

    A file ends (``read`` returns None); a device or stream that stops delivering raises
    CameraError, except that a stream (``reconnect=True``) is reopened first, with a doubling
    delay, up to ``max_retries`` times in a row.
    """

    def __init__(
        self,
        *,
        target: str | int,
        reconnect: bool = False,
        finite: bool = False,
        max_retries: int = 5,
        retry_delay_s: float = 0.5,
        capture_factory: CaptureFactory = _open_capture,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Open the capture.

        Raises:
            CameraError: it cannot be opened (after the retries, for a stream).
        """
        super().__init__(name=str(target))
        self._target = target
        self._reconnect = reconnect
        self._finite = finite
        self._max_retries = max_retries
        self._delay = retry_delay_s
        self._factory = capture_factory
        self._sleep = sleep
        self.reconnections = 0
        self._capture: Capture | None = None
        self._open(initial=True)

    def _open(self, *, initial: bool) -> None:
        attempts = self._max_retries + 1 if self._reconnect else 1
        delay = self._delay
        for attempt in range(attempts):
            if attempt:
                self._sleep(delay)
                delay = min(delay * 2, 30.0)
            capture = self._factory(self._target)
            if capture.isOpened():
                self._capture = capture
                if not initial:
                    self.reconnections += 1
                return
            capture.release()
        raise CameraError(f"{self.name}: cannot open the camera or stream")

    def _grab(self) -> ByteImage | None:
        for _ in range(2):
            if self._capture is not None:
                ok, image = self._capture.read()
                if ok and isinstance(image, np.ndarray) and image.size:
                    if image.ndim == 2:
                        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
                    return np.ascontiguousarray(image[:, :, :3], dtype=np.uint8)
            if self._finite:
                return None
            if not self._reconnect:
                raise CameraError(f"{self.name}: the camera stopped delivering frames")
            # A dropped stream: reopen it (raises CameraError once the retries are spent).
            if self._capture is not None:
                self._capture.release()
                self._capture = None
            self._open(initial=False)
        raise CameraError(f"{self.name}: the stream reopened but delivers no frames")

    def _release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
