"""Index glyphs told from the lines beside them: a court picture's frame line, the card's own edge."""

from __future__ import annotations

import pytest

from tests.vision.bench_tables import read_at_true_corner
from vision.deck import DeckProfile
from vision.index import CARD_PX_H, CARD_PX_W, IndexBox, _edge_piece, glyph_bounds
from vision.pipeline.corners import CORNER_LEAD

# An index box as a corner patch places it (the registered box moved out by the patch's lead).
BOX = IndexBox(x0=0.05, y0=0.058, x1=0.2375, y1=0.375)
LEAD = CORNER_LEAD
THIN, SHORT = 0.02 * CARD_PX_W, 0.25 * (BOX.y1 - BOX.y0) * CARD_PX_H


def test_a_tall_bar_right_of_the_index_is_a_frame_line_only_where_frame_lines_are_asked() -> None:
    rank, suit, line = (13, 11, 31, 39), (13, 41, 31, 60), (35, 28, 39, 57)
    bounds = glyph_bounds([rank, suit, line], seed=(11, 10), limit=(41, 72), max_width=32, stacked_overlap=True)
    assert bounds is not None and bounds[0] == (13, 11, 39, 60)  # joined: the rank's box stretched
    bounds = glyph_bounds(
        [rank, suit, line], seed=(11, 10), limit=(41, 72), max_width=32, stacked_overlap=True, frame_lines=True
    )
    assert bounds is not None and bounds[0] == (13, 11, 31, 60)
    # A "10": its "1" is a tall bar too, but the first glyph, left of the "0": still joined.
    one, zero = (13, 11, 17, 37), (19, 11, 31, 37)
    bounds = glyph_bounds(
        [one, zero, suit], seed=(11, 10), limit=(41, 72), max_width=32, stacked_overlap=True, frame_lines=True
    )
    assert bounds is not None and bounds[0] == (13, 11, 31, 60)


@pytest.mark.parametrize(
    ("blob", "edge"),
    [
        ((6, 6, 16, 10, 35), True),  # the card's rounded corner: a hollow arc starting at the corner
        ((4, 16, 5, 21, 90), True),  # the card's edge blurred 5 px wide, ending 3 px past the corner
        ((13, 10, 19, 28, 315), False),  # a rank
        ((7, 7, 14, 20, 200), False),  # a solid glyph starting near the corner (a corner placed inside)
        ((8, 16, 5, 21, 90), False),  # a "1" starting 2 px inside the card
    ],
)
def test_the_cards_edge_and_rounded_corner_are_not_glyphs(blob: tuple[int, ...], edge: bool) -> None:
    assert _edge_piece(list(blob), carved=False, lead=LEAD, thin=THIN, short=SHORT) is edge


@pytest.mark.parametrize(("seed", "code"), [(502, "Jh"), (502, "Ks")])
def test_a_court_index_beside_its_frame_line_reads_at_its_corner(dondorf: DeckProfile, seed: int, code: str) -> None:
    # The benchmark's table 502: two court cards of a fan, blurred. Dondorf's picture frame runs
    # down beside the index, broken by the blur into a bar that was joined to the index (the rank's
    # box stretched over it: Jh read 7h 0.28, Ks 0.63).
    assert read_at_true_corner(dondorf, seed=seed, code=code) == code
