"""Face-down cards in stacks: the backs a blob's rectangles count, the card on top, the cards under it."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.back_tester import STRIP_MATCH, BackTester
from vision.pipeline.geometry import area, drawn, on_outline, outer_span, redraw, share
from vision.pipeline.hidden import hidden_backs
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, across, on_or_under, parallel
from vision.pipeline.masks import Masks
from vision.pipeline.merged_backs import merged_backs
from vision.pipeline.outline import CARD_ASPECT
from vision.pipeline.refit_lowers import refitted_lowers
from vision.pipeline.slid_backs import slid_backs
from vision.pipeline.stack_tops import shifted_tops, unseen_tops

ByteImage = npt.NDArray[Any]
# A card on top must match the back as a whole card this much better than a chosen rectangle it
# replaces (one a few pixels off, or between it and the card under it).
_TOP_BETTER: Final = 0.05
# The backs a card on top lies on must still match their strips in place this well (a glare
# spot or a rectangle a pixel or two off takes a true strip down to about 0.5).
_STILL: Final = 0.4
# A rectangle on a stack matching the back as a whole card this well may be the card on top a
# few pixels off: it is fitted to the back (true tops drawn 3 px off score about 0.35).
_TOP_HOPE: Final = 0.25
# A rectangle this near (card lengths) a card on top fitted to the back may be that card drawn
# from its other end: a card seen up to 12 % larger (``card_shaped``), plus the fit's few pixels
# (10 % of a card apart on generated table 3012, a card seen a tenth larger).
_OTHER_END: Final = 0.15


def stack_backs(
    candidates: list[Hypothesis],
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    image: ByteImage,
    masks: Masks,
    contour: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """The backs under chosen backs among ``candidates`` (rectangles left over beside them), most
    uncovered card first; each one counted is appended to ``chosen`` and drawn into ``covered``.

    Backs dealt on one another a few millimetres apart leave each lower card only a strip along
    its offset. A card's size is known, so a rectangle of it that lies on the stack's blob (not on
    felt) and leaves a strip of back no chosen card explains is one more card; of rectangles that
    explain the same strip, the one explaining most of it is taken first, and the others then
    explain nothing new. So a stack counts as many cards as its extent needs, never one for a
    strip already explained. Such a card is counted when it lies parallel to every chosen card it
    overlaps (all backs: only a back is counted under a back) and at least 8 % of a card's width
    from each, has one outline corner of its own, is a card's rectangle (``card_shaped``), at
    least 6 % of a card of it is uncovered, the middle of one of its uncovered sides is on the
    blob's outline (the strip's own edge: a rectangle drawn between corners of two different
    cards has none there) and what shows of it is the back. First, the card on top of a stack of
    which no card was chosen (``stack_tops.unseen_tops``), the card on top of a stack whose
    chosen backs lie across it (``_turned_tops``), and the card on top of the stack where the
    cards under it were chosen before it (``_tops``); then the lower backs no
    outline corner proposes (``hidden.hidden_backs``: the middle card of three, a strip beyond a
    back); last, the card on top where no rectangle was proposed for it
    (``stack_tops.shifted_tops``), and the lower backs again where that adds or moves a card; and
    the card under a top so near it that one rectangle was drawn for both (``merged_backs``);
    and a lower back whose own strip matches the back poorly moved to where it matches, and the
    lower backs looked for again (``refit_lowers``).
    """
    card_area = card_w * card_h
    solid = masks.fg if masks.solid is None else masks.solid
    pool = []
    for hyp in candidates:
        square = squared(hyp.corners, card_w=card_w, card_h=card_h) if hyp.anchors >= 1 else None
        if square is not None:
            hyp.corners, hyp.center = square, square.mean(axis=0)
            pool.append(hyp)
    added = unseen_tops(
        candidates,
        chosen=chosen,
        covered=covered,
        solid=solid,
        image=image,
        tester=tester,
        card_w=card_w,
        card_h=card_h,
    )
    added += _turned_tops(
        pool, chosen=chosen, covered=covered, solid=solid, image=image, tester=tester, card_w=card_w, card_h=card_h
    )
    added += _tops(
        pool, chosen=chosen, covered=covered, solid=solid, image=image, tester=tester, card_w=card_w, card_h=card_h
    )
    pool = [h for h in pool if all(h is not o for o in chosen)]
    while pool:
        best: tuple[float, Hypothesis] | None = None
        keep: list[Hypothesis] = []
        for hyp in pool:
            over = [o for o in chosen if _overlap(hyp, o, card_h)]
            if not over or not _may_lie_under(hyp, over, card_w=card_w):
                continue  # and never will: chosen cards are only ever added
            new = share(solid, hyp.corners, exclude=covered) * area(hyp.corners)
            if new < 0.06 * card_area:
                continue
            keep.append(hyp)
            if (best is None or new > best[0]) and _strip_edge(hyp, over, contour, tol=0.05 * card_w):
                best = (new, hyp)
        if best is None:
            break
        hyp = best[1]
        pool = [h for h in keep if h is not hyp]
        if tester.is_back(hyp, image, masks) or tester.visible_back(hyp, image, masks, covered):
            hyp.code, hyp.confidence = BACK, 0.5 + 0.5 * hyp.back_score
            chosen.append(hyp)
            added.append(hyp)
            cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
    _one_card(
        added, chosen=chosen, covered=covered, solid=solid, image=image, tester=tester, card_w=card_w, card_h=card_h
    )

    def lower_backs() -> list[Hypothesis]:
        return hidden_backs(
            chosen=chosen,
            covered=covered,
            solid=solid,
            contour=contour,
            likeness=lambda h, cov: tester.strip_likeness(h, image, cov),
            slide=lambda c, cov, reach, turns: tester.slide(c, image, cov, reach=reach, turns=turns),
            card_w=card_w,
            card_h=card_h,
            fit=lambda h: tester.fit_whole(h, image, reach=0.08 * card_w),
            whole_fit=tester.whole_fit,
        )

    added += lower_backs()
    # After the stack's other steps: found before the rectangles the outline proposes under it, or
    # before a strip beyond a back gave it, the top would cover their strips or leave a few pixels
    # of its own border for a middle card. Where it adds or moves a card, the lower backs are
    # looked for again (a top put in place of a rectangle between two cards leaves the lower strip).
    before = [id(o) for o in chosen]
    added += shifted_tops(
        chosen=chosen, covered=covered, solid=solid, image=image, tester=tester, card_w=card_w, card_h=card_h
    )
    if [id(o) for o in chosen] != before:
        added += lower_backs()
    added += merged_backs(
        chosen=chosen, covered=covered, solid=solid, image=image, tester=tester, card_w=card_w, card_h=card_h
    )
    if slid := slid_backs(
        chosen=chosen, covered=covered, solid=solid, contour=contour, image=image, tester=tester, card_w=card_w
    ):
        added += slid + lower_backs()  # the middle card between a top and the card slid under it
    # Last, a lower back a few pixels off its card (its strip framing another card's border) is
    # moved onto it, and the strip it hid is the stack's to explain again.
    if refitted_lowers(
        chosen=chosen, covered=covered, solid=solid, image=image, tester=tester, card_w=card_w, card_h=card_h
    ):
        added += lower_backs()
    return added


def _tops(
    pool: list[Hypothesis],
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """The backs of ``pool`` lying on top of chosen backs, each appended to ``chosen`` (or put in
    place of a chosen back it is a better fit of) and drawn into ``covered``; the ones appended.

    The card on top of a stack shows whole, yet the cards under it may have been chosen first
    (their corners stick out of the stack's outline) and their rectangles then cover it, so it
    explains no new part of the blob; or the rectangle chosen for it lies between it and the card
    under it, a few pixels from both. Such a card is told by its look, not by area: it lies wholly
    on the blob, matches the back in place as a whole card (``STRIP_MATCH``) and better than any
    chosen back it lies on (a card under others, a rectangle a few pixels off or drawn across two
    cards match worse: part of what they frame is another card's border), and each of those still
    shows its own strip of the back in place with it on top.
    """
    backs = [o for o in chosen if o.code == BACK]
    if not backs:
        return []
    whole_of = tester.whole_likeness(image)

    added: list[Hypothesis] = []
    fitted: list[Hypothesis] = []
    for first in pool:
        over = _backs_under(first, chosen, card_h)
        if over is None:
            continue
        if first.back is False or any(float(np.hypot(*(first.center - o.center))) < 0.08 * card_w for o in fitted):
            continue  # its colours are no back's, or the same card proposed from another corner
        if any(whole_of(o) >= tester.whole_fit for o in over):
            continue  # a back it overlaps shows whole: it lies under that one, or is that one
        if share(solid, first.corners) < 0.95 or whole_of(first) < _TOP_HOPE:
            continue
        # Drawn from outline corners of a stack, the rectangle may be a few pixels off the card.
        hyp = Hypothesis(corners=tester.fit_whole(first, image, reach=0.08 * card_w), anchors=first.anchors)
        fitted.append(hyp)
        over = _backs_under(hyp, chosen, card_h)
        if over is None:
            continue
        near = [o for o in over if float(np.hypot(*(hyp.center - o.center))) < 0.08 * card_w]
        if len(near) > 1 or share(solid, hyp.corners) < 0.95:
            continue
        score = whole_of(hyp)
        if score < STRIP_MATCH or any(
            score <= whole_of(o) + (_TOP_BETTER if any(o is x for x in near) else 0.0) for o in over
        ):
            continue
        # The backs it lies on (all but the one it replaces) still show their own strips.
        rest = [o for o in over if all(o is not x for x in near)]
        if not all(
            _still_shows(o, top=hyp, chosen=chosen, gone=near, shape=covered.shape, tester=tester, image=image)
            for o in rest
        ):
            continue
        hyp.code, hyp.confidence, hyp.back, hyp.back_score = BACK, 0.5 + 0.5 * score, True, score
        hyp.whole = True  # it lies on top: the cards under it do not hide it
        if near:
            k = next(i for i, o in enumerate(chosen) if o is near[0])
            chosen[k] = hyp
            redraw(covered, (o.corners for o in chosen), erased=near[0].corners)
        else:
            chosen.append(hyp)
            added.append(hyp)
            cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
    return added


def _turned_tops(
    pool: list[Hypothesis],
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """The cards on top of stacks whose chosen backs lie across them, each appended to ``chosen``
    in place of those backs (dropped, and ``covered`` drawn again); the ones appended.

    Two backs dealt a third of a card's width apart along their short sides make a stack as long
    across as a card is long, so a rectangle turned a quarter from the cards, drawn from one
    card's corner, reaches a corner of the other and is confirmed at two outline corners, where
    the cards' own rectangles, drawn at the plane card's size on a card seen larger (a barrelled
    corner), may reach only one. Chosen first, two such rectangles cover the stack and the cards'
    own lie across them: neither counted (stack_backs counts only backs parallel to chosen ones).
    No dealt back lies across another, and such a rectangle frames two cards' borders where the
    back has its picture: a rectangle of the pool lying across every chosen card it overlaps
    (all backs, none showing whole) that, fitted to the back, matches it as a whole card
    (``STRIP_MATCH``) and better than each of them (``_TOP_BETTER``) is the card on top; they
    are not cards. The cards under it are then counted from the pool as under any top.
    """
    crossing = [h for h in pool if any(o.code == BACK and not o.whole and across(h.corners, o.corners) for o in chosen)]
    if not crossing:
        return []
    whole_of = tester.whole_likeness(image)
    blank = tester.blank(image)

    def fitted_of(o: Hypothesis) -> float:
        return whole_of(Hypothesis(corners=tester.fit_whole(o, image, reach=0.08 * card_w)))

    # (The look of each only where its place allows a top: most stacks have no rectangle across.)
    crossing = [
        h
        for h in crossing
        if h.back is not False and _crossed_backs(h, chosen, card_h) is not None and share(solid, h.corners) >= 0.95
    ]
    added: list[Hypothesis] = []
    for first in sorted(crossing, key=whole_of, reverse=True):
        crossed = _crossed_backs(first, chosen, card_h)
        if crossed is None or whole_of(first) < _TOP_HOPE or any(whole_of(o) >= tester.whole_fit for o in crossed):
            continue
        hyp = Hypothesis(corners=tester.fit_whole(first, image, reach=0.08 * card_w), anchors=first.anchors)
        score = tester.strip_likeness(hyp, image, blank)
        if score < STRIP_MATCH or share(solid, hyp.corners) < 0.95:
            continue
        crossed = _crossed_backs(hyp, chosen, card_h)
        if crossed is None or any(score <= whole_of(o) + _TOP_BETTER for o in crossed):
            continue
        # Each of them fitted to the back as well: a card's own rectangle a few pixels off (the
        # one truly on top) then matches as well as the rectangle across it (a back of squares
        # matches itself turned a quarter nearly as well as in place).
        if any(score <= fitted_of(o) + _TOP_BETTER for o in crossed):
            continue
        # A rectangle of the pool lying square with those backs that matches the back whole better
        # is the card on top (``_tops`` counts it): dealt backs lie parallel, and the chosen ones
        # are then cards of the stack, not rectangles across it (dev table standard-13005: a
        # rectangle across the 2s fitted 0.62, the Jh on it, square, 0.97; the 2s was dropped).
        if _square_top(pool, crossed, better_than=score, whole_of=whole_of, card_h=card_h):
            continue
        spanned, better, end = _spanned(hyp, score, pool=pool, tester=tester, image=image, card_w=card_w, card_h=card_h)
        if (
            end is not None
            and [id(o) for o in _crossed_backs(spanned, chosen, card_h) or ()] == [id(o) for o in crossed]
            and share(solid, spanned.corners) >= 0.95
        ):
            hyp, score = spanned, better
            pool[:] = [h for h in pool if h is not end]
        hyp.code, hyp.confidence, hyp.back, hyp.back_score = BACK, 0.5 + 0.5 * score, True, score
        hyp.whole = True  # it lies on top: the cards under it do not hide it
        chosen[:] = [o for o in chosen if all(o is not x for x in crossed)]
        chosen.append(hyp)
        added.append(hyp)
        for gone in crossed:
            cv2.fillConvexPoly(covered, np.round(gone.corners).astype(np.int32), 0)
        redraw(covered, (o.corners for o in chosen), erased=hyp.corners)
    return added


def _square_top(
    pool: list[Hypothesis],
    crossed: list[Hypothesis],
    *,
    better_than: float,
    whole_of: Callable[[Hypothesis], float],
    card_h: float,
) -> bool:
    """Whether a rectangle of ``pool`` overlapping one of ``crossed`` and lying parallel to it matches
    the back as a whole card better than ``better_than``."""
    return any(
        _overlap(h, o, card_h) and parallel(h.corners, o.corners, within=STACK_COS) and whole_of(h) > better_than
        for h in pool
        for o in crossed
        if h.back is not False
    )


def _spanned(
    top: Hypothesis,
    score: float,
    *,
    pool: list[Hypothesis],
    tester: BackTester,
    image: ByteImage,
    card_w: float,
    card_h: float,
) -> tuple[Hypothesis, float, Hypothesis | None]:
    """``top`` (matching the back whole by ``score``) and its score, or, where a rectangle of
    ``pool`` parallel to it and within ``_OTHER_END`` of a card's length is the same card drawn
    from its other end, the rectangle spanning both when that matches the back better
    (``_TOP_BETTER``), its score and that rectangle (to be taken out of ``pool`` once the card is
    counted). A card seen larger than the plane's card (a barrelled corner) is proposed at the
    plane card's size from each end of an outline side: fitted at one end, it matches the back
    less well than whole, and its other end shows beside it as a lower card's strip (as
    ``_one_card`` finds for a top chosen otherwise).
    """
    blank = tester.blank(image)
    best: tuple[Hypothesis, float, Hypothesis | None] = (top, score, None)
    for other in pool:
        gap = float(np.hypot(*(top.center - other.center)))
        if not 0.08 * card_w <= gap < _OTHER_END * card_h or not parallel(top.corners, other.corners, within=STACK_COS):
            continue  # (nearer, the same end drawn again: nothing to span)
        span = outer_span(top.corners, other.corners, mid=0.5 * (top.center + other.center))
        sides = np.hypot(*(np.roll(span, -1, axis=0) - span).T) / np.array((card_w, card_h, card_w, card_h))
        if float(sides.min()) < 0.88 or float(sides.max()) > 1.0 + _OTHER_END:
            continue  # no card's rectangle: two cards' ends
        # As drawn, and fitted to the back as the top was (the fit's brightness match can move
        # a rectangle the outline placed right a pixel off).
        for quad in (span, tester.fit_whole(Hypothesis(corners=span), image, reach=0.04 * card_w)):
            one = Hypothesis(corners=quad, anchors=top.anchors)
            likeness = tester.strip_likeness(one, image, blank)
            if likeness >= best[1] + (_TOP_BETTER if best[2] is None else 0.0):
                best = (one, likeness, other)
    return best


def _crossed_backs(hyp: Hypothesis, chosen: list[Hypothesis], card_h: float) -> list[Hypothesis] | None:
    """The chosen cards ``hyp`` overlaps, when there are some and all are backs lying across it
    that neither show whole nor are a stack's hidden card; else None."""
    over = [o for o in chosen if _overlap(hyp, o, card_h)]
    if not over or any(o.code != BACK or o.whole or o.hidden or not across(hyp.corners, o.corners) for o in over):
        return None
    return over


def _one_card(
    added: list[Hypothesis],
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> None:
    """A card seen longer or wider than the plane's card (where the lens or the table's tilt is
    not undone exactly: up to the 12 % ``card_shaped`` allows) leaves its far end showing beside
    the card on top fitted to its near end, and the rectangle at that far end is then counted as
    a lower card: two rectangles, each on one end of one card. The rectangle spanning both (each
    corner the outer of the two) then matches the back as a whole card better than either: it is
    the card, put in place of the top, and the other is no longer counted. A true lower card under
    a true top matches worse spanned with it: the rectangle frames the top's border inside its own.
    """
    blank = tester.blank(image)
    for top in [o for o in chosen if o.whole and o.code == BACK]:
        top_score: float | None = None
        for low in [a for a in added if not a.whole and not a.hidden]:
            gap = float(np.hypot(*(top.center - low.center)))
            if gap >= 0.12 * card_h or not parallel(top.corners, low.corners, within=STACK_COS):
                continue
            span = outer_span(top.corners, low.corners, mid=0.5 * (top.center + low.center))
            if not card_shaped(span, card_w=card_w, card_h=card_h) or share(solid, span) < 0.95:
                continue
            one = Hypothesis(corners=span, anchors=top.anchors)
            score = tester.strip_likeness(one, image, blank)
            if top_score is None:
                top_score = tester.strip_likeness(top, image, blank)
            best = max(top_score, tester.strip_likeness(low, image, blank))
            if score < STRIP_MATCH or score < best + _TOP_BETTER:
                continue
            one.code, one.confidence, one.back, one.back_score = BACK, 0.5 + 0.5 * score, True, score
            one.whole = True
            chosen[:] = [one if o is top else o for o in chosen if o is not low]
            added[:] = [one if o is top else o for o in added if o is not low]
            redraw(covered, (o.corners for o in chosen), erased=low.corners)
            return


def _backs_under(hyp: Hypothesis, chosen: list[Hypothesis], card_h: float) -> list[Hypothesis] | None:
    """The chosen cards ``hyp`` overlaps, when there are some and all are backs lying parallel
    with it (a stack it may lie on); else None."""
    over = [o for o in chosen if _overlap(hyp, o, card_h)]
    if not over or any(o.code != BACK or not parallel(hyp.corners, o.corners, within=STACK_COS) for o in over):
        return None
    return over


def _still_shows(
    card: Hypothesis,
    *,
    top: Hypothesis,
    chosen: list[Hypothesis],
    gone: list[Hypothesis],
    shape: tuple[int, ...],
    tester: BackTester,
    image: ByteImage,
) -> bool:
    """Whether ``card`` shows its own strip of the back in place with ``top`` and the other chosen
    cards (but ``gone``) hiding it: what shows is then at most what truly shows of it."""
    hiding = drawn(shape, (o.corners for o in (*chosen, top) if o is not card and all(o is not g for g in gone)))
    return tester.strip_likeness(card, image, hiding) >= _STILL


def _overlap(hyp: Hypothesis, other: Hypothesis, card_h: float) -> bool:
    """Whether two card rectangles overlap (their centres closer than a card's length, quads
    meeting), ``other`` a back or a face lying on or under ``hyp``, not one only touching it (``TOUCH``)."""
    if float(np.hypot(*(hyp.center - other.center))) >= card_h:
        return False
    return on_or_under(hyp.corners, other, card_area=card_h**2 / CARD_ASPECT)


def _may_lie_under(hyp: Hypothesis, over: list[Hypothesis], *, card_w: float) -> bool:
    """Whether ``hyp`` may be a back under the chosen cards it overlaps: they are backs lying
    nearly parallel to it (backs dealt on one another lie a few degrees apart; a rectangle turned
    a quarter about a corner is no card of the stack), each at least 8 % of a card's width away
    (nearer, it is the same card seen from another corner).
    """
    for other in over:
        if other.code != BACK or float(np.hypot(*(hyp.center - other.center))) < 0.08 * card_w:
            return False
        if not parallel(hyp.corners, other.corners, within=STACK_COS):
            return False
    return True


def _strip_edge(hyp: Hypothesis, over: list[Hypothesis], contour: ByteImage, *, tol: float) -> bool:
    """Whether the middle of one of ``hyp``'s sides that no overlapping card hides is on the outline."""
    c = hyp.corners
    for k in range(4):
        mid = (c[k] + c[(k + 1) % 4]) * 0.5
        point = (float(mid[0]), float(mid[1]))
        hidden = any(cv2.pointPolygonTest(o.corners.astype(np.float32), point, False) > 0 for o in over)
        if not hidden and on_outline(contour, mid, tol):
            return True
    return False


def squared(quad: npt.NDArray[np.float64], *, card_w: float, card_h: float) -> npt.NDArray[np.float64] | None:
    """The rectangle a nearly rectangular quad stands for (same centre, sides and mean direction),
    or None when it is no card's: a side more than 12 % off a card's, or a corner more than 10 % of
    a card's width off the rectangle. An outline corner where the edges of two stacked cards meet
    is a few degrees off square, and the quad drawn from it a parallelogram around the right place.
    """
    # The same float64 arithmetic on plain floats (numpy's per-call cost is all of it for 4
    # points); lengths by np.hypot, the same function as on arrays.
    (p0x, p0y), (p1x, p1y), (p2x, p2y), (p3x, p3y) = quad.tolist()
    ux, uy = _unit(p1x - p0x, p1y - p0y)
    vx, vy = _unit(p2x - p3x, p2y - p3y)
    across = (ux + vx, uy + vy)  # the short sides' direction
    ux, uy = _unit(p3x - p0x, p3y - p0y)
    vx, vy = _unit(p2x - p1x, p2y - p1y)
    down = (ux + vx, uy + vy)  # the long sides', a quarter turn on (y points down)
    ux, uy = _unit(*across)
    norm = max(float(np.hypot(*down)), 1e-9)
    ax, ay = _unit(ux + down[1] / norm, uy + -down[0] / norm)
    bx, by = -ay, ax
    w = 0.5 * (float(np.hypot(p1x - p0x, p1y - p0y)) + float(np.hypot(p2x - p3x, p2y - p3y)))
    h = 0.5 * (float(np.hypot(p3x - p0x, p3y - p0y)) + float(np.hypot(p2x - p1x, p2y - p1y)))
    if not (0.88 <= w / card_w <= 1.12 and 0.88 <= h / card_h <= 1.12):
        return None
    mx, my = (p0x + p1x + p2x + p3x) / 4, (p0y + p1y + p2y + p3y) / 4
    rect = np.array(
        [
            (mx - ax * w / 2 - bx * h / 2, my - ay * w / 2 - by * h / 2),
            (mx + ax * w / 2 - bx * h / 2, my + ay * w / 2 - by * h / 2),
            (mx + ax * w / 2 + bx * h / 2, my + ay * w / 2 + by * h / 2),
            (mx - ax * w / 2 + bx * h / 2, my - ay * w / 2 + by * h / 2),
        ]
    )
    if float(np.hypot(*(rect - quad).T).max()) > 0.1 * card_w:
        return None
    return rect


def _unit(x: float, y: float) -> tuple[float, float]:
    """``geometry.unit`` of the vector (x, y), on plain floats."""
    n = math.hypot(x, y)
    return (x / n, y / n) if n > 1e-9 else (x, y)


def card_shaped(quad: npt.NDArray[np.float64], *, card_w: float, card_h: float) -> bool:
    """Whether a quad is a card's rectangle: sides within 12 % of a card's, diagonals within 6 % of
    each other. Snapping a rectangle's corners to a stack's outline corners can take corners of
    two different cards and make a skewed quad that matches neither.
    """
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = quad.tolist()
    sides = (
        math.hypot(bx - ax, by - ay) / card_w,
        math.hypot(cx - bx, cy - by) / card_h,
        math.hypot(dx - cx, dy - cy) / card_w,
        math.hypot(ax - dx, ay - dy) / card_h,
    )
    d1, d2 = math.hypot(cx - ax, cy - ay), math.hypot(dx - bx, dy - by)
    return all(0.88 <= v <= 1.12 for v in sides) and abs(d1 - d2) <= 0.06 * max(d1, d2)
