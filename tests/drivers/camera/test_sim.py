"""The simulated camera draws a scene again only when it changed or its sensor adds noise."""

from __future__ import annotations

import numpy as np

from drivers.camera.sim import Optics, Scene, SimCard, SimulatedCamera, TableView
from vision.deck import default_deck


def test_an_unchanged_scene_is_not_drawn_again() -> None:
    camera = SimulatedCamera(deck=default_deck(), view=TableView(width_px=320, height_px=180))
    camera.scene = Scene(cards=(SimCard(code="As", x_mm=500, y_mm=280),))
    first, second = camera.read(), camera.read()
    assert first is not None and second is not None and camera.renders == 1
    assert np.array_equal(first.image, second.image)
    # The frame handed out is the reader's own: changing it does not change the next one.
    first.image[:] = 0
    third = camera.read()
    assert third is not None and np.array_equal(third.image, second.image)
    # An equal scene given anew is still the same picture; another card is a new one.
    camera.scene = Scene(cards=(SimCard(code="As", x_mm=500, y_mm=280),))
    assert camera.read() is not None and camera.renders == 1
    camera.scene = Scene(cards=(SimCard(code="As", x_mm=500, y_mm=280, face_up=False),))
    moved = camera.read()
    assert moved is not None and camera.renders == 2 and not np.array_equal(moved.image, second.image)


def test_a_noisy_sensor_gives_a_new_picture_every_frame() -> None:
    camera = SimulatedCamera(deck=default_deck(), view=TableView(width_px=320, height_px=180))
    camera.scene = Scene(optics=Optics(noise_sigma=4.0))
    first, second = camera.read(), camera.read()
    assert first is not None and second is not None and camera.renders == 2
    assert not np.array_equal(first.image, second.image)
