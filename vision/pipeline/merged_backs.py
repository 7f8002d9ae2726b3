"""The card under a stack's top lying so near it that one rectangle was drawn for both (a merged pair)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.geometry import ON_STACK, area, drawn, outer_span, share, side_lengths, turned, unit
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, on_or_under, parallel
from vision.pipeline.stack_tops import card_along, card_shape, sides_beyond

if TYPE_CHECKING:
    from vision.pipeline.back_tester import BackTester

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# How far beyond a top's side (card widths) the stack is measured: two backs dealt farther apart
# leave the lower one's own outline corners, and the stack's other steps count it.
_REACH: Final = 0.2
# Nearer than this (card widths, centre to centre) a rectangle and the back fitted to it are one card.
_SAME: Final = 0.08
# ... but a rectangle drawn round two cards' corners (one side longer than a card's) lies between
# them, and the top fitted to it lies up to the fit's reach (0.08 along each side) from it: kennard
# table 19503's pair 0.11 of a card apart, drawn 1.056 cards wide, its top fitted 0.084 away (0.89).
_PAIR_SAME: Final = 0.12
# The stack must reach at least this far (card widths) beyond a top placed right along its sides
# for a card to lie under it. Measured on the dev tables' tops placed right (3000-3019, 500-511,
# six designs, 629 tops): 601 reach 0 plane px beyond (after the 3x3 opening); two with no card
# missed under them 2.5-2.8 px (0.045); cards missed under their top 3.4-6.4 px (0.06-0.11), one
# 2.7 px (left). Those reaching farther with their lower card counted are refused by ``_APART``.
_THIN: Final = 0.055
# A lower card found so must lie this far (card widths) from every other chosen card: nearer, it
# is that card (a rectangle a few pixels off a counted lower card leaves the strip unexplained).
_APART: Final = 0.15
# The rectangle spanning the top and the lower card must match the back whole this much worse
# than the top: a lone card seen larger than the plane's card (a barrelled corner) matches better
# spanned (``backs._one_card``), a true pair worse (the span frames the top's border inside it).
_SPAN_WORSE: Final = 0.05
# What shows of the lower card, where it shows the back's pattern at all (a strip this thin may be
# all plain border: ``strip_likeness`` is then -1), must match the back in place this well (a glare
# spot or a rectangle a pixel off takes a true strip down to about 0.5: ``backs._STILL``).
_STILL: Final = 0.4
# What shows of a lower card placed by its look (the best of the places by the stack's extent) must
# match the back in place this well: the strip bar (``middle_cards.STRIP_MATCH``), the best of 27 places chosen
# by the same look. Dev table 11011's 3c (kennard): -0.07 placed by the stack's extent, 0.67 by its look.
_PLACED_MATCH: Final = 0.6
# A card on top and a back beside it nearer than this (card lengths, centre to centre) may be one
# card seen longer than the plane's (``_one_card``); as ``backs._one_card``'s bar.
_NEAR: Final = 0.12
# The rectangle spanning them must match the back as a card seen whole (``whole_fit``) and this much
# better than either. A lone back in a barrelled corner of dev table standard-11005: the top fitted
# to its near end 0.73, the rectangle kept at its far end 0.68, spanned 0.85.
_ONE_BETTER: Final = 0.05
# ... and lie this much on the stack: the two ends' rectangles are offset sideways too, so the one
# spanning them is a little wider than the card (11005's lone back alone: 0.950, in its table 0.95+).
_ONE_ON: Final = 0.93
# A chosen back whose sides are all this much longer than the plane card's (evenly: ``card_shape``)
# and that matches the back whole under ``whole_fit`` even fitted is drawn round a tight stack's
# outer corners: dev table 11011's three backs 0.06-0.13 of a card's width apart under one
# rectangle 1.089 x 1.089 of the plane card (whole 0.45-0.79 on six designs).
_LARGER: Final = 1.05


def merged_backs(
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """The cards lying under chosen backs so near them that no rectangle was drawn for them, each
    appended to ``chosen`` and drawn into ``covered``; the ones appended.

    Two backs dealt 0.06-0.11 of a card's width apart (3.5-6.5 plane pixels) make an outline whose
    corners are mostly the two cards' shared ones: the one rectangle drawn from it lies on the top
    card or between the two, and the lower card's strip is too thin for a rectangle of its own. The
    card on top shows whole: placed right (as chosen, or fitted to the back within ``_SAME``: it
    then matches the back whole, ``whole_fit``), its sides are where a lone card's blob ends. The
    stack reaching beyond it along whole sides, where no chosen card explains it, by at least
    ``_THIN`` of a card's width is the lower card's strip: the top shifted there (and placed to a
    pixel by what of it lies on the stack) is counted when that strip lies on the stack, under
    parallel backs only, ``_APART`` from every other chosen card, does not contradict the back in
    place, and the rectangle spanning both matches the back whole worse than the top. A top fitted
    so is put in place of the rectangle chosen for it. Run after the stack's other steps
    (``backs.stack_backs``).
    """
    _one_card(chosen=chosen, covered=covered, solid=solid, image=image, tester=tester, card_w=card_w, card_h=card_h)
    whole_of = tester.whole_likeness(image)
    blank = tester.blank(image)
    added: list[Hypothesis] = []
    for low in [o for o in chosen if o.code == BACK and not o.hidden]:
        top, score = low, whole_of(low)
        if score >= tester.whole_fit and not low.whole:
            # Drawn round both cards of a pair (longer than a card along their offset only), it
            # matches the back whole nearly as well as the top: the top is one of its card-sized ends.
            top, score = _pair_end(low, score, image=image, tester=tester, card_w=card_w, card_h=card_h)
        if score < tester.whole_fit:
            if low.whole:
                continue  # a top found by its look already, yet not whole: no place to measure from
            top = Hypothesis(corners=tester.fit_whole(low, image, reach=0.08 * card_w), anchors=low.anchors)
            score = tester.strip_likeness(top, image, blank)
            if score < tester.whole_fit and _larger(low.corners, card_w=card_w, card_h=card_h):
                # Drawn evenly larger round a tight stack's outer corners, it matches no card: the
                # top is one of its card-sized ends (as for a pair, below).
                top, score = _pair_end(
                    low, score, image=image, tester=tester, card_w=card_w, card_h=card_h, shaped=True
                )
                if top is low or score < tester.whole_fit:
                    continue
            elif score < tester.whole_fit or float(np.hypot(*(top.center - low.center))) >= _fit_reach(
                low, card_w=card_w, card_h=card_h
            ):
                continue
            if share(solid, top.corners) < 0.95:
                continue
        trial = [top if o is low else o for o in chosen]
        under = _lower(top, score, chosen=trial, solid=solid, tester=tester, image=image, card_w=card_w, card_h=card_h)
        if under is None:
            continue
        if top is not low:
            top.code, top.confidence, top.back, top.back_score = BACK, 0.5 + 0.5 * score, True, score
            top.whole = True  # it lies on top: the card under it does not hide it
        chosen[:] = trial
        chosen.append(under)
        added.append(under)
        cv2.fillConvexPoly(covered, np.round(low.corners).astype(np.int32), 0)
        for o in chosen:
            cv2.fillConvexPoly(covered, np.round(o.corners).astype(np.int32), 255)
    return added


def _pair_end(
    low: Hypothesis,
    score: float,
    *,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
    shaped: bool = False,
) -> tuple[Hypothesis, float]:
    """The card on top of a pair that ``low`` (matching the back whole by ``score``) was drawn round,
    and how well it matches the back whole; ``low`` and ``score`` when ``low`` is one card's rectangle.

    Two backs dealt 0.06-0.11 of a card's width apart may leave an outline whose rectangle takes
    corners of both: longer than the plane's card along their offset, or one side longer than its
    opposite. Most of it is the top card, so it matches the back whole as a card placed right does
    (``whole_fit``), and no stack shows beyond it for ``_lower``. The top is the plane card's rectangle at one
    of its corners, fitted to the back (``fit_whole``), matching the back whole best of the four and
    ``_SPAN_WORSE`` better than ``low`` (a lone card seen larger matches best as drawn)."""
    c = low.corners
    if not shaped and card_shape(c, card_w=card_w, card_h=card_h):
        return low, score  # one card's rectangle (``stack_tops``' test: evenly scaled, within 3 %)
    a, b = unit(c[1] - c[0]), unit(c[3] - c[0])
    # The plane card at each corner, its sides along the rectangle's, reaching inward.
    half = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], np.float64) * 0.5
    blank = tester.blank(image)
    best: tuple[Hypothesis, float] = (low, score)
    for k in range(4):
        centre = c[k] + half[k, 0] * card_w * a + half[k, 1] * card_h * b
        end = Hypothesis(corners=card_along(c, centre, card_w=card_w, card_h=card_h))
        end = Hypothesis(corners=tester.fit_whole(end, image, reach=_SAME * card_w), anchors=low.anchors)
        fitted = tester.strip_likeness(end, image, blank)
        if fitted > best[1]:
            best = (end, fitted)
    return best if best[1] >= score + _SPAN_WORSE else (low, score)


def _fit_reach(low: Hypothesis, *, card_w: float, card_h: float) -> float:
    """How far (plane pixels) the back fitted to ``low`` may lie from it and still be the card on
    top of it: ``_SAME`` for one card's rectangle, ``_PAIR_SAME`` for one drawn round two cards
    (``card_shape`` refuses it: one side longer than a card's)."""
    return (_SAME if card_shape(low.corners, card_w=card_w, card_h=card_h) else _PAIR_SAME) * card_w


def _larger(quad: Vec, *, card_w: float, card_h: float) -> bool:
    """Whether every side of ``quad`` is ``_LARGER`` times the plane card's or longer."""
    return bool(np.all(side_lengths(quad) >= _LARGER * np.array([card_w, card_h, card_w, card_h])))


def _one_card(
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> None:
    """A card on top (``whole``) and a back kept beside it that are one card seen longer than the
    plane's card made one: the rectangle spanning both put in the top's place, the other dropped.

    In a barrelled corner a card shows up to a tenth longer than the plane's card: the top fitted to
    its near end (``stack_tops.shifted_tops``) leaves the rectangle chosen before at its far end, which
    is kept as a card under it (its end lies on the stack, beyond the top): one card counted twice.
    ``backs._one_card`` makes such pairs one before the tops are placed; here the same for the pairs
    placed after it (the card kept under a top is marked ``hidden``). The spanning rectangle (each
    corner the outer of the two) must be a card's rectangle lying on the stack and match the back as
    a card seen whole, ``_ONE_BETTER`` better than either: a true lower card spanned with its top
    frames the top's border inside it and matches worse.
    """
    from vision.pipeline.backs import card_shaped  # (backs imports this module)

    blank = tester.blank(image)
    for top in [o for o in chosen if o.whole and o.code == BACK]:
        for low in [o for o in chosen if o is not top and o.code == BACK and not o.whole]:
            if float(np.hypot(*(top.center - low.center))) >= _NEAR * card_h:
                continue
            if not parallel(top.corners, low.corners, within=STACK_COS):
                continue
            span = outer_span(top.corners, low.corners, mid=0.5 * (top.center + low.center))
            if not card_shaped(span, card_w=card_w, card_h=card_h) or share(solid, span) < _ONE_ON:
                continue
            one = Hypothesis(corners=span, anchors=top.anchors)
            score = tester.strip_likeness(one, image, blank)
            best = max(tester.strip_likeness(top, image, blank), tester.strip_likeness(low, image, blank))
            if score < tester.whole_fit or score < best + _ONE_BETTER:
                continue
            one.code, one.confidence, one.back, one.back_score = BACK, 0.5 + 0.5 * score, True, score
            one.whole = True
            chosen[:] = [one if o is top else o for o in chosen if o is not low]
            cv2.fillConvexPoly(covered, np.round(low.corners).astype(np.int32), 0)
            cv2.fillConvexPoly(covered, np.round(top.corners).astype(np.int32), 0)
            for o in chosen:
                cv2.fillConvexPoly(covered, np.round(o.corners).astype(np.int32), 255)
            break


def _lower(
    top: Hypothesis,
    score: float,
    *,
    chosen: list[Hypothesis],
    solid: ByteImage,
    tester: BackTester,
    image: ByteImage,
    card_w: float,
    card_h: float,
) -> Hypothesis | None:
    """The card under ``top`` (placed right, matching the back whole by ``score``; one of
    ``chosen``) whose strip beside it is too thin for the outline to propose, or None."""
    hiding = drawn(solid.shape, (o.corners for o in chosen))
    (up, un), (vp, vn) = sides_beyond(top.corners, solid=solid, hiding=hiding, reach=_REACH * card_w)
    su, sv = up or -un, vp or -vn  # (``strip_beyond``)
    # Where the stack reaches beyond both opposite sides, two cards lie under the top (three backs
    # dealt tight, dev table 11011: one beyond the top's right and upper sides, one its left and
    # upper): the one beyond the other side is tried too when the first is refused.
    offsets = [(su, sv)] + [(-un, sv)] * bool(up and un) + [(su, -vn)] * bool(vp and vn)
    for shift in offsets:
        under = _lower_at(
            top,
            score,
            shift,
            chosen=chosen,
            hiding=hiding,
            solid=solid,
            tester=tester,
            image=image,
            card_w=card_w,
            card_h=card_h,
        )
        if under is not None:
            return under
    return None


def _lower_at(
    top: Hypothesis,
    score: float,
    shift: tuple[float, float],
    *,
    chosen: list[Hypothesis],
    hiding: ByteImage,
    solid: ByteImage,
    tester: BackTester,
    image: ByteImage,
    card_w: float,
    card_h: float,
) -> Hypothesis | None:
    """The card under ``top`` shifted by ``shift`` (plane pixels along its sides) when what shows of
    it there is a lower card's strip (``_lower``), or None."""
    c = top.corners
    su, sv = shift
    if float(np.hypot(su, sv)) < _THIN * card_w:
        return None
    a, b = unit(c[1] - c[0]), unit(c[3] - c[0])
    quad = np.asarray(c + su * a + sv * b, np.float64)
    centre = quad.mean(axis=0)
    if any(float(np.hypot(*(centre - o.center))) < _APART * card_w for o in chosen if o is not top):
        return None
    # (Placed to a pixel by what of it lies on the stack: the strip is a few pixels wide.)
    places = [
        turned(quad + du * a + dv * b, t)
        for du in (-1.0, 0.0, 1.0)
        for dv in (-1.0, 0.0, 1.0)
        for t in (0.0, -1.0, 1.0)
    ]
    quad = max(places, key=lambda q: _on_share(q, solid=solid, hiding=hiding))
    strip = tester.strip_likeness(Hypothesis(corners=quad), image, hiding)
    if -1.0 < strip < _STILL:
        # Where two lower cards' strips meet (three backs dealt tight), the stack's extent places it
        # a pixel or two off its own strip: the place among the same ones whose look is the back's.
        # Placed so, its look must be the strip bar's (``middle_cards.STRIP_MATCH``), not only not contradict.
        looks = [(tester.strip_likeness(Hypothesis(corners=q), image, hiding), q) for q in places]
        strip, quad = max(looks, key=lambda pair: pair[0])
        if strip < _PLACED_MATCH:
            return None
    shown = 1.0 - share(hiding, quad)
    if _on_share(quad, solid=solid, hiding=hiding) < ON_STACK or shown < 0.04 * card_w * card_h / area(quad):
        return None
    if any(
        o.code != BACK or not parallel(quad, o.corners, within=STACK_COS)
        for o in chosen
        if o is not top and on_or_under(quad, o, card_area=card_w * card_h)
    ):
        return None  # under a face (not one only touching it), or across a card: no back of the stack
    mid = 0.5 * (c.mean(axis=0) + centre)
    far = np.hypot(*(c - mid).T) >= np.hypot(*(quad - mid).T)
    span = Hypothesis(corners=np.asarray(np.where(far[:, None], c, quad), np.float64))
    spanned = tester.strip_likeness(span, image, tester.blank(image))
    if spanned >= score - _SPAN_WORSE or -1.0 < strip < _STILL:
        return None
    hyp = Hypothesis(corners=quad)
    hyp.code, hyp.confidence, hyp.back, hyp.back_score = BACK, 0.5 + 0.5 * score, True, score
    hyp.hidden = True
    return hyp


def _on_share(quad: Vec, *, solid: ByteImage, hiding: ByteImage) -> float:
    """Share of what ``hiding`` leaves of ``quad`` that lies on the stack (0 when nothing shows)."""
    shown = 1.0 - share(hiding, quad)
    return share(solid, quad, exclude=hiding) / shown if shown > 0 else 0.0
