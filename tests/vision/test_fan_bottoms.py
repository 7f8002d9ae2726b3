"""Fan bottoms: a card whose rectangle, drawn from a skewed rounded corner, sticks out of it."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision.test_fan_unread import _fan_outcomes
from vision.deck import DeckProfile
from vision.pipeline.explain import _squared_fills
from vision.pipeline.hypotheses import Hypothesis


def test_a_fan_bottom_drawn_from_a_skewed_rounded_corner_is_read_square_to_the_long_edge(dondorf: DeckProfile) -> None:
    # The benchmark's table 13015: a fan Kd, 4s, 9c slid along their short sides. The Kd's one
    # outline corner in view has an 8 px rounded-corner edge 18 degrees off square and a 106 px
    # edge along the fan's bottom: its rectangle as drawn sticks out of the cards (fill 0.83, under
    # the 0.86 a card needs) and was dropped. Square to the long edge it reads Kd 0.94 at that
    # corner and the 9c's index at its far corner, under the 9c: the Kd (it was an unknown card).
    roles, outcomes, everything = _fan_outcomes(dondorf, 13015, ("Kd", "4s", "9c"))
    assert roles == ["fan bottom", "fan middle", "fan top"]
    assert outcomes == ["correct"] * 3
    assert "misread" not in everything


def test_only_a_holed_rectangle_whose_square_fills_is_redrawn_square() -> None:
    fg = np.zeros((200, 200), np.uint8)
    cv2.rectangle(fg, (50, 50), (110, 134), 255, -1)
    card = np.array([[50, 134], [50, 50], [110, 50], [110, 134]], np.float64)
    skew = card + np.array([[0, 0], [20, 0], [20, 0], [0, 0]], np.float64)  # leaning out
    fills = Hypothesis(corners=skew.copy(), squared=card.copy(), fill=0.8)
    off = Hypothesis(corners=skew.copy(), squared=card + 60.0, fill=0.8)
    already = Hypothesis(corners=skew.copy(), squared=card.copy(), fill=0.8)
    kept = _squared_fills([fills, off, already], [already], fg, min_fill=0.86)
    assert kept == [fills]
    assert np.array_equal(fills.corners, card) and fills.squared is None and fills.fill >= 0.86
    assert np.array_equal(off.corners, skew) and np.array_equal(already.corners, skew)
