"""The face-down stages' cheaper ways give the very numbers the ways they replace gave."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import pytest

from vision.back_signature import distances, features
from vision.deck import default_deck
from vision.pipeline import back_tester
from vision.pipeline.back_in_place import WHOLE_FIT
from vision.pipeline.back_tester import BackTester
from vision.pipeline.geometry import unit
from vision.pipeline.hidden import _POLISH_STEPS, Stack, turned
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.middle_cards import SLIDE_STEP, by_score

_STRIP = np.array([[0, 0], [40, 0], [40, 56], [0, 56]], np.float32)
_QUAD = np.array([[100.0, 80.0], [220.0, 90.0], [208.0, 260.0], [88.0, 250.0]])


def _frame() -> np.ndarray:
    """Green cloth with the deck's back warped onto ``_QUAD``."""
    deck = default_deck()
    frame = np.full((360, 320, 3), (40, 110, 40), np.uint8)
    h, w = deck.back.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, _QUAD.astype(np.float32))
    warped = cv2.warpPerspective(deck.back, m, (frame.shape[1], frame.shape[0]))
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (frame.shape[1], frame.shape[0])) > 0
    frame[inside] = warped[inside]
    return frame


def _masked_likeness_before(tester: BackTester, image: np.ndarray, h: np.ndarray, hidden: np.ndarray) -> float:
    """The strip test through a mask as it was written before (a strip-sized keep mask drawn, counted,
    then searched for its places)."""
    keep = np.zeros((56, 40), bool)
    keep[1:-1, 1:-1] = hidden[1:-1, 1:-1] == 0
    if int(np.count_nonzero(keep)) < 0.04 * 40 * 56:
        return -1.0
    patch = cv2.warpPerspective(image, h, (40, 56), flags=cv2.INTER_AREA)
    n = int(np.count_nonzero(keep))
    at = np.flatnonzero(keep)
    seen = np.take(patch.reshape(-1, 3), at, axis=0).astype(np.float64)
    tmpl = np.take(tester._in_place._moments, at, axis=0)
    return tester._in_place._correlated(seen, tmpl, (np.ones(n) @ tmpl).tolist())


def test_a_strip_through_a_mask_is_the_same_number_as_gathered_through_a_keep_mask() -> None:
    deck = default_deck()
    frame = _frame()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    rng = np.random.default_rng(16)
    shown = 0
    for k in range(60):
        quad = (_QUAD + rng.uniform(-15.0, 15.0, (4, 2))).astype(np.float32)
        h = cv2.getPerspectiveTransform(quad, _STRIP)
        hidden = np.zeros((56, 40), np.uint8)
        # A card above hiding all but a strip along one side (or a corner), border pixels hidden too or not.
        side = k % 4
        cut = int(rng.integers(2, 30))
        if side == 0:
            hidden[:, cut:] = 255
        elif side == 1:
            hidden[:-cut, :] = 255
        elif side == 2:
            hidden[cut:, cut:] = 255
        else:
            hidden[rng.random((56, 40)) < 0.9] = 255  # little shows: -1 from both
        if k % 5 == 0:
            hidden[0, :] = hidden[:, 0] = 0
        want = _masked_likeness_before(tester, frame, h, hidden)
        assert tester._in_place.likeness(frame, h, hidden) == want
        shown += want > -1.0
    assert shown > 30  # most strips were judged, not refused for showing too little


def test_the_least_distance_is_the_least_of_the_distances() -> None:
    deck = default_deck()
    sig = deck.back_signature
    rng = np.random.default_rng(17)
    for _ in range(200):
        patch = rng.integers(0, 256, (28, 20, 3), dtype=np.uint8)
        vector = features(patch)
        assert vector is not None
        d_back = float(distances(vector, sig.backs).min())
        d_face = float(distances(vector, sig.faces).min())
        likeness = max(0.0, 1.0 - d_back / (2.0 * sig.limit))
        want = (False, likeness) if d_back > sig.limit else (d_back < 0.85 * d_face, likeness)
        assert sig.judge(vector) == want
    for vector in sig.backs[:5]:  # the back's own looks: nearest at distance 0
        assert sig.judge(vector)[1] == 1.0


def test_a_card_fitted_again_in_the_same_picture_is_not_fitted_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    deck = default_deck()
    frame = _frame()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    fresh = BackTester(signature=deck.back_signature, back=deck.back)
    off = Hypothesis(corners=_QUAD + np.array([3.0, -2.0]))
    want = fresh.fit_whole(off, frame, reach=8.0)
    warps = []
    real = back_tester.cv2.warpPerspective

    def counted(*args: Any, **kwargs: Any) -> np.ndarray:
        warps.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(back_tester.cv2, "warpPerspective", counted)
    first = tester.fit_whole(off, frame, reach=8.0)
    assert np.array_equal(first, want) and len(warps) == 1
    first[0, 0] += 50.0  # a caller moving what it was handed changes nothing remembered
    again = tester.fit_whole(Hypothesis(corners=off.corners.copy()), frame, reach=8.0)
    assert np.array_equal(again, want) and len(warps) == 1
    assert np.array_equal(tester.fit_whole(off, frame, reach=4.0), fresh.fit_whole(off, frame, reach=4.0))
    assert len(warps) == 3  # another reach is another fit (and the fresh tester's own)
    # Another picture, or the same buffer after a new frame, is fitted afresh.
    tester.fit_whole(off, frame.copy(), reach=8.0)
    assert len(warps) == 4
    tester.new_frame()
    tester.fit_whole(off, frame, reach=8.0)
    assert len(warps) == 5


def test_whether_the_back_is_like_the_cloth_is_the_same_asked_again() -> None:
    deck = default_deck()
    tester = BackTester(signature=deck.back_signature, back=deck.back)
    hues = tester._hues
    assert hues is not None
    for felt_hue in (*range(0, 180, 7), 60, 0, 179, 60):
        offset = (np.arange(180) - felt_hue + 90) % 180 - 90
        want = float(hues[np.abs(offset) <= 14].sum()) >= 0.1
        assert tester.like_cloth(felt_hue) == want


def _polished_before(stack: Stack, quad: np.ndarray, hiding: np.ndarray | None = None) -> np.ndarray:
    """``Stack.polished`` as written before (each step's moves worked out again)."""
    mask = stack.covered if hiding is None else hiding

    def placed(corners: np.ndarray) -> tuple[float, np.ndarray]:
        return stack.likeness(Hypothesis(corners=corners), mask), corners

    a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
    step = SLIDE_STEP * stack.card_w
    best = placed(quad)
    for _ in range(_POLISH_STEPS):
        moved = [best[1] + (su * a + sv * b) * step for su in (-1, 0, 1) for sv in (-1, 0, 1) if su or sv]
        better = max((placed(q) for q in moved), key=by_score)
        if better[0] <= best[0]:
            break
        best = better
    return max([best, *(placed(turned(best[1], t)) for t in (-1.5, 1.5))], key=by_score)[1]


def test_a_polished_strip_lands_on_the_same_corners_as_before() -> None:
    # A likeness peaked somewhere near the quad (an irrational slope: no ties), asked of the very
    # corners it is handed: both ways must take the same steps to the same floats.
    rng = np.random.default_rng(18)
    for _ in range(40):
        peak = np.array([150.0, 170.0]) + rng.uniform(-12.0, 12.0, 2)
        asked: list[bytes] = []

        def likeness(hyp: Hypothesis, mask: np.ndarray, peak: np.ndarray = peak, asked: list[bytes] = asked) -> float:
            asked.append(hyp.corners.tobytes())
            c = hyp.corners.mean(axis=0)
            return -math.hypot(*(c - peak)) * math.sqrt(2.0) + 1e-3 * float(hyp.corners[0, 0])

        covered = np.zeros((360, 320), np.uint8)
        stack = Stack(
            chosen=[],
            covered=covered,
            solid=covered,
            likeness=likeness,
            slide=lambda *a: (np.zeros(0), np.zeros((0, 4, 2))),
            card_w=float(rng.uniform(50.0, 70.0)),
            card_h=90.0,
            whole_fit=WHOLE_FIT,
        )
        quad = _QUAD + rng.uniform(-10.0, 10.0, (4, 2))
        want = _polished_before(stack, quad)
        before = list(asked)
        asked.clear()
        got = stack.polished(quad)
        assert got.tobytes() == want.tobytes()
        assert asked == before  # the same places asked, in the same order
