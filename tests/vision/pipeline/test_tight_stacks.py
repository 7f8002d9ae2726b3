"""Three backs dealt tight: the top and the middle card are each counted once."""

from __future__ import annotations

from drivers.camera.effects import GlareBand, Shadow
from drivers.camera.sim import Glare, Lighting, Optics, Scene, SimCard, TableView
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


def test_the_middle_card_under_a_top_drawn_a_pixel_off_is_counted(kennard: DeckProfile) -> None:
    # Dev table 11018's stack (kennard), figures as generated: Th, 9c, Kh. The top's rectangle lay
    # a pixel or two off (whole 0.69; fitted 0.93), so the middle card was looked for 0.15 of a
    # card's width from the Th's rectangle, and the 9c lies 0.14 from it: two backs counted.
    view = TableView(
        width_px=1920,
        height_px=1080,
        table_w_mm=773.7809374999998,
        table_h_mm=433.3173249999999,
        keystone=0.0,
        roll_deg=-0.46209533796468794,
        felt_bgr=(95, 30, 70),
        tilt_deg=23.24853701443597,
        distortion_k1=-0.010582583474903096,
        felt_texture="plain",
    )
    scene = Scene(
        cards=(
            SimCard(
                code="Th", x_mm=65.05048813043287, y_mm=73.9516909546174, angle_deg=328.2858709766886, face_up=False
            ),
            SimCard(
                code="9c", x_mm=64.61851941612653, y_mm=81.69772967230735, angle_deg=325.1736924075507, face_up=False
            ),
            SimCard(
                code="Kh", x_mm=77.53691116546139, y_mm=89.24744938806705, angle_deg=323.47085745843503, face_up=False
            ),
        ),
        lighting=Lighting(
            brightness=0.8978508416291409,
            falloff=0.29265766192829523,
            falloff_angle_deg=105.42492625257673,
            tint_bgr=(1.0, 1.0, 1.0),
            glare=(
                Glare(
                    x_mm=252.67751512440586,
                    y_mm=180.4636906561204,
                    radius_mm=45.04632900864328,
                    strength=0.5528327426718362,
                ),
            ),
            shadows=(
                Shadow(
                    x_mm=481.7934483449395,
                    y_mm=212.11469984139185,
                    width_mm=180.66047942076378,
                    height_mm=81.75003813578147,
                    angle_deg=41.035659813643846,
                    strength=0.34322533993274507,
                ),
                Shadow(
                    x_mm=135.40402542509491,
                    y_mm=17.211594347116538,
                    width_mm=191.51662116064813,
                    height_mm=114.16088637810051,
                    angle_deg=73.93482471444254,
                    strength=0.43070973652666594,
                ),
            ),
        ),
        optics=Optics(blur_sigma_px=1.3, noise_sigma=0.0, jpeg_quality=80, motion_angle_deg=69.68238134449587),
    )
    truth, found = backs_read(kennard, view, scene, seed=11018, settings=_SETTINGS)
    assert len(found) == len(truth) and no_back_where_no_card_lies(truth, found), (truth, found)
