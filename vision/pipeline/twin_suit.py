"""A one-corner read's suit checked against its same-coloured twin by the registered indices, blurred."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, DeckProfile

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# Suits run c d h s: each suit's twin is the other suit of its colour (club and spade, diamond and heart).
TWIN_SUIT: Final = {"c": "s", "s": "c", "d": "h", "h": "d"}
# The registered index is cut this many canonical pixels out past its box (the glyphs' blurred rims).
TWIN_PAD: Final = 3
# How far (canonical pixels) the frame's index may lie off its corner's pose each way: a fan's
# corner is placed from a neighbour's edge a pixel or two off (corners.CORNER_LEAD is 6).
TWIN_REACH: Final = 12
# ... and how far (canonical pixels) both cards' looks are then shifted about where it lies.
TWIN_NEAR: Final = 2
# The blurs (Gaussian sigma, canonical pixels) the registered indices are seen at: a frame's blur
# of 1.2-1.6 px with motion smear and JPEG measures a softness of ~2-2.8 (corners.SOFT_KNEE).
TWIN_BLURS: Final = (0.8, 1.4, 2.0, 2.6, 3.2)
# How much better (normalised correlation) the read card's registered index, at its best blur and
# shift, must fit the frame's index than its twin's, as a whole or at the suit alone. Measured on
# fan cards read by one corner under dim light, blur 1.2-1.6 px, motion smear, JPEG and noise (new
# seeds 18000-18149, kennard): the 24 clubs read as spades fit the spade better by 0.006-0.027 as a
# whole and 0.003-0.021 at the suit; right reads' whole lead is -0.002 and up but for a few.
TWIN_LEAD: Final = 0.005
# Where the two cards' looks differ by at least this share of their most, there lies the suit.
TWIN_SUIT_SHARE: Final = 0.25
# The least fit either card's look must reach for the check to judge at all: a patch no registered
# index fits (right reads fit their own 0.81-0.98 there) shows nothing to tell the two suits by.
TWIN_SEEN: Final = 0.6
# How far (pixels) OpenCV's Gaussian kernel reaches for the largest blur: its float kernel is
# round(8 sigma + 1) wide, made odd.
_KERNEL_REACH: Final = (round(8 * max(TWIN_BLURS) + 1) | 1) // 2


def twin_of(code: str) -> str:
    """The same rank in the other suit of its colour: 4c -> 4s, Kh -> Kd."""
    return code[:-1] + TWIN_SUIT[code[-1]]


class TwinSuit:
    """Tells a card's index from its twin's (same rank, the other suit of its colour) by correlating
    the frame's index with both registered indices at a few blurs: the deck's index classifier
    learnt sharp and Gaussian-blurred looks, and under motion smear a club's three leaves run into a
    spade's blob, while the whole blurred glyph still fits its own suit's best."""

    def __init__(self, *, deck: DeckProfile) -> None:
        box = deck.index_box
        self._x0 = max(round(box.x0 * CARD_PX_W) - TWIN_PAD, 0)
        self._y0 = max(round(box.y0 * CARD_PX_H) - TWIN_PAD, 0)
        self._x1 = min(round(box.x1 * CARD_PX_W) + TWIN_PAD, CARD_PX_W)
        self._y1 = min(round(box.y1 * CARD_PX_H) + TWIN_PAD, CARD_PX_H)
        self._faces = deck.faces
        self._templates: dict[str, list[npt.NDArray[np.float32]]] = {}
        self._suit_boxes: dict[str, tuple[int, int, int, int]] = {}

    def holds(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str) -> bool:
        """Whether the index at one corner (``CornerReader.read``'s vectors) fits ``code``'s
        registered index clearly better than its twin's (TWIN_LEAD), as a whole or at the suit
        alone, or fits neither (TWIN_SEEN)."""
        twin = twin_of(code)
        patch, at = self._located(image, origin, x_vec, y_vec, code=code)
        whole = self._box(code, twin, whole=True)
        own, other = self._fit(patch, at, code, whole), self._fit(patch, at, twin, whole)
        if max(own, other) < TWIN_SEEN or own - other >= TWIN_LEAD:
            return True
        # A small suit beside a large rank moves the whole index's fit little (standard's, dondorf's
        # clubs lead their spades by 0.003 as a whole, 0.015-0.03 at the suit): the suit alone judges too.
        suit = self._box(code, twin, whole=False)
        return self._fit(patch, at, code, suit) - self._fit(patch, at, twin, suit) >= TWIN_LEAD

    def _located(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str
    ) -> tuple[npt.NDArray[np.float32], tuple[int, int]]:
        """The patch round the index box and where in it ``code``'s look at a middle blur fits best:
        the rank, common to both cards, places the index; both cards' looks are then fitted a pixel
        or two about there."""
        patch = self._patch(image, origin, x_vec, y_vec)
        looks = self._looks(code)
        _lo, _hi, _at, (x, y) = cv2.minMaxLoc(cv2.matchTemplate(patch, looks[len(looks) // 2], cv2.TM_CCOEFF_NORMED))
        return patch, (x, y)

    def _box(self, code: str, twin: str, *, whole: bool) -> tuple[int, int, int, int]:
        """The part of the index looks compared: all of it, or only the suit (the box, grown a few
        pixels, round where the two cards' looks at a middle blur differ by a quarter of their
        most), as x0, y0, x1, y1 in look pixels."""
        a = self._looks(code)[len(TWIN_BLURS) // 2]
        if whole:
            return 0, 0, a.shape[1], a.shape[0]
        key = code + twin
        box = self._suit_boxes.get(key)
        if box is None:
            diff = np.abs(a - self._looks(twin)[len(TWIN_BLURS) // 2])
            ys, xs = np.nonzero(diff > TWIN_SUIT_SHARE * float(diff.max()))
            h, w = a.shape
            box = (
                max(int(xs.min()) - TWIN_PAD, 0),
                max(int(ys.min()) - TWIN_PAD, 0),
                min(int(xs.max()) + TWIN_PAD + 1, w),
                min(int(ys.max()) + TWIN_PAD + 1, h),
            )
            self._suit_boxes[key] = box
        return box

    def _patch(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> npt.NDArray[np.float32]:
        """The frame round the index box, warped to the canonical card, as its darkest channel."""
        dx, dy = x_vec / CARD_PX_W, y_vec / CARD_PX_H
        start = origin + (self._x0 - TWIN_REACH) * dx + (self._y0 - TWIN_REACH) * dy
        size = (self._x1 - self._x0 + 2 * TWIN_REACH, self._y1 - self._y0 + 2 * TWIN_REACH)
        m = np.array([[dx[0], dy[0], start[0]], [dx[1], dy[1], start[1]]], dtype=np.float64)
        patch = cv2.warpAffine(
            image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
        return np.asarray(patch.min(axis=2), dtype=np.float32)

    def _fit(
        self, patch: npt.NDArray[np.float32], at: tuple[int, int], code: str, box: tuple[int, int, int, int]
    ) -> float:
        """The best normalised correlation of ``code``'s looks (TWIN_BLURS), cut to ``box``, with the
        patch within TWIN_NEAR pixels of where the index lies (``at``)."""
        x0, y0, x1, y1 = box
        x, y = at[0] + x0, at[1] + y0
        near = patch[
            max(y - TWIN_NEAR, 0) : y + (y1 - y0) + TWIN_NEAR, max(x - TWIN_NEAR, 0) : x + (x1 - x0) + TWIN_NEAR
        ]
        return max(
            float(cv2.matchTemplate(near, np.ascontiguousarray(t[y0:y1, x0:x1]), cv2.TM_CCOEFF_NORMED).max())
            for t in self._looks(code)
        )

    def _looks(self, code: str) -> list[npt.NDArray[np.float32]]:
        """``code``'s registered index at each of TWIN_BLURS (darkest channel), made once."""
        looks = self._templates.get(code)
        if looks is None:
            # Only the index box and a kernel's reach round it are blurred: the same values as
            # blurring the whole face (where the box meets the face's edge, both reflect there),
            # at a fraction of the work.
            x0, y0 = max(self._x0 - _KERNEL_REACH, 0), max(self._y0 - _KERNEL_REACH, 0)
            x1, y1 = min(self._x1 + _KERNEL_REACH, CARD_PX_W), min(self._y1 + _KERNEL_REACH, CARD_PX_H)
            face = np.asarray(self._faces[CODES.index(code)][y0:y1, x0:x1].min(axis=2), dtype=np.float32)
            dy, dx = self._y0 - y0, self._x0 - x0
            h, w = self._y1 - self._y0, self._x1 - self._x0
            looks = [
                np.ascontiguousarray(cv2.GaussianBlur(face, (0, 0), s)[dy : dy + h, dx : dx + w]) for s in TWIN_BLURS
            ]
            self._templates[code] = looks
        return looks
