"""A back of a stack whose strip looks like paper is no face-up card."""

from __future__ import annotations

import dataclasses

import numpy as np

from drivers.camera.sim import TableRenderer
from vision.deck import DeckProfile
from vision.recognize import BACK, Recognizer
from vision.scenes import random_table, view_calibration


def test_a_stacked_back_under_a_glare_band_is_not_taken_for_a_face(hershey: DeckProfile) -> None:
    # Three backs dealt on one another on red cloth, dim warm light and a glare band across them
    # (development table 709, its stack alone): the bottom card's strip fits the back's signature
    # poorly and its pale border reads as paper, so it was an unknown face-up card where a back
    # lies. A card lying square with backs is the stack's to count, never a face.
    table = random_table(np.random.default_rng(709))
    stack = tuple(c for c in table.scene.cards if c.code in ("Kh", "Qd", "8c"))
    assert len(stack) == 3 and not any(c.face_up for c in stack)
    scene = dataclasses.replace(table.scene, cards=stack, chips=())
    renderer = TableRenderer(deck=hershey, view=table.view, seed=1)
    reading = Recognizer(deck=hershey, calibration=view_calibration(table.view)).read(renderer.render(scene, seed=1))
    assert not [c for c in reading.cards if c.code != BACK], reading.cards
    # The card on top is still counted.
    assert len([c for c in reading.cards if c.code == BACK]) >= 1
