"""A fan's top card far from a tilted camera: its rounded corner a corner, its short side along the fan."""

from __future__ import annotations

import cv2
import numpy as np

from vision.pipeline.hypotheses import Hypothesis, propose
from vision.pipeline.outline import Corner, find_blobs


def test_a_corner_rounded_into_a_chamfer_of_a_few_pixels_is_still_a_corner() -> None:
    # A card 60 x 84 px whose top-right corner is cut by a 45-degree chamfer 9.9 px long (a rounded
    # corner under a 30-degree tilt, far from the camera: dondorf table 3008's 9h shows 9.1 px):
    # the outline has an edge of its own there, square to neither side, and the corner was lost.
    fg = np.zeros((200, 200), np.uint8)
    poly = np.array([(50, 50), (103, 50), (110, 57), (110, 134), (50, 134)], np.int32)
    cv2.fillPoly(fg, [poly], 255)
    (blob,) = find_blobs(fg, min_area=100)
    points = np.array([c.point for c in blob.corners])
    gaps = np.hypot(*(points - (110.0, 50.0)).T)
    assert len(blob.corners) == 4
    assert gaps.min() < 2.0  # at the sides' meeting point, past the chamfer


def test_a_notch_wider_than_a_chamfer_makes_no_corner_across_it() -> None:
    # A 16 px edge between two square sides is a notch's or a chip's, not a rounded corner.
    fg = np.zeros((200, 200), np.uint8)
    poly = np.array([(50, 50), (98, 50), (110, 62), (110, 134), (50, 134)], np.int32)
    cv2.fillPoly(fg, [poly], 255)
    (blob,) = find_blobs(fg, min_area=100)
    assert len(blob.corners) == 3


def _has_quad(hyps: list[Hypothesis], quad: np.ndarray) -> bool:
    return any(np.allclose(h.corners, quad, atol=1.0) for h in hyps)


def test_a_corner_whose_edges_are_both_longer_than_a_short_side_is_drawn_short_side_along_the_fans_edge() -> None:
    # dondorf table 3008's 9h on top of a fan: its side seen 70.8 px (1.2 w: no short side), its
    # top edge running on along the fan's to 98.9 px. The top is its short side all the same.
    card_w, card_h = 58.7, 82.0
    corner = Corner((100.0, 100.0), (0.0, 1.0), (-1.0, 0.0), 70.8, 98.9)
    hyps = propose([corner], card_w=card_w, card_h=card_h, alone=False)
    p, x, y = np.array([100.0, 100.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0])
    short_along_top = np.array([p + card_h * x, p + card_h * x + card_w * y, p + card_w * y, p])
    assert _has_quad(hyps, short_along_top)


def test_a_corner_with_a_short_side_seen_is_not_drawn_both_ways() -> None:
    # Its side 50 px (a short side's length): the long edge along the fan is its long side only.
    card_w, card_h = 58.7, 82.0
    corner = Corner((100.0, 100.0), (0.0, 1.0), (-1.0, 0.0), 50.0, 98.9)
    hyps = propose([corner], card_w=card_w, card_h=card_h, alone=False)
    p, x, y = np.array([100.0, 100.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0])
    short_along_top = np.array([p + card_h * x, p + card_h * x + card_w * y, p + card_w * y, p])
    assert not _has_quad(hyps, short_along_top)
