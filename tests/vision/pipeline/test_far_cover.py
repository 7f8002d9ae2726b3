"""A far index corner on a blob's outline: in view where the blob ends past it, under the cards above where not."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision.pipeline.shapes import W, card_quad, mask_of
from vision.pipeline.far_cover import far_covered


def _outline(*quads: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask_of(*quads, radius=3), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=cv2.contourArea)


def test_a_lone_cards_corners_are_in_view() -> None:
    card = card_quad(200.0, 150.0, 12.0)
    outline = _outline(card)
    assert not any(far_covered(outline, card, corner=k) for k in range(4))


def test_a_fan_bottoms_far_corner_on_the_fans_straight_edge_is_under_the_cards_above() -> None:
    # Cards spread along their long side, tops in line (standard's table 11009: 9c, 3c, 6h): the
    # bottom card shows its right strip, its index corner 2; its corner 0 lies on the fan's top edge.
    bottom = card_quad(200.0 + 0.8 * W, 150.0, 0.0)
    middle = card_quad(200.0 + 0.4 * W, 150.0, 0.0)
    top = card_quad(200.0, 150.0, 0.0)
    outline = _outline(bottom, middle, top)
    assert far_covered(outline, bottom, corner=0)
    assert not far_covered(outline, bottom, corner=2)  # the index corner it is read by: in view
    assert not far_covered(outline, top, corner=0)  # the top card's index corner clear of the others
    # Its lower index shows too, but the cards below run on past it along the fan's edge: the
    # outline cannot tell above from below, so a soft read not asking such a corner is settled
    # against the blob's cards (FanSettle.soft).
    assert far_covered(outline, top, corner=2)


def test_a_far_corner_with_a_card_turned_over_it_is_under_that_card() -> None:
    # A fan held turned about a corner: the card above crosses the bottom card's far corner.
    bottom = card_quad(200.0, 150.0, 0.0)
    top = card_quad(200.0 + 0.45 * W, 150.0 - 0.1 * W, 20.0)
    outline = _outline(bottom, top)
    assert far_covered(outline, bottom, corner=1)
    assert not far_covered(outline, bottom, corner=3)
