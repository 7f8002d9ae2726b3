"""slid_backs: a stack of three by a chip and a face-up card counts its bottom card; slid only beside a strip."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.effects import SimChip
from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import ON_CARD_PX, backs_read, no_back_where_no_card_lies
from vision.deck import DeckProfile
from vision.pipeline.geometry import drawn
from vision.pipeline.slid_backs import _beside, _grown

ByteImage = npt.NDArray[Any]

# Generated table 11019 (figures as drawn), its stack of three backs a few millimetres apart with
# the face-up 9c and a stack of black chips against it: the blob holds all three, so the outline's
# corners beside the stack are no card's and no rectangle is proposed on the bottom card's strip.
_VIEW = TableView(
    width_px=1920,
    height_px=1080,
    table_w_mm=698.3372960937497,
    table_h_mm=391.0688858124999,
    roll_deg=-2.1571426534753684,
    felt_bgr=(95, 30, 70),
    tilt_deg=29.942828463656564,
    distortion_k1=-0.007911907665040019,
    felt_texture="printed",
)
_BOTTOM = SimCard(
    code="Ah", x_mm=524.3030611929955, y_mm=331.6801936445745, angle_deg=306.94168716987963, face_up=False
)
_SCENE = Scene(
    cards=(
        _BOTTOM,
        SimCard(code="Js", x_mm=540.2763637036558, y_mm=328.1004364142202, angle_deg=303.7098428803073, face_up=False),
        SimCard(code="3d", x_mm=542.766859979044, y_mm=321.99926317857296, angle_deg=308.6138027820202, face_up=False),
        SimCard(code="9c", x_mm=635.6697609644542, y_mm=326.0586234318444, angle_deg=108.40937057558628, face_up=True),
    ),
    chips=(SimChip(x_mm=592.6834676474795, y_mm=363.06463891079176, colour_bgr=(20, 20, 20), stack=5),),
    lighting=Lighting(brightness=1.0210682492644532, falloff=0.3686933562920276, falloff_angle_deg=268.1864171835688),
    optics=Optics(jpeg_quality=95, motion_angle_deg=121.15061904660942),
)


def test_the_bottom_card_of_a_stack_against_a_chip_and_a_face_is_counted(kennard: DeckProfile) -> None:
    truth, found = backs_read(kennard, _VIEW, _SCENE, seed=11019)
    backs_truth = truth[:3]
    assert no_back_where_no_card_lies(backs_truth, found)
    bottom = backs_truth[0]
    assert any(abs(b[0] - bottom[0]) < ON_CARD_PX and abs(b[1] - bottom[1]) < ON_CARD_PX for b in found)


# A back's rectangle 60 px wide (a card's width) and 84 long, for the side-band test below.
_W = 60.0
_TOP = np.array([[100.0, 100.0], [160.0, 100.0], [160.0, 184.0], [100.0, 184.0]])


def _masks(*, lower_by: float | None = None, disc: tuple[int, int] | None = None) -> tuple[ByteImage, ByteImage]:
    """The stack's mask (the top, a card under it ``lower_by`` card widths further down, a chip's
    disc) and what the top hides."""
    solid = drawn((320, 320), [_TOP] if lower_by is None else [_TOP, _TOP + np.array([0.0, lower_by * _W])])
    if disc is not None:
        cv2.circle(solid, disc, 18, 255, -1)
    return solid, drawn((320, 320), [_TOP])


def test_a_strip_along_a_side_of_the_back_is_looked_for() -> None:
    solid, hiding = _masks(lower_by=0.2)
    assert _beside(_TOP, solid=solid, hiding=hiding, margin=0.0, card_w=_W)


def test_what_lies_off_the_backs_corner_alone_is_not_looked_for() -> None:
    # A chip against the top's corner (the blob's rest 0.2 of a card: the step's gate of 0.06 passes).
    solid, hiding = _masks(disc=(176, 200))
    assert not _beside(_TOP, solid=solid, hiding=hiding, margin=0.0, card_w=_W)


def test_with_the_cards_grown_only_a_strip_beyond_the_growth_counts() -> None:
    grown = drawn((320, 320), [_grown(_TOP, 0.12 * _W)])
    near, _ = _masks(lower_by=0.1)  # a strip the grown top hides whole
    far, _ = _masks(lower_by=0.35)
    assert not _beside(_TOP, solid=near, hiding=grown, margin=0.12 * _W, card_w=_W)
    assert _beside(_TOP, solid=far, hiding=grown, margin=0.12 * _W, card_w=_W)
