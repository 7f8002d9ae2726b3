"""``stack_tops``: when a rectangle a top was found beside stays a card; the card along a quad."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pytest

from vision.pipeline.back_in_place import WHOLE_FIT
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.stack_tops import _card_shaped, _still_lower, card_along

if TYPE_CHECKING:
    from vision.pipeline.back_tester import BackTester

CARD_W, CARD_H = 58.0, 82.0


class _Strips:
    """A back tester whose every strip matches the back in place as well as given (the default bar for a
    card seen whole)."""

    whole_fit = WHOLE_FIT

    def __init__(self, likeness: float) -> None:
        self.likeness = likeness

    def strip_likeness(self, hyp: Hypothesis, image: Any, covered: Any) -> float:
        return self.likeness


def _card(x: float, y: float) -> Hypothesis:
    return Hypothesis(
        corners=np.array([[x, y], [x + CARD_W, y], [x + CARD_W, y + CARD_H], [x, y + CARD_H]], np.float64)
    )


@pytest.mark.parametrize(
    ("offset", "likeness", "stays"),
    [
        (0.1, -0.2, False),  # a few pixels from the top, no strip of the back: the top's own border
        (0.1, 0.9, True),  # as near, the back in place: a card under it
        (0.25, -0.2, True),  # as far apart as dealt cards lie: two cards, whatever shows
    ],
)
def test_a_rectangle_near_the_top_found_beside_it_stays_only_when_its_strip_is_the_back(
    offset: float, likeness: float, stays: bool
) -> None:
    solid = np.full((300, 300), 255, np.uint8)  # all of it on the stack, no felt
    low, top = _card(100.0, 100.0), _card(100.0 + offset * CARD_W, 100.0)
    kept = _still_lower(
        low,
        top=top,
        chosen=[low],
        solid=solid,
        tester=cast("BackTester", _Strips(likeness)),
        image=np.zeros((1, 1, 3), np.uint8),
        card_w=CARD_W,
    )
    assert kept is stays


def test_a_rectangle_whose_strip_beside_the_top_is_felt_does_not_stay() -> None:
    solid = np.zeros((300, 300), np.uint8)
    low, top = _card(100.0, 100.0), _card(100.0 + 0.25 * CARD_W, 100.0)
    solid[100:182, 107:200] = 255  # half of what the top leaves of the rectangle is felt
    kept = _still_lower(
        low,
        top=top,
        chosen=[low],
        solid=solid,
        tester=cast("BackTester", _Strips(0.9)),
        image=np.zeros((1, 1, 3), np.uint8),
        card_w=CARD_W,
    )
    assert not kept


@pytest.mark.parametrize(
    ("wide", "tall", "one_card"),
    [
        (1.0, 1.0, True),  # the plane card
        (1.05, 1.05, True),  # a card in a barrelled corner: larger evenly both ways
        (1.08, 1.0, False),  # drawn round two cards a few mm apart: longer along their offset only
        (1.0, 1.07, False),
    ],
)
def test_a_card_shaped_rectangle_is_the_plane_card_scaled_evenly(wide: float, tall: float, one_card: bool) -> None:
    card = _card(0.0, 0.0).corners
    quad = card * np.array([wide, tall]) + 40.0
    assert _card_shaped(quad, card) is one_card


def test_a_rectangle_with_one_side_longer_than_its_opposite_is_no_card_shape() -> None:
    # Seed 3000's two backs 6.5 mm apart: the rectangle drawn from their outline's corners is
    # [62, 87, 59, 82] px round, 3 % larger on average both ways (as a card in a barrelled corner),
    # but a card's opposite sides are equally long: it is drawn from corners of two cards.
    card = _card(0.0, 0.0).corners
    quad = card.copy()
    quad[1] += (CARD_W * 0.06, 0.0)  # the top side 6 % longer than the bottom one
    quad[2] += (0.0, CARD_H * 0.06)  # the right side 6 % longer than the left one
    assert _card_shaped(card * 1.03, card)
    assert not _card_shaped(quad, card)


@pytest.mark.parametrize("clockwise", [True, False])
def test_the_card_along_a_skewed_quad_squared_is_turned_halfway_between_its_sides(clockwise: bool) -> None:
    # Snapped to corners of two cards of a stack (kennard table 19504's top): the quad's sides lie
    # 6 degrees off square. A card drawn along its first side alone is skewed as the quad is, and
    # slid and fitted never matches the back; the card is square, half the skew either way.
    quad = _card(0.0, 0.0).corners
    quad[[1, 2]] += (0.0, CARD_W * np.tan(np.radians(6.0)))  # the first side turned 6 degrees down
    if not clockwise:
        quad = quad[::-1].copy()
    card = card_along(quad, quad.mean(axis=0), card_w=CARD_W, card_h=CARD_H, square=True)
    skewed = card_along(quad, quad.mean(axis=0), card_w=CARD_W, card_h=CARD_H)
    sides = np.roll(card, -1, axis=0) - card
    lengths = np.hypot(*sides.T)
    assert np.allclose(lengths, [CARD_W, CARD_H, CARD_W, CARD_H])
    assert abs(float(np.dot(sides[0], sides[1]))) < 1e-6  # square
    turned = np.degrees(np.arctan2(sides[0][1], sides[0][0])) % 180.0
    assert turned == pytest.approx(3.0, abs=0.01)
    assert np.allclose(card.mean(axis=0), quad.mean(axis=0))
    assert abs(float(np.dot(skewed[1] - skewed[0], skewed[2] - skewed[1]))) > 1.0  # not squared unasked
