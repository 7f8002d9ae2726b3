"""The middle card of three backs: found wherever the dealer's hand put it, never a card where none lies."""

from __future__ import annotations

import pytest

from drivers.camera.sim import Lighting, Optics, Scene, Shadow, SimCard, SimChip, TableView
from tests.vision.stacks import backs_read, each_counted_once, no_back_where_no_card_lies, table_stack
from vision.deck import DeckProfile
from vision.tools.kde_decks import kde_deck


def test_a_middle_card_lying_outside_the_box_between_its_neighbours_is_counted(kennard: DeckProfile) -> None:
    # Dealt by hand, the middle card lies 13 mm from the bottom one and 13 mm from the top one,
    # but beyond the top card along its short side: not part of the way from one to the other.
    # Searched only there (shares of the offset between its neighbours) it was missed (2 of 3).
    view = TableView(
        table_w_mm=950.0, table_h_mm=532.0, roll_deg=-2.11, tilt_deg=9.41, distortion_k1=-0.0241, felt_bgr=(95, 30, 70)
    )
    scene = Scene(
        cards=(
            SimCard(code="4s", x_mm=239.58, y_mm=449.59, angle_deg=40.75, face_up=False),
            SimCard(code="8d", x_mm=229.77, y_mm=457.5, angle_deg=41.42, face_up=False),
            SimCard(code="Jc", x_mm=220.73, y_mm=447.8, angle_deg=42.92, face_up=False),
        ),
        lighting=Lighting(brightness=1.13, falloff=0.29, falloff_angle_deg=304.8),
        optics=Optics(blur_sigma_px=0.8, noise_sigma=3.0, jpeg_quality=60, motion_px=2.85, motion_angle_deg=27.5),
    )
    truth, found = backs_read(kennard, view, scene, seed=507)
    assert each_counted_once(truth, found), (truth, found)


def test_no_middle_card_is_counted_in_a_two_stack_whose_top_is_drawn_a_little_off(kennard: DeckProfile) -> None:
    # Two backs 24 mm apart. The rectangle chosen for the top card lies 3 px off it, so the top
    # card's own border shows beside it as a strip of the back: a card's rectangle 8 px from the
    # chosen top matches it (0.97). A middle card that close is only taken next to a top matching
    # the back whole (placed right); here it would be a third card where two lie.
    view = TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=-3.81,
        tilt_deg=0.45,
        distortion_k1=-0.0244,
        felt_bgr=(110, 60, 20),
        felt_texture="mottled",
    )
    scene = Scene(
        cards=(
            SimCard(code="Qc", x_mm=920.32, y_mm=469.94, angle_deg=99.02, face_up=False),
            SimCard(code="Kh", x_mm=896.35, y_mm=470.59, angle_deg=99.18, face_up=False),
        ),
        lighting=Lighting(brightness=0.85, falloff=0.26, falloff_angle_deg=217.1),
        optics=Optics(blur_sigma_px=0.8, noise_sigma=6.0, jpeg_quality=95),
    )
    truth, found = backs_read(kennard, view, scene, seed=504)
    assert each_counted_once(truth, found), (truth, found)


@pytest.mark.slow  # registers KDE's nicu-white design the first time on a machine (about 20 s)
def test_no_middle_card_is_counted_beside_a_bottom_card_drawn_a_little_off() -> None:
    # Three backs in a frame corner (strong barrel): the rectangle chosen for the card under the
    # top one lies 2-3 px off it, so that card's own border shows beside it as a strip of the
    # back, and a card's rectangle 6 px from it matched 0.7 there: a middle card where the card
    # it lies on already is. The card under a middle one is never seen whole, so whether its
    # rectangle is placed right cannot be told: a middle card lies 0.15 of a card's width from it.
    view = TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=-1.870447,
        tilt_deg=6.489342,
        distortion_k1=-0.059613,
        felt_bgr=(70, 95, 60),
    )
    scene = Scene(
        cards=(
            SimCard(code="9s", x_mm=913.623751, y_mm=278.578844, angle_deg=177.724659, face_up=False),
            SimCard(code="Qh", x_mm=912.18, y_mm=289.51285, angle_deg=182.010173, face_up=False),
            SimCard(code="8c", x_mm=917.687486, y_mm=272.800405, angle_deg=180.866925, face_up=False),
        ),
        lighting=Lighting(
            brightness=0.819864, falloff=0.115459, falloff_angle_deg=27.657201, tint_bgr=(0.736958, 0.947392, 1.087681)
        ),
        optics=Optics(noise_sigma=3.0, jpeg_quality=None),
    )
    truth, found = backs_read(kde_deck("nicu-white"), view, scene, seed=3012)
    assert found and no_back_where_no_card_lies(truth, found), (truth, found)


def test_no_middle_card_is_counted_where_it_would_reach_past_the_stack_onto_felt(standard: DeckProfile) -> None:
    # Two backs 11 mm apart in a barrelled corner. The rectangle chosen for the card under the top
    # one lies 5 px off it, and a card's rectangle 10 px from that one, between it and the top,
    # matched what shows of the lower card (0.81): a middle card where none lies. Part of what
    # the top does not hide of that rectangle is felt; a card's strip lies wholly on the stack.
    view = TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=-2.96,
        tilt_deg=0.03,
        distortion_k1=-0.0517,
        felt_bgr=(95, 30, 70),
        felt_texture="weave",
    )
    scene = Scene(
        cards=(
            SimCard(code="Td", x_mm=92.03, y_mm=289.93, angle_deg=307.16, face_up=False),
            SimCard(code="2h", x_mm=94.58, y_mm=300.71, angle_deg=303.61, face_up=False),
        ),
        lighting=Lighting(brightness=1.0, falloff=0.18, falloff_angle_deg=36.9),
        optics=Optics(blur_sigma_px=0.8, jpeg_quality=95, motion_px=3.59, motion_angle_deg=134.58),
    )
    truth, found = backs_read(standard, view, scene, seed=1004)
    assert each_counted_once(truth, found), (truth, found)


def test_no_middle_card_is_counted_a_few_pixels_from_a_chosen_back_not_its_neighbour(kennard: DeckProfile) -> None:
    # Three backs under a shadow beside a stack of chips, seen 30 degrees from above. The middle search between two of
    # them found a rectangle 5-8 px from the third, chosen back: that card again, its own border
    # showing beside it as a strip. A middle card lies 0.15 of a card's width from every chosen
    # back, not only from the two it lies between. (The table's exact figures.)
    view = TableView(
        table_w_mm=698.3372960937497,
        table_h_mm=391.0688858124999,
        roll_deg=3.930071518368699,
        tilt_deg=29.802208937809002,
        distortion_k1=-0.032013982962863174,
        felt_bgr=(110, 60, 20),
        felt_texture="mottled",
    )
    scene = Scene(
        cards=(
            SimCard(
                code="3s", x_mm=635.834136261468, y_mm=70.0039989449211, angle_deg=203.37580430577947, face_up=False
            ),
            SimCard(
                code="2h", x_mm=654.4393463944677, y_mm=79.49400162577115, angle_deg=199.8430630479552, face_up=False
            ),
            SimCard(
                code="9c", x_mm=649.3605765664397, y_mm=55.726896145095765, angle_deg=201.75789625065528, face_up=False
            ),
        ),
        lighting=Lighting(
            brightness=1.1018133233475427,
            falloff=0.03258039038005087,
            falloff_angle_deg=13.777047561234998,
            tint_bgr=(0.7512112089809926, 0.9502422417961985, 1.0829295970063357),
            shadows=(
                Shadow(
                    x_mm=498.83951048055997,
                    y_mm=154.30398140606832,
                    width_mm=145.13784528672997,
                    height_mm=78.67272752977931,
                    angle_deg=71.62119149319977,
                    strength=0.25305722154325744,
                ),
            ),
        ),
        chips=(SimChip(x_mm=675.8243803195035, y_mm=20.234569262432814, colour_bgr=(190, 90, 30), stack=3),),
        optics=Optics(blur_sigma_px=0.0, noise_sigma=0.0, jpeg_quality=None),
    )
    truth, found = backs_read(kennard, view, scene, seed=3004)
    assert found and no_back_where_no_card_lies(truth, found), (truth, found)


def test_a_middle_card_dealt_tight_on_the_card_under_it_is_counted(kennard: DeckProfile) -> None:
    # Three backs dealt 10 mm and 8 mm apart. The middle card lies 0.13 of a card's width from the
    # rectangle of the card under it, under a top seen whole: 0.15 from every chosen back lost it
    # (2 of 3). Moved onto the strip, the bottom card matches what shows of it worse: the strip
    # is the middle card's, not the bottom card's own border.
    view = TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=-1.86,
        tilt_deg=0.44,
        distortion_k1=-0.03,
        felt_bgr=(110, 60, 20),
        felt_texture="printed",
    )
    scene = Scene(
        cards=(
            SimCard(code="Jh", x_mm=619.85, y_mm=176.62, angle_deg=270.77, face_up=False),
            SimCard(code="Kd", x_mm=621.3, y_mm=186.69, angle_deg=269.42, face_up=False),
            SimCard(code="Qc", x_mm=624.68, y_mm=193.95, angle_deg=267.35, face_up=False),
        ),
        lighting=Lighting(
            brightness=0.8,
            falloff=0.17,
            falloff_angle_deg=180.97,
            shadows=(
                Shadow(x_mm=833.37, y_mm=106.36, width_mm=204.23, height_mm=73.57, angle_deg=73.61, strength=0.28),
                Shadow(x_mm=598.5, y_mm=315.76, width_mm=163.0, height_mm=113.14, angle_deg=88.37, strength=0.34),
            ),
        ),
        optics=Optics(blur_sigma_px=0.8, jpeg_quality=95, motion_px=1.53, motion_angle_deg=166.72),
    )
    truth, found = backs_read(kennard, view, scene, seed=3)
    assert each_counted_once(truth, found), (truth, found)


def test_a_middle_card_dealt_tight_is_counted_on_an_untuned_design(dondorf: DeckProfile) -> None:
    # Dondorf's picture back, three backs: the middle one 7 mm from the bottom (0.09 of a card's
    # width from its rectangle), the top 15 mm further on and seen whole.
    view = TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=3.0,
        tilt_deg=5.66,
        distortion_k1=-0.05,
        felt_bgr=(70, 95, 60),
        felt_texture="weave",
    )
    scene = Scene(
        cards=(
            SimCard(code="Jh", x_mm=660.02, y_mm=281.1, angle_deg=153.78, face_up=False),
            SimCard(code="As", x_mm=655.12, y_mm=286.52, angle_deg=151.66, face_up=False),
            SimCard(code="Qc", x_mm=641.97, y_mm=293.78, angle_deg=151.79, face_up=False),
        ),
        lighting=Lighting(brightness=1.08, falloff=0.21, falloff_angle_deg=191.37),
        optics=Optics(blur_sigma_px=0.8, noise_sigma=6.0, jpeg_quality=None),
    )
    truth, found = backs_read(dondorf, view, scene, seed=97)
    assert each_counted_once(truth, found), (truth, found)


@pytest.mark.parametrize(
    ("design", "seed", "stack"),
    [("hershey", 13000, ("2d", "4c", "5d")), ("kennard", 3015, ("7c", "Qc", "3d"))],
)
def test_a_middle_card_is_counted_between_backs_turned_apart_as_dealt(
    design: str, seed: int, stack: tuple[str, ...], request: pytest.FixtureRequest
) -> None:
    # Dev tables as generated: each card dealt turns up to 6 degrees from the last, so the bottom and
    # top of three lay 9.9 (13000) and 8.6 degrees (3015) apart, and their middle card was only
    # looked for between backs within 8 degrees of parallel: missed (two backs counted for three).
    deck: DeckProfile = request.getfixturevalue(design)
    cards, near = table_stack(deck, seed=seed, codes=stack)
    assert len(near) == 3 and no_back_where_no_card_lies(cards, near), (cards, near)


@pytest.mark.parametrize("design", ["kennard", "hershey"])
def test_a_middle_card_turned_five_degrees_from_a_top_drawn_a_little_off_is_counted(
    design: str, request: pytest.FixtureRequest
) -> None:
    # Dev table 10000: the Ks, Qh, 2h. The Qh lies 5.3 degrees from the 2h on top, 8 plane px from it;
    # the 2h's rectangle, drawn from the outline's corners, lies 2.7 px off it (0.80 whole; moved by its
    # own look, 0.92). Slid over the stack turned 2 degrees either way, the Qh's strip scored -0.3 where
    # it lies; and under a top not placed right, a middle card that near was never looked at. It was
    # missed on all six designs. (Still missed on dondorf, where the slide's best place lies 4 px off the
    # Qh and its strip there matches 0.55, and on standard, whose fine back matches 0.6 at the Qh itself.)
    deck: DeckProfile = request.getfixturevalue(design)
    cards, near = table_stack(deck, seed=10000, codes=("Ks", "Qh", "2h"))
    assert len(near) == 3 and no_back_where_no_card_lies(cards, near), (cards, near)


def test_a_top_moved_onto_another_card_counted_finds_no_middle_under_it() -> None:
    # Dev table 10019 (nicu-white): the Ah, 5h, Th. A chosen back drawn across two cards (0.43 whole)
    # was moved by its own look onto the Th, already counted, and a middle card found under it where
    # it had lain: a fourth back on three cards. A top moved onto a card counted is that card.
    cards, near = table_stack(kde_deck("nicu-white"), seed=10019, codes=("Ah", "5h", "Th"))
    assert len(near) == 3 and no_back_where_no_card_lies(cards, near), (cards, near)


@pytest.mark.parametrize(
    ("seed", "stack"), [(11005, ("Ts", "9d")), (11019, ("Qd", "Qs")), (14011, ("7s", "As", "2c"))], ids=str
)
def test_a_stack_whose_top_matches_the_fine_back_a_little_less_is_counted(
    standard: DeckProfile, seed: int, stack: tuple[str, ...]
) -> None:
    # Dev tables with standard's fine back, whose backs seen whole match it less well than the other
    # designs' do (tenth percentile 0.84 against 0.92-0.95 at their true rectangles). With the bar a
    # card seen whole is placed right by at 0.8, each of these stacks counted one card short, where
    # every other design counted them all.
    cards, near = table_stack(standard, seed=seed, codes=stack)
    assert len(near) == len(stack) and no_back_where_no_card_lies(cards, near), (cards, near)
