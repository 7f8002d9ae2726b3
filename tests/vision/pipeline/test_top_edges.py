"""The card on top of a stack drawn to its real outline: each side moved to the edge the picture shows."""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import default_deck
from vision.pipeline.back_tester import BackTester
from vision.pipeline.geometry import turned
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.top_edges import precise_top, refined_top

# A card as the detection plane shows one (59 px wide), on top of another dealt 9 px to its left and
# 4 px up (a stack's bottom card), both on cloth, turned a little.
_TOP = turned(np.array([[160.4, 110.3], [219.4, 110.3], [219.4, 192.9], [160.4, 192.9]]), 8.0)
_UNDER = turned(_TOP - np.array([9.0, 4.0]), -3.0)
_CARD_W = 59.0


def _plane() -> np.ndarray:
    deck = default_deck()
    plane = np.full((320, 380, 3), (40, 110, 40), np.uint8)
    src = np.array([[0, 0], [CARD_PX_W, 0], [CARD_PX_W, CARD_PX_H], [0, CARD_PX_H]], np.float32)
    for quad in (_UNDER, _TOP):
        h = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        size = (plane.shape[1], plane.shape[0])
        warped = cv2.warpPerspective(deck.back, h, size, flags=cv2.INTER_AREA)
        alpha = cv2.warpPerspective(np.full(deck.back.shape[:2], 255, np.uint8), h, size) / 255.0
        plane[:] = (plane * (1 - alpha[..., None]) + warped * alpha[..., None]).astype(np.uint8)
    return cv2.GaussianBlur(plane, (0, 0), 0.7)


def _side_offsets(quad: np.ndarray) -> list[float]:
    """How far the middle of each of the true top's sides lies from ``quad``'s side (plane pixels)."""
    out = []
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        normal = np.array([q[1] - p[1], p[0] - q[0]]) / float(np.hypot(*(q - p)))
        out.append(abs(float(np.dot((_TOP[i] + _TOP[(i + 1) % 4]) / 2 - p, normal))))
    return out


def test_a_top_drawn_two_pixels_off_is_moved_onto_its_edges() -> None:
    plane = _plane()
    drawn = turned(_TOP + np.array([2.0, -1.5]), 0.8)
    before = _side_offsets(drawn)
    after = _side_offsets(refined_top(drawn, image=plane, card_w=_CARD_W))
    # Its sides on cloth (the right and the bottom) onto their edges; those on the card under it,
    # whose white border meets its own with no edge between, where they were drawn (not onto the
    # lower card's inner border line, a pixel or two beyond).
    assert min(before[1], before[2]) > 1.5 and max(after[1], after[2]) < 0.5
    assert abs(after[0] - before[0]) < 0.25 and abs(after[3] - before[3]) < 0.25


def test_a_top_is_moved_to_its_edges_only_where_it_then_matches_the_back_better() -> None:
    plane = _plane()
    deck = default_deck()
    tester = BackTester(signature=deck.back_signature, back=deck.back)

    def whole(quad: np.ndarray) -> float:
        return tester.strip_likeness(Hypothesis(corners=quad), plane, tester.blank(plane))

    drawn = turned(_TOP + np.array([2.0, -1.5]), 0.8)
    quad, score = precise_top(drawn, image=plane, card_w=_CARD_W, whole=whole)
    offsets = _side_offsets(quad)
    assert score > whole(drawn) and max(offsets[1], offsets[2]) < 0.5
    # Placed right already, it stays within half a pixel of where it lies.
    quad, _ = precise_top(_TOP.copy(), image=plane, card_w=_CARD_W, whole=whole)
    assert max(_side_offsets(quad)) < 0.5
