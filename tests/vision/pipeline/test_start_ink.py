"""A fan scan's start whose index box holds far less or far more ink than any registered index is not read."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.pipeline.canonical import CORNER, deck_named
from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.pipeline.corners import CornerReader
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.start_ink import index_ink_range


def _at(image: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """``image`` moved so that its pixel (dx, dy) lies at the corner read (CORNER)."""
    return np.ascontiguousarray(np.roll(image, (-dy, -dx), axis=(0, 1)))


@pytest.mark.parametrize("name", ["kennard", "standard", "dondorf", "nicu-white"])
def test_every_registered_index_is_read_where_blank_paper_and_a_court_picture_are_not(
    name: str, request: pytest.FixtureRequest
) -> None:
    deck = deck_named(name, request)
    reader = CornerReader(deck=deck, settings=RecognizerSettings())
    fewest, most = index_ink_range(deck)
    assert 0.0 < fewest < most < 1.0
    # No registered index corner is refused: as registered, a few pixels off (a start's corner is
    # a guess), or under a yellow lamp (paper 0.6 blue, 0.88 green of its red).
    for face in deck.faces:
        lit = np.clip(face * np.array([0.6, 0.88, 1.0]), 0, 255).astype(np.uint8)
        for image, (dx, dy) in ((face, (0, 0)), (face, (-4, -3)), (face, (3, 2)), (lit, (0, 0))):
            assert not reader.holds_none(_at(image, dx, dy), *CORNER)
    # Blank paper (the card below's margin where a band found a shadow's end), a box with a thin
    # stroke or two (a pip's edge) and one inked nearly all over (a court picture's dense colour)
    # hold none; one inked as a registered index typically is holds one.
    box = deck.index_box
    x0, y0 = round(box.x0 * CARD_PX_W), round(box.y0 * CARD_PX_H)
    x1, y1 = round(box.x1 * CARD_PX_W), round(box.y1 * CARD_PX_H)
    paper = deck.face("As")[2, CARD_PX_W // 2]

    def inked(share: float) -> np.ndarray:
        image = np.full((CARD_PX_H, CARD_PX_W, 3), paper, np.uint8)
        image[y0 : y0 + round(share * (y1 - y0)), x0:x1] = (40, 30, 120)
        return image

    assert reader.holds_none(inked(0.0), *CORNER)
    assert reader.holds_none(inked(0.5 * fewest), *CORNER)
    assert not reader.holds_none(inked(0.5 * (fewest + most / 2.0)), *CORNER)
    if most < 0.85:  # (kennard's and standard's faces: under 0.4 ink; dondorf's, nicu's more)
        assert reader.holds_none(inked(most + 0.05), *CORNER)
