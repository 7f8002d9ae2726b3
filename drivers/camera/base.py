"""The frame source base class: every camera backend fills one hook, ``_grab``."""

from __future__ import annotations

import abc
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import numpy.typing as npt

from drivers.camera.errors import CameraError

# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class Frame:
    """One BGR frame, numbered from 0 by its source, stamped with a monotonic clock in seconds."""

    image: ByteImage = field(repr=False)
    index: int
    timestamp: float


class FrameSource(abc.ABC):
    """A camera or anything that stands in for one; iterate it, or call :meth:`read`.

    Backends implement :meth:`_grab` (the next image, or None at the end of a finite stream)
    and may override :meth:`_release`.
    """

    def __init__(self, *, name: str) -> None:
        self.name = name
        self._count = 0
        self._closed = False

    @abc.abstractmethod
    def _grab(self) -> ByteImage | None:
        """The next BGR image; None when a finite stream is over. Raise CameraError on failure."""

    def _release(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Free the device or stream; called once by :meth:`close`."""

    def read(self) -> Frame | None:
        """The next frame, or None when the stream has ended.

        Raises:
            CameraError: the source is closed or has failed for good.
        """
        if self._closed:
            raise CameraError(f"{self.name}: frame source is closed")
        image = self._grab()
        if image is None:
            return None
        frame = Frame(image=image, index=self._count, timestamp=time.monotonic())
        self._count += 1
        return frame

    def close(self) -> None:
        """Release the source; further reads raise CameraError."""
        if not self._closed:
            self._closed = True
            self._release()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
