"""A tight fan's middle card, its rectangle beside the cards read round it but turned from them, is read."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_fan_unread import _fan_outcomes
from vision.deck import DeckProfile
from vision.pipeline.explain import FANNED_APART, _fanned_apart
from vision.pipeline.hypotheses import Hypothesis
from vision.tools.kde_decks import kde_deck


@pytest.fixture(scope="module")
def nicu_white() -> DeckProfile:
    """KDE's nicu-white design (untuned), cached on disk once registered."""
    return kde_deck("nicu-white")


@pytest.mark.parametrize(
    ("seed", "codes"),
    [
        # Table 13005: a fan 4h, Kh, Qd turned about a corner; the Kh's centre 10 px from the Qd's
        # and 12 px from the 4h's, 12 degrees round from each. Its rectangle from two outline
        # corners was passed over as one of theirs drawn again (it reads Kh); it was unknown.
        (13005, ("4h", "Kh", "Qd")),
        # Table 6: a fan Kd, Ts, 6s; the Ts's rectangle 12 px from the 6s's centre, 13 degrees round.
        (6, ("Kd", "Ts", "6s")),
    ],
)
def test_a_tight_fans_middle_card_turned_from_the_cards_read_beside_it_is_read(
    nicu_white: DeckProfile, seed: int, codes: tuple[str, ...]
) -> None:
    roles, outcomes, everything = _fan_outcomes(nicu_white, seed, codes)
    assert roles == ["fan bottom", "fan middle", "fan top"]
    assert outcomes == ["correct"] * 3
    assert "misread" not in everything


def test_a_tight_fans_card_read_beside_others_to_no_avail_leaves_its_corner_to_the_fan_scan(
    kennard: DeckProfile,
) -> None:
    # The benchmark's table 509: the 9s of a fan 2s, 9s, Kh. Its rectangle turned from the two read
    # beside it shows an index (0.14) but names none; kept as seen there, its corners blocked the
    # fan scan's start, which reads 9s (0.54).
    roles, outcomes, everything = _fan_outcomes(kennard, 509, ("9s",))
    assert roles == ["fan middle"]
    assert outcomes == ["correct"]
    assert "misread" not in everything


def _quad(corner: tuple[float, float], degrees: float, w: float = 58.7) -> np.ndarray:
    """A card rectangle (index corner first, clockwise) turned ``degrees`` about ``corner``."""
    t = np.radians(degrees)
    x, y = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    c = np.array(corner)
    return np.array([c, c + w * x, c + w * x + 1.4 * w * y, c + 1.4 * w * y])


def test_only_a_rectangle_whose_index_corners_lie_apart_from_the_read_cards_corners_is_another_card() -> None:
    w = 58.7
    read = Hypothesis(corners=_quad((100.0, 100.0), 0.0), code="Qd")
    # Turned 12 degrees about the read card's blank corner (a fan's pivot): its index corners lie
    # 12+ px from the read card's corners.
    pivot = read.corners[3]
    t = np.radians(-12.0)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    fanned = Hypothesis(corners=(read.corners - pivot) @ rot.T + pivot)
    assert _fanned_apart(fanned, [read], w)
    # The read card's own rectangle drawn again a little turned about its index corner: the same card.
    again = Hypothesis(corners=_quad((101.0, 100.5), 12.0))
    assert not _fanned_apart(again, [read], w)
    # Moved so one index corner lies just inside the bar of a read card's corner: not apart.
    gap = read.corners[2] - fanned.corners[2]
    near = Hypothesis(corners=fanned.corners + gap * (1 - 0.9 * FANNED_APART * w / float(np.hypot(*gap))))
    assert not _fanned_apart(near, [read], w)
