"""A blurred fan index read at its own fits only where it reads one card clearly and steadily."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vision.index_match import IndexMatch
from vision.pipeline.corners import UNKNOWN, CornerRead
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.soft_read import SoftLook

SETTINGS = RecognizerSettings()
BAR = SETTINGS.accept_score + 0.04  # the fan's bar (one_corner.FAN_EXTRA_SCORE)
ORIGIN = np.array([100.0, 200.0])
X_VEC, Y_VEC = np.array([60.0, 0.0]), np.array([0.0, 84.0])


def soft_read(code: str, *, fit: float, margin: float, soft: float = 0.15) -> CornerRead:
    """A corner read whose blur discount ``soft`` leaves its fit ``fit`` short of a read."""
    return CornerRead(UNKNOWN, 0.4, code, IndexMatch(code=code, score=fit - soft, margin=margin, soft=soft))


class PosedCorners:
    """A corner reader whose reads depend on the pose's offset from ORIGIN (whole pixels)."""

    def __init__(self, at: CornerRead, around: dict[tuple[int, int], CornerRead] | None = None) -> None:
        self.at = at
        self.around = around or {}

    def read(self, image: Any, origin: Any, x_vec: Any, y_vec: Any, *, pale: bool = True) -> CornerRead:
        dx, dy = (round(float(v)) for v in np.asarray(origin) - ORIGIN)
        return self.around.get((dx, dy), self.at)


def named(corners: PosedCorners) -> tuple[str, float] | None:
    look = SoftLook(settings=SETTINGS, corners=corners, bar=BAR)  # type: ignore[arg-type]
    return look.named(np.zeros((4, 4, 3), np.uint8), ORIGIN, X_VEC, Y_VEC)


def test_a_blurred_index_that_fits_its_card_clearly_at_every_pose_is_named() -> None:
    # standard's table 11009: the bottom fan's 6h (fit 0.88, margin 0.89, blur discount 0.17).
    look = named(PosedCorners(soft_read("6h", fit=0.88, margin=0.89, soft=0.17)))
    assert look is not None and look[0] == "6h"


def test_a_club_that_leads_the_spade_by_little_stays_unread() -> None:
    # kennard's table 11009: the bottom fan's 3c reads 3s at 0.79, its suit 0.84 against the club's
    # 0.71 (margin 0.25): steady, but no clearer than a blurred club passing for a spade.
    assert named(PosedCorners(soft_read("3s", fit=0.79, margin=0.25, soft=0.07))) is None


def test_a_sharp_index_short_of_the_bar_is_not_this_look() -> None:
    assert named(PosedCorners(soft_read("6h", fit=0.70, margin=0.9, soft=0.0))) is None


def test_a_fit_short_of_the_bar_even_without_its_discount_is_named_only_unanimous_and_clear() -> None:
    # kennard's table 11009: the top fan's 3d fits 0.59-0.72 at every look, each 0.44-0.71 clear.
    look = named(PosedCorners(soft_read("3d", fit=0.65, margin=0.55, soft=0.03)))
    assert look is not None and look[0] == "3d"
    # One look a pixel off losing the card, or leading it by little, leaves it unread.
    gone = CornerRead(UNKNOWN, 0.0, None, None)
    assert named(PosedCorners(soft_read("3d", fit=0.65, margin=0.55, soft=0.03), {(1, 0): gone})) is None
    dim = soft_read("3d", fit=0.65, margin=0.2, soft=0.03)
    assert named(PosedCorners(soft_read("3d", fit=0.65, margin=0.55, soft=0.03), {(0, 1): dim})) is None
    # Nor under the floor (SOFT_STEADY_FLOOR), however clear.
    assert named(PosedCorners(soft_read("3d", fit=0.5, margin=0.9, soft=0.03))) is None


def test_a_club_that_passes_for_a_spade_short_of_the_bar_stays_unread() -> None:
    # kennard's table 11009's 3c, as placed: 3s at 0.72 + 0.07, 0.25 clear of the club.
    assert named(PosedCorners(soft_read("3s", fit=0.72, margin=0.25, soft=0.07))) is None


@pytest.mark.parametrize(
    "other",
    [
        CornerRead("8h", 0.6, "8h", IndexMatch(code="8h", score=0.8, margin=0.5)),  # another card outright
        soft_read("5h", fit=0.8, margin=0.6),  # another card's index, fairly
    ],
)
def test_a_pose_a_pixel_away_that_shows_another_card_refuses(other: CornerRead) -> None:
    corners = PosedCorners(soft_read("6h", fit=0.88, margin=0.89), {(1, 1): other})
    assert named(corners) is None


def test_an_index_that_falls_away_a_pixel_off_is_not_steady() -> None:
    gone = CornerRead(UNKNOWN, 0.0, None, None)
    corners = PosedCorners(soft_read("6h", fit=0.88, margin=0.89), {(1, 0): gone, (0, 1): gone})
    assert named(corners) is None
    # One pose lost (a glyph's edge cut) is within FAN_STEADY_AGREE.
    assert named(PosedCorners(soft_read("6h", fit=0.88, margin=0.89), {(1, 0): gone})) is not None


def test_the_middle_of_the_looks_must_clear_the_bar() -> None:
    weak = soft_read("6h", fit=0.5, margin=0.89)
    around = {(1, 0): weak, (0, 1): weak, (-1, 0): weak, (0, -1): weak, (1, 1): weak}
    assert named(PosedCorners(soft_read("6h", fit=0.88, margin=0.89), around)) is None
