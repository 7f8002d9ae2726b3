"""Reading a card among others by one index corner: which outline corners prove the way it lies."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision.pipeline.shapes import H, W, card_quad, mask_of
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.outline import Blob, Corner, find_blobs
from vision.pipeline.outline_reads import _long_side_seen, _sides_measured


def test_an_outline_corner_whose_long_side_runs_free_is_the_index_corner_of_a_card_that_way_round() -> None:
    # A fan's top card over two below it, a chip against its far corner: the straight edge
    # leaving its bottom corner runs further than a card's short side can, so the card lies that
    # way round about that corner, and the corner is its index corner (however few of its other
    # corners the outline shows: a fan's top card has its far corners over the cards below, or
    # against a chip).
    below = [card_quad(150 + k * 0.25 * W, 150, -20 + k * 12) for k in range(2)]
    top = card_quad(150 + 0.5 * W, 160, 25)
    mask = mask_of(*below, top, radius=3)
    chip = top[1] + 0.12 * (top[1] - top[0]) + 0.05 * (top[1] - top[2])
    cv2.circle(mask, (round(chip[0]), round(chip[1])), 9, 255, -1)
    (blob,) = find_blobs(mask, min_area=1000)
    near = [c for c in blob.corners if np.hypot(c.point[0] - top[2][0], c.point[1] - top[2][1]) < 3]
    assert len(near) == 1
    p = np.array(near[0].point)
    short, long = (top[3] - top[2]) / W, (top[1] - top[2]) / H  # unit sides leaving that corner
    card = Hypothesis(corners=np.array([p, p + short * W, p + short * W + long * H, p + long * H]))
    assert _long_side_seen(blob, card, 0, card_w=W)
    # Drawn a quarter turned about the same corner (long side along the card's short one), the
    # corner would be a blank one of that card: no proof.
    turned = Hypothesis(corners=np.array([p, p + long * W, p + long * W + short * H, p + short * H]))
    assert not _long_side_seen(blob, turned, 0, card_w=W)
    # Nor does a corner that is no outline corner prove anything.
    moved = Hypothesis(corners=card.corners + 5.0)
    assert not _long_side_seen(blob, moved, 0, card_w=W)


def _cornered(long_run: float, short_run: float) -> tuple[Blob, Hypothesis, Hypothesis]:
    """A blob whose one outline corner at (100, 100) runs ``long_run`` card widths down and
    ``short_run`` across, a card drawn from it that way round and one turned about it."""
    p = np.array([100.0, 100.0])
    across, down = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    corner = Corner(point=(100.0, 100.0), x_dir=(1.0, 0.0), y_dir=(0.0, 1.0), x_len=short_run * W, y_len=long_run * W)
    blob = Blob(contour=np.zeros((0, 1, 2), np.int32), corners=[corner], sides=[])
    card = Hypothesis(corners=np.array([p, p + across * W, p + across * W + down * H, p + down * H]))
    turned = Hypothesis(corners=np.array([p, p + down * W, p + down * W + across * H, p + across * H]))
    return blob, card, turned


def test_an_edge_longer_than_a_short_side_from_an_index_corner_measures_the_way_the_card_lies() -> None:
    # A raised top card (nicu-ornamental table 11006's 5h): 1.10 w along its long side, 0.96 w of
    # its short side straight; dondorf 502's Jh: 1.036 w and 0.78 w.
    for long_run, short_run in ((1.10, 0.96), (1.036, 0.78)):
        blob, card, turned = _cornered(long_run, short_run)
        assert _sides_measured(blob, card, 0, card_w=W)
        assert not _sides_measured(blob, turned, 0, card_w=W)
    # An edge no longer than a short side's straight part could be either side.
    blob, card, _turned = _cornered(1.0, 0.5)
    assert not _sides_measured(blob, card, 0, card_w=W)
    # Both edges over a card's width (a slid fan's collinear sides): either way is unsure.
    blob, card, turned = _cornered(1.1, 1.05)
    assert not _sides_measured(blob, card, 0, card_w=W)
    assert not _sides_measured(blob, turned, 0, card_w=W)
