"""The card on top of a stack where the rectangle chosen for it lies on another card of the stack."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.geometry import (
    aligned,
    area,
    drawn,
    on_stack,
    share,
    shrink,
    side_lengths,
    turned,
    unit,
)
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, on_or_under, parallel

if TYPE_CHECKING:
    from vision.pipeline.back_tester import BackTester

ByteImage = npt.NDArray[Any]
# The card on top must match the back as a whole card this well ...
_MATCH: Final = 0.6
# ... and this much better than the rectangle chosen where it lies.
_BETTER: Final = 0.05
# How far (card widths) from a chosen back the card on top is looked for: two backs dealt on one
# another lie 6-25 mm apart (0.1-0.4 of a card's width); the outline's rectangle lies on one of them.
_REACH: Final = 0.3
# Turns (degrees, from the chosen back) the back is slid over the stack at (the fit then turns it
# up to 3.75 degrees more: dealt backs lie a few degrees apart).
_TURNS: Final = (-2.0, 2.0)
# Nearer than this (card widths, centre to centre) two rectangles are one card.
_SAME: Final = 0.08
# Two backs whose centres lie this far apart (card widths) are two cards, whatever shows of the
# lower one; nearer, a rectangle a few pixels off the top card leaves its own border showing as a
# strip (``hidden._APART_OFF``), so the lower card must show the back in place there.
_APART: Final = 0.15
# A card's rectangle whose fit moves at least this far (card widths) onto a card matching the back as
# a whole card (``whole_fit``) and this much better than the rectangle is no card seen whole: it lies
# on the card under the top (dev table 11019's pair 0.1 of a card's width apart, five designs: the
# rectangle on the lower card 0.38-0.65, the fit 0.075 away on the top 0.93-0.96).
_OFF_CARD: Final = 0.05
_OFF_GAIN: Final = 0.2
# The card under a top fitted to the back lies at least this far from it (card widths): the fit
# leaves no more than a pixel of the top's own border beside it.
_UNDER: Final = 0.1
# That place is refined in steps of this (card widths), then of half of it.
_STEP: Final = 0.025
# The card under a top is looked for up to this far from it (card widths: two backs dealt
# farther apart leave the lower one's own outline corners).
_FAR: Final = 0.2


def shifted_tops(
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """Cards on top of stacks found near chosen backs that do not match the back whole, each put in
    ``chosen`` and drawn into ``covered``; the ones appended (not put in another's place).

    Two backs dealt 6-10 mm apart make an outline whose corners are mostly the two cards' shared
    ones, and the rectangle drawn from it may lie on the lower card, or between the two, with no
    rectangle proposed for the card on top: one card is counted for two. The card on top shows
    whole, so the back slid over the picture around the chosen rectangle (``BackTester.slide``,
    nothing hidden, then ``fit_whole``) matches best where it lies. Looked for only around a chosen
    back that does not match the back whole (``whole_fit``) and, when it is one card's rectangle, with some of
    the blob beside it that no chosen card explains (4 % of a card), and not when the slide's best
    place is the chosen rectangle itself (a card's size, within 0.04 of a card's width). Taken when
    it matches the back as a whole card (0.6) and 0.05 better than the chosen rectangle, lies wholly
    on the blob and only on backs lying parallel. The chosen rectangle stays as the card under it
    when what the new top leaves of it lies on the stack (not on felt) and, nearer the top than 0.15
    of a card's width, is a strip of the back in place (0.6, the strip bar); else (between the two
    cards, or the top itself a few pixels off) the top takes its place, and the lower card's strip
    is left for the stack's later steps (``hidden.hidden_backs``), or, where the chosen rectangle
    was drawn round both cards, looked for beside the top at once (``_under_top``). A chosen
    rectangle of one card's shape (the plane card's, evenly scaled: ``_card_shaped``) is a card and
    is never moved: nearer the fit than 0.08 of a card's width the fit is that card placed a pixel
    or two better (a card in a barrelled corner shows larger than the plane card), and it is left
    alone (unless the fit moved ``_OFF_CARD`` onto a card showing whole far better: the rectangle
    lay on the card under it, and the top takes its place); farther, the top is only ever added
    beside it. Run after the stack's other steps
    (``backs.stack_backs``).
    """
    blank = tester.blank(image)
    whole_of = tester.whole_likeness(image)

    added: list[Hypothesis] = []
    for low in [o for o in chosen if o.code == BACK and not o.whole and not o.hidden]:
        # A card's size: an outline drawn round two cards a few mm apart may be a rectangle of neither's.
        card = _card_sized(low.corners, card_w=card_w, card_h=card_h)
        sized = _card_shaped(low.corners, card)
        if whole_of(low) >= tester.whole_fit:
            continue  # placed right on a card showing whole: nothing lies on it
        # (A rectangle that is no one card's, drawn round two, is itself the sign of a second card:
        # it may cover both, leaving nothing of the blob beside it.)
        between = False
        if sized:
            around = shrink(low.corners, 1.0 + 2.0 * _REACH)
            if share(solid, around, exclude=covered) * area(around) < 0.04 * card_w * card_h:
                # No card's part beside it that no chosen card explains: no card on it unseen, unless
                # a second chosen back on it does not show whole either (the top may lie between the
                # two, all of it under them; looked for only as a card seen whole).
                between = _between_unwhole(
                    low, chosen=chosen, whole_of=whole_of, card_area=card_w * card_h, whole_fit=tester.whole_fit
                )
                if not between:
                    continue
        scores, quads = tester.slide(card, image, blank, reach=_REACH * card_w, turns=_TURNS)
        if not len(scores) or float(scores.max()) < _MATCH:
            continue  # (most designs' true tops score 0.8 or more at that size; fine backs' less: stop 49)
        best = int(np.argmax(scores))
        if float(np.hypot(*(quads[best].mean(axis=0) - low.center))) < _SAME * card_w / 2 and _card_size(
            low.corners, card
        ):
            continue  # the back matches best where the chosen card's rectangle lies already
        start = Hypothesis(corners=aligned(quads[best], card))
        fitted = tester.fit_whole(start, image, reach=0.08 * card_w)
        top = Hypothesis(corners=fitted, anchors=low.anchors)
        score = whole_of(top)
        if score < _MATCH or score < whole_of(low) + _BETTER or share(solid, top.corners) < 0.95:
            continue
        if between and score < tester.whole_fit:
            # (All of it under the two: only a card seen whole is one more. A top drawn a few pixels
            # off matches under it, and the fit a few pixels from it is that card again: held-out
            # table hershey-19960's 5d, 0.64 as drawn, 0.78 fitted 0.12 of a card's width away.)
            continue
        gap = float(np.hypot(*(top.center - low.center)))
        # (Unless the fit moved well off it onto a card showing whole far better: it lay on the card under it.)
        off = _OFF_CARD * card_w <= gap and score >= max(tester.whole_fit, whole_of(low) + _OFF_GAIN)
        if sized and gap < _SAME * card_w and not off:
            continue  # a card's rectangle a pixel or two off the fit: the same card, left where it was chosen
        over = [o for o in chosen if o is not low and on_or_under(top.corners, o, card_area=card_w * card_h)]
        if any(
            o.code != BACK
            or not parallel(top.corners, o.corners, within=STACK_COS)
            or float(np.hypot(*(top.center - o.center))) < _SAME * card_w
            or whole_of(o) >= score
            for o in over
        ):
            continue  # on a face, across a card, another chosen card itself, or under a card showing whole
        if any(
            float(np.hypot(*(top.center - o.center))) < _APART * card_w
            and not _still_lower(
                o, top=top, chosen=chosen, solid=solid, tester=tester, image=image, card_w=card_w, placed=score
            )
            for o in over
        ):
            continue  # a chosen card a few pixels off it: its own border shows beside it, no strip of another
        top.code, top.confidence, top.back, top.back_score = BACK, 0.5 + 0.5 * score, True, score
        top.whole = True  # it lies on top: the cards under it do not hide it
        if gap >= _SAME * card_w and _still_lower(
            low, top=top, chosen=chosen, solid=solid, tester=tester, image=image, card_w=card_w, placed=score
        ):
            chosen.append(top)
            added.append(top)
            cv2.fillConvexPoly(covered, np.round(top.corners).astype(np.int32), 255)
            continue
        if sized and not off:
            continue  # a card's rectangle is a card: the top is only ever added beside it, never put in its place
        k = next(i for i, o in enumerate(chosen) if o is low)
        chosen[k] = top
        cv2.fillConvexPoly(covered, np.round(low.corners).astype(np.int32), 0)
        for o in chosen:
            cv2.fillConvexPoly(covered, np.round(o.corners).astype(np.int32), 255)
        # The rectangle it replaces was drawn round it and the card under it (no one card's shape):
        # that card's strip lies beside the top, too thin for the outline to propose it.
        under = _under_top(top, chosen=chosen, solid=solid, tester=tester, image=image, card_w=card_w, card_h=card_h)
        if under is not None:
            chosen.append(under)
            added.append(under)
            cv2.fillConvexPoly(covered, np.round(under.corners).astype(np.int32), 255)
    return added


def unseen_tops(
    candidates: list[Hypothesis],
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """Cards on top of stacks where no card of the blob was chosen, each appended to ``chosen`` and
    drawn into ``covered``; the ones appended.

    Three backs dealt a few millimetres apart and a few degrees turned make an outline whose corners
    are the stack's outer ones: each rectangle drawn from them is wider than a card, or skewed
    across two cards, and none is chosen, so the stack's other steps, which start from a chosen back,
    count none of its cards. The card on top shows whole: the back slid over the picture around a
    rectangle left over that has the back's colours (``BackTester.slide`` at the plane card's size
    and the rectangle's place and direction, then ``fit_whole``) matches best where it lies. It is
    taken when it matches the back as a whole card as a card seen whole does (``whole_fit``: a
    face, a strip or a rectangle across two cards does not), lies wholly on the blob (95 %) and
    overlaps no chosen card. Run before the stack's other steps (``backs.stack_backs``).
    """
    blank = tester.blank(image)
    whole_of = tester.whole_likeness(image)
    added: list[Hypothesis] = []
    for hyp in sorted(candidates, key=lambda h: h.back_score, reverse=True):
        if not hyp.back or any(on_or_under(hyp.corners, o, card_area=card_w * card_h) for o in chosen):
            continue  # not the back's colours, or a stack with a card chosen already (the other steps')
        # Square: every rectangle the outline proposed here was snapped to corners of two cards
        # (none was chosen), skewed as they lie several degrees apart, and slid and fitted so the
        # top never matches the back (kennard table 19504's 6s, 0.76 skewed, 0.95 square). (Only
        # here: elsewhere the chosen rectangle's own skew placed fits better, 10 backs lost, 4 found.)
        card = _card_sized(hyp.corners, card_w=card_w, card_h=card_h, square=True)
        scores, quads = tester.slide(card, image, blank, reach=_REACH * card_w, turns=_TURNS)
        if not len(scores) or float(scores.max()) < _MATCH:
            continue
        start = Hypothesis(corners=aligned(quads[int(np.argmax(scores))], card))
        top = Hypothesis(corners=tester.fit_whole(start, image, reach=0.08 * card_w), anchors=hyp.anchors)
        score = whole_of(top)
        if score < tester.whole_fit or share(solid, top.corners) < 0.95:
            continue
        if any(on_or_under(top.corners, o, card_area=card_w * card_h) for o in chosen):
            continue  # slid onto a card already chosen (this stack's top, found from another rectangle)
        top.code, top.confidence, top.back, top.back_score = BACK, 0.5 + 0.5 * score, True, score
        top.whole = True  # it lies on top: the cards under it do not hide it
        chosen.append(top)
        added.append(top)
        cv2.fillConvexPoly(covered, np.round(top.corners).astype(np.int32), 255)
    return added


def _under_top(
    top: Hypothesis,
    *,
    chosen: list[Hypothesis],
    solid: ByteImage,
    tester: BackTester,
    image: ByteImage,
    card_w: float,
    card_h: float,
) -> Hypothesis | None:
    """The card under ``top`` whose strip shows beside it, or None.

    Two backs dealt 6-10 mm apart leave the lower one a strip of 0.1-0.2 of a card's width along
    their offset, too thin for the outline to propose a rectangle and for a coarse slide of the
    back to find. The top shifted along its sides until they reach the outer edges of what of the
    stack no chosen card explains beside it (turned a few degrees each way) is refined by the
    back's look in place (steps of 2.5 % then 1.25 % of a card's width, turns of 0.75 and 1.5
    degrees). It is the card under the top when what shows of it matches the back in place (0.6),
    lies on the stack, under backs only and parallel to them, at least ``_UNDER`` of a card's
    width from the top (fitted to the back: its own border shows no wider than a pixel) and
    ``_APART`` from every other chosen card.
    """
    # The top placed to a fraction of a pixel (the fit's steps are the back's template pixels,
    # 1.5 plane pixels: a strip 6 px wide beside a top 1.5 px off shows a third of itself).
    blank = tester.blank(image)

    def whole(quad: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        return tester.strip_likeness(Hypothesis(corners=quad), image, blank), quad

    c = _polished(top.corners, whole, card_w=card_w)
    hiding = drawn(solid.shape, (c if o is top else o.corners for o in chosen))
    a, b = unit(c[1] - c[0]), unit(c[3] - c[0])
    su, sv = strip_beyond(c, solid=solid, hiding=hiding, reach=_FAR * card_w)
    if float(np.hypot(su, sv)) < _SAME * card_w:
        return None  # no strip beside it wider than the top's own edge: no card under it seen

    def placed(quad: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        if float(np.hypot(*(quad.mean(axis=0) - top_centre))) < _SAME * card_w:
            return -1.0, quad  # the top itself, a pixel or two off
        return tester.strip_likeness(Hypothesis(corners=quad), image, hiding), quad

    top_centre = c.mean(axis=0)
    start = max((placed(turned(c + su * a + sv * b, t)) for t in (0.0, -2.0, 2.0)), key=_first)[1]
    quad = _polished(start, placed, card_w=card_w, steps=(_STEP, 0.5 * _STEP), turns=(-1.5, -0.75, 0.75, 1.5))
    score = placed(quad)[0]
    centre = quad.mean(axis=0)
    if score < _MATCH or any(float(np.hypot(*(centre - o.center))) < _APART * card_w for o in chosen if o is not top):
        return None
    if not on_stack(quad, solid=solid, hiding=hiding, least=0.04 * card_w * card_h):
        return None  # what shows of it is partly felt: no card's strip
    if any(
        o.code != BACK or not parallel(quad, o.corners, within=STACK_COS)
        for o in chosen
        if on_or_under(quad, o, card_area=card_w * card_h)
    ):
        return None  # under a face, or across a card: no back of the stack
    hyp = Hypothesis(corners=quad)
    hyp.code, hyp.confidence, hyp.back, hyp.back_score = BACK, 0.5 + 0.5 * score, True, score
    hyp.hidden = True
    top.corners, top.center = c, c.mean(axis=0)
    return hyp


def _polished(
    quad: npt.NDArray[np.float64],
    score: Callable[[npt.NDArray[np.float64]], tuple[float, npt.NDArray[np.float64]]],
    *,
    card_w: float,
    steps: tuple[float, ...] = (0.5 * _STEP,),
    turns: tuple[float, ...] = (-0.5, 0.5),
) -> npt.NDArray[np.float64]:
    """``quad`` moved along its sides by each of ``steps`` (card widths) while that scores better,
    then turned by the best of ``turns`` (degrees) when that scores better still."""
    a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
    best = score(quad)
    for step in steps:
        for _ in range(3):
            moved = [best[1] + (du * a + dv * b) * step * card_w for du in (-1, 0, 1) for dv in (-1, 0, 1) if du or dv]
            better = max((score(q) for q in moved), key=_first)
            if better[0] <= best[0]:
                break
            best = better
    best = max([best, *(score(turned(best[1], t)) for t in turns)], key=_first)
    return best[1]


def strip_beyond(
    top: npt.NDArray[np.float64], *, solid: ByteImage, hiding: ByteImage, reach: float
) -> tuple[float, float]:
    """How far (plane pixels, signed along the top's sides ``top[1] - top[0]`` and ``top[3] -
    top[0]``, each at most ``reach``) the stack reaches beyond ``top`` where ``hiding`` (the chosen
    cards, the top among them) explains none of it, along three quarters of a side (``_beyond``):
    the strip of a card lying under the top."""
    (up, un), (vp, vn) = sides_beyond(top, solid=solid, hiding=hiding, reach=reach)
    return up or -un, vp or -vn


def sides_beyond(
    top: npt.NDArray[np.float64], *, solid: ByteImage, hiding: ByteImage, reach: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """How far (plane pixels, each at most ``reach``, 0 where it does not) the stack reaches
    beyond each side of ``top`` where ``hiding`` explains none of it, along three quarters of the
    side: beyond ``top[1]``'s side and ``top[0]``'s along ``top[1] - top[0]``, then beyond
    ``top[3]``'s and ``top[0]``'s along ``top[3] - top[0]`` (``strip_beyond`` takes one of each)."""
    a, b = unit(top[1] - top[0]), unit(top[3] - top[0])
    w, h = float(np.hypot(*(top[1] - top[0]))), float(np.hypot(*(top[3] - top[0])))
    x0, y0, bw, bh = cv2.boundingRect(np.round(shrink(top, 1.0 + 2.0 * reach / w)).astype(np.int32))
    x0, y0 = max(x0, 0), max(y0, 0)
    rest = cv2.bitwise_and(solid[y0 : y0 + bh, x0 : x0 + bw], cv2.bitwise_not(hiding[y0 : y0 + bh, x0 : x0 + bw]))
    # (Less the slivers along the drawn edges and the blob's blurred rim: a lone card's are 1-2 px.)
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if cv2.countNonZero(rest) < 0.75 * min(w, h):
        return (0.0, 0.0), (0.0, 0.0)  # too little for any side (``_beyond``): most tops, lone cards
    ys, xs = np.nonzero(rest)
    rel = np.stack([xs + x0, ys + y0], axis=1).astype(np.float64) - top[0]
    u, v = rel @ a, rel @ b
    return (
        (_beyond(u - w, v, h, reach), _beyond(-u, v, h, reach)),
        (_beyond(v - h, u, w, reach), _beyond(-v, u, w, reach)),
    )


def _beyond(out: npt.NDArray[np.float64], along: npt.NDArray[np.float64], length: float, reach: float) -> float:
    """How far (plane pixels) the points ``out`` beyond a side of ``length`` reach past it along
    three quarters of the side (each pixel column's farthest, the lower quartile over the side's
    columns): a card under the top shows along the whole side its offset faces, a chip against
    the stack or a neighbour's corner along a part of it."""
    keep = (out > 0) & (out <= reach) & (along >= 0) & (along < length)
    if np.count_nonzero(keep) < 0.75 * length:
        return 0.0
    far = np.zeros(int(length) + 1, np.float64)
    np.maximum.at(far, along[keep].astype(np.int64), out[keep])
    return float(np.percentile(far, 25))


def card_shape(quad: npt.NDArray[np.float64], *, card_w: float, card_h: float) -> bool:
    """Whether ``quad`` is one card's rectangle (``_card_shaped`` against the plane card at its place)."""
    return _card_shaped(quad, _card_sized(quad, card_w=card_w, card_h=card_h))


def _between_unwhole(
    low: Hypothesis,
    *,
    chosen: list[Hypothesis],
    whole_of: Callable[[Hypothesis], float],
    card_area: float,
    whole_fit: float,
) -> bool:
    """Whether another chosen back overlapping ``low`` does not match the back whole either
    (``whole_fit``, ``BackTester.whole_fit``): of two backs counted, one is the top and shows whole,
    unless a third lies on both (kennard table 19717: the top of three dealt between the two under it,
    red on red felt)."""
    return any(
        o is not low and o.code == BACK and on_or_under(low.corners, o, card_area=card_area) and whole_of(o) < whole_fit
        for o in chosen
    )


def _first(pair: tuple[float, object]) -> float:
    """A (score, thing) pair's score: the key that ranks such pairs by score alone."""
    return pair[0]


def _card_sized(
    quad: npt.NDArray[np.float64], *, card_w: float, card_h: float, square: bool = False
) -> npt.NDArray[np.float64]:
    """The plane card's rectangle with ``quad``'s centre and directions (corners in its order;
    ``square``: see ``card_along``)."""
    return card_along(quad, quad.mean(axis=0), card_w=card_w, card_h=card_h, square=square)


def card_along(
    quad: npt.NDArray[np.float64],
    centre: npt.NDArray[np.float64],
    *,
    card_w: float,
    card_h: float,
    square: bool = False,
) -> npt.NDArray[np.float64]:
    """The plane card's rectangle at ``centre``, its sides along ``quad``'s (corners in its order).

    With ``square``, a skewed ``quad`` gives a rectangle turned halfway between its two sides'
    directions, not one skewed as it is (see ``unseen_tops``)."""
    a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
    if square:
        turn = 1.0 if a[0] * b[1] - a[1] * b[0] >= 0 else -1.0  # b is a turned a quarter this way
        a = unit(a + turn * np.array([b[1], -b[0]]))
        b = turn * np.array([-a[1], a[0]])
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * 0.5
    return np.asarray(centre + half[:, :1] * card_w * a + half[:, 1:] * card_h * b, np.float64)


def _card_size(quad: npt.NDArray[np.float64], card: npt.NDArray[np.float64]) -> bool:
    """Whether ``quad``'s sides are within 3 % of ``card``'s (the plane card's)."""
    return bool(np.all(np.abs(side_lengths(quad) / side_lengths(card) - 1) <= 0.03))


def _card_shaped(quad: npt.NDArray[np.float64], card: npt.NDArray[np.float64]) -> bool:
    """Whether ``quad`` is ``card`` (the plane card) scaled evenly, within 3 %, by at most a tenth
    (a card in a barrelled corner shows up to a tenth larger): one card's rectangle, not one drawn
    round two cards a few mm apart (longer along their offset only)."""
    ratio = side_lengths(quad) / side_lengths(card)
    if abs(ratio[0] / ratio[2] - 1.0) > 0.03 or abs(ratio[1] / ratio[3] - 1.0) > 0.03:
        return False  # one side longer than its opposite: drawn from corners of two cards
    across, along = float(ratio[0] + ratio[2]) / 2, float(ratio[1] + ratio[3]) / 2
    return abs(across / along - 1.0) <= 0.03 and 0.9 <= (across + along) / 2 <= 1.1


def _still_lower(
    low: Hypothesis,
    *,
    top: Hypothesis,
    chosen: list[Hypothesis],
    solid: ByteImage,
    tester: BackTester,
    image: ByteImage,
    card_w: float,
    placed: float = 0.0,
) -> bool:
    """Whether ``low`` is a card under ``top`` (``placed``: how well the top matches the back as a
    whole card): what ``top`` and the other chosen cards leave of it lies on the stack and is a
    strip of the back in place."""
    hiding = drawn(solid.shape, (o.corners for o in (*chosen, top) if o is not low))
    if not on_stack(low.corners, solid=solid, hiding=hiding, least=0.04 * area(low.corners)):
        return False
    # Nearer the top than a stack's cards lie apart, what shows of it may be the top card's own
    # border (the top found a few pixels off the rectangle chosen for it): only the back in place.
    # Not from a top placed right (matching the back whole as a card showing whole does): its
    # border shows no wider than a pixel, and a strip 0.08-0.15 of a card's width, mostly the
    # lower card's own white border, may match the back in place under 0.6 (dev table 2).
    far = float(np.hypot(*(low.center - top.center))) >= _APART * card_w
    return far or placed >= tester.whole_fit or tester.strip_likeness(low, image, hiding) >= _MATCH
