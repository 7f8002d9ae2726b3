"""slid_backs: a stack of three by a chip and a face-up card counts its bottom card; slid only beside a strip;
refined only from a place on the stack."""

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
from vision.pipeline.hypotheses import BACK, Hypothesis
from vision.pipeline.slid_backs import _beside, _grown, _on_stack_share, _under

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


class _Slid:
    """A back tester whose slide finds one place with a given score and whose likeness counts its asks."""

    def __init__(self, quad: npt.NDArray[np.float64], score: float) -> None:
        self.quad, self.score, self.asked = quad, score, 0

    def slide(
        self, corners: Any, image: Any, covered: Any, *, reach: float, turns: Any
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        return np.array([self.score]), self.quad[None].astype(np.float64)

    def strip_likeness(self, hyp: Hypothesis, image: Any, covered: Any) -> float:
        self.asked += 1
        return 0.0


def _under_lower(place: npt.NDArray[np.float64], score: float) -> tuple[bool, bool, int]:
    """``_under`` of the top with a card 0.3 of a width under it, the slide's best at ``place``:
    whether a back was found, whether the grown pass is worth trying, how many likenesses asked."""
    solid, hiding = _masks(lower_by=0.3)
    tester = _Slid(place, score)
    found, hoped = _under(
        Hypothesis(corners=_TOP, code=BACK),
        chosen=[Hypothesis(corners=_TOP, code=BACK)],
        hiding=hiding,
        solid=solid,
        image=np.zeros((320, 320, 3), np.uint8),
        tester=tester,  # type: ignore[arg-type]
        right=lambda o: True,
        card_w=_W,
    )
    return found is not None, hoped, tester.asked


def test_a_place_on_the_lower_card_is_refined_by_its_look() -> None:
    assert _under_lower(_TOP + np.array([0.0, 0.3 * _W]), 0.7)[2] > 0


def test_a_place_the_slide_found_on_felt_is_neither_refined_nor_grown() -> None:
    # Beside the top where no card lies (what shows of it is felt): no likeness, no grown pass.
    assert _under_lower(_TOP + np.array([0.4 * _W, 0.0]), 0.7) == (False, False, 0)


def test_a_weak_slide_on_the_stack_only_hopes_for_the_grown_pass() -> None:
    assert _under_lower(_TOP + np.array([0.0, 0.3 * _W]), 0.42) == (False, True, 0)


def test_the_on_stack_share_counts_what_shows_on_the_stack() -> None:
    solid, hiding = _masks(lower_by=0.3)
    lower = _TOP + np.array([0.0, 0.3 * _W])
    assert _on_stack_share(lower, solid=solid, hiding=hiding) > 0.99  # all of what shows
    # Moved off the stack by half a card's width, nothing hiding it: half of it lies on felt.
    half = _on_stack_share(lower + np.array([0.5 * _W, 0.0]), solid=solid, hiding=np.zeros_like(hiding))
    assert 0.45 < half < 0.55
