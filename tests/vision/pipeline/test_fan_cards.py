"""Fan cards once missed or unknown: faces read apart in a fan, and one card's hypotheses merged."""

from __future__ import annotations

import numpy as np

from tests.vision.pipeline.shapes import H, W, card_quad
from vision.pipeline.hypotheses import Hypothesis, merge, same_card


def test_two_faces_read_as_different_cards_a_fans_few_degrees_apart_are_two_cards() -> None:
    # A fan turned about a corner: each card a few degrees further round, their centres close
    # (hershey's table 11015: the Td 7.6 degrees from the Qs, centres 0.19 w apart).
    below = Hypothesis(corners=card_quad(300, 300, 20), code="Qs", confidence=0.64)
    above = Hypothesis(corners=card_quad(300 + 0.19 * W, 300, 27.6), code="Td", confidence=0.59)
    assert not same_card(above, below, 0.2 * W)
    # The same two rectangles are one card when only one is read, or both as one code (one
    # card's rectangles drawn from two of its corners), or when they lie within a degree or two.
    assert same_card(Hypothesis(corners=above.corners.copy()), below, 0.2 * W)
    assert same_card(Hypothesis(corners=above.corners.copy(), code="Qs"), below, 0.2 * W)
    alike = Hypothesis(corners=card_quad(300 + 0.19 * W, 300, 22), code="Td")
    assert same_card(alike, below, 0.2 * W)


def test_one_cards_rectangles_merged_keep_the_one_confirmed_at_its_index_corner() -> None:
    # A card a few per cent larger than the frame's average (nicu-white's table 11006 5h):
    # drawn at the average size from its blank corner, its index corners lie pixels off; drawn
    # from its index corner, that corner is the outline's own, where its index is read.
    true = card_quad(300, 300, 35, w=W * 1.07, h=H * 1.07)
    blank = Hypothesis(corners=card_quad(300, 300, 35) + np.array([3.0, -4.0]), anchors=1)
    at_index = Hypothesis(corners=true.copy(), anchors=1)
    hyps = [blank, at_index]
    flats = [h.corners.reshape(-1).tolist() for h in hyps]
    (kept,) = merge(hyps, flats, 0.15 * W, indexed=[False, True])
    assert kept.support == 2
    assert np.allclose(kept.corners, true)
    # Without knowing which corner the outline confirms, the first drawn stays (as before).
    blank2, at_index2 = Hypothesis(corners=blank.corners.copy(), anchors=1), Hypothesis(corners=true.copy(), anchors=1)
    (first,) = merge([blank2, at_index2], flats, 0.15 * W)
    assert np.allclose(first.corners, blank.corners)
