"""Where a fan-scan start's index would lie on the deck's back: colours no face shows in its index corner."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.deck import DeckProfile

ByteImage = npt.NDArray[Any]
# Colours are told apart by hue (HUE_BINS bins) and saturation (SAT_BINS bins). The less
# saturated half (PAPER_SATURATED bins) never counts as a back's: paper in any light a fan scan
# takes for paper (fan_edges.PAPER_GREY: a warm lamp's keeps 0.55 of its brightest channel in its
# darkest, a saturation up to 0.45), black ink, shadow (dondorf's table 3019: a warm-lit 9c's index
# box lay in its back's low-saturation colours, and was refused with them).
HUE_BINS: Final = 18
SAT_BINS: Final = 4
PAPER_SATURATED: Final = 2
# A colour is the back's when at least BACK_COLOUR_LEAST of the back shows it, and BACK_RATIO
# times the share of the faces' index corners that show it or a hue bin either side (a lamp turns
# hues a little; a court card's picture may reach into its corner in the back's colour, dondorf's
# teal, standard's blue: rare there, most of the back).
BACK_COLOUR_LEAST: Final = 0.02
BACK_RATIO: Final = 10.0
# A start whose index box is at least this share the back's own colours lies on a back: no read.
# Fan-scan starts of the six designs' speed frames and seed 500 (1318 that found no index, 300
# that found one): starts finding none at 0.3 or over, kennard 51 of 222, hershey 57 of 163,
# standard 100 of 320, nicu-white 55 of 237 (dondorf 0: its one colour is 0.08 of its back,
# nicu-ornamental has none); starts kept as a card at most 0.11 (kennard), ones finding a back's
# pattern as an index up to 0.6.
BACK_SHARE: Final = 0.3


def colour_bins(image: ByteImage) -> npt.NDArray[np.intp]:
    """Each pixel's colour bin (hue, saturation) of a BGR image."""
    hsv = cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    hue = hsv[:, 0].astype(np.intp) * HUE_BINS // 180
    sat = np.minimum(hsv[:, 1].astype(np.intp) * SAT_BINS // 256, SAT_BINS - 1)
    return np.asarray(hue * SAT_BINS + sat, dtype=np.intp)


# Each 8-bit hue (0-179) and saturation to its part of a colour bin's number (see colour_bins).
_HUE_PART: Final = np.array([min(v, 179) * HUE_BINS // 180 * SAT_BINS for v in range(256)], np.uint8)
_SAT_PART: Final = np.array([v * SAT_BINS // 256 for v in range(256)], np.uint8)


def back_colours(deck: DeckProfile) -> ByteImage | None:
    """Which colour bins of the deck's back its faces' index corners (the search patch of the
    index box) show hardly at all (see BACK_RATIO), as a lookup from a bin's number to 1 (the
    back's) or 0; None when they cover less than BACK_SHARE of the back (a back mostly in its
    faces' colours: dondorf's cover 0.08 of it)."""
    sw, sh = deck.index_box.search_size()
    corners = np.zeros(HUE_BINS * SAT_BINS)
    for face in deck.faces:
        corners += np.bincount(colour_bins(face[:sh, :sw]), minlength=HUE_BINS * SAT_BINS)
    faces = (corners / (len(deck.faces) * sw * sh)).reshape(HUE_BINS, SAT_BINS)
    faces = np.maximum(np.maximum(faces, np.roll(faces, 1, axis=0)), np.roll(faces, -1, axis=0))
    back = np.bincount(colour_bins(deck.back), minlength=HUE_BINS * SAT_BINS) / deck.back[:, :, 0].size
    only = (back >= BACK_COLOUR_LEAST) & (back >= BACK_RATIO * faces.reshape(-1))
    only.reshape(HUE_BINS, SAT_BINS)[:, :PAPER_SATURATED] = False
    if float(back[only].sum()) < BACK_SHARE:
        return None  # (dondorf: 0 of 286 empty starts refused, speed frames and seed 500: all cost)
    lookup = np.zeros(256, np.uint8)
    lookup[: only.size] = only
    return lookup


def on_back(box_pixels: ByteImage, colours: ByteImage) -> bool:
    """Whether the pixels of an index box (BGR) are largely the back's own ``colours`` (as
    back_colours gives them). (The bins of colour_bins by lookups: a fan scan asks this of every
    start, and numpy's per-call cost would be most of the work.)"""
    if box_pixels.size == 0:
        return False
    hue, sat, _ = cv2.split(cv2.cvtColor(box_pixels, cv2.COLOR_BGR2HSV))
    bins = cv2.add(cv2.LUT(hue, _HUE_PART), cv2.LUT(sat, _SAT_PART))
    return bool(cv2.countNonZero(cv2.LUT(bins, colours)) >= BACK_SHARE * box_pixels.shape[0] * box_pixels.shape[1])
