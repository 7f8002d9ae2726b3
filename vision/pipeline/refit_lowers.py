"""Lower backs of a stack moved into place: a rectangle off its card put where its strip is the back's."""

from __future__ import annotations

from typing import Final

from vision.pipeline.back_tester import BackTester
from vision.pipeline.geometry import ByteImage, drawn, redraw
from vision.pipeline.hidden import Stack
from vision.pipeline.hypotheses import BACK, Hypothesis, on_or_under

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
    better (``hidden.Stack.polished``); it is put there when it matches ``_GAIN`` better and may lie
    there as any lower back (``hidden.Stack.judged``: under backs only, parallel, on the stack, no
    other card's place, its strip the back's). The stack's lower backs are then looked for again.
    """
    backs = [o for o in chosen if o.code == BACK]
    if len(backs) < 2:
        return False
    moved = False
    for low in backs:
        others = [o for o in chosen if o is not low]
        if not any(on_or_under(low.corners, o, card_area=card_w * card_h) for o in others):
            continue  # alone
        # The stack as the other cards make it: what they hide of this one, and where it may lie.
        stack = Stack(
            chosen=others,
            covered=drawn(covered.shape, (o.corners for o in others)),
            solid=solid,
            likeness=lambda h, cov: tester.strip_likeness(h, image, cov),
            slide=lambda c, cov, reach, turns: tester.slide(c, image, cov, reach=reach, turns=turns),
            card_w=card_w,
            card_h=card_h,
            whole_fit=tester.whole_fit,
        )
        if stack.whole(low) >= tester.whole_fit:
            continue  # a card showing whole: a top
        before = tester.strip_likeness(low, image, stack.covered)
        if before >= _IN_PLACE:
            continue
        placed = stack.judged(stack.polished(low.corners))
        if placed is None or placed.back_score < before + _GAIN:
            continue
        was = low.corners
        low.corners, low.center, low.back_score = placed.corners, placed.center, placed.back_score
        redraw(covered, (o.corners for o in chosen), erased=was)
        moved = True
    return moved
