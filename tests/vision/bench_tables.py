"""The benchmark's random tables in tests: one card of a table read where it truly lies."""

from __future__ import annotations

import numpy as np

from vision.deck import DeckProfile
from vision.pipeline.corners import CornerReader
from vision.pipeline.settings import RecognizerSettings
from vision.scenes import random_table, render_table


def read_at_true_corner(deck: DeckProfile, *, seed: int, code: str) -> str:
    """What the corner reader reads at the true index corner of the face-up ``code`` on the
    benchmark's table ``seed`` (as ``bench vision --seed`` renders it): the index alone, with no
    placement error."""
    table = random_table(np.random.default_rng(seed))
    renderer, frame = render_table(deck, table, seed=seed)
    card = next(c for c in table.scene.cards if c.code == code and c.face_up)
    q = renderer.card_quad_px(card)
    return CornerReader(deck=deck, settings=RecognizerSettings()).read_index(frame, q, 0).code
