"""Card hypotheses: the rectangles a blob's outline corners propose, snapped to the outline and merged."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.pipeline.shapes import H, W, card_quad, mask_of
from vision.pipeline.hypotheses import Hypothesis, merge, propose
from vision.pipeline.outline import Corner, find_blobs


def _matches(hyp: Hypothesis, quad: np.ndarray, tol: float) -> bool:
    """The hypothesis is the quad's card, either way up (corner 0 an index corner: 0 or 2)."""
    for start in (0, 2):
        turned = np.roll(quad, -start, axis=0)
        if np.abs(hyp.corners - turned).max() < tol:
            return True
    return False


@pytest.mark.parametrize("angle", [0, 23, 61, 90, 145])
def test_a_lone_card_is_one_rectangle_on_its_corners(angle: float) -> None:
    quad = card_quad(240, 160, angle)
    (blob,) = find_blobs(mask_of(quad, radius=3), min_area=1000)
    hyps = propose(blob.corners, card_w=W, card_h=H, alone=True)
    right = [h for h in hyps if _matches(h, quad, 2.5)]
    assert len(right) == 1  # its four corners' rectangles merged into one
    assert right[0].anchors == 4 and right[0].support >= 2
    # Nothing else is proposed as a whole card: a lone card's long side is never taken for its short one.
    assert all(h is right[0] or h.anchors < 2 for h in hyps)


def test_a_card_a_little_bigger_than_the_frame_average_is_fitted_to_its_own_corners() -> None:
    # A tilted camera makes near cards a few per cent bigger than the frame's card height.
    quad = card_quad(240, 160, 30, w=W * 1.06, h=H * 1.06)
    (blob,) = find_blobs(mask_of(quad, radius=3), min_area=1000)
    hyps = propose(blob.corners, card_w=W, card_h=H, alone=True)
    assert any(_matches(h, quad, 2.5) for h in hyps)


def test_each_card_of_a_fan_is_proposed() -> None:
    quads = [card_quad(180 + k * 0.3 * W, 200, 0) for k in range(3)]
    (blob,) = find_blobs(mask_of(*quads, radius=3), min_area=1000)
    hyps = propose(blob.corners, card_w=W, card_h=H, alone=False)
    # The bottom and top cards show corners of their own; the middle card's are all inside the
    # fan's outline (it is found by its index, not here).
    assert any(_matches(h, quads[0], 2.5) for h in hyps)
    assert any(_matches(h, quads[2], 2.5) for h in hyps)


def test_the_same_card_proposed_twice_is_merged_either_way_up() -> None:
    quad = card_quad(100, 100, 10)
    a = Hypothesis(corners=quad.copy(), anchors=2)
    b = Hypothesis(corners=np.roll(quad, 2, axis=0) + 1.0, anchors=4)  # the same card, read from its far corner
    c = Hypothesis(corners=quad + 40.0, anchors=1)  # another card
    merged = merge([a, b, c], [h.corners.reshape(-1).tolist() for h in (a, b, c)], 0.15 * W)
    assert len(merged) == 2
    assert merged[0].support == 2 and merged[0].anchors == 4  # the better-anchored geometry kept
    assert np.allclose(merged[0].corners, b.corners)  # its corners, index corners where they were read


def _corner(at: tuple[float, float], x_deg: float, x_len: float, y_deg: float, y_len: float) -> Corner:
    """An outline corner whose edges leave it at these angles (degrees, image axes), this long."""
    x, y = math.radians(x_deg), math.radians(y_deg)
    return Corner(at, (math.cos(x), math.sin(x)), (math.cos(y), math.sin(y)), x_len, y_len)


def test_a_card_confirmed_along_its_top_but_drawn_along_a_few_pixels_of_its_side_is_offered_square_to_it() -> None:
    # The bottom card of a fan held in the hand (nicu-white's 2s on table 509): its top side is
    # whole between two outline corners, but its right side shows only 13 px before the next
    # card covers it, and that piece's fit is 10 degrees off. The rectangle drawn from that
    # corner along it put the card's far index corner 14 px off its index; both corners
    # confirm the top, and the card square to it is offered (read where the drawn one reads nothing).
    card = card_quad(200, 150, 0)
    right = _corner(tuple(card[1]), 90 + 10, 13.0, 180, W)  # down the side (10 degrees off), back along the top
    left = _corner(tuple(card[0]), 0, W, 90, H)  # along the top, down the left side: both whole
    hyps = propose([right, left], card_w=W, card_h=H, alone=False)
    here = [h for h in hyps if np.hypot(*(h.center - card.mean(axis=0))) < 0.15 * W]
    assert here
    for h in here:
        if not _matches(h, card, 1.0):  # the one drawn along the short piece
            assert h.squared is not None
            assert _matches(Hypothesis(corners=h.squared), card, 1.0)
    assert any(h.squared is not None for h in here)


def test_a_rectangle_drawn_along_a_whole_side_or_confirmed_between_two_cards_is_offered_no_other() -> None:
    # Two backs dealt a few pixels apart: an outline corner of the upper one and one of the lower
    # one's, 6 px lower, end what looks like one short side, 6 degrees off the cards'. Drawn
    # along the upper card's whole side, the rectangle keeps that side's direction.
    card = card_quad(200, 150, 0)
    upper = _corner(tuple(card[1]), 90, 0.6 * H, 180, 0.6 * W)
    lower = _corner((card[0][0], card[0][1] + 6.0), 0, 0.5 * W, 90, 0.5 * H)
    hyps = propose([upper, lower], card_w=W, card_h=H, alone=False)
    assert any(h.anchors == 2 for h in hyps)
    assert all(h.squared is None for h in hyps)
    # Drawn along a few pixels of the upper card's rounded corner instead, its other edge does not
    # run along that line between two cards' corners: no square rectangle is offered either.
    # (A rectangle drawn from the upper corner alone is offered square to its long edge, the
    # upper card's own top: see the skewed-corner test below.)
    upper = _corner(tuple(card[1]), 90 + 10, 10.0, 180, 0.6 * W)
    hyps = propose([upper, lower], card_w=W, card_h=H, alone=False)
    assert any(h.anchors == 2 for h in hyps)
    assert all(h.squared is None for h in hyps if h.anchors == 2)


def test_a_card_drawn_from_a_corner_whose_short_edge_is_skewed_is_offered_square_to_its_long_edge() -> None:
    # The bottom card of a fan spread along its short side (kennard's Qs on table 3008): its index
    # corner is an outline corner whose top edge runs on along the next card's (1.8 widths), but
    # whose side shows only 8.6 px of a rounded corner before the card above covers it, fitted
    # 22 degrees off. Drawn along both edges, the rectangle was a parallelogram whose far corners
    # missed the card by 30 px; square to the long edge it is the card.
    card = card_quad(200, 150, 0)
    skewed = _corner(tuple(card[0]), 0, 1.8 * W, 90 + 22, 8.6)
    hyps = propose([skewed], card_w=W, card_h=H, alone=False)
    drawn = [h for h in hyps if np.abs(h.corners[0] - card[0]).max() < 0.5]
    assert drawn and not _matches(drawn[0], card, 5.0)
    assert drawn[0].squared is not None
    assert _matches(Hypothesis(corners=drawn[0].squared), card, 1.0)


def test_a_corner_square_or_with_no_long_edge_is_offered_no_other_rectangle() -> None:
    # A card's own corner (edges within a few degrees of square), and a corner whose two edges
    # are both short (neither gives the card's direction better than the other), draw no second
    # rectangle: only a long edge is evidence enough to redraw a card.
    card = card_quad(200, 150, 0)
    for corner in (_corner(tuple(card[0]), 0, 1.8 * W, 90 + 3, 8.6), _corner(tuple(card[0]), 0, 15.0, 90 + 22, 8.6)):
        assert all(h.squared is None for h in propose([corner], card_w=W, card_h=H, alone=False))


def test_a_side_cut_short_at_a_rounded_corner_is_offered_at_the_cards_size_from_its_sure_end() -> None:
    # The bottom card of a fan under a glare band (dondorf's 7d on table 2): its left side runs
    # whole between two outline corners, but the top one is its rounded corner cut into by the
    # glare, found 3.4 px down the side with 14 px of its top edge. The side measured 0.96 of a
    # card's height, and the rectangle fitted to it put the index corner 3.4 px down the side,
    # where the index read nothing. From the bottom corner (two long edges), at the card's
    # height, the rectangle is the card.
    card = card_quad(200, 150, 0)
    sure = _corner(tuple(card[3]), -90, 0.9 * H, 0, 0.95 * W)  # up the left side, along the bottom
    rounded = _corner((card[0][0], card[0][1] + 3.4), 0, 14.0, 90, 0.9 * H)  # along the top, down the side
    hyps = propose([sure, rounded], card_w=W, card_h=H, alone=False)
    two = [h for h in hyps if h.anchors == 2]
    assert two and not any(_matches(h, card, 2.0) for h in two)
    assert any(h.squared is not None and _matches(Hypothesis(corners=h.squared), card, 1.0) for h in two)
    # Both ends sure (two long edges each), the side measures the card where it lies: no other.
    sure_top = _corner((card[0][0], card[0][1] + 3.4), 0, 0.8 * W, 90, 0.9 * H)
    hyps = propose([sure, sure_top], card_w=W, card_h=H, alone=False)
    assert all(h.squared is None for h in hyps if h.anchors == 2)
