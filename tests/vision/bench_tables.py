"""The benchmark's random tables in tests: one read whole, its lone-card reader, one card read where it lies."""

from __future__ import annotations

import numpy as np

from drivers.camera.sim import TableRenderer
from vision.deck import DeckProfile
from vision.pipeline.corners import CornerReader
from vision.pipeline.lone_card import LoneCardReader
from vision.pipeline.settings import RecognizerSettings
from vision.recognize import FrameReading, Recognizer
from vision.scenes import Table, random_table, render_table, view_calibration


def read_table(deck: DeckProfile, *, seed: int) -> tuple[Table, TableRenderer, FrameReading]:
    """The benchmark's table ``seed`` (as ``bench vision --seed`` renders it), its renderer (for
    the truth's positions) and what the recognizer reads on it with the table's calibration."""
    table = random_table(np.random.default_rng(seed))
    renderer, frame = render_table(deck, table, seed=seed)
    return table, renderer, Recognizer(deck=deck, calibration=view_calibration(table.view)).read(frame)


def codes_at(deck: DeckProfile, *, seed: int, code: str) -> list[str]:
    """What the recognizer reads within the benchmark's match distance (22 px) of the face-up
    ``code`` on the benchmark's table ``seed`` (see ``read_table``)."""
    table, renderer, reading = read_table(deck, seed=seed)
    card = next(c for c in table.scene.cards if c.code == code and c.face_up)
    centre = renderer.card_quad_px(card).mean(axis=0)
    return [c.code for c in reading.cards if float(np.hypot(*(np.array(c.center) - centre))) < 22]


def lone_reader(deck: DeckProfile, *, seed: int) -> tuple[np.ndarray, LoneCardReader]:
    """The frame of the benchmark's table ``seed`` and the lone-card reader of a recognizer
    calibrated to it (to read one lone card at a given outline)."""
    table = random_table(np.random.default_rng(seed))
    _, frame = render_table(deck, table, seed=seed)
    return frame, Recognizer(deck=deck, calibration=view_calibration(table.view)).lone


def read_at_true_corner(deck: DeckProfile, *, seed: int, code: str) -> str:
    """What the corner reader reads at the true index corner of the face-up ``code`` on the
    benchmark's table ``seed`` (as ``bench vision --seed`` renders it): the index alone, with no
    placement error."""
    table = random_table(np.random.default_rng(seed))
    renderer, frame = render_table(deck, table, seed=seed)
    card = next(c for c in table.scene.cards if c.code == code and c.face_up)
    q = renderer.card_quad_px(card)
    return CornerReader(deck=deck, settings=RecognizerSettings()).read_index(frame, q, 0).code
