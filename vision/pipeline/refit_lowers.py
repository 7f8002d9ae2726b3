"""Lower backs of a stack moved into place: a rectangle off its card put where its strip is the back's."""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from vision.pipeline.back_tester import BackTester
from vision.pipeline.geometry import ByteImage, Vec, on_stack, redraw
from vision.pipeline.hidden import Stack
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, on_or_under, parallel
from vision.pipeline.middle_cards import STRIP_MATCH

# A lower back whose own strip (what no other chosen card hides) matches the back in place this
# well lies where its card does (true strips traced on tables 13006 and 14011: 0.80-0.91; a rectangle
# between two cards a few pixels apart frames both their borders and matches worse).
_IN_PLACE: Final = 0.7
# A lower back is moved only where its strip matches this much better.
_GAIN: Final = 0.1


def refitted_lowers(
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> bool:
    """Whether a lower back of ``chosen`` was moved to where its strip matches the back in place
    much better (``covered`` redrawn).

    A lower card's rectangle is drawn from outline corners or slid from a card above it; a few
    pixels off its card, or between two cards of the stack, what no other card hides of it frames
    another card's border and matches the back poorly, and it hides the strip of the card beside
    it. Each lower back (one under another chosen card, not seen whole) whose own strip matches
    under ``_IN_PLACE`` is moved along its sides, and turned a little, while that strip matches
    better (``hidden.Stack.polished``); it is put there when it matches ``_GAIN`` better, at least
    as a lower card's strip must (``STRIP_MATCH``), still parallel to the backs it lies under, on
    the stack and on no other card's place. The stack's lower backs are then looked for again.
    """
    backs = [o for o in chosen if o.code == BACK]
    if len(backs) < 2:
        return False
    card_area = card_w * card_h
    stack = Stack(
        chosen=chosen,
        covered=covered,
        solid=solid,
        likeness=lambda h, cov: tester.strip_likeness(h, image, cov),
        slide=lambda c, cov, reach, turns: tester.slide(c, image, cov, reach=reach, turns=turns),
        card_w=card_w,
        card_h=card_h,
        whole_fit=tester.whole_fit,
    )
    moved = False
    for low in backs:
        others = [o for o in chosen if o is not low]
        over = [o for o in others if on_or_under(low.corners, o, card_area=card_area)]
        if not over or stack.whole(low) >= tester.whole_fit:
            continue  # alone, or a card showing whole: a top
        hiding = np.zeros_like(covered)
        for o in others:
            cv2.fillConvexPoly(hiding, np.round(o.corners).astype(np.int32), 255)
        before = tester.strip_likeness(low, image, hiding)
        if before >= _IN_PLACE:
            continue
        quad = stack.polished(low.corners, hiding)
        after = tester.strip_likeness(Hypothesis(corners=quad), image, hiding)
        if after < max(STRIP_MATCH, before + _GAIN) or not _may_lie(
            quad, over=over, others=others, solid=solid, hiding=hiding, card_w=card_w, card_h=card_h
        ):
            continue
        was = low.corners
        low.corners, low.center = quad, quad.mean(axis=0)
        low.back_score = after
        redraw(covered, (o.corners for o in chosen), erased=was)
        moved = True
    return moved


def _may_lie(
    quad: Vec,
    *,
    over: list[Hypothesis],
    others: list[Hypothesis],
    solid: ByteImage,
    hiding: ByteImage,
    card_w: float,
    card_h: float,
) -> bool:
    """Whether a lower back may lie at ``quad``: parallel to the backs it lies under, on the stack,
    and no other card's place."""
    if any(o.code != BACK or not parallel(quad, o.corners, within=STACK_COS) for o in over):
        return False
    centre = quad.mean(axis=0)
    if any(float(np.hypot(*(centre - o.center))) < 0.08 * card_w for o in others):
        return False
    return on_stack(quad, solid=solid, hiding=hiding, least=0.04 * card_w * card_h)
