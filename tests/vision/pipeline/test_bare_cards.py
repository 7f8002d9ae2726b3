"""A card wholly in view beside a chip, its blob more than one card: read as a card lying alone."""

from __future__ import annotations

import cv2
import numpy as np

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, DeckProfile
from vision.pipeline.explain import BARE_REST, Explainer
from vision.pipeline.hypotheses import Hypothesis
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, view_calibration

_CANON = np.array([[0, 0], [CARD_PX_W, 0], [CARD_PX_W, CARD_PX_H], [0, CARD_PX_H]], np.float32)
# The benchmark's table 13005 (standard, dim warm light, blur 1.3 px): its lone Qh, a chip pushed
# against its side, where it lies in the frame.
_QH_AT = np.array([788.5, 844.3])


def _table_13005(deck: DeckProfile, frame: np.ndarray | None = None) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """The table's frame (or ``frame`` in its place) and what the calibrated recognizer reads: code, centre."""
    table = random_table(np.random.default_rng(13005))
    _, rendered = render_table(deck, table, seed=13005)
    image = rendered if frame is None else frame
    reading = Recognizer(deck=deck, calibration=view_calibration(table.view)).read(image)
    return rendered, [(c.code, np.mean(np.array(c.corners), axis=0)) for c in reading.cards]


def _at(reads: list[tuple[str, np.ndarray]], where: np.ndarray) -> str | None:
    near = [code for code, centre in reads if float(np.hypot(*(centre - where))) < 22]
    return near[0] if near else None


def test_a_card_beside_a_chip_is_read_as_a_lone_card(standard: DeckProfile) -> None:
    # The chip makes the card's blob 1.26 cards: among others its index (0.68, blurred) fell short
    # of a fan's one-index bar, where a lone card's eased index (0.73) with its face (0.93) reads it.
    _, reads = _table_13005(standard)
    assert _at(reads, _QH_AT) == "Qh"


def test_a_card_beside_a_chip_still_needs_its_face(standard: DeckProfile) -> None:
    # The same Qh with the middle half of its face another card's (a 5c's): its indices are as
    # before, but the face no longer agrees, so the lone reading does not name it either.
    frame, _ = _table_13005(standard)
    table = random_table(np.random.default_rng(13005))
    renderer, _ = render_table(standard, table, seed=13005)
    qh = next(c for c in table.scene.cards if c.code == "Qh")
    quad = renderer.card_quad_px(qh).astype(np.float32)
    to_frame = cv2.getPerspectiveTransform(_CANON, quad)
    size = (frame.shape[1], frame.shape[0])
    band = np.zeros((CARD_PX_H, CARD_PX_W), np.uint8)
    band[CARD_PX_H // 4 : 3 * CARD_PX_H // 4, :] = 255
    middle = cv2.warpPerspective(band, to_frame, size) > 127
    other = cv2.warpPerspective(standard.faces[CODES.index("5c")], to_frame, size)
    shade = float(np.median(frame[middle])) / float(np.median(other[middle]))  # the table's dim light
    mixed = np.where(middle[..., None], np.clip(other * shade, 0, 255).astype(np.uint8), frame)
    _, reads = _table_13005(standard, mixed)
    assert _at(reads, _QH_AT) != "Qh"


def _square(w: float, h: float) -> np.ndarray:
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


def test_only_a_card_with_all_four_corners_on_the_outline_and_little_beside_it_is_bare() -> None:
    w, h = 58.7, 82.0
    card = _square(w, h)
    with_chip = cv2.ellipse2Poly((int(w) + 10, 40), (12, 12), 0, 0, 360, 10)
    blob = np.concatenate([card.astype(np.int32), with_chip]).reshape(-1, 1, 2)
    hull = cv2.convexHull(blob)
    assert cv2.contourArea(hull) - w * h < BARE_REST * w * h
    whole = Hypothesis(corners=card, anchors=4, fill=1.0)
    assert Explainer._bare(whole, contour=hull, card_area=w * h)
    # Three corners on the outline: something lies over the fourth.
    assert not Explainer._bare(Hypothesis(corners=card, anchors=3, fill=1.0), contour=hull, card_area=w * h)
    # Another card beside it: more than BARE_REST of a card left over.
    two = np.concatenate([card, card + np.array([w * 0.8, 0.0])]).astype(np.int32).reshape(-1, 1, 2)
    assert not Explainer._bare(whole, contour=cv2.convexHull(two), card_area=w * h)
