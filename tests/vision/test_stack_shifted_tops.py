"""The card on top of a stack where the rectangle chosen for it lies on the card under it (``stack_tops``)."""

from __future__ import annotations

from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import backs_read, each_counted_once
from vision.deck import DeckProfile


def test_two_backs_dealt_6_mm_apart_are_two_cards(kennard: DeckProfile) -> None:
    # The outline of two backs 6 mm apart is mostly their shared corners: the one rectangle drawn
    # from it lies between the two cards (and is wider than a card), no rectangle is proposed for
    # the card on top, and the strip of the card under it is too thin for the rectangle off the
    # top to leave it showing. One card was counted for two. The back slid over the picture
    # around that rectangle matches best where the card on top lies.
    view = TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=-1.98,
        tilt_deg=2.56,
        distortion_k1=-0.0029,
        felt_bgr=(45, 105, 20),
        felt_texture="weave",
    )
    scene = Scene(
        cards=(
            SimCard(code="Js", x_mm=924.21, y_mm=283.72, angle_deg=328.59, face_up=False),
            SimCard(code="3h", x_mm=930.2, y_mm=282.95, angle_deg=328.47, face_up=False),
        ),
        lighting=Lighting(brightness=1.07, falloff=0.36, falloff_angle_deg=156.4, tint_bgr=(0.74, 0.95, 1.09)),
        optics=Optics(blur_sigma_px=1.3, noise_sigma=3.0, jpeg_quality=None),
    )
    truth, found = backs_read(kennard, view, scene, seed=3015)
    assert each_counted_once(truth, found), (truth, found)
