"""Masks of the detection plane: what is not felt, what is white paper, what is ink."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

ByteImage = npt.NDArray[Any]
_SQUARE_3: Final = np.ones((3, 3), np.uint8)
_SQUARE_5: Final = np.ones((5, 5), np.uint8)


@dataclass(frozen=True)
class Masks:
    """The plane's masks (255 = set): ``fg`` not felt, ``paper`` white paper, ``ink`` neither felt
    nor paper (glyphs, pips, pictures). Backs are told by the deck's back signature (``backs``).
    """

    fg: ByteImage
    paper: ByteImage
    ink: ByteImage
    felt_hue: int


class MaskMaker:
    """Makes the masks of the detection plane (the felt's hue given, or found in each frame)."""

    def __init__(self, *, felt_hue: int | None = None) -> None:
        self.felt_hue = felt_hue

    def make(self, image: ByteImage, valid: ByteImage | None = None) -> Masks:
        """Foreground (not felt), white paper and ink masks of a plane image;
        pixels outside ``valid`` (not seen by the camera) are felt.
        """
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        hue, sat, val = cv2.split(hsv)
        felt_hue = self.felt_hue
        if felt_hue is None:
            # The cloth is most of the frame: every fourth pixel each way finds its hue as surely,
            # at a sixteenth of the cost.
            few_hue, few_sat = np.ascontiguousarray(hue[::4, ::4]), np.ascontiguousarray(sat[::4, ::4])
            hist = cv2.calcHist([few_hue], [0], cv2.inRange(few_sat, 60, 255), [180], [0, 180]).reshape(-1)
            felt_hue = int(np.argmax(hist))
        felt = cv2.bitwise_and(hue_band(hue, felt_hue, 14), cv2.inRange(sat, 45, 255))
        felt = cv2.bitwise_and(felt, cv2.inRange(val, 20, 255))
        fg = cv2.bitwise_not(felt)
        # A 3x3 opening, then a 3x3 closing: erode, dilate, dilate, erode, and two 3x3 dilations
        # are one 5x5 dilation (the same pixels, one pass fewer over the frame).
        fg = cv2.erode(cv2.dilate(cv2.erode(fg, _SQUARE_3), _SQUARE_5), _SQUARE_3)
        if valid is not None:
            fg = cv2.bitwise_and(fg, valid)
        paper = cv2.bitwise_and(cv2.inRange(sat, 0, 70), cv2.inRange(val, 90, 255))
        ink = cv2.bitwise_and(fg, cv2.bitwise_not(paper))
        return Masks(fg=fg, paper=paper, ink=ink, felt_hue=felt_hue)


def hue_range(hue: ByteImage, lo: int, hi: int) -> ByteImage:
    """Pixels whose hue lies from ``lo`` to ``hi`` on OpenCV's circular 0-179 scale (either end may
    run past the scale's ends: the band wraps round).
    """
    band = cv2.inRange(hue, max(lo, 0), min(hi, 179))
    if lo < 0:
        band = cv2.bitwise_or(band, cv2.inRange(hue, 180 + lo, 179))
    if hi > 179:
        band = cv2.bitwise_or(band, cv2.inRange(hue, 0, hi - 180))
    return band


def hue_band(hue: ByteImage, centre: int, width: int) -> ByteImage:
    """Pixels whose hue is within ``width`` of ``centre`` on OpenCV's circular 0-179 scale."""
    return hue_range(hue, centre - width, centre + width)
