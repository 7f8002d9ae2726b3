"""The back tester's per-frame memory: a likeness is never carried from one frame to the next, nor warped twice."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import default_deck
from vision.pipeline import back_tester
from vision.pipeline.back_tester import BackTester
from vision.pipeline.hypotheses import Hypothesis

_STRIP = np.array([[0, 0], [40, 0], [40, 56], [0, 56]], np.float32)

_QUAD = np.array([[100.0, 80.0], [220.0, 90.0], [208.0, 260.0], [88.0, 250.0]])


def _frame(*, back_shown: bool) -> np.ndarray:
    """Green cloth with the deck's back warped onto ``_QUAD``, or a blank white card there."""
    deck = default_deck()
    frame = np.full((360, 320, 3), (40, 110, 40), np.uint8)
    card = deck.back if back_shown else np.full_like(deck.back, 235)
    src = np.array([[0, 0], [CARD_PX_W, 0], [CARD_PX_W, CARD_PX_H], [0, CARD_PX_H]], np.float32)
    h = cv2.getPerspectiveTransform(src, _QUAD.astype(np.float32))
    warped = cv2.warpPerspective(card, h, (frame.shape[1], frame.shape[0]))
    inside = cv2.warpPerspective(np.full(card.shape[:2], 255, np.uint8), h, (frame.shape[1], frame.shape[0])) > 0
    frame[inside] = warped[inside]
    return frame


def test_a_new_frame_in_the_same_buffer_is_judged_afresh() -> None:
    deck = default_deck()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    hyp = Hypothesis(corners=_QUAD.copy())
    buffer = _frame(back_shown=True)
    on_back = tester.strip_likeness(hyp, buffer, tester.blank(buffer))
    assert on_back > 0.5  # the back in place matches itself

    # A camera may write its next frame into the same array: the card there is now plain paper.
    buffer[...] = _frame(back_shown=False)
    tester.new_frame()
    afresh = tester.strip_likeness(hyp, buffer, tester.blank(buffer))
    fresh_tester = BackTester(signature=deck.back_signature, back=deck.back)
    assert afresh == fresh_tester.strip_likeness(hyp, buffer, fresh_tester.blank(buffer))
    assert afresh < on_back


def test_a_strip_nothing_hides_is_judged_as_one_gathered_pixel_by_pixel() -> None:
    # The shortcut for a strip nothing hides (its fixed inner pixels, the template rows gathered
    # once) gives the very number gathering them through an empty mask gives.
    deck = default_deck()
    frame = _frame(back_shown=True)
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    rng = np.random.default_rng(3)
    for _ in range(30):
        quad = (_QUAD + rng.uniform(-12.0, 12.0, (4, 2))).astype(np.float32)
        h = cv2.getPerspectiveTransform(quad, _STRIP)
        assert tester._in_place.likeness(frame, h, None) == tester._in_place.likeness(
            frame, h, np.zeros((56, 40), np.uint8)
        )


def test_a_mask_hiding_only_the_outermost_pixels_hides_nothing_the_likeness_keeps() -> None:
    # The likeness keeps the strip's inner pixels alone: a mask over its outer ring (felt a pixel
    # off) is the case of nothing hidden, told from the kept pixels gathered, and one pixel more
    # hidden is not.
    deck = default_deck()
    frame = _frame(back_shown=True)
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    ring = np.full((56, 40), 255, np.uint8)
    ring[1:-1, 1:-1] = 0
    more = ring.copy()
    more[1:6, 1:40] = 255
    rng = np.random.default_rng(5)
    for _ in range(10):
        quad = (_QUAD + rng.uniform(-12.0, 12.0, (4, 2))).astype(np.float32)
        h = cv2.getPerspectiveTransform(quad, _STRIP)
        whole = tester._in_place.likeness(frame, h, None)
        assert tester._in_place.likeness(frame, h, ring) == whole
        assert tester._in_place.likeness(frame, h, more) != whole


def test_a_rectangle_the_blank_hides_nothing_of_is_judged_as_through_another_empty_mask() -> None:
    # The all-clear mask's shortcut (no mask warped) gives the number a warped empty mask gives,
    # also for rectangles reaching off the plane (where the warp's border hides part of them).
    deck = default_deck()
    frame = _frame(back_shown=True)
    rng = np.random.default_rng(4)
    quads = [_QUAD + rng.uniform(-12.0, 12.0, (4, 2)) for _ in range(20)]
    quads += [_QUAD + np.array(off) for off in ((-95.0, 0.0), (0.0, 105.0), (-88.0, 0.0))]  # off the plane
    for quad in quads:
        tester = BackTester(signature=deck.back_signature, back=deck.back)
        open_score = tester.strip_likeness(Hypothesis(corners=quad), frame, tester.blank(frame))
        empty = np.zeros(frame.shape[:2], np.uint8)  # not the tester's blank: warped
        other = BackTester(signature=deck.back_signature, back=deck.back)
        assert open_score == other.strip_likeness(Hypothesis(corners=quad), frame, empty)


def test_a_likeness_asked_again_makes_no_warp(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same rectangle asked again within a frame, nothing hidden, is answered from memory
    # without the warp being made again; asked through a mask, the mask is warped as before.
    deck = default_deck()
    frame = _frame(back_shown=True)
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    made = []
    real = back_tester.cv2.getPerspectiveTransform

    def counted(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        made.append(1)
        return real(src, dst)

    monkeypatch.setattr(back_tester.cv2, "getPerspectiveTransform", counted)
    hyp = Hypothesis(corners=_QUAD.copy())
    first = tester.strip_likeness(hyp, frame, tester.blank(frame))
    assert tester.strip_likeness(hyp, frame, tester.blank(frame)) == first
    assert len(made) == 1
    empty = np.zeros(frame.shape[:2], np.uint8)  # not the tester's blank: it is warped
    assert tester.strip_likeness(hyp, frame, empty) == first
    assert len(made) == 2


def test_the_chip_test_finds_the_colours_far_from_every_one_of_the_back() -> None:
    # The nearest main colour's distance, per pixel: a disc of a colour far from all of the back's
    # on the back itself is the chip kept out; the bare back has none.
    deck = default_deck()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    patch = cv2.resize(deck.back, (40, 56), interpolation=cv2.INTER_AREA)
    assert tester._in_place._chip(patch) is None
    far = max(((0, 255, 255), (255, 0, 255), (0, 0, 0), (255, 255, 0)), key=lambda c: _farthest(tester, c))
    cv2.circle(patch, (20, 28), 7, far, -1)
    keep = tester._in_place._chip(patch)
    assert keep is not None
    assert not keep[28, 20] and keep[5, 5] and keep[50, 35]


def _farthest(tester: BackTester, colour: tuple[int, int, int]) -> float:
    """The squared distance of ``colour`` to the back's nearest main colour."""
    return float(((tester._in_place._palette - np.array(colour, np.float32)) ** 2).sum(axis=1).min())


def test_the_chip_test_undoes_the_lamps_gain_on_a_softened_strip() -> None:
    # The fine-back path hands the chip test a softened (float) strip: under a dim, tinted lamp the
    # back's colours are brought back by each colour's median, so the bare back still has no chip
    # and a disc far from its colours is still kept out.
    deck = default_deck()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    patch = cv2.resize(deck.back, (40, 56), interpolation=cv2.INTER_AREA)
    far = max(((0, 255, 255), (255, 0, 255), (0, 0, 0), (255, 255, 0)), key=lambda c: _farthest(tester, c))
    chipped = patch.copy()
    cv2.circle(chipped, (20, 28), 7, far, -1)
    lamp = np.array([0.35, 0.4, 0.5], np.float32)
    for strip, chip in ((patch, False), (chipped, True)):
        dim = cv2.GaussianBlur(strip.astype(np.float32) * lamp, (0, 0), 0.5)
        keep = tester._in_place._chip(dim)
        if not chip:
            assert keep is None
        else:
            assert keep is not None
            assert not keep[28, 20] and keep[5, 5] and keep[50, 35]
