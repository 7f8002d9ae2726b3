"""How much of a guessed index box is ink, against the deck's own indices: too little or too much holds none."""

from __future__ import annotations

import math
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import DeckProfile

ByteImage = npt.NDArray[Any]
# Ink is a pixel whose darkest colour channel is under INK_LEVEL of the box's paper (its brightest
# tenth), as corners.INK_STEP judges an index box.
INK_LEVEL: Final = 0.6
# A fan-scan start whose index box is ink over less than INK_FEWEST times the least share of any
# registered face's index box, or over more than INK_MOST times the largest, holds no index. Fan-
# scan starts of the six designs' speed frames and seed 500's 12 tables (1618 reading no index,
# 329 kept as cards): kept ones lie at 0.61-1.52 times the faces' range (kennard's least, a
# blurred 2 in a corner turned a little: 0.61 of its least; standard's most, an index beside the
# next card's edge: 1.52 of its most); under INK_FEWEST (the card below's paper, a pip's edge)
# or over INK_MOST (a court picture, a back) lie 33-96 of 188-380 empty ones per design.
INK_FEWEST: Final = 0.4
INK_MOST: Final = 2.0


def ink_share(box_pixels: ByteImage) -> float:
    """The share of an index box's pixels (BGR) that are ink (see INK_LEVEL)."""
    b, g, r = cv2.split(box_pixels)
    dark = cv2.min(cv2.min(b, g), r)
    flat = dark.flatten()  # (a copy, partitioned in place)
    if flat.size == 0:
        return 0.0
    k90 = int(0.9 * (flat.size - 1))
    flat.partition(k90)
    level = math.ceil(INK_LEVEL * float(flat[k90]))
    _t, ink = cv2.threshold(dark, level - 1, 1, cv2.THRESH_BINARY_INV)  # (under ``level``: at most level - 1)
    return cv2.countNonZero(ink) / flat.size


def index_ink_range(deck: DeckProfile) -> tuple[float, float]:
    """The least and most ink share (see ink_share) a guessed index box of this deck may show and
    still hold an index: INK_FEWEST times its faces' least, INK_MOST times their most."""
    box = deck.index_box
    x0, y0 = round(box.x0 * CARD_PX_W), round(box.y0 * CARD_PX_H)
    x1, y1 = round(box.x1 * CARD_PX_W), round(box.y1 * CARD_PX_H)
    shares = [ink_share(np.ascontiguousarray(face[y0:y1, x0:x1])) for face in deck.faces]
    return INK_FEWEST * min(shares), INK_MOST * max(shares)
