"""The fan stage's settling of a card whose two index corners showed two different clear indices."""

from __future__ import annotations

from tests.vision.pipeline.shapes import H, W, card_quad
from vision.deck import DeckProfile, IndexMatch
from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.fans import FanReader
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.settings import RecognizerSettings


def _reader(deck: DeckProfile) -> FanReader:
    settings = RecognizerSettings()
    corners = CornerReader(deck=deck, settings=settings)
    decider = CardDecider(deck=deck, settings=settings, corners=corners)
    return FanReader(settings=settings, corners=corners, decider=decider)


def _clear(code: str) -> CornerRead:
    return CornerRead(code, 0.65, code, IndexMatch(code=code, score=0.93, margin=0.4))


def _split(fans: FanReader, *, covering: str | None) -> Hypothesis:
    """A fan's bottom card (corner 0 read 3d, its far corner 2 read Ks), beside a card read Ks
    lying over that far corner (``covering`` its code; None: beside the fan, over nothing).
    """
    bottom = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    bottom.seen = True
    # Spread along the short side: the top card's quad covers the bottom card's corner 2.
    top = Hypothesis(corners=card_quad(100.0 + 0.7 * W, 100.0 if covering else 100.0 + 2 * H, 0.0))
    top.code = covering or "Ks"
    fans._split.append((bottom, _clear("3d"), _clear("Ks")))
    fans.settle([bottom, top], card_w=W)
    return bottom


def test_a_far_corner_under_a_card_read_as_that_card_leaves_the_card_its_own_index(kennard: DeckProfile) -> None:
    fans = _reader(kennard)
    assert _split(fans, covering="Ks").code == "3d"


def test_two_clear_indices_stay_unread_when_nothing_explains_one(kennard: DeckProfile) -> None:
    fans = _reader(kennard)
    # The Ks read lies nowhere near the far corner: which index is this card's is not known.
    assert _split(fans, covering=None).code == UNKNOWN
    # Nor when the card over the corner was read as another code than the corner showed.
    bottom = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    top = Hypothesis(corners=card_quad(100.0 + 0.7 * W, 100.0, 0.0))
    top.code = "Qh"
    fans._split.append((bottom, _clear("3d"), _clear("Ks")))
    fans.settle([bottom, top], card_w=W)
    assert bottom.code == UNKNOWN
