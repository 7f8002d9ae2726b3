"""Motion smear: measured on the cards' edges, not mistaken for shadows or focus, and undone for reading."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from drivers.camera.effects import motion_blur
from vision.deck import DeckProfile
from vision.pipeline.smear import MIN_SMEAR_PX, Smear, measure_smear, unsmeared
from vision.recognize import Recognizer, Trace
from vision.scenes import random_table, render_table, view_calibration

Quad = npt.NDArray[np.float64]
_ANGLES = (0.0, 20.0, 45.0, 70.0, 100.0, 130.0, 160.0, 10.0)


def _cards() -> list[Quad]:
    """Eight cards (100 x 140 px) lying every way on a 1000 x 720 cloth."""
    quads = []
    for i, angle in enumerate(_ANGLES):
        centre = np.array([140.0 + 240.0 * (i % 4), 190.0 + 340.0 * (i // 4)])
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        half = np.array([[-50.0, -70.0], [50.0, -70.0], [50.0, 70.0], [-50.0, 70.0]])
        quads.append(centre + half @ rot.T)
    return quads


def _frame(
    quads: list[Quad], *, motion: float = 0.0, angle_deg: float = 0.0, focus: float = 0.8, shadow: bool = False
) -> npt.NDArray[np.uint8]:
    """The cards drawn anti-aliased (at four times the size, then reduced) on green cloth, each with
    a shadow cast down and right when ``shadow``, then focus blur, motion smear and sensor noise."""
    up = 4
    big: npt.NDArray[Any] = np.full((720 * up, 1000 * up, 3), (40, 95, 35), np.uint8)
    if shadow:
        for q in quads:
            cv2.fillConvexPoly(big, np.round((q + 5.0) * up).astype(np.int32), (15, 35, 12))
        big = cv2.GaussianBlur(big, (0, 0), 2.0 * up)
    for q in quads:
        cv2.fillConvexPoly(big, np.round(q * up).astype(np.int32), (232, 236, 238))
    frame: npt.NDArray[Any] = cv2.resize(big, (1000, 720), interpolation=cv2.INTER_AREA)
    if focus:
        frame = cv2.GaussianBlur(frame, (0, 0), focus)
    frame = motion_blur(frame, motion, angle_deg)
    noise = np.random.default_rng(7).normal(0.0, 3.0, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def _apart_deg(a: float, b: float) -> float:
    """The angle between two directions (degrees, either way along a line alike)."""
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


@pytest.mark.parametrize(("length", "angle_deg"), [(3.0, 30.0), (4.0, 110.0), (2.5, 170.0)])
def test_a_smear_is_measured_along_its_direction_on_cards_lying_every_way(length: float, angle_deg: float) -> None:
    quads = _cards()
    found = measure_smear(_frame(quads, motion=length, angle_deg=angle_deg), quads)
    assert found is not None
    assert found.length >= MIN_SMEAR_PX
    assert 0.8 * length <= found.length <= 1.5 * length
    # (Within 20 degrees: a 4 px smear undone 20 degrees off leaves 1.4 px of it across.)
    assert _apart_deg(math.degrees(found.angle), angle_deg) <= 20.0


@pytest.mark.parametrize("focus", [0.0, 0.8, 1.3])
def test_a_still_frame_shows_no_smear_worth_undoing_however_soft_its_focus(focus: float) -> None:
    quads = _cards()
    found = measure_smear(_frame(quads, focus=focus), quads)
    assert found is not None
    assert found.length < MIN_SMEAR_PX


def test_a_shadow_cast_one_way_by_every_card_is_not_a_smear() -> None:
    # Every card's lower and right edges run into its shadow, which widens them as a smear down and
    # right would, but only on one side of each card: its upper and left edges stay sharp.
    quads = _cards()
    found = measure_smear(_frame(quads, shadow=True), quads)
    assert found is not None
    assert found.length < MIN_SMEAR_PX


def test_cards_lying_too_few_ways_tell_nothing() -> None:
    quads = _cards()[:1]
    assert measure_smear(_frame(quads, motion=3.0, angle_deg=30.0), quads) is None


@pytest.mark.parametrize("angle_deg", [0.0, 180.0])
def test_undoing_a_smear_opens_the_gap_it_closed_between_two_strokes_and_leaves_the_rest(angle_deg: float) -> None:
    # A rank's foot and its suit 3 px apart, smeared 4 px across the gap (either way along it):
    # the gap is more than half closed, and mostly open again once the smear is undone; outside
    # the region read, nothing changes.
    paper = np.full((200, 200, 3), 235, np.uint8)
    paper[60:140, 90:94] = 30
    paper[60:140, 97:101] = 30
    smeared = motion_blur(paper, 4.0, angle_deg)
    smeared = np.clip(smeared + np.random.default_rng(3).normal(0.0, 3.0, smeared.shape), 0, 255).astype(np.uint8)
    box = (40, 40, 160, 160)
    undone = unsmeared(smeared, Smear(length=4.5, angle=math.radians(angle_deg)), [box])

    def gap(image: npt.NDArray[np.uint8]) -> float:
        across = image[70:130].mean(axis=(0, 2))
        return float(across[94:97].max() - max(across[90:94].min(), across[97:101].min()))

    assert gap(smeared) < 0.5 * gap(paper)
    assert gap(undone) > 0.7 * gap(paper)
    outside = np.ones(paper.shape[:2], bool)
    outside[box[1] : box[3], box[0] : box[2]] = False
    assert (undone[outside] == smeared[outside]).all()


def test_a_smear_too_short_to_matter_is_left_alone() -> None:
    frame = _frame(_cards())
    short = Smear(length=MIN_SMEAR_PX - 0.1, angle=0.3)
    assert unsmeared(frame, short, [(0, 0, 100, 100)]) is frame


def test_a_smeared_red_five_on_red_cloth_is_read(kennard: DeckProfile) -> None:
    # The benchmark's table 19609 (red cloth, blur 1.3 px, a smear of 3.8 px at 30 degrees): the 5h
    # lying alone ran its rank into its suit at both corners and was left unread.
    table = random_table(np.random.default_rng(19609))
    _, frame = render_table(kennard, table, seed=19609)
    trace = Trace()
    reading = Recognizer(deck=kennard, calibration=view_calibration(table.view)).read(frame, trace=trace)
    near = [
        c.code
        for c in reading.cards
        if float(np.hypot(*(np.mean(np.array(c.corners), axis=0) - np.array((811.7, 861.3))))) < 22
    ]
    assert near == ["5h"]
    # The smear it was read through is kept for the technician's picture (and is the frame's).
    assert trace.smear is not None
    assert trace.smear.length >= MIN_SMEAR_PX
    assert _apart_deg(math.degrees(trace.smear.angle), 29.7) <= 20.0
