"""A lone card whose ragged outline's corners propose no rectangle that fills: its least rectangle."""

from __future__ import annotations

import cv2
import numpy as np

from vision.deck import DeckProfile
from vision.pipeline.explain import boxed_card
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, view_calibration

_CARD_H = 82.0
_CARD_W = _CARD_H * 63 / 88


def _blob(w: float, h: float, angle: float) -> np.ndarray:
    """The outline of a filled rectangle of ``w`` x ``h`` turned by ``angle`` degrees."""
    mask = np.zeros((200, 200), np.uint8)
    box = cv2.boxPoints(((100.0, 100.0), (w, h), angle))
    cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 255)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return contours[0]


def test_a_card_sized_blob_is_boxed_with_an_index_corner_first() -> None:
    hyp = boxed_card(_blob(_CARD_W, _CARD_H, -66.0), card_w=_CARD_W, card_h=_CARD_H)
    assert hyp is not None
    c = hyp.corners
    # Clockwise (y down), its first side the short one.
    assert abs(float(np.hypot(*(c[1] - c[0]))) - _CARD_W) < 2.0
    assert abs(float(np.hypot(*(c[2] - c[1]))) - _CARD_H) < 2.0
    (ax, ay), (bx, by) = c[1] - c[0], c[2] - c[1]
    assert ax * by - ay * bx > 0
    assert np.allclose(c.mean(axis=0), (100.0, 100.0), atol=1.0)


def test_a_blob_of_another_size_or_shape_is_not_boxed() -> None:
    assert boxed_card(_blob(1.1 * _CARD_W, _CARD_H, 20.0), card_w=_CARD_W, card_h=_CARD_H) is None
    assert boxed_card(_blob(_CARD_W, 0.9 * _CARD_H, 20.0), card_w=_CARD_W, card_h=_CARD_H) is None
    # A card-sized outline it does not fill (an L of two strips) is no card.
    mask = np.zeros((200, 200), np.uint8)
    cv2.rectangle(mask, (70, 59), (128, 141), 255, -1)
    cv2.rectangle(mask, (90, 59), (128, 120), 0, -1)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    assert boxed_card(contours[0], card_w=_CARD_W, card_h=_CARD_H) is None


# The benchmark's table 3010 (dondorf, dim red hearts on dark red cloth): its lone 9h, whose
# outline corners' rectangles filled 0.85 at best, where it lies in the frame.
_NINE_AT = np.array([1413.6, 192.3])


def test_a_lone_card_with_a_ragged_outline_is_read(dondorf: DeckProfile) -> None:
    table = random_table(np.random.default_rng(3010))
    _, frame = render_table(dondorf, table, seed=3010)
    reading = Recognizer(deck=dondorf, calibration=view_calibration(table.view)).read(frame)
    near = [c.code for c in reading.cards if float(np.hypot(*(np.mean(np.array(c.corners), axis=0) - _NINE_AT))) < 22]
    assert near == ["9h"]
