"""Backs drawn as one unread card are counted as backs; an unreadable face-up card is never taken for one."""

from __future__ import annotations

import math

import pytest

from drivers.camera.sim import GlareBand, Lighting, Optics, Scene, SimCard, SimChip, TableRenderer, TableView
from tests.vision.stacks import backs_read, no_back_where_no_card_lies
from vision.deck import DeckProfile
from vision.recognize import BACK, Recognizer
from vision.scenes import view_calibration

# Dev table 3010's view and light (figures as drawn): a barrelled corner of a dim frame with a
# glare band across it, JPEG at 80.
VIEW_3010 = TableView(
    table_w_mm=1000.0,
    table_h_mm=560.0,
    roll_deg=-1.9546177991588225,
    felt_bgr=(40, 30, 110),
    tilt_deg=4.212062766220828,
    distortion_k1=-0.031136476099145063,
)
LIGHT_3010 = Lighting(
    brightness=0.4925301534424552,
    falloff=0.10598439271549731,
    falloff_angle_deg=152.8261097747817,
    tint_bgr=(0.8010536819178693, 0.9602107363835739, 1.0663154393607102),
    bands=(
        GlareBand(
            x_mm=56.1070682886563,
            y_mm=424.3349924002048,
            angle_deg=100.92348087394818,
            width_mm=34.862323327171126,
            strength=0.3177851534834284,
        ),
    ),
)
# Two of its stack's three backs, 16 mm apart along the cards' long side.
PAIR_3010 = (
    SimCard(code="Ad", x_mm=89.02521640876618, y_mm=93.77926102239266, angle_deg=118.12274489734104, face_up=False),
    SimCard(code="Tc", x_mm=94.2277549790799, y_mm=78.62942707982523, angle_deg=121.16920537447702, face_up=False),
)


@pytest.mark.parametrize("name", ["standard", "dondorf"])
def test_two_backs_read_as_one_unread_card_are_counted_as_backs(name: str, request: pytest.FixtureRequest) -> None:
    # The outline of the pair proposes no rectangle of either card alone: the one chosen frames
    # both cards' borders and the step between them, its colours lie nearer a face's looks than
    # the back's (within the back's own limit), and it was kept as an unknown face-up card, on a
    # tuned design (standard) and an untuned one (dondorf). The dealer must see backs there.
    deck: DeckProfile = request.getfixturevalue(name)
    scene = Scene(cards=PAIR_3010, lighting=LIGHT_3010, optics=Optics(jpeg_quality=80, motion_angle_deg=40.8))
    renderer = TableRenderer(deck=deck, view=VIEW_3010, seed=3010)
    reading = Recognizer(deck=deck, calibration=view_calibration(VIEW_3010)).read(renderer.render(scene, seed=3010))
    truth = [(float(x), float(y)) for x, y in (renderer.card_quad_px(card).mean(axis=0) for card in PAIR_3010)]
    on_stack = [c for c in reading.cards if min(math.dist(c.center, t) for t in truth) < 60]
    assert on_stack and all(c.code == BACK for c in on_stack), [(c.code, c.center) for c in reading.cards]
    backs = [c.center for c in reading.cards if c.code == BACK]
    assert no_back_where_no_card_lies(truth, backs), (truth, backs)


@pytest.mark.parametrize(("code", "chip"), [("Kc", False), ("Js", False), ("Kc", True)])
def test_a_blurred_face_under_glare_is_not_taken_for_a_back(standard: DeckProfile, code: str, chip: bool) -> None:
    # standard's court cards are drawn in the back's blue: blurred past reading in the same dim
    # corner under a glare band (and a blue chip on its middle), such a face shows no index and
    # no face fits it, so it is an unknown card, kept; taken for a back it would be hidden from
    # the dealer. Its colours are no back's (beyond the back's limit) and the back's picture
    # shows nowhere on it.
    band = GlareBand(x_mm=94.0, y_mm=78.0, angle_deg=100.9, width_mm=35.0, strength=0.6)
    scene = Scene(
        cards=(SimCard(code=code, x_mm=94.2, y_mm=78.6, angle_deg=121.2, face_up=True),),
        lighting=Lighting(brightness=0.5, tint_bgr=(0.8, 0.96, 1.07), bands=(band,)),
        chips=(SimChip(x_mm=94.2, y_mm=78.6, colour_bgr=(190, 90, 30), stack=1),) if chip else (),
        optics=Optics(blur_sigma_px=2.0, jpeg_quality=80),
    )
    renderer = TableRenderer(deck=standard, view=VIEW_3010, seed=3)
    reading = Recognizer(deck=standard, calibration=view_calibration(VIEW_3010)).read(renderer.render(scene, seed=3))
    assert [c.code for c in reading.cards] == ["unknown"]


def test_a_strip_beyond_a_back_reached_a_few_pixels_off_is_refined_and_counted(standard: DeckProfile) -> None:
    # Table 3010's whole stack: the third back lies between the pair. The strip of the bottom card
    # beyond the top one places it along the offset its outer edge faces; across, it lies a few
    # pixels off under the top where no edge shows, and as reached matched the back in place
    # under the bar. Refined by its look in place, it is counted: two backs, each on a card.
    middle = SimCard(
        code="2d", x_mm=88.41033172999644, y_mm=75.21777496540939, angle_deg=119.41736994596995, face_up=False
    )
    scene = Scene(
        cards=(PAIR_3010[0], middle, PAIR_3010[1]),
        lighting=LIGHT_3010,
        optics=Optics(jpeg_quality=80, motion_angle_deg=40.8),
    )
    truth, backs = backs_read(standard, VIEW_3010, scene, seed=3010)
    assert len(backs) >= 2 and no_back_where_no_card_lies(truth, backs), (truth, backs)
