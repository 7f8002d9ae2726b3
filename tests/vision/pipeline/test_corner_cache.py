"""The corner reader's per-frame memory: a read served again only for the same picture and the exact same pose."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from drivers.camera.sim import Optics, Scene, SimCard, TableRenderer, TableView
from vision.deck import DeckProfile
from vision.pipeline.corners import CornerReader
from vision.pipeline.settings import RecognizerSettings

CARD = SimCard(code="Qh", x_mm=300, y_mm=250, angle_deg=20)


@pytest.fixture
def frame_of(kennard: DeckProfile) -> tuple[CornerReader, np.ndarray, np.ndarray]:
    """A corner reader for kennard, a frame holding CARD, and the card's quad in it."""
    renderer = TableRenderer(deck=kennard, view=TableView(tilt_deg=15.0))
    frame = renderer.render(Scene(cards=(CARD,), optics=Optics()), seed=5)
    return CornerReader(deck=kennard, settings=RecognizerSettings()), frame, renderer.card_quad_px(CARD)


def test_the_same_pose_is_read_once_a_frame(frame_of: tuple[CornerReader, np.ndarray, np.ndarray]) -> None:
    reader, frame, q = frame_of
    first = reader.read(frame, q[0], q[1] - q[0], q[3] - q[0])
    again = reader.read(frame, q[0].copy(), (q[1] - q[0]).copy(), (q[3] - q[0]).copy())
    assert first.code == CARD.code and again == first and reader.count == 1


def test_a_pose_a_fraction_of_a_pixel_off_is_read_for_itself(
    frame_of: tuple[CornerReader, np.ndarray, np.ndarray],
) -> None:
    # 0.004 px is under the key's former rounding (0.01 px), which served the first pose's read for it.
    reader, frame, q = frame_of
    origin, x_vec, y_vec = np.round(q[0], 2), np.round(q[1] - q[0], 2), np.round(q[3] - q[0], 2)
    reader.read(frame, origin, x_vec, y_vec)
    reader.read(frame, origin + 0.004, x_vec, y_vec)
    reader.read(frame, origin, x_vec - 0.004, y_vec)
    assert reader.count == 3


def test_the_same_pose_on_another_picture_is_read_again(
    frame_of: tuple[CornerReader, np.ndarray, np.ndarray],
) -> None:
    reader, frame, q = frame_of
    reader.read(frame, q[0], q[1] - q[0], q[3] - q[0])
    blank = np.full_like(frame, 60)
    assert reader.read(blank, q[0], q[1] - q[0], q[3] - q[0]).best is None
    assert reader.count == 2


def test_reads_do_not_survive_the_frame(frame_of: tuple[CornerReader, np.ndarray, np.ndarray]) -> None:
    reader, frame, q = frame_of
    reader.read(frame, q[0], q[1] - q[0], q[3] - q[0])
    reader.new_frame()
    # The camera's next frame in the same buffer: a different picture, read afresh.
    frame[:] = 60
    assert reader.read(frame, q[0], q[1] - q[0], q[3] - q[0]).best is None


def test_a_read_picture_is_held_until_the_frame_ends(
    frame_of: tuple[CornerReader, np.ndarray, np.ndarray],
) -> None:
    # A key names its picture by id: were the picture freed within the frame, a new one at the
    # same address could be served its reads. Held, it cannot be; after new_frame it is let go.
    reader, frame, q = frame_of
    picture = frame.copy()
    held = weakref.ref(picture)
    reader.read(picture, q[0], q[1] - q[0], q[3] - q[0])
    del picture
    gc.collect()
    assert held() is not None
    reader.new_frame()
    gc.collect()
    assert held() is None
