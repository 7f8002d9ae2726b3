"""A rectangle across a stack's chosen backs is not its top when a card lying square with them matches better."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.stacks import each_counted_once
from vision.deck import DeckProfile
from vision.recognize import BACK, Recognizer
from vision.scenes import random_table, render_table, view_calibration


@pytest.mark.slow  # a whole benchmark table (seed 13000's 13005) on KDE's standard design
def test_a_rectangle_across_a_pair_does_not_replace_its_cards(standard: DeckProfile) -> None:
    # Two backs dealt a third of a card apart along their short sides (2s under Jh, dim warm light,
    # blur): the outline chose the 2s, and a rectangle of the pool turned a quarter from it, fitted
    # to the back, matched it whole 0.62 against the 2s' 0.54, so ``_turned_tops`` put it in the 2s'
    # place as the card on top, and the rectangle under it was counted: two backs, neither on a card
    # (two missed, two phantoms). The Jh's own rectangle lay in the pool square with the 2s,
    # matching the back whole 0.97: the card on top.
    table = random_table(np.random.default_rng(13005))
    renderer, frame = render_table(standard, table, seed=13005)
    reading = Recognizer(deck=standard, calibration=view_calibration(table.view)).read(frame)
    stack = [c for c in table.scene.cards if c.code in ("2s", "Jh") and not c.face_up]
    truth = [(float(x), float(y)) for x, y in (renderer.card_quad_px(c).mean(axis=0) for c in stack)]
    near = [c.center for c in reading.cards if c.code == BACK and min(math.dist(c.center, t) for t in truth) < 60]
    assert len(stack) == 2
    assert each_counted_once(truth, near), (truth, near)
