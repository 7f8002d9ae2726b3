"""Fan cards by one outline corner: drawn from a skewed rounded corner, or an edge longer than a short side."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_fan_unread import _fan_outcomes
from vision.deck import DeckProfile
from vision.pipeline.explain import _squared_fills
from vision.pipeline.hypotheses import Hypothesis
from vision.tools.kde_decks import kde_deck


@pytest.fixture(scope="module")
def nicu_ornamental() -> DeckProfile:
    """KDE's nicu-ornamental design (untuned), cached on disk once registered."""
    return kde_deck("nicu-ornamental")


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


def test_a_card_whose_one_outline_corner_runs_an_edge_longer_than_a_short_side_is_read_there(
    dondorf: DeckProfile,
) -> None:
    # The benchmark's table 502: a fan Jh, Ac, Ks turned about a corner. The Jh shows one outline
    # corner, its index corner: 60.8 px straight along its long side (1.036 card widths, the rest
    # under the Ac) and 45.8 px along its short side. No card turned the other way about that
    # corner has a short side's straight part so long, so the corner's index (Jh 0.92) is read;
    # it was an unknown card.
    roles, outcomes, everything = _fan_outcomes(dondorf, 502, ("Jh", "Ac", "Ks"))
    assert roles == ["fan bottom", "fan middle", "fan top"]
    assert outcomes == ["correct"] * 3
    assert "misread" not in everything


def test_a_raised_top_card_whose_one_outline_corner_runs_its_long_side_is_read_there(
    nicu_ornamental: DeckProfile,
) -> None:
    # The benchmark's table 11006: a fan 7c, 2c, 5h; the 5h on top is 6 % larger than the plane's
    # card (raised). Its index corner's edges: 64.8 px along the long side (1.10 w, then a bend),
    # 56 px along the short side (0.96 w): read there, 5h 0.85 (it was an unknown card).
    roles, outcomes, everything = _fan_outcomes(nicu_ornamental, 11006, ("7c", "2c", "5h"))
    assert roles == ["fan bottom", "fan middle", "fan top"]
    assert outcomes == ["correct"] * 3
    assert "misread" not in everything
