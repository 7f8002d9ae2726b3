"""Three backs dealt tight under one rectangle: the top and the middle card are each counted once."""

from __future__ import annotations

from drivers.camera.effects import GlareBand
from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import backs_read, no_back_where_no_card_lies
from vision.deck import DeckProfile
from vision.pipeline.settings import RecognizerSettings

# (As the benchmark reads its tables: the card size is the plane's, not the lens'.)
_SETTINGS = RecognizerSettings(lens_card_size=False)


def test_a_rectangle_drawn_round_three_tight_backs_gives_the_top_and_the_card_under_it(kennard: DeckProfile) -> None:
    # Dev table 11011's stack (kennard), figures as generated: Kd, 3c, 7s dealt 0.06-0.13 of a card's
    # width apart. The outline proposed one rectangle round all three, 1.089 of the plane card each
    # way, matching the back whole 0.79 (no card): one back was counted. Its card-sized end fitted
    # is the 7s (0.94), and the 3c's strip lies beyond it on the side opposite the Kd's. (The Kd
    # shows only plain border: no look tells it.)
    view = TableView(
        width_px=1920,
        height_px=1080,
        table_w_mm=1000.0,
        table_h_mm=560.0,
        keystone=0.0,
        roll_deg=1.8283428827677737,
        felt_bgr=(45, 105, 20),
        tilt_deg=0.8246775572123632,
        distortion_k1=-0.028360835027647302,
        felt_texture="plain",
    )
    scene = Scene(
        cards=(
            SimCard(
                code="Kd", x_mm=745.4221513821378, y_mm=475.24509422284916, angle_deg=284.8193308799065, face_up=False
            ),
            SimCard(
                code="3c", x_mm=737.4814454042373, y_mm=476.15926569941007, angle_deg=286.1495061129299, face_up=False
            ),
            SimCard(
                code="7s", x_mm=741.7302202567814, y_mm=481.18608885842275, angle_deg=284.1107356123221, face_up=False
            ),
        ),
        lighting=Lighting(
            brightness=1.0281998195043598,
            falloff=0.08509374990816082,
            falloff_angle_deg=155.99580917304542,
            tint_bgr=(1.0, 1.0, 1.0),
            bands=(
                GlareBand(
                    x_mm=643.3671456006907,
                    y_mm=142.32169688891108,
                    angle_deg=13.048748766557445,
                    width_mm=28.319070989429665,
                    strength=0.3411188442563477,
                ),
            ),
        ),
        optics=Optics(blur_sigma_px=0.0, noise_sigma=6.0, jpeg_quality=None, motion_angle_deg=42.05830485023367),
    )
    truth, found = backs_read(kennard, view, scene, seed=11011, settings=_SETTINGS)
    # Two backs, each on a card of its own (one back lay between the three before).
    assert len(found) >= 2 and no_back_where_no_card_lies(truth, found), (truth, found)
