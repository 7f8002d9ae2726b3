"""Backs counted where no card lies (phantoms): a lone back in a barrelled corner counted once."""

from __future__ import annotations

from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import backs_read, each_counted_once
from vision.deck import DeckProfile

# Generated table 11005's lone back (figures as drawn), near the frame's corner of a barrelled view:
# it shows longer than the plane's card, the top was fitted to its near end and the rectangle chosen
# before kept at its far end as a card under it (the fine back compared softened made both pass).
_VIEW_11005 = TableView(
    table_w_mm=698.3372960937497,
    table_h_mm=391.0688858124999,
    roll_deg=-2.713707692611468,
    felt_bgr=(40, 30, 110),
    tilt_deg=28.867466410820303,
    distortion_k1=-0.0406601112802137,
    felt_texture="mottled",
)
_LONE_11005 = SimCard(
    code="6s", x_mm=62.48969546961749, y_mm=323.29900087977126, angle_deg=60.88520509389881, face_up=False
)
_LIGHT_11005 = Lighting(
    brightness=1.1203087804652947,
    falloff=0.15535355970346384,
    falloff_angle_deg=139.3216046573516,
    tint_bgr=(0.8149259468757579, 0.9629851893751515, 1.061691351041414),
)
_OPTICS_11005 = Optics(blur_sigma_px=0.8, noise_sigma=3.0, jpeg_quality=95, motion_angle_deg=81.29113739181938)


def test_a_lone_back_seen_longer_than_the_plane_card_is_counted_once(standard: DeckProfile) -> None:
    scene = Scene(cards=(_LONE_11005,), lighting=_LIGHT_11005, optics=_OPTICS_11005)
    truth, backs = backs_read(standard, _VIEW_11005, scene, seed=11005)
    assert each_counted_once(truth, backs), (truth, backs)
