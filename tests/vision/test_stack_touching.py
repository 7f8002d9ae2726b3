"""Stacks of backs touching faces, and tops the outline proposes no rectangle for (benchmark tables)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from tests.vision.stacks import each_counted_once, no_back_where_no_card_lies, table_stack
from vision.deck import DeckProfile
from vision.pipeline.hypotheses import BACK, TOUCH, Hypothesis, on_or_under

CARD_W, CARD_H = 60.0, 84.0


def _card(x: float, y: float, *, code: str) -> Hypothesis:
    quad = np.array([[x, y], [x + CARD_W, y], [x + CARD_W, y + CARD_H], [x, y + CARD_H]], np.float64)
    hyp = Hypothesis(corners=quad)
    hyp.code = code
    return hyp


def test_a_face_touching_a_back_by_a_sliver_neither_lies_on_it_nor_under_it() -> None:
    back = _card(0.0, 0.0, code=BACK).corners
    sliver = 0.5 * TOUCH * CARD_W  # a strip of the face over the back: half the touching share
    assert not on_or_under(back, _card(CARD_W - sliver, 0.0, code="5s"), card_area=CARD_W * CARD_H)
    # The same sliver of another back is a card of the stack, and more of a face lies on it.
    assert on_or_under(back, _card(CARD_W - sliver, 0.0, code=BACK), card_area=CARD_W * CARD_H)
    assert on_or_under(back, _card(CARD_W - 3 * sliver, 0.0, code="5s"), card_area=CARD_W * CARD_H)
    assert not on_or_under(back, _card(CARD_W + 1.0, 0.0, code=BACK), card_area=CARD_W * CARD_H)


class _Stack(NamedTuple):
    design: str  # the deck fixture's name
    seed: int  # the development table
    codes: tuple[str, ...]  # the stack's cards, dealt bottom first


STACKS = [
    # The top back's corner meets the fan's 5s beside it (0.4 % of the back's rectangle on it).
    # Taken for a face lying on the back or under it, the whole top back was left uncounted.
    pytest.param(_Stack("hershey", 19706, ("2d", "Qh")), id="top-touching-a-fan"),
    # The single 7c, dealt after the stack, lies over the corner of the top back (5 % of it). Every
    # rectangle of the top overlapped a face, so none was the card on top (one rectangle drawn
    # across the stack was counted instead, a phantom, and all three missed).
    pytest.param(_Stack("kennard", 14017, ("8h", "Jd", "4h")), id="face-over-the-top-corner"),
    # Two backs 0.11 of a card apart, drawn as one rectangle 1.056 cards wide round both. The back
    # fitted to it, the top, lies 0.084 of a card's width off it (the bar for one card's rectangle
    # is 0.08), and the strip of the card under it lies against a face card that only touches it.
    pytest.param(_Stack("kennard", 19503, ("6s", "9d")), id="pair-as-one-rectangle-beside-a-face"),
    # Red backs on red felt: the top lies between the bottom and the middle card, which the outline
    # proposes and which together cover all of it, so no part of the blob was left unexplained to
    # look for it in. Neither of the two matches the back whole.
    pytest.param(_Stack("kennard", 19717, ("2s", "5c", "8h")), id="top-between-the-two-under-it"),
    # Held out until the rule above made a phantom on it: of a pair, the top's rectangle is drawn a
    # few pixels off (0.64 whole), so neither chosen back matches whole, and the fit 0.12 of a
    # card's width from it (0.78) was counted as a third card on both. Looked for there, a top must
    # show whole (0.8).
    pytest.param(_Stack("hershey", 19960, ("7h", "5d")), id="top-drawn-off-is-no-third-card"),
]


@pytest.mark.parametrize("stack", STACKS)
def test_each_back_of_the_stack_is_counted_once(stack: _Stack, request: pytest.FixtureRequest) -> None:
    deck: DeckProfile = request.getfixturevalue(stack.design)
    cards, near = table_stack(deck, seed=stack.seed, codes=stack.codes)
    assert no_back_where_no_card_lies(cards, near), (cards, near)
    assert each_counted_once(cards, near), (cards, near)
