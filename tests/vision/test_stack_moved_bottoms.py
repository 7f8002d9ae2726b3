"""A stack's middle card is no strip the card under it leaves when drawn a few pixels off it."""

from __future__ import annotations

from drivers.camera.effects import Shadow
from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import backs_read, each_counted_once
from vision.tools.kde_decks import kde_deck


def test_no_middle_card_is_counted_where_the_card_under_the_top_lies_a_few_pixels_off() -> None:
    # Dev table 13006 (nicu-white), figures as generated: two backs (3c under Qh) and, apart, three
    # (Jc, 7c, Td). The rectangle chosen for the 3c lies 4 px off it, so a strip of the 3c shows
    # beside it, and a rectangle half way to the Qh matched it 0.62, 0.38 better than the 3c as
    # drawn: a third back was counted on two cards. The 3c moved 2 px onto it matches it 0.77.
    # The 7c, a true middle card, matches its strip 0.92 (the Jc moved onto it 0.83 at best).
    view = TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=0.0555,
        tilt_deg=2.8532,
        distortion_k1=-1.006e-05,
        felt_bgr=(70, 95, 60),
        felt_texture="plain",
    )
    scene = Scene(
        cards=(
            SimCard(code="3c", x_mm=80.0285, y_mm=103.2986, angle_deg=258.2486, face_up=False),
            SimCard(code="Qh", x_mm=70.5867, y_mm=95.0530, angle_deg=257.5352, face_up=False),
            SimCard(code="Td", x_mm=411.4697, y_mm=459.4612, angle_deg=55.1721, face_up=False),
            SimCard(code="7c", x_mm=403.2858, y_mm=462.6531, angle_deg=59.5691, face_up=False),
            SimCard(code="Jc", x_mm=391.3754, y_mm=441.4054, angle_deg=62.0219, face_up=False),
        ),
        lighting=Lighting(
            brightness=0.9623,
            falloff=0.1323,
            falloff_angle_deg=70.04,
            shadows=(
                Shadow(x_mm=736.70, y_mm=547.45, width_mm=254.95, height_mm=62.70, angle_deg=113.36, strength=0.3048),
            ),
        ),
        optics=Optics(blur_sigma_px=1.3, noise_sigma=0.0, jpeg_quality=95),
    )
    truth, found = backs_read(kde_deck("nicu-white"), view, scene, seed=13006)
    assert each_counted_once(truth, found), (truth, found)
