"""An index whose rank and suit ran together is split at the deck's own gap between them, not at the
rank's waist; a rank found in pieces over a scrap is cut out whole at the index's edge."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_fan_misses import _read_right
from vision.deck import DeckProfile
from vision.index_glyphs import split_rank_suit
from vision.pipeline.corners import CornerReader
from vision.pipeline.settings import RecognizerSettings
from vision.scenes import random_table, render_table


def test_glyphs_run_together_are_split_near_the_decks_own_gap_not_at_the_ranks_waist() -> None:
    # One blob 40 rows tall: a rank (rows 0-23) with a 2-pixel waist at rows 15-16, its foot
    # joined to the suit (rows 27-39) by a 6-pixel bridge at rows 24-26.
    ink = np.zeros((40, 20), np.uint8)
    ink[0:15, 2:18] = 1
    ink[15:17, 9:11] = 1
    ink[17:24, 2:18] = 1
    ink[24:27, 7:13] = 1
    ink[27:40, 2:18] = 1
    box = (0, 0, 20, 40)
    # Looked for anywhere in the middle (rows 14-27), the least ink is the waist: a rank cut in two.
    assert split_rank_suit(ink, box) == ((2, 0, 18, 15), (2, 16, 18, 40))
    # The deck's gap at 0.62 of the index's height, the waist (0.39) is too far from it: looked for
    # again near it (rows 20-29), the least ink is the bridge.
    assert split_rank_suit(ink, box, share=0.62) == ((2, 0, 18, 24), (2, 25, 18, 40))
    # A split near the deck's gap is left as it was.
    assert split_rank_suit(ink, box, share=0.45) == split_rank_suit(ink, box)


def test_each_design_has_its_own_gap_between_rank_and_suit(dondorf: DeckProfile, hershey: DeckProfile) -> None:
    assert dondorf.rank_share == pytest.approx(0.575, abs=0.02)
    assert hershey.rank_share == pytest.approx(0.44, abs=0.02)


def test_a_fanned_index_whose_rank_runs_into_its_suit_reads_at_every_pose_a_pixel_about_its_corner(
    dondorf: DeckProfile,
) -> None:
    # The benchmark's table 11013: the fan's middle 9c, blurred, its 9's foot run into its suit and
    # the suit into the big pip beside it. Split at the rank's waist (0.39 of the index, where the
    # middle of the index was searched from 0.35) it read nothing at 4 in 10 poses a quarter pixel
    # apart, the fan scan's start among them: the card was missed.
    table = random_table(np.random.default_rng(11013))
    renderer, frame = render_table(dondorf, table, seed=11013)
    card = next(c for c in table.scene.cards if c.code == "9c" and c.face_up)
    quad = np.asarray(renderer.card_quad_px(card), np.float64)
    reader = CornerReader(deck=dondorf, settings=RecognizerSettings())
    reads = []
    for dx in np.linspace(-1.0, 1.0, 5):
        for dy in np.linspace(-1.0, 1.0, 5):
            reads.append(reader.read_index(frame, quad + np.array([dx, dy]), 0).code)
    assert reads == ["9c"] * 25


def test_a_fans_bottom_card_whose_rank_broke_in_pieces_over_a_scrap_is_read(dondorf: DeckProfile) -> None:
    # The benchmark's table 10016: a fan's bottom 5c, its blurred 5 run into the suit and the suit
    # into the pip, carved apart at the patch's border into the 5's top, its lower curve, and a
    # scrap found as a suit: an index a third of the registered one's height, which read nothing.
    # Cut at the registered index's right edge instead, as a rank found without its suit is, the
    # index is whole.
    _read_right(dondorf, seed=10016, code="5c", role="fan bottom")


def test_a_court_index_as_short_as_its_designs_own_is_not_taken_for_pieces(standard: DeckProfile) -> None:
    # The benchmark's table 3003: a lone Kc. Standard's registered indices stand 0.8 of their box
    # (every other design's 0.9 or more), so a blurred look's rank and suit can be a little under
    # that: taken for pieces of an index there (as under 0.8 they were), the cut at the box's edge
    # left the court card unread.
    _read_right(standard, seed=3003, code="Kc", role="single")
