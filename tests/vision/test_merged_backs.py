"""Two backs dealt so near one another that one rectangle was drawn for both: both counted, a lone back once."""

from __future__ import annotations

import pytest

from drivers.camera.sim import Glare, GlareBand, Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import backs_read, each_counted_once
from vision.deck import DeckProfile
from vision.tools.kde_decks import kde_deck

# Generated table 3019's stack (figures as drawn): its 2d lies on the 8c 0.06 of a card's width
# (3.5 plane pixels) from it, and the outline's one rectangle for the two lay between them.
_VIEW_3019 = TableView(
    table_w_mm=857.375,
    table_h_mm=480.13,
    roll_deg=2.340780220248366,
    felt_bgr=(95, 30, 70),
    tilt_deg=15.759986962737361,
    distortion_k1=-0.029621727828013353,
    felt_texture="mottled",
)
_STACK_3019 = (
    SimCard(code="8c", x_mm=349.49167572735246, y_mm=394.83123284468587, angle_deg=134.0936652706417, face_up=False),
    SimCard(code="4s", x_mm=335.4646161174403, y_mm=409.6111946622271, angle_deg=139.34807828110465, face_up=False),
    SimCard(code="2d", x_mm=347.1522598520732, y_mm=397.66797258297214, angle_deg=134.84728646983018, face_up=False),
)
_LIGHT_3019 = Lighting(
    brightness=1.0677461010054032,
    falloff=0.2073846473629745,
    falloff_angle_deg=122.471231946674,
    tint_bgr=(0.7245223517773856, 0.9449044703554771, 1.0918258827408716),
)
_OPTICS_3019 = Optics(blur_sigma_px=0.8, jpeg_quality=80)

# Generated table 504's pair (figures as drawn): the 3h on the 8c, 0.11 of a card's width from it.
_VIEW_504 = TableView(
    table_w_mm=1000.0,
    table_h_mm=560.0,
    roll_deg=-3.8083206004508092,
    felt_bgr=(110, 60, 20),
    tilt_deg=0.45389868572055014,
    distortion_k1=-0.02437168775843352,
    felt_texture="mottled",
)
_PAIR_504 = (
    SimCard(code="8c", x_mm=919.1900439314888, y_mm=89.45087155097768, angle_deg=33.481411753536584, face_up=False),
    SimCard(code="3h", x_mm=925.5787256525912, y_mm=86.30028639845821, angle_deg=30.04148705512216, face_up=False),
)
_LIGHT_504 = Lighting(
    brightness=0.8466376112898613,
    falloff=0.2599610159992933,
    falloff_angle_deg=217.0894441504393,
    glare=(
        Glare(
            x_mm=502.13731428428565, y_mm=430.20853800490215, radius_mm=37.700020944429596, strength=0.35356695814470146
        ),
    ),
    bands=(
        GlareBand(
            x_mm=530.8022305122767,
            y_mm=100.61281886460728,
            angle_deg=64.9284566406326,
            width_mm=17.184537818720113,
            strength=0.3431895947233664,
        ),
    ),
)
_OPTICS_504 = Optics(blur_sigma_px=0.8, noise_sigma=6.0, jpeg_quality=95, motion_angle_deg=135.80898198474972)


@pytest.fixture(scope="module")
def nicu_white() -> DeckProfile:
    """A design the recognizer was never tuned on (KDE's nicu-white, as ``conftest.dondorf``)."""
    return kde_deck("nicu-white")


def test_a_back_a_few_pixels_under_the_top_of_three_is_counted_on_a_tuned_design(kennard: DeckProfile) -> None:
    scene = Scene(cards=_STACK_3019, lighting=_LIGHT_3019, optics=_OPTICS_3019)
    truth, backs = backs_read(kennard, _VIEW_3019, scene, seed=3019)
    assert each_counted_once(truth, backs), (truth, backs)


def test_a_back_a_few_pixels_under_the_top_of_three_is_counted_on_an_untuned_design(nicu_white: DeckProfile) -> None:
    scene = Scene(cards=_STACK_3019, lighting=_LIGHT_3019, optics=_OPTICS_3019)
    truth, backs = backs_read(nicu_white, _VIEW_3019, scene, seed=3019)
    assert each_counted_once(truth, backs), (truth, backs)


def test_two_backs_a_tenth_of_a_card_apart_stay_two(dondorf: DeckProfile) -> None:
    # (Counted two before too, by the stack's other steps: the new one must not take either away.)
    scene = Scene(cards=_PAIR_504, lighting=_LIGHT_504, optics=_OPTICS_504)
    truth, backs = backs_read(dondorf, _VIEW_504, scene, seed=504)
    assert each_counted_once(truth, backs), (truth, backs)


def test_a_lone_back_is_counted_once(kennard: DeckProfile, dondorf: DeckProfile, nicu_white: DeckProfile) -> None:
    # Each stack's top card alone, in the same place: what shows beyond it is its own rim, no card's strip.
    for deck, view, top, light, optics, seed in (
        (kennard, _VIEW_3019, _STACK_3019[2], _LIGHT_3019, _OPTICS_3019, 3019),
        (nicu_white, _VIEW_3019, _STACK_3019[2], _LIGHT_3019, _OPTICS_3019, 3019),
        (dondorf, _VIEW_504, _PAIR_504[1], _LIGHT_504, _OPTICS_504, 504),
    ):
        truth, backs = backs_read(deck, view, Scene(cards=(top,), lighting=light, optics=optics), seed=seed)
        assert each_counted_once(truth, backs), (truth, backs)
