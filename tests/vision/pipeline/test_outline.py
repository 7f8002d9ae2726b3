"""Blob outlines: right-angled corners fitted to the edges, whole card sides, and the card size they vote for."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.pipeline.shapes import H, W, card_quad, mask_of
from vision.pipeline.outline import CARD_ASPECT, find_blobs, vote_height, vote_height_few


@pytest.mark.parametrize("angle", [0, 17, 45, 73, 90, 131])
def test_a_lone_card_has_four_corners_at_its_true_corners(angle: float) -> None:
    quad = card_quad(240, 160, angle)
    (blob,) = find_blobs(mask_of(quad, radius=3), min_area=1000)
    assert len(blob.corners) == 4
    for corner in blob.corners:
        # Edges are fitted as lines, so a rounded corner is found where the sides meet.
        assert min(np.linalg.norm(quad - np.array(corner.point), axis=1)) < 2.5
        assert abs(float(np.dot(corner.x_dir, corner.y_dir))) < 0.05  # a right angle
    # Whole sides (at least three of the four: the vote needs no more), each a card's side; the
    # outline runs along the pixels' centres, half a pixel inside the card's edge.
    assert len(blob.sides) >= 3
    for side in blob.sides:
        assert min(abs(side - (W - 0.5)), abs(side - (H - 0.5))) < 1.5


@pytest.mark.parametrize("angle", [0, 17, 40, 45, 73, 131])
def test_a_large_rounded_corner_is_found_where_the_sides_meet_not_along_its_chord(angle: float) -> None:
    """Dondorf's corners are rounded to 7 plane pixels: the polygon cuts each with a chord 15-20
    degrees off one side, and a corner made with it drew a skewed card that read nothing."""
    quad = card_quad(240, 160, angle)
    (blob,) = find_blobs(mask_of(quad, radius=7), min_area=1000)
    # As a lone card's are drawn (explain): where the sides meet, when the plain corners are askew.
    corners = blob.rounded if blob.rounded is not None else blob.corners
    assert len(corners) == 4
    for corner in corners:
        assert min(np.linalg.norm(quad - np.array(corner.point), axis=1)) < 2.5
        assert abs(float(np.dot(corner.x_dir, corner.y_dir))) < 0.05
        assert min(abs(corner.x_len - corner.y_len * r) for r in (CARD_ASPECT, 1 / CARD_ASPECT)) < 0.3 * W


def test_corners_name_the_clockwise_edge_first() -> None:
    quad = card_quad(240, 160, 0)  # corners clockwise in image coordinates (y down)
    (blob,) = find_blobs(mask_of(quad), min_area=1000)
    for corner in blob.corners:
        cross = corner.x_dir[0] * corner.y_dir[1] - corner.x_dir[1] * corner.y_dir[0]
        assert cross > 0  # x_dir turned clockwise (on screen) by 90 degrees is y_dir


def test_a_fan_keeps_its_outer_corners_and_its_long_straight_edge() -> None:
    # Three cards spread along their short side, each 0.3 of a card's width on from the last.
    quads = [card_quad(180 + k * 0.3 * W, 200, 0) for k in range(3)]
    (blob,) = find_blobs(mask_of(*quads, radius=3), min_area=1000)
    outer = [quads[0][0], quads[2][1], quads[2][2], quads[0][3]]
    for point in outer:
        assert any(np.linalg.norm(np.array(c.point) - point) < 2.5 for c in blob.corners)
    # The top and bottom edges run the fan's whole width despite the notches between the cards.
    fan_w = W * 1.6
    assert any(abs(max(c.x_len, c.y_len) - fan_w) < 3 for c in blob.corners)


def test_blobs_smaller_than_the_least_area_are_left_out() -> None:
    fg = mask_of(card_quad(120, 160, 10), card_quad(400, 160, 0, w=20, h=20))
    assert len(find_blobs(fg, min_area=1000)) == 1
    assert len(find_blobs(fg, min_area=100)) == 2


def test_the_card_height_vote_is_not_fooled_by_a_fan_width() -> None:
    sides = [H, H * 1.01, W, W * 0.99, 1.6 * W, 1.6 * W]  # two cards' sides and a fan's width twice
    assert vote_height(np.array(sides)) == pytest.approx(H, rel=0.02)
    assert vote_height_few(sides, 0.08) == pytest.approx(H, rel=0.02)
    many = np.array(sides * 3)
    assert vote_height(many) == pytest.approx(H, rel=0.02)
    assert vote_height(np.array([])) is None


def test_a_side_reads_as_a_short_side_only_where_its_card_fits() -> None:
    """Two long sides alone agree as well with a card 1.4 times as tall (read as its short sides);
    the tie went to the taller card. A blob the taller card cannot fit in rules that reading out."""
    sides = [H, H * 1.005]
    assert vote_height(np.array(sides)) == pytest.approx(H * CARD_ASPECT, rel=0.02)
    assert vote_height_few(sides, 0.08) == pytest.approx(H * CARD_ASPECT, rel=0.02)
    most = [1.15 * H, 1.15 * H]
    assert vote_height(np.array(sides), most=np.array(most)) == pytest.approx(H, rel=0.02)
    assert vote_height_few(sides, 0.08, most=most) == pytest.approx(H, rel=0.02)
    # The many-sides path: ten such blobs, and a fan (room for anything) whose width is 1.6 cards.
    many = np.array(sides * 5 + [1.6 * H / CARD_ASPECT])
    room = np.array(most * 5 + [10 * H])
    assert vote_height(many) == pytest.approx(H * CARD_ASPECT, rel=0.02)
    assert vote_height(many, most=room) == pytest.approx(H, rel=0.02)
    # A short side in a blob that holds its card still reads as one.
    assert vote_height_few([W, W], 0.08, most=[1.15 * H] * 2) == pytest.approx(H, rel=0.02)
