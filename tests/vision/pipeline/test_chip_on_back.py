"""A chip lying on a back does not make it fail the whole-card likeness; on a face or felt it makes no back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, default_deck
from vision.pipeline.back_tester import STRIP_MATCH, WHOLE_FIT, BackTester
from vision.pipeline.hypotheses import Hypothesis
from vision.scenes import CHIP_COLOURS

# A card at the detection plane's size (58 x 82 px), turned a little, on green cloth.
_QUAD = np.array([[60.0, 40.0], [118.0, 43.0], [114.0, 125.0], [56.0, 122.0]])
_CLOTH = (40, 110, 40)


def _frame(card: np.ndarray | None, *, chip: tuple[int, int, int] | None) -> np.ndarray:
    """Cloth with ``card`` (None: none) warped onto ``_QUAD`` and a chip of colour ``chip`` lying over
    its top edge (two thirds of it on the card), softened as the camera and the plane soften it."""
    frame = np.full((170, 180, 3), _CLOTH, np.uint8)
    if card is not None:
        src = np.array([[0, 0], [CARD_PX_W, 0], [CARD_PX_W, CARD_PX_H], [0, CARD_PX_H]], np.float32)
        h = cv2.getPerspectiveTransform(src, _QUAD.astype(np.float32))
        size = (frame.shape[1], frame.shape[0])
        warped = cv2.warpPerspective(card, h, size, flags=cv2.INTER_AREA)
        inside = cv2.warpPerspective(np.full(card.shape[:2], 255, np.uint8), h, size) > 0
        frame[inside] = warped[inside]
    if chip is not None:
        centre = (86, 60)
        cv2.circle(frame, centre, 18, chip, -1, cv2.LINE_AA)
        cv2.circle(frame, centre, 12, (235, 235, 235), 2, cv2.LINE_AA)  # a chip's ring of inlay
    return cv2.GaussianBlur(frame, (0, 0), 0.8)


def _whole(frame: np.ndarray) -> float:
    deck = default_deck()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    return tester.whole_likeness(frame)(Hypothesis(corners=_QUAD.copy()))


def test_a_back_with_a_chip_on_it_matches_the_back_as_a_whole_card_not_as_one_seen_whole() -> None:
    # (Kennard's red back: a blue chip on dev table 3004's top card scored 0.55 there, under the bar;
    # here 0.58 without the chip left out.) Something lies on it: it never passes as seen whole.
    assert STRIP_MATCH <= _whole(_frame(default_deck().back, chip=CHIP_COLOURS[2])) < WHOLE_FIT


@pytest.mark.parametrize("code", ["9c", "Kh", "Qs", "Ad"])
def test_a_face_with_a_chip_on_it_does_not_match_the_back(code: str) -> None:
    face = default_deck().faces[CODES.index(code)]
    assert _whole(_frame(face, chip=CHIP_COLOURS[2])) < STRIP_MATCH


def test_bare_felt_and_felt_with_a_chip_do_not_match_the_back() -> None:
    assert _whole(_frame(None, chip=None)) < STRIP_MATCH
    assert _whole(_frame(None, chip=CHIP_COLOURS[2])) < STRIP_MATCH
