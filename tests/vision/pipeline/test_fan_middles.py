"""The motion between two cards of a fan: the card between them and the next beyond, wherever the fan turns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.pipeline.shapes import H, W, card_quad
from vision.pipeline.fan_middles import _part_way, _turn
from vision.pipeline.geometry import turned


def _held(angle_deg: float, *, pivot: np.ndarray) -> np.ndarray:
    """A card turned ``angle_deg`` about ``pivot`` from a card lying square with its centre at the origin."""
    return turned(card_quad(0.0, 0.0, 0.0), angle_deg, about=pivot)


@pytest.mark.parametrize("spread", [12.0, 20.0, -16.0])
def test_the_card_between_two_of_a_hand_held_fan_is_the_one_turned_half_way_about_the_fingers(spread: float) -> None:
    # Cards fanned in the hand turn about the corner the fingers hold, each the same angle more.
    pivot = np.array([-W / 2, H / 2])
    bottom, middle, top = (_held(k * spread, pivot=pivot) for k in (0, 1, 2))
    turn = _turn(bottom, top)
    assert math.degrees(turn) == pytest.approx(2 * spread)
    assert np.allclose(_part_way(bottom, top, turn, 0.5), middle, atol=1e-6)
    # The card beyond a pair is the same motion on, or back.
    assert np.allclose(_part_way(bottom, middle, _turn(bottom, middle), 2.0), top, atol=1e-6)
    assert np.allclose(_part_way(middle, top, _turn(middle, top), -1.0), bottom, atol=1e-6)


def test_the_card_between_two_spread_along_their_side_lies_half_way_along_the_slide() -> None:
    bottom, middle, top = (card_quad(100.0 + k * 0.35 * W, 80.0, 30.0) for k in (0, 1, 2))
    # (Rounding leaves a turn of nothing measurable: a slide.)
    assert abs(_turn(bottom, top)) < 1e-9
    assert np.allclose(_part_way(bottom, top, 0.0, 0.5), middle)
    assert np.allclose(_part_way(bottom, middle, 0.0, 2.0), top)


def test_a_turn_is_measured_from_the_first_side_of_each() -> None:
    a = card_quad(0.0, 0.0, 10.0)
    assert math.degrees(_turn(a, card_quad(30.0, 5.0, 25.0))) == pytest.approx(15.0)
    assert math.degrees(_turn(a, card_quad(30.0, 5.0, -5.0))) == pytest.approx(-15.0)
