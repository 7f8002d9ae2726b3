"""What reading a blob's cards leaves to settle once the blob is read (FanSettle), and its forgetting."""

from __future__ import annotations

from tests.vision.pipeline.shapes import H, W, card_quad
from vision.index_match import IndexMatch
from vision.pipeline.corners import UNKNOWN, CornerRead
from vision.pipeline.fan_settle import FanSettle
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.settings import RecognizerSettings


def _clear(code: str) -> CornerRead:
    return CornerRead(code, 0.65, code, IndexMatch(code=code, score=0.93, margin=0.4))


def _fan() -> tuple[Hypothesis, Hypothesis]:
    """A fan's bottom card and a card read Ks lying over its far corner (2)."""
    bottom = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    top = Hypothesis(corners=card_quad(100.0 + 0.7 * W, 100.0, 0.0))
    top.code = "Ks"
    return bottom, top


def test_a_split_card_whose_far_corner_lies_under_that_card_is_read_by_its_other_index() -> None:
    pending = FanSettle(settings=RecognizerSettings())
    bottom, top = _fan()
    pending.split.append((bottom, _clear("3d"), _clear("Ks")))
    pending.settle([bottom, top], card_w=W)
    assert bottom.code == "3d"
    assert pending.split == []  # settled once: the next blob starts afresh


def test_a_forgotten_card_is_not_settled() -> None:
    pending = FanSettle(settings=RecognizerSettings())
    bottom, top = _fan()
    pending.split.append((bottom, _clear("3d"), _clear("Ks")))
    pending.one.append((bottom, 0))
    pending.forget(bottom)
    pending.settle([bottom, top], card_w=W)
    assert bottom.code == UNKNOWN


def test_a_card_named_by_an_index_lying_under_a_card_read_alike_is_left_unknown() -> None:
    pending = FanSettle(settings=RecognizerSettings())
    bottom, top = _fan()
    bottom.code, bottom.confidence = "Ks", 0.6
    pending.one.append((bottom, 2))
    pending.settle([bottom, top], card_w=W)
    assert bottom.code == UNKNOWN
    # Not so when the card read alike lies far off the corner.
    far = Hypothesis(corners=card_quad(100.0, 100.0 + 3 * H, 0.0))
    far.code = "Ks"
    bottom.code = "Ks"
    pending.one.append((bottom, 2))
    pending.settle([bottom, far], card_w=W)
    assert bottom.code == "Ks"
