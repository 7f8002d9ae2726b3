"""Cards chosen in one blob that cannot all be: a back across a stack, a back counted twice, a face read twice."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN
from vision.pipeline.geometry import local_poly, overlap_area
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, across, parallel

ByteImage = npt.NDArray[Any]

# Two backs sharing this much of a card's area lie on one another (a stack), not side by side.
_STACKED_SHARE: Final = 0.3
# A back whose own part (what no other card of the blob covers) is less than this share of a card
# explains nothing: the card under it would show at least the 6 mm strip of the least offset a
# dealt stack has (about a tenth of a card; ``stack_backs`` counts a strip from 6 %).
_OWN_SHARE: Final = 0.04


def _overlap_share(a: Hypothesis, b: Hypothesis, card_area: float) -> float:
    return overlap_area(a.corners, b.corners) / card_area


def drop_crossed_backs(chosen: list[Hypothesis], hyps: list[Hypothesis], *, card_area: float) -> list[Hypothesis]:
    """The backs of ``chosen`` to drop because they lie across a stack.

    Backs dealt on one another lie a few degrees apart, so a back covering a third of another
    back's card while lying across it (turned more than 60 degrees) is a rectangle drawn between
    corners of different cards of a stack, not a card. Which of the two is the stack's is told by
    the blob's own outline corners: the hypotheses they propose (``hyps``) lie along the stack's
    cards, several of them for each card, while the rectangle drawn across has few. The one with
    fewer parallel hypotheses (by support) is dropped; a tie keeps both (two cards really
    crossed each propose as many).
    """
    backs = [h for h in chosen if h.code == BACK]
    dropped: list[Hypothesis] = []
    for i, a in enumerate(backs):
        for b in backs[i + 1 :]:
            if any(a is d or b is d for d in dropped):
                continue
            if not across(a.corners, b.corners) or _overlap_share(a, b, card_area) < _STACKED_SHARE:
                continue
            va = sum(h.support for h in hyps if parallel(h.corners, a.corners))
            vb = sum(h.support for h in hyps if parallel(h.corners, b.corners))
            if va > vb:
                dropped.append(b)
            elif vb > va:
                dropped.append(a)
    return dropped


def drop_twice_counted(chosen: list[Hypothesis], solid: ByteImage, *, card_area: float) -> list[Hypothesis]:
    """The backs of ``chosen`` that are a card already counted: nearly all of what they cover of
    the blob (``solid``) is covered by the other chosen cards. Each such back is dropped in turn,
    the one with the least of its own first, and the rest judged again without it: of two
    rectangles drawn on one card a few pixels apart, one stays. A stack's hidden lower back
    (``hidden``) is not judged so: the middle card of three lies almost wholly under the card on
    top and over the one below, and its strip was already judged with exactly the cards above it.
    Nor is a back found lying on top of a stack (``whole``): the rectangles of the cards under it
    cover it, yet it was judged showing whole. Both still count among the cards covering the
    others: a rectangle chosen between a stack's cards that they cover is dropped even when it is
    the only back left that may be.
    """
    backs = [h for h in chosen if h.code == BACK and not h.hidden and not h.whole]
    dropped: list[Hypothesis] = []
    while backs:
        least: tuple[float, Hypothesis] | None = None
        for hyp in backs:
            others = [
                o
                for o in chosen
                if o is not hyp and not any(o is d for d in dropped) and _overlap_share(hyp, o, card_area) > 0
            ]
            if not others:
                continue
            own = _own_area(hyp, others, solid)
            if own < _OWN_SHARE * card_area and (least is None or own < least[0]):
                least = (own, hyp)
        if least is None:
            break
        dropped.append(least[1])
        backs = [h for h in backs if h is not least[1]]
    return dropped


def _own_area(hyp: Hypothesis, others: list[Hypothesis], solid: ByteImage) -> float:
    """Pixels of ``solid`` inside ``hyp`` that none of ``others`` covers."""
    x, y, w, h, poly = local_poly(hyp.corners)
    mh, mw = solid.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, mw), min(y + h, mh)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    local = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(local, poly, 255)
    for o in others:
        cv2.fillConvexPoly(local, np.round(o.corners - (x, y)).astype(np.int32), 0)
    inside = local[y0 - y : y1 - y, x0 - x : x1 - x]
    return float(cv2.countNonZero(cv2.bitwise_and(inside, solid[y0:y1, x0:x1])))


def unread_twins(chosen: list[Hypothesis]) -> None:
    """Cards of one blob read as the same card at two places: a poker table's one deck holds each
    card once, so one of them shows another card's index (a neighbour's, at a corner the
    rectangle shares with it; a four-index design shows one at every corner). A card read at both
    its index corners lies on top and is its own; the other is left unknown (a card is there all
    the same). When neither or both were read twice, which is right is not known: both unknown.
    """
    faces: dict[str, list[Hypothesis]] = {}
    for hyp in chosen:
        if hyp.code not in (UNKNOWN, BACK):
            faces.setdefault(hyp.code, []).append(hyp)
    for twins in faces.values():
        if len(twins) < 2:
            continue
        whole = [h for h in twins if h.whole]
        for hyp in twins:
            if len(whole) != 1 or hyp is not whole[0]:
                hyp.code, hyp.confidence, hyp.seen = UNKNOWN, 0.0, True


def under_backs(hyp: Hypothesis, chosen: list[Hypothesis], *, card_area: float) -> bool:
    """Whether an unread card lies on chosen backs as a stack's card does: it overlaps other chosen
    cards, all of them backs lying within about 18 degrees of it. Such a card is the stack's to
    count (a strip of back in a glare or shadow looks like paper as much as like the back), not a
    face: a face-up card dealt square on or under a face-down one is no table's play.
    """
    over = [o for o in chosen if o is not hyp and _overlap_share(hyp, o, card_area) > 0.01]
    if not over or any(o.code != BACK for o in over):
        return False
    return all(parallel(hyp.corners, o.corners, within=STACK_COS) for o in over)
