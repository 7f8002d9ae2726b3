"""A stack's middle card whose rectangle the outline proposed a few pixels off: counted where it lies, once."""

from __future__ import annotations

from drivers.camera.sim import Lighting, Optics, Scene, Shadow, SimCard, TableView
from tests.vision.stacks import backs_read, each_counted_once
from vision.deck import DeckProfile


def test_a_middle_card_drawn_a_few_pixels_off_is_counted_not_dropped_as_counted_twice(hershey: DeckProfile) -> None:
    # Dev table 13003's three backs (tilted 26 degrees): the outline proposes a rectangle for the
    # middle card 9 px off it, lying almost wholly under the top and over the bottom card, so it
    # was dropped as a card counted twice (two backs for three cards). Placed on its strip it
    # matches the back there 0.88.
    view = TableView(
        table_w_mm=735.09,
        table_h_mm=411.65,
        roll_deg=3.96,
        tilt_deg=25.75,
        distortion_k1=-0.0287,
        felt_bgr=(110, 60, 20),
        felt_texture="mottled",
    )
    scene = Scene(
        cards=(
            SimCard(code="2d", x_mm=67.545, y_mm=204.356, angle_deg=189.507, face_up=False),
            SimCard(code="8h", x_mm=73.331, y_mm=209.984, angle_deg=185.807, face_up=False),
            SimCard(code="Ks", x_mm=86.154, y_mm=224.470, angle_deg=183.590, face_up=False),
        ),
        lighting=Lighting(
            brightness=0.8626,
            falloff=0.0737,
            falloff_angle_deg=27.19,
            shadows=(
                Shadow(x_mm=448.10, y_mm=348.14, width_mm=162.77, height_mm=85.84, angle_deg=69.92, strength=0.316),
            ),
        ),
        optics=Optics(blur_sigma_px=0.0, noise_sigma=0.0, jpeg_quality=95),
    )
    truth, found = backs_read(hershey, view, scene, seed=13003)
    assert each_counted_once(truth, found), (truth, found)
