"""A chip lying on a back does not make it fail the whole-card likeness; on a face or felt it makes no back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.stacks import no_back_where_no_card_lies, table_stack
from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, DeckProfile, default_deck
from vision.pipeline.back_in_place import WHOLE_FIT
from vision.pipeline.back_tester import STRIP_MATCH, BackTester
from vision.pipeline.hypotheses import Hypothesis
from vision.scenes import CHIP_COLOURS

# A card at the detection plane's size (58 x 82 px), turned a little, on green cloth.
_QUAD = np.array([[60.0, 40.0], [118.0, 43.0], [114.0, 125.0], [56.0, 122.0]])
_CLOTH = (40, 110, 40)


def _frame(card: np.ndarray | None, *, chip: tuple[int, int, int] | None, radius: int = 18) -> np.ndarray:
    """Cloth with ``card`` (None: none) warped onto ``_QUAD`` and a chip of colour ``chip`` and
    ``radius`` lying over its top edge (18: two thirds of it on the card, a fifth of the card; 22:
    three tenths of the card), softened as the camera and the plane soften it."""
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
        cv2.circle(frame, centre, radius, chip, -1, cv2.LINE_AA)
        cv2.circle(frame, centre, radius * 2 // 3, (235, 235, 235), 2, cv2.LINE_AA)  # a chip's ring of inlay
    return cv2.GaussianBlur(frame, (0, 0), 0.8)


def _whole(frame: np.ndarray) -> float:
    deck = default_deck()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    return tester.whole_likeness(frame)(Hypothesis(corners=_QUAD.copy()))


def test_a_back_with_a_chip_on_it_matches_the_back_as_a_whole_card_not_as_one_seen_whole() -> None:
    # (Kennard's red back: a blue chip on dev table 3004's top card scored 0.55 there, under the bar;
    # here 0.58 without the chip left out.) Something lies on it: it never passes as seen whole.
    assert STRIP_MATCH <= _whole(_frame(default_deck().back, chip=CHIP_COLOURS[2])) < WHOLE_FIT


def test_a_back_with_a_chip_on_three_tenths_of_it_matches_the_back_as_a_whole_card() -> None:
    # The chip's disc with its rim is over a third of the strip: it was not left out (here 0.50 with
    # it in; standard's top on dev table 13004 0.34, a black chip on a third of it, and the cards
    # under it went unlooked for).
    assert STRIP_MATCH <= _whole(_frame(default_deck().back, chip=CHIP_COLOURS[2], radius=22)) < WHOLE_FIT


@pytest.mark.parametrize("radius", [18, 22])
@pytest.mark.parametrize("code", ["9c", "Kh", "Qs", "Ad"])
def test_a_face_with_a_chip_on_it_does_not_match_the_back(code: str, radius: int) -> None:
    face = default_deck().faces[CODES.index(code)]
    assert _whole(_frame(face, chip=CHIP_COLOURS[2], radius=radius)) < STRIP_MATCH
    assert _whole(_frame(face, chip=CHIP_COLOURS[1], radius=radius)) < STRIP_MATCH


def test_bare_felt_and_felt_with_a_chip_do_not_match_the_back() -> None:
    assert _whole(_frame(None, chip=None)) < STRIP_MATCH
    assert _whole(_frame(None, chip=CHIP_COLOURS[2])) < STRIP_MATCH


def test_the_middle_card_under_a_top_a_large_chip_lies_on_is_counted(standard: DeckProfile) -> None:
    # Dev table 13004 as generated (standard): 4h, Kh, 2c 11-12 mm apart, a black chip (a stack of
    # three) on about a third of the top 2c. The chip's disc (with its rim) was over a third of the
    # strip, so it was not left out: the top matched the back as a whole card 0.34, under the bar for
    # the top of a pair, and the Kh between it and the 4h was never looked for (missed on four designs).
    stack, near = table_stack(standard, seed=13004, codes=("4h", "Kh", "2c"))
    assert len(near) == 3 and no_back_where_no_card_lies(stack, near), (stack, near)
