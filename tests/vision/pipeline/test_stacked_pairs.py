"""Two backs dealt tight, one rectangle drawn round both: both are counted."""

from __future__ import annotations

from drivers.camera.effects import Shadow
from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import backs_read, each_counted_once
from vision.deck import DeckProfile


def test_both_backs_of_a_pair_drawn_round_as_one_rectangle_are_counted(kennard: DeckProfile) -> None:
    # Dev table 13010 (kennard), figures as generated: Td under Tc, 0.1 of a card apart. The
    # outline proposed one rectangle spanning both (6.5 % wider than a card, a card's length):
    # it matches the back whole 0.82, as a card placed right does, so no stack showed beyond it
    # and the Td was missed. The plane card at its corners, fitted to the back, matches 0.97.
    view = TableView(
        width_px=1920,
        height_px=1080,
        table_w_mm=857.375,
        table_h_mm=480.13,
        keystone=0.0,
        roll_deg=-2.5318,
        felt_bgr=(70, 95, 60),
        tilt_deg=16.3140,
        distortion_k1=-0.0160017,
        felt_texture="mottled",
    )
    scene = Scene(
        cards=(
            # (The fan of three faces beside the pair: without it the plane's card size differs and
            # the outline proposes other rectangles.)
            SimCard(code="3c", x_mm=481.9526, y_mm=238.0955, angle_deg=-11.9981, face_up=True),
            SimCard(code="9c", x_mm=500.8763, y_mm=234.0738, angle_deg=-11.9981, face_up=True),
            SimCard(code="5d", x_mm=519.8000, y_mm=230.0521, angle_deg=-11.9981, face_up=True),
            SimCard(code="Td", x_mm=498.7377, y_mm=81.5918, angle_deg=117.7710, face_up=False),
            SimCard(code="Tc", x_mm=493.8693, y_mm=85.5266, angle_deg=115.4304, face_up=False),
        ),
        lighting=Lighting(
            brightness=0.4610,
            falloff=0.3323,
            falloff_angle_deg=161.66,
            tint_bgr=(0.8352, 0.9670, 1.0549),
            shadows=(
                Shadow(
                    x_mm=591.5715,
                    y_mm=2.1174,
                    width_mm=203.0579,
                    height_mm=72.5443,
                    angle_deg=143.8682,
                    strength=0.3393,
                ),
                Shadow(
                    x_mm=746.8563,
                    y_mm=33.7262,
                    width_mm=168.5007,
                    height_mm=60.2446,
                    angle_deg=79.1086,
                    strength=0.3932,
                ),
            ),
        ),
        optics=Optics(blur_sigma_px=0.0, noise_sigma=3.0, jpeg_quality=None, motion_angle_deg=122.13),
    )
    truth, found = backs_read(kennard, view, scene, seed=13010)
    backs = truth[3:]  # (the fan's faces are no backs)
    assert each_counted_once(backs, found), (backs, found)
