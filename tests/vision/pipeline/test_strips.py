"""The back's slide over a stack: what it remembers between slides (corners by size, sums by mask) changes no answer."""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import default_deck
from vision.pipeline import strips
from vision.pipeline.strips import slide_strip

_QUAD = np.array([[100.0, 80.0], [220.0, 90.0], [208.0, 260.0], [88.0, 250.0]])


def _scene() -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Green cloth with the deck's back on ``_QUAD``, the back's brightness at slide size, and a
    mask hiding the rectangle's upper part."""
    deck = default_deck()
    frame = np.full((360, 320, 3), (40, 110, 40), np.uint8)
    src = np.array([[0, 0], [CARD_PX_W, 0], [CARD_PX_W, CARD_PX_H], [0, CARD_PX_H]], np.float32)
    h = cv2.getPerspectiveTransform(src, _QUAD.astype(np.float32))
    warped = cv2.warpPerspective(deck.back, h, (frame.shape[1], frame.shape[0]))
    inside = cv2.warpPerspective(np.full(deck.back.shape[:2], 255, np.uint8), h, (frame.shape[1], frame.shape[0])) > 0
    frame[inside] = warped[inside]
    gray = cv2.cvtColor(cv2.resize(deck.back, (20, 28), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    covered = np.zeros(frame.shape[:2], np.uint8)
    covered[:150] = 255
    return frame, [gray.astype(np.float32)], covered


def _slide(frame: np.ndarray, templates: list[np.ndarray], covered: np.ndarray, *, reach: float, least: float):
    return slide_strip(
        templates, image=frame, covered=covered, corners=_QUAD, reach=reach, turns=(0.0, -2.0, 2.0), least=least
    )


def test_a_slide_is_the_same_whichever_slides_came_before() -> None:
    frame, templates, covered = _scene()
    strips._shifted.cache_clear()
    strips._MASK_SUMS.clear()
    first = _slide(frame, templates, covered, reach=12.0, least=0.04)
    _slide(frame, templates, covered, reach=30.0, least=0.04)  # another size of shift grid
    again = _slide(frame, templates, covered, reach=12.0, least=0.04)
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    assert first[0].max() > 0.5  # the back slid over itself


def test_the_shifted_corners_kept_for_every_slide_cannot_be_changed() -> None:
    at = strips._shifted(5, 20, 28)
    assert at is strips._shifted(5, 20, 28)
    assert not at.flags.writeable
    assert at.shape == (5 * 5 * 4, 1, 2)


def test_the_sums_kept_for_a_mask_are_told_apart_by_how_much_must_show() -> None:
    frame, templates, covered = _scene()
    strips._MASK_SUMS.clear()
    _slide(frame, templates, covered, reach=12.0, least=0.04)
    strict = _slide(frame, templates, covered, reach=12.0, least=0.9)  # the same masks, remembered
    strips._MASK_SUMS.clear()
    fresh = _slide(frame, templates, covered, reach=12.0, least=0.9)
    assert np.array_equal(strict[0], fresh[0])
    assert (strict[0] == -1.0).all()  # under half the rectangle shows anywhere
