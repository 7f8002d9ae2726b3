"""A back whose own picture crosses its ground, on a cloth of the ground's colour: seen whole, counted."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.recognize import BACK, Recognizer
from vision.scenes import random_table, render_table, view_calibration
from vision.tools.kde_decks import kde_deck


@pytest.mark.slow  # registers KDE's nicu-white design the first time on a machine (about 20 s)
def test_single_backs_whose_picture_crosses_their_ground_are_counted_on_a_cloth_of_that_colour() -> None:
    # KDE's nicu-white back: a fan of cards on a blue ground. On blue cloth the ground is felt to
    # the hue test; the back's border and its picture close two pockets of ground of a fifth of a
    # card each, less than a card's body, so such a back was not seen whole and its single backs
    # went uncounted (a generated table of seed 3001, blue cloth, glare and shadow: 3c). Each
    # single back is counted once, and no back is counted where no card lies face down.
    deck = kde_deck("nicu-white")
    table = random_table(np.random.default_rng(3001))
    renderer, frame = render_table(deck, table, seed=3001)
    reading = Recognizer(deck=deck, calibration=view_calibration(table.view)).read(frame)
    found = [c.center for c in reading.cards if c.code == BACK]
    downs = [tuple(renderer.card_quad_px(c).mean(axis=0)) for c in table.scene.cards if not c.face_up]
    singles = [
        tuple(renderer.card_quad_px(c).mean(axis=0))
        for c, role in zip(table.scene.cards, table.roles, strict=True)
        if role == "single back"
    ]
    assert singles
    assert all(sum(math.dist(s, b) < 22 for b in found) == 1 for s in singles), (singles, found)
    assert all(min(math.dist(b, d) for d in downs) < 22 for b in found), (downs, found)
