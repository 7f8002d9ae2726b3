"""A fan card read by one index corner under blur and smear: a club that passes for a spade stays unread."""

from __future__ import annotations

import math

import cv2
import numpy as np

from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableRenderer, TableView
from vision.deck import CODES, DeckProfile
from vision.pipeline.corners import UNKNOWN, CornerReader, index_frame
from vision.pipeline.decide import CardDecider
from vision.pipeline.fan_looks import FAN_SEEN_SCORE
from vision.pipeline.fans import FanReader
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.twin_suit import TWIN_BLURS, TwinSuit

VIEW = TableView(tilt_deg=15.0)


def _fanned(deck: DeckProfile, code: str, optics: Optics, *, seed: int) -> tuple[FanReader, np.ndarray, np.ndarray]:
    """A fresh fan reader, a frame of a fan's bottom card ``code`` under a 5d spread along its side
    over its far index corner (dim light, seen through ``optics``), and the bottom card's corners."""
    renderer = TableRenderer(deck=deck, view=VIEW)
    bottom = SimCard(code=code, x_mm=400, y_mm=260, angle_deg=10.0)
    step = 0.38 * 63.0
    top = SimCard(
        code="5d",
        x_mm=400 + step * math.cos(math.radians(10.0)),
        y_mm=260 + step * math.sin(math.radians(10.0)),
        angle_deg=10.0,
    )
    frame = renderer.render(Scene(cards=(bottom, top), lighting=Lighting(brightness=0.55), optics=optics), seed=seed)
    settings = RecognizerSettings()
    corners = CornerReader(deck=deck, settings=settings)
    fans = FanReader(
        settings=settings, corners=corners, decider=CardDecider(deck=deck, settings=settings, corners=corners)
    )
    return fans, frame, renderer.card_quad_px(bottom)


def _smeared(blur: float) -> Optics:
    """Focus blur, a 3 px smear across the index, JPEG and noise: a club's leaves run into a spade's blob."""
    return Optics(blur_sigma_px=blur, motion_px=3.0, motion_angle_deg=110.0, jpeg_quality=60, noise_sigma=3.0)


def test_a_smeared_club_that_one_corner_reads_as_the_spade_is_not_read(kennard: DeckProfile) -> None:
    fans, frame, q = _fanned(kennard, "4c", _smeared(1.5), seed=1)
    # The one index corner in view reads the club outright as the spade; the far one is covered.
    assert fans.corners.read_index(frame, q, 0).code == "4s"
    assert fans.corners.read_index(frame, q, 2).code == UNKNOWN
    # Its index fits the registered 4c's, blurred, better than the 4s's: the read is refused.
    assert fans.decider.read_card(frame, q, alone=False)[0] == UNKNOWN
    twins = fans.decider.twins
    assert not twins.holds(frame, *index_frame(q, 0), code="4s")
    assert twins.holds(frame, *index_frame(q, 0), code="4c")


def test_a_fan_card_named_by_its_one_index_as_the_twin_suit_is_seen_unread(kennard: DeckProfile) -> None:
    # Read as the fan scan reads a card: one index corner, at the fan's bar (0.76), no face.
    fans, frame, q = _fanned(kennard, "7c", _smeared(1.4), seed=2)
    read = fans.corners.read_index(frame, q, 0)
    assert read.code == "7s" and read.match is not None and read.match.score >= 0.76
    card = Hypothesis(corners=q)
    plane = Plane(image=frame, to_frame_h=np.eye(3), scale=1.0)
    fans.read_exposed(frame, card, 0, plane, seen_score=FAN_SEEN_SCORE, pale=False)
    assert card.code == UNKNOWN and card.seen


def test_a_plain_fan_card_read_by_one_corner_is_still_read(kennard: DeckProfile) -> None:
    # Neither blur nor smear: the one corner's club fits its own registered index best.
    fans, frame, q = _fanned(kennard, "4c", Optics(jpeg_quality=80, noise_sigma=3.0), seed=1)
    assert fans.corners.read_index(frame, q, 0).code == "4c"
    assert fans.decider.read_card(frame, q, alone=False)[0] == "4c"


def test_the_twin_looks_are_the_whole_face_blurred_then_cut_to_the_index(kennard: DeckProfile) -> None:
    # The looks blur only the index box and a kernel's reach round it: not one value may differ from
    # blurring the whole face, at the box's sides that meet the face's edge too.
    twin = TwinSuit(deck=kennard)
    for code in ("Ac", "4s", "Td", "Kh"):
        face = np.asarray(kennard.faces[CODES.index(code)].min(axis=2), dtype=np.float32)
        for sigma, look in zip(TWIN_BLURS, twin._looks(code), strict=True):
            whole = cv2.GaussianBlur(face, (0, 0), sigma)[twin._y0 : twin._y1, twin._x0 : twin._x1]
            assert np.array_equal(look, whole), (code, sigma)
