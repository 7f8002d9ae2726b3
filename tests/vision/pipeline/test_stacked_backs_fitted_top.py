"""Stacked backs by a rectangle a few pixels off a card: a middle under a fitted top, a top off the card under it."""

from __future__ import annotations

import math

import numpy as np

from drivers.camera.effects import GlareBand, Shadow
from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import ON_CARD_PX, backs_read, each_counted_once, no_back_where_no_card_lies
from vision.deck import DeckProfile
from vision.pipeline.settings import RecognizerSettings
from vision.scenes import random_table

# (As the benchmark reads its tables: the card size is the plane's, not the lens'.)
_SETTINGS = RecognizerSettings(lens_card_size=False)


def test_the_middle_of_three_under_a_top_drawn_off_is_counted(kennard: DeckProfile) -> None:
    # Dev table 501's stack (kennard), figures as generated: Js, 2h, 7h dealt 0.19-0.26 of a card's
    # width apart, a strong tilt and 1.3 px of blur. The top's rectangle lay 3 px off the card (whole
    # 0.49): with it hiding the stack, the 2h's strip matched the back 0.62 in place and its refined
    # place just under the 0.6 bar, so two backs were counted. Under the top fitted to the back the
    # strip matches 0.82.
    view = TableView(
        width_px=1920,
        height_px=1080,
        table_w_mm=630.2494097246091,
        table_h_mm=352.93966944578113,
        keystone=0.0,
        roll_deg=1.116532071366806,
        felt_bgr=(45, 105, 20),
        tilt_deg=34.87492254969522,
        distortion_k1=-0.034865318465292436,
        felt_texture="mottled",
    )
    scene = Scene(
        cards=(
            SimCard(
                code="Js", x_mm=152.87180189990528, y_mm=179.05988127687408, angle_deg=285.3587076558031, face_up=False
            ),
            SimCard(
                code="2h", x_mm=163.59636619578365, y_mm=183.22071606991912, angle_deg=280.45315487084844, face_up=False
            ),
            SimCard(
                code="7h", x_mm=178.7597151108463, y_mm=184.99646881035073, angle_deg=283.0028382125286, face_up=False
            ),
        ),
        lighting=Lighting(
            brightness=1.0198709990370591,
            falloff=0.034055419949469104,
            falloff_angle_deg=141.60710076243723,
            tint_bgr=(1.0, 1.0, 1.0),
            bands=(
                GlareBand(
                    x_mm=281.2700058287838,
                    y_mm=350.10931589296126,
                    angle_deg=59.75235805127885,
                    width_mm=17.979180365548316,
                    strength=0.37848788709242875,
                ),
            ),
            shadows=(
                Shadow(
                    x_mm=524.1063781690075,
                    y_mm=167.68162304636058,
                    width_mm=135.09573726310887,
                    height_mm=115.64067369438106,
                    angle_deg=30.830203460397705,
                    strength=0.34444138773927113,
                ),
                Shadow(
                    x_mm=237.3485032802065,
                    y_mm=122.02149616951164,
                    width_mm=166.19443431006405,
                    height_mm=103.19384471006845,
                    angle_deg=69.12254578555992,
                    strength=0.38716120192381176,
                ),
            ),
        ),
        optics=Optics(blur_sigma_px=1.3, noise_sigma=6.0, jpeg_quality=None, motion_angle_deg=44.72037349105523),
    )
    truth, found = backs_read(kennard, view, scene, seed=501, settings=_SETTINGS)
    assert each_counted_once(truth, found), (truth, found)


def test_the_top_of_a_pair_is_found_off_a_rectangle_chosen_on_the_card_under_it(kennard: DeckProfile) -> None:
    # Dev table 11019 as generated (kennard): Qd under Qs, 0.1 of a card's width apart. The one
    # rectangle chosen for the pair, of a card's shape, lay on the Qd (whole 0.65); fitted to the back
    # it moves 0.075 of a card's width onto the Qs (0.93), under the 0.08 within which a card's
    # rectangle and its fit were taken for one card: one back was counted, on the Qd. (The pair alone
    # is drawn differently and counted right before: the whole table.)
    table = random_table(np.random.default_rng(11019))
    truth, found = backs_read(kennard, table.view, table.scene, seed=11019, settings=_SETTINGS)
    pair = [p for card, p in zip(table.scene.cards, truth, strict=True) if card.code in ("Qd", "Qs")]
    near = [b for b in found if min(math.dist(b, p) for p in pair) < ON_CARD_PX]
    assert len(near) == 2 and no_back_where_no_card_lies(pair, near), (pair, near)
