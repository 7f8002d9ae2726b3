"""A court picture's frame line in the index corner: measured on a deck's faces, found again at the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]

# A picture's frame line is a column of ink at least this share of the index box's height tall
# running on to the search patch's bottom, at most FRAME_WIDE of the card's width across; at the
# table it is looked for within FRAME_SLACK canonical pixels of where the registered faces have it.
FRAME_RUN: Final = 0.6
FRAME_WIDE: Final = 0.04
FRAME_SLACK: Final = 3


@dataclass(frozen=True, slots=True)
class FrameLine:
    """Where a design's court faces have their picture's frame line in the corner (canonical card
    pixels, in the face's own frame, no lead): columns ``x0 .. x1`` (exclusive), running down from
    ``y0`` to past the search patch. Measured at registration from the faces (``deck.frame_line``).
    """

    x0: int
    x1: int
    y0: int

    def seen_in(self, ink: ByteImage, *, lead: int, index_h: float) -> tuple[int, int, int] | None:
        """The line in a read's ink mask (``lead`` pixels before the card's edge; ``index_h`` the
        registered index's height): ``(x0, x1, top)`` as :func:`frame_columns` gives it, when it is
        found within ``FRAME_SLACK`` of this place, as thin and starting as high; else None.
        """
        x_from = max(self.x0 + lead - FRAME_SLACK, 0)
        line = frame_columns(ink[:, : self.x1 + lead + FRAME_SLACK], x_from=x_from, run=FRAME_RUN * index_h)
        if line is None:
            return None
        x0, x1, top = line
        if x1 - x0 > self.x1 - self.x0 + 2 * FRAME_SLACK or abs(top - (self.y0 + lead)) > 2 * FRAME_SLACK:
            return None
        return line


def frame_columns(ink: ByteImage, *, x_from: int, run: float) -> tuple[int, int, int] | None:
    """The leftmost group of adjacent columns (from ``x_from``) whose ink runs on unbroken to the
    mask's bottom row over at least ``run`` rows: ``(x0, x1, top)`` (x1 exclusive, ``top`` the
    highest row their runs start at), or None.
    """
    h = ink.shape[0]
    if run > 0 and not ink[-1, x_from:].any():
        return None  # no ink on the bottom row: every run is empty (half the reads' masks)
    # Each column's unbroken run up from the bottom row: the rows below the lowest paper pixel.
    paper = ink[::-1, x_from:] == 0
    runs = np.where(paper.any(axis=0), paper.argmax(axis=0), h)
    tall = np.flatnonzero(runs >= run)
    if not len(tall):
        return None
    x0 = int(tall[0])
    x1 = x0 + 1
    while x1 < len(runs) and runs[x1] >= run:
        x1 += 1
    return x_from + x0, x_from + x1, h - int(runs[x0:x1].max())
