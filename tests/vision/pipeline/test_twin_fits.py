"""The twin check's fits, all looks at once, are OpenCV's normalised correlations; its verdicts on crafted indices."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, DeckProfile
from vision.pipeline.twin_suit import TWIN_LEAD, TWIN_NEAR, TwinSuit, twin_of

# The canonical card as the frame: the warp to the index patch is the identity.
X_VEC = np.array([float(CARD_PX_W), 0.0])
Y_VEC = np.array([0.0, float(CARD_PX_H)])


def _blend(deck: DeckProfile, code: str, share: float) -> np.ndarray:
    """``code``'s face blended with its twin's (``share`` of ``code``'s), blurred a pixel: an index
    between the two suits, as near to either as the share says."""
    a, b = (deck.faces[CODES.index(c)].astype(np.float32) for c in (code, twin_of(code)))
    blended = np.clip(share * a + (1 - share) * b, 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(blended, (0, 0), 1.0))


def _opencv_fits(
    twins: TwinSuit, patch: np.ndarray, at: tuple[int, int], code: str, *, whole: bool
) -> tuple[float, ...]:
    """The fits as first written: one matchTemplate (TM_CCOEFF_NORMED) per look of each card, over
    the patch within TWIN_NEAR pixels of ``at``."""
    (x0, y0, x1, y1), _rows, _mine, _theirs = twins._registered.pair(code, whole=whole)
    x, y = at[0] + x0, at[1] + y0
    near = patch[max(y - TWIN_NEAR, 0) : y + (y1 - y0) + TWIN_NEAR, max(x - TWIN_NEAR, 0) : x + (x1 - x0) + TWIN_NEAR]
    return tuple(
        max(
            float(cv2.matchTemplate(near, np.ascontiguousarray(t[y0:y1, x0:x1]), cv2.TM_CCOEFF_NORMED).max())
            for t in twins._looks(c)
        )
        for c in (code, twin_of(code))
    )


@pytest.mark.parametrize("shift", [0.0, 11.0])
def test_the_looks_fitted_at_once_are_opencvs_normalised_correlations(kennard: DeckProfile, shift: float) -> None:
    # A shift of 11 px puts the index at the patch's corner: the shifts tried are cut at its edge.
    twins = TwinSuit(deck=kennard)
    image = _blend(kennard, "4c", 0.51)
    patch, at = twins._located(image, np.array([shift, shift]), X_VEC, Y_VEC, code="4c")
    assert (min(at) < TWIN_NEAR) == (shift > 0)
    for whole in (True, False):
        fits = twins._fits(patch, at, "4c", whole=whole)
        assert fits == pytest.approx(_opencv_fits(twins, patch, at, "4c", whole=whole), abs=1e-5)


@pytest.mark.parametrize(
    ("share", "club", "spade"),
    [(0.3, False, True), (0.49, False, False), (0.51, False, False), (0.53, True, False), (0.7, True, False)],
)
def test_an_index_between_club_and_spade_holds_for_the_suit_it_fits_clearly(
    kennard: DeckProfile, share: float, club: bool, spade: bool
) -> None:
    # Mostly the spade: only the spade holds; half and half: neither; a hair more club (0.51): its
    # suit leads by TWIN_LEAD, yet within a quarter of the noise between the looks (TELL_APART):
    # neither; a little more (0.53): the club holds.
    twins = TwinSuit(deck=kennard)
    image = _blend(kennard, "4c", share)
    origin = np.zeros(2)
    assert twins.holds(image, origin, X_VEC, Y_VEC, code="4c") is club
    assert twins.holds(image, origin, X_VEC, Y_VEC, code="4s") is spade
    if share == 0.51:
        patch, at = twins._located(image, origin, X_VEC, Y_VEC, code="4c")
        own, other = twins._fits(patch, at, "4c", whole=True)
        assert 0 < own - other < TWIN_LEAD
        own, other = twins._fits(patch, at, "4c", whole=False)
        assert own - other >= TWIN_LEAD


def test_a_blank_index_fits_no_look_and_is_not_judged(kennard: DeckProfile) -> None:
    # A flat patch correlates with nothing (0, as OpenCV's): the check has nothing to judge by.
    twins = TwinSuit(deck=kennard)
    blank = np.full((CARD_PX_H, CARD_PX_W, 3), 200, dtype=np.uint8)
    patch, at = twins._located(blank, np.zeros(2), X_VEC, Y_VEC, code="7c")
    assert twins._fits(patch, at, "7c", whole=True) == (0.0, 0.0)
    assert twins.holds(blank, np.zeros(2), X_VEC, Y_VEC, code="7c")


def test_a_deck_whose_twins_look_alike_is_judged_without_a_suit(kennard: DeckProfile) -> None:
    # Every pair's looks are made with the first check: a 4s drawn as the 4c has no suit to tell
    # them by, and neither card leads the other.
    faces = kennard.faces.copy()
    faces[CODES.index("4s")] = faces[CODES.index("4c")]
    twins = TwinSuit(deck=dataclasses.replace(kennard, faces=faces))
    image = _blend(kennard, "4c", 1.0)
    assert not twins.holds(image, np.zeros(2), X_VEC, Y_VEC, code="4c")
