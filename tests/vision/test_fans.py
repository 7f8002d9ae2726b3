"""Fans of three: every card whose index corner is in view is read, a half-hidden index is never named."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from drivers.camera.sim import (
    CARD_H_MM,
    CARD_W_MM,
    Lighting,
    Marker,
    Optics,
    Scene,
    SimCard,
    TableRenderer,
    TableView,
)
from vision.calibration import Calibration, ZoneMap, calibrate_markers
from vision.config import load_table_vision
from vision.deck import CODES, DeckProfile
from vision.director import DEMO_LAYOUT, spots
from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.fans import FanReader
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings
from vision.recognize import Recognizer
from vision.scenes import Table, random_table, render_table, truth_centres
from vision.synth import score_reading

VIEW = TableView(keystone=0.06, roll_deg=-1.5)
# A few single cards, as on any table: their whole sides settle the card size in the frame.
SINGLES = (
    SimCard(code="Ac", x_mm=120, y_mm=460, angle_deg=5.0),
    SimCard(code="3h", x_mm=480, y_mm=470, angle_deg=-8.0),
    SimCard(code="6d", x_mm=840, y_mm=460, angle_deg=14.0),
)


def _turn(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _held(codes: list[str], *, x_mm: float, y_mm: float, angle_deg: float, spread_deg: float) -> list[SimCard]:
    """Three cards fanned in the hand: each turned ``spread_deg`` further about the middle card's
    bottom-left corner (where the fingers hold them), each later card on top.
    """
    corner = np.array([-0.5 * CARD_W_MM, 0.5 * CARD_H_MM])
    pivot = np.array([x_mm, y_mm]) + _turn(angle_deg) @ corner
    cards = []
    for k, code in zip((-1, 0, 1), codes, strict=True):
        at = pivot - _turn(angle_deg + k * spread_deg) @ corner
        cards.append(SimCard(code=code, x_mm=float(at[0]), y_mm=float(at[1]), angle_deg=angle_deg + k * spread_deg))
    return cards


def _spread(codes: list[str], *, x_mm: float, y_mm: float, angle_deg: float, step: float) -> list[SimCard]:
    """Three cards spread along their short side, ``step`` of a card's width apart, each on top."""
    a = math.radians(angle_deg)
    shift = step * CARD_W_MM
    return [
        SimCard(code=c, x_mm=x_mm + k * shift * math.cos(a), y_mm=y_mm + k * shift * math.sin(a), angle_deg=angle_deg)
        for k, c in zip((-1, 0, 1), codes, strict=True)
    ]


def _outcomes(deck: DeckProfile, scene: Scene, *, seed: int, view: TableView = VIEW) -> list[str]:
    """Each card's outcome (``correct``, ``unknown``, ``misread``, ``missed``), in the scene's order."""
    renderer = TableRenderer(deck=deck, view=view, seed=seed)
    reading = Recognizer(deck=deck).read(renderer.render(scene, seed=seed))
    truth = [
        (c, (float(q[:, 0].mean()), float(q[:, 1].mean()))) for c in scene.cards for q in [renderer.card_quad_px(c)]
    ]
    outcomes: list[str] = []
    tally = score_reading(truth, [(c.code, c.center) for c in reading.cards], tol_px=22, outcomes=outcomes)
    assert tally.phantoms == 0
    return outcomes


HANDS = [["7c", "Qd", "3s"], ["Kh", "2c", "9d"], ["As", "6h", "Jc"], ["5d", "Ts", "8h"]]


@pytest.mark.parametrize("design", ["kennard", "hershey"])
def test_the_middle_card_of_a_fan_held_in_the_hand_is_read(design: str, request: pytest.FixtureRequest) -> None:
    # Cards turned about a corner: the middle card's index corner lies over the card below, not
    # on the blob's outline, and only a short piece of its top edge shows between its neighbours.
    deck: DeckProfile = request.getfixturevalue(design)
    angles, spreads = [0.0, 22.0, 180.0, 200.0], [14.0, 18.0, 16.0, 12.0]
    fans = [
        card
        for i, (codes, angle, spread) in enumerate(zip(HANDS, angles, spreads, strict=True))
        for card in _held(codes, x_mm=170 + i * 240, y_mm=200, angle_deg=angle, spread_deg=spread)
    ]
    outcomes = _outcomes(deck, Scene(cards=(*fans, *SINGLES)), seed=3)
    assert "misread" not in outcomes
    assert outcomes[1:12:3].count("correct") >= 3  # of the four middle cards (4 of 4 on kennard when written)
    assert outcomes[: len(fans)].count("correct") >= len(fans) - 2


def test_a_fan_under_warm_light_is_read(kennard: DeckProfile) -> None:
    # A warm lamp tints white paper past the paper mask's saturation: the fan's edges are still
    # scanned, its paper told by being near grey against its own brightest channel.
    fans = [
        card
        for i, (codes, angle) in enumerate(zip(HANDS[:3], [8.0, -15.0, 190.0], strict=True))
        for card in _spread(codes, x_mm=190 + i * 300, y_mm=200, angle_deg=angle, step=0.36)
    ]
    warm = Lighting(tint_bgr=(0.7, 0.94, 1.1), brightness=0.9)
    outcomes = _outcomes(kennard, Scene(cards=(*fans, *SINGLES), lighting=warm), seed=4)
    assert "misread" not in outcomes
    assert outcomes[1:9:3] == ["correct"] * 3  # the three middle cards


def test_red_cards_fanned_on_a_red_cloth_are_read(kennard: DeckProfile) -> None:
    # A red card's pips are the cloth's colour, holes in the felt mask: a fanned card is placed
    # within the blob's outline, not judged by that mask (the top hearts were lost to an unknown
    # card put beside them).
    hands = [["8h", "8s", "3h"], ["Kd", "2c", "9h"], ["5d", "Ts", "Ah"]]
    fans = [
        card
        for i, (codes, angle) in enumerate(zip(hands, [160.0, 15.0, 200.0], strict=True))
        for card in _spread(codes, x_mm=190 + i * 300, y_mm=200, angle_deg=angle, step=0.36)
    ]
    red = TableView(keystone=0.06, roll_deg=-1.5, felt_bgr=(40, 30, 110))
    outcomes = _outcomes(kennard, Scene(cards=(*fans, *SINGLES)), seed=6, view=red)
    assert "misread" not in outcomes
    assert outcomes[2:9:3] == ["correct"] * 3  # the three top cards, red


@pytest.mark.parametrize("step", [0.07, 0.1, 0.13])
def test_a_middle_index_the_top_card_half_covers_is_never_named(kennard: DeckProfile, step: float) -> None:
    # Spread so little that the top card's edge runs through the middle card's index (which
    # spans 4-14 % of the width): what shows of it (part of the rank, part of the suit) may be
    # "unknown" or nothing, never a wrong code. (The cards' centres lie too close together for
    # the benchmark's matching by centre: every code read must be one on the table, read where
    # that card lies.)
    fans = [
        card
        for i, (codes, angle) in enumerate(zip(HANDS, [0.0, 20.0, 180.0, -25.0], strict=True))
        for card in _spread(codes, x_mm=170 + i * 240, y_mm=200, angle_deg=angle, step=step)
    ]
    scene = Scene(cards=(*fans, *SINGLES))
    renderer = TableRenderer(deck=kennard, view=VIEW, seed=5)
    reading = Recognizer(deck=kennard).read(renderer.render(scene, seed=5))
    quads = {c.code: renderer.card_quad_px(c) for c in scene.cards}
    named = [c for c in reading.cards if c.code in CODES]
    assert named, "the top cards at least are read"
    for card in named:
        assert card.code in quads
        truth = quads[card.code]
        height = float(np.hypot(*(truth[1] - truth[2])))
        assert float(np.hypot(*(np.array(card.center) - truth.mean(axis=0)))) < 0.1 * height


def _benchmark_table(deck: DeckProfile, *, seed: int) -> tuple[Table, list[str]]:
    """The benchmark's table ``seed`` read with its layout's homography, and each card's outcome."""
    table = random_table(np.random.default_rng(seed))
    renderer, frame = render_table(deck, table, seed=seed)
    calibration = Calibration(homography=table.view.homography(), rms_px=0.0)
    reading = Recognizer(deck=deck, calibration=calibration).read(frame)
    outcomes: list[str] = []
    truth = truth_centres(renderer, table.scene)
    score_reading(truth, [(c.code, c.center) for c in reading.cards], tol_px=22, outcomes=outcomes)
    return table, outcomes


def test_the_unread_bottom_card_of_a_fan_held_in_the_hand_is_still_counted(kennard: DeckProfile) -> None:
    # The benchmark's table 1004: a fan turned about a corner whose bottom 8c shows too little to
    # read. Its place is an unknown card; the middle card read beside it (their centres close,
    # turned 13 degrees apart) is another card, not the same one seen again.
    table, outcomes = _benchmark_table(kennard, seed=1004)
    fan = [k for k, card in enumerate(table.scene.cards) if card.code in ("8c", "5c", "9c")]
    assert [table.roles[k] for k in fan] == ["fan bottom", "fan middle", "fan top"]
    assert [outcomes[k] for k in fan] in (["unknown", "correct", "correct"], ["correct"] * 3)
    assert "misread" not in outcomes


def test_a_hand_dealt_to_a_box_of_the_demo_layout_is_its_cards_and_no_more(kennard: DeckProfile) -> None:
    """The demo's dealer lays an Oasis hand in two rows with small gaps, the cards touching: a
    rectangle drawn across one of them from its corner (turned a quarter, no fan's angle) was
    taken for a sixth, unknown card, and the camera raised a false misdeal.
    """
    layout = load_table_vision(DEMO_LAYOUT)
    zones = {z.name: z for z in layout.zones}
    markers = [Marker(id=m.id, x_mm=m.x_mm, y_mm=m.y_mm, size_mm=m.size_mm) for m in layout.vision.markers]
    renderer = TableRenderer(
        deck=kennard, view=TableView(), zones=[np.asarray(z.polygon_mm) for z in layout.zones], markers=markers
    )
    codes = ("Ah", "8d", "As", "Kd", "7h")  # the hand the demo dealt when it raised the false tilt
    cards = []
    for k, code in enumerate(codes):
        h = zlib.crc32(f"1:{code}".encode())  # the director's jitter for round 1
        dx, dy, da = ((((h >> s) & 0x3FF) / 1023.0 * 2.0 - 1.0) * 3.0 for s in (0, 10, 20))
        x, y = spots(zones["box6"].polygon_mm, count=6)[k]
        cards.append(SimCard(code=code, x_mm=x + dx, y_mm=y + dy, angle_deg=da))
    frame = renderer.render(Scene(cards=tuple(cards)))
    calibration = calibrate_markers(frame, layout.vision.markers)
    settings = RecognizerSettings.from_config(layout.vision).sized_by(calibration, layout.zones)
    reading = Recognizer(deck=kennard, settings=settings, calibration=calibration).read(frame)
    zone_map = ZoneMap.build(layout.zones, calibration)
    in_box = sorted(c.code for c in reading.cards if zone_map.zone_of(c.center) == "box6")
    assert in_box == sorted(codes)


def _read_calibrated(deck: DeckProfile, scene: Scene, *, view: TableView, seed: int) -> list[str]:
    """Each card's outcome, read as a calibrated table reads (the view's homography known)."""
    renderer = TableRenderer(deck=deck, view=view, seed=seed)
    frame = renderer.render(scene, seed=seed)
    calibration = Calibration(homography=view.homography(), rms_px=0.0)
    reading = Recognizer(deck=deck, calibration=calibration).read(frame)
    truth = [
        (c, (float(q[:, 0].mean()), float(q[:, 1].mean()))) for c in scene.cards for q in [renderer.card_quad_px(c)]
    ]
    outcomes: list[str] = []
    tally = score_reading(truth, [(c.code, c.center) for c in reading.cards], tol_px=22, outcomes=outcomes)
    assert tally.phantoms == 0
    return outcomes


# A warm lamp over red cloth, the picture soft: the benchmark's table 2 (seed 1).
WARM_RED = TableView(felt_bgr=(40, 30, 110), roll_deg=-1.6, tilt_deg=9.0)
WARM = Lighting(tint_bgr=(0.78, 0.96, 1.07), brightness=0.97)
SOFT = Optics(blur_sigma_px=1.3, jpeg_quality=95)


def test_fans_whose_red_ink_and_black_index_pass_for_cloth_are_read(kennard: DeckProfile) -> None:
    # Under a warm lamp on red cloth a court card's red picture is cloth to the felt mask: every
    # rectangle over it was refused as holed, and a fan of 7d, Jd, Qd lost its bottom card and
    # its top one's read. A soft black index turned 180 degrees (the 6s at the bottom of a fan
    # held in the hand) is grey at detection scale, too little ink for the ink mask, and was
    # never read.
    spread = _spread(["7d", "Jd", "Qd"], x_mm=260, y_mm=120, angle_deg=16.0, step=0.3)
    held = _held(["6s", "6d", "Jc"], x_mm=560, y_mm=250, angle_deg=156.8, spread_deg=12.8)
    scene = Scene(cards=(*spread, *held, *SINGLES), lighting=WARM, optics=SOFT)
    outcomes = _read_calibrated(kennard, scene, view=WARM_RED, seed=2)
    assert "misread" not in outcomes
    assert [outcomes[k] for k in (0, 2, 3, 4, 5)] == ["correct"] * 5


def test_a_fanned_index_found_a_few_pixels_off_its_edge_is_read(dondorf: DeckProfile) -> None:
    # The benchmark's table 3 (seed 1): two fan middles (6c, 8h) whose visible edge, fitted to the
    # outline, lies a pixel or two into the card; dondorf's index starts close to the card's edge,
    # so the patch cut the rank's top and they were only "unknown". A fair match is read again a
    # little either side across the edge as well as along it.
    table, outcomes = _benchmark_table(dondorf, seed=3)
    middles = [k for k, card in enumerate(table.scene.cards) if card.code in ("6c", "8h")]
    assert [table.roles[k] for k in middles] == ["fan middle", "fan middle"]
    assert [outcomes[k] for k in middles] == ["correct", "correct"]
    assert "misread" not in outcomes


def test_a_fans_corner_drawn_a_degree_or_two_off_is_read_turned(hershey: DeckProfile) -> None:
    # The benchmark's table 5 (seed 1): a fan's top 5h, read by the one index corner the
    # outline shows, on a rectangle drawn from the outline's corner a little turned from the card:
    # its index matched fairly but not enough for a card read by one index, so it was unknown.
    # A fair match is read again turned a little either way about the corner.
    table, outcomes = _benchmark_table(hershey, seed=5)
    top = [k for k, card in enumerate(table.scene.cards) if card.code == "5h"]
    assert [table.roles[k] for k in top] == ["fan top"]
    assert outcomes[top[0]] == "correct"
    assert "misread" not in outcomes


def test_a_fanned_index_just_under_the_bar_is_read_where_it_holds_a_pixel_each_way(kennard: DeckProfile) -> None:
    # The benchmark's table 509: a fan's middle 9s, found by the fan scan at one index that
    # matched 9s under the bar a card with one index in view needs. A pixel away each way it
    # reads 9s still, as a true index does (a pip or a torn glyph changes card or falls away).
    table, outcomes = _benchmark_table(kennard, seed=509)
    middle = [k for k, card in enumerate(table.scene.cards) if card.code == "9s" and card.face_up]
    assert [table.roles[k] for k in middle] == ["fan middle"]
    assert outcomes[middle[0]] == "correct"
    assert "misread" not in outcomes


def test_a_four_index_fans_lower_index_is_not_read_as_the_card_under_it(dondorf: DeckProfile) -> None:
    # The benchmark's table 3008: a fan of Qs, Ks, 9h spread along the short side. The fan scan
    # put a card on the bottom Qs's outline turned half round, its index corner on the top 9h's
    # lower index (dondorf prints four): it read 9h clearly, and the Qs was output as a 9h. The
    # card's far corner is the Qs's own index: a card is there, not a 9h.
    table, outcomes = _benchmark_table(dondorf, seed=3008)
    bottom = [k for k, card in enumerate(table.scene.cards) if card.code == "Qs"]
    assert [table.roles[k] for k in bottom] == ["fan bottom"]
    assert outcomes[bottom[0]] in ("correct", "unknown")
    assert "misread" not in outcomes


def test_a_fans_top_card_with_one_outline_corner_is_read_by_its_index_there(kennard: DeckProfile) -> None:
    # The benchmark's table 3004: a fan's top Qh whose far corners lie over the cards below and
    # against a chip, so the outline shows one corner of it, its bottom index corner. One
    # corner could be a blank corner of a card turned the other way, and the card was output
    # unknown unread; but the long side runs straight from that corner for most of a card's
    # height, further than a short side can, so the corner is its index corner.
    table, outcomes = _benchmark_table(kennard, seed=3004)
    top = [k for k, card in enumerate(table.scene.cards) if card.code == "Qh" and card.face_up]
    assert [table.roles[k] for k in top] == ["fan top"]
    assert outcomes[top[0]] == "correct"
    assert "misread" not in outcomes


def test_a_fan_index_printed_close_to_its_cards_edge_is_found_beside_the_picture_below(
    standard: DeckProfile,
) -> None:
    # The benchmark's table 3001: a fan of 9s over Kh over Jc. The Kh's index corner lies over
    # the Jc's picture, whose frame line runs up to the Kh's edge; standard prints its index
    # 2 px in from the edge, so only 3 px of paper show between the picture's ink and the K,
    # under the 4 px gap that marks where an index starts, and no scan pose came within 15 px.
    # The gap asked for is no more than the deck's own margin before its index.
    table, outcomes = _benchmark_table(standard, seed=3001)
    middle = [k for k, card in enumerate(table.scene.cards) if card.code == "Kh" and card.face_up]
    assert [table.roles[k] for k in middle] == ["fan middle"]
    assert outcomes[middle[0]] == "correct"
    assert "misread" not in outcomes


@pytest.mark.slow
def test_a_fans_bottom_card_drawn_along_a_few_pixels_of_an_edge_is_read_square_to_its_confirmed_side(
    hershey: DeckProfile,
) -> None:
    # The benchmark's table 3018: a fan held in the hand, Jh at the bottom. Its top side is whole
    # between two outline corners, but the rectangle proposed for it was drawn from its top-right
    # corner along the 14 px of its right side that show before the 7s covers it, 6 degrees off:
    # its index corner read 0.47 and the card was missed. Square to its top it reads 0.92.
    table, outcomes = _benchmark_table(hershey, seed=3018)
    bottom = [k for k, card in enumerate(table.scene.cards) if card.code == "Jh" and card.face_up]
    assert [table.roles[k] for k in bottom] == ["fan bottom"]
    assert outcomes[bottom[0]] == "correct"
    assert "misread" not in outcomes


@pytest.mark.slow
def test_a_fans_bottom_card_with_a_weak_index_and_a_blank_far_corner_is_read_by_its_looks(
    standard: DeckProfile,
) -> None:
    # The benchmark's table 503: two fans spread along the short side under shadows and blur, their
    # bottom cards 5h and 3d shown with both index corners on the outline (the far one on the fan's
    # edge, under the cards above: no index). The near index reads 0.69-0.76, under the fan's bar,
    # and no corner was clear, so they were unknown; a pixel or two away they read steadily.
    table, outcomes = _benchmark_table(standard, seed=503)
    bottoms = [k for k, card in enumerate(table.scene.cards) if card.code in ("5h", "3d") and card.face_up]
    assert [table.roles[k] for k in bottoms] == ["fan bottom", "fan bottom"]
    assert [outcomes[k] for k in bottoms] == ["correct", "correct"]
    assert "misread" not in outcomes


@pytest.mark.parametrize(("design", "seed", "code"), [("dondorf", 3000, "6d"), ("standard", 3012, "Kd")])
def test_a_fan_middle_whose_visible_edge_is_short_is_placed_along_its_whole_side(
    design: str, seed: int, code: str, request: pytest.FixtureRequest
) -> None:
    # Fans held in the hand: the middle card shows only a short piece of its top edge between
    # its neighbours (15-16 plane pixels), and the line fitted to it was 3-6.5 degrees off, so
    # its index corner, a card's width back along it over the card below, was placed 5-12 frame
    # pixels off its index and never read. The edge goes on over the card below as the step to
    # the shadow it casts there: followed, the line is within a degree.
    deck: DeckProfile = request.getfixturevalue(design)
    table, outcomes = _benchmark_table(deck, seed=seed)
    middle = [k for k, card in enumerate(table.scene.cards) if card.code == code and card.face_up]
    assert [table.roles[k] for k in middle] == ["fan middle"]
    assert outcomes[middle[0]] == "correct"
    assert "misread" not in outcomes


def test_ink_of_the_card_below_seen_beside_a_fanned_index_does_not_hide_it(dondorf: DeckProfile) -> None:
    # The benchmark's table 3004: along the middle 5d's top edge, followed over the 4s below, the
    # fan scan first met the 4s's big pip, which fits some card fairly (seen, unread), and passed
    # over the 5d's own index beside it as that index's own glyph. A start beside one only seen
    # is still read, and a card read there replaces it.
    table, outcomes = _benchmark_table(dondorf, seed=3004)
    fan = [k for k, card in enumerate(table.scene.cards) if card.code in ("4s", "5d", "2c") and card.face_up]
    assert [table.roles[k] for k in fan] == ["fan bottom", "fan middle", "fan top"]
    assert [outcomes[k] for k in fan] == ["correct"] * 3
    assert "misread" not in outcomes


@pytest.mark.slow
def test_a_fans_bottom_card_whose_index_reads_nothing_as_placed_is_read_a_pixel_off(standard: DeckProfile) -> None:
    # The benchmark's table 1003: a fan whose bottom Ks shows both index corners on the outline
    # (the far one on the fan's edge, under the cards above: no index). Its own index read nothing
    # where the outline put its corner (the patch's edge cut a glyph) and the card was unknown; a
    # pixel or two away it reads Ks at 0.82-0.86.
    table, outcomes = _benchmark_table(standard, seed=1003)
    bottom = [k for k, card in enumerate(table.scene.cards) if card.code == "Ks" and card.face_up]
    assert [table.roles[k] for k in bottom] == ["fan bottom"]
    assert outcomes[bottom[0]] == "correct"
    assert "misread" not in outcomes


@pytest.mark.slow
def test_a_fans_bottom_card_whose_far_corner_shows_the_top_cards_index_is_read_by_its_own(
    dondorf: DeckProfile,
) -> None:
    # The benchmark's table 3: a fan whose bottom 5h's far index corner lies where the top 3s's
    # index is (0.99). Its own index reads 5h at 0.71-0.80 all round, under the fan's bar, so the
    # card was only seen; once the 3s is read over that corner, its steady index names it.
    table, outcomes = _benchmark_table(dondorf, seed=3)
    bottom = [k for k, card in enumerate(table.scene.cards) if card.code == "5h" and card.face_up]
    assert [table.roles[k] for k in bottom] == ["fan bottom"]
    assert outcomes[bottom[0]] == "correct"
    assert "misread" not in outcomes


# How a fan's bottom card is drawn off its true place in the stress below: a shift (frame pixels),
# a turn (degrees) and a scale about its index corner, as an outline's corners place it.
POSE_ERRORS = (
    (0, 0, 0.0, 1.0),
    (2, -1, 1.5, 1.0),
    (-2, 2, -1.5, 0.97),
    (1, 2, 0.0, 1.03),
    (3, 0, 2.5, 1.0),
    (0, -3, -2.5, 0.96),
)


def fan_bottom_stress(deck: DeckProfile, *, seed: int) -> dict[str, int]:
    """Every card of the deck twice as the bottom card of a three-card fan (spread along the short
    side or held turned about a corner, at any angle, either way up, under 0.5-1.8 px of blur),
    four fans a frame beside a few single cards. Tallies the frames' reads (the bottom cards'
    outcomes, every card's misreads, phantoms) and the fan reader's own read of each bottom card
    drawn a little off its place (POSE_ERRORS) with both index corners on the outline, settled
    with the cards above read, where its two corners read together do not name it (``looked
    ...``: named right by the fan's looks, unknown, named as a card above it, named as no card of the fan).
    """
    rng = np.random.default_rng(seed)
    keys = ("correct", "unknown", "missed", "misread", "all misread", "phantoms")
    tally = dict.fromkeys((*keys, "looked right", "looked unknown", "looked above", "looked wrong"), 0)
    settings = RecognizerSettings()
    plane_eye = np.eye(3)
    for _ in range(2):
        order = rng.permutation(len(CODES))
        for s in range(0, len(CODES), 4):
            fans: list[SimCard] = []
            for i, k in enumerate(order[s : s + 4]):
                rest = [c for c in CODES if c != CODES[k]]
                hand = [CODES[k], *(str(c) for c in rng.choice(rest, 2, replace=False))]
                angle = float(rng.uniform(-35.0, 35.0) + (180.0 if rng.random() < 0.5 else 0.0))
                x_mm, y_mm = 170.0 + i * 240.0, 210.0
                if rng.random() < 0.5:
                    step = float(rng.uniform(0.25, 0.42))
                    fans += _spread(hand, x_mm=x_mm, y_mm=y_mm, angle_deg=angle, step=step)
                else:
                    spread = float(rng.uniform(11.0, 20.0))
                    fans += _held(hand, x_mm=x_mm, y_mm=y_mm, angle_deg=angle, spread_deg=spread)
            optics = Optics(blur_sigma_px=float(rng.uniform(0.5, 1.8)), jpeg_quality=90)
            scene = Scene(cards=(*fans, *SINGLES), optics=optics)
            frame_seed = int(rng.integers(1 << 16))
            renderer = TableRenderer(deck=deck, view=VIEW, seed=frame_seed)
            frame = renderer.render(scene, seed=frame_seed)
            reading = Recognizer(deck=deck).read(frame)
            outcomes: list[str] = []
            truth = truth_centres(renderer, scene)
            reads = [(c.code, c.center) for c in reading.cards]
            tally["phantoms"] += score_reading(truth, reads, tol_px=22, outcomes=outcomes).phantoms
            tally["all misread"] += outcomes.count("misread")
            corners = CornerReader(deck=deck, settings=settings)
            fan_reader = FanReader(
                settings=settings, corners=corners, decider=CardDecider(deck=deck, settings=settings, corners=corners)
            )
            plane = Plane(image=frame, to_frame_h=plane_eye, scale=1.0)
            for k in range(0, len(fans), 3):
                tally[outcomes[k]] += 1
                quads = [renderer.card_quad_px(card) for card in fans[k : k + 3]]
                above = [
                    Hypothesis(corners=q, code=card.code)
                    for q, card in zip(quads[1:], fans[k + 1 : k + 3], strict=True)
                ]
                drawn = []
                for dx, dy, turn, size in POSE_ERRORS:
                    q0 = quads[0][0]
                    drawn.append((fans[k].code, q0 + (quads[0] - q0) @ _turn(turn).T * size + (dx, dy)))
                for code, quad in drawn:
                    if fan_reader.decider.read_card(frame, quad, alone=False)[0] != UNKNOWN:
                        continue  # read by its two corners together, before any fan look
                    hyp = Hypothesis(corners=quad, anchors=2)  # drawn between two outline corners
                    fan_reader.read_among(frame, hyp, plane)
                    card_w = float(np.hypot(*(quad[1] - quad[0])))
                    fan_reader.settle([hyp, *above], card_w=card_w)
                    looked = "unknown" if hyp.code == UNKNOWN else "right" if hyp.code == code else "wrong"
                    if looked == "wrong" and any(hyp.code == o.code for o in above):
                        looked = "above"  # a card above's index, over this card's far corner
                    tally[f"looked {looked}"] += 1
    return tally


@pytest.mark.slow
@pytest.mark.parametrize("design", ["kennard", "dondorf"])
def test_no_card_at_the_bottom_of_a_fan_is_misread(design: str, request: pytest.FixtureRequest) -> None:
    # A fan's bottom card shows only its index corner (and sometimes the far one, on the fan's
    # edge under the cards above): its looks a pixel or two off, and its fair index under a top
    # card's clear one, may name it, never as another card. (Written: the frames' bottom cards
    # kennard 90 correct, 9 unknown, 5 missed, dondorf 80, 18, 6, no misread; drawn off their place,
    # named by the fan's looks kennard 33 (32 before the looks of stop 27) and dondorf 89 (79),
    # none wrong; two of dondorf's named as its top card, whose clear index lies over the card's
    # far corner, by the one-index read (read_among -> read_exposed at that corner, the card's own
    # unsure: 3h 0.42, or blank) until stop 27's settle left a card so named unknown: 0 then,
    # dondorf 89 right as before.)
    deck: DeckProfile = request.getfixturevalue(design)
    tally = fan_bottom_stress(deck, seed=zlib.crc32(design.encode()))
    assert tally["misread"] == tally["all misread"] == tally["looked wrong"] == tally["looked above"] == 0
    assert tally["looked right"] > 0


def test_a_fanned_index_whose_patch_takes_in_the_edge_beside_it_is_read_a_little_later(
    standard: DeckProfile,
) -> None:
    # The benchmark's table 6 (seed 1): a fan of 4d, Qh, Qd spread along the long side. The fan
    # scan's start for the middle Qh's index corner lies a pixel before it (placed early on
    # purpose), so its patch took in the Qd's edge: the ink fit no card (0.14) and the Qh was
    # missed. Two pixels further on it reads 0.76: ink fitting no card is read once more a little
    # later.
    table, outcomes = _benchmark_table(standard, seed=6)
    middle = [k for k, card in enumerate(table.scene.cards) if card.code == "Qh" and card.face_up]
    assert [table.roles[k] for k in middle] == ["fan middle"]
    assert outcomes[middle[0]] == "correct"
    assert "misread" not in outcomes


def test_two_cards_of_a_hand_spread_wide_hold_no_card_between_them(kennard: DeckProfile) -> None:
    # Two cards spread two-thirds of a width apart along their side, and two held in the hand
    # turned 26 degrees apart: between each pair lies the lower card's face (a court picture,
    # pips), where a fan's middle card is looked for. No card lies there, and none is read.
    wide = _spread(["Kd", "9s", "Qh"], x_mm=260, y_mm=140, angle_deg=12.0, step=0.33)
    held = _held(["Jc", "5h", "8d"], x_mm=600, y_mm=250, angle_deg=-20.0, spread_deg=13.0)
    scene = Scene(cards=(wide[0], wide[2], held[0], held[2], *SINGLES))
    assert _read_calibrated(kennard, scene, view=VIEW, seed=3) == ["correct"] * len(scene.cards)
