"""Lower backs beside a stack's back found by sliding the back over the stack's unexplained part."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.back_tester import BackTester
from vision.pipeline.geometry import area, count_in, drawn, local_poly, on_stack, outer_span, unit
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, on_or_under, parallel

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# At least this much of the blob near a back (card areas) is explained by no chosen card before
# the back is slid around it (a lone back's blob leaves slivers of a few hundredths).
_REST: Final = 0.06
# Cards dealt on one another lie 6-25 mm apart (0.1-0.4 of a card's width): the back is slid
# this far (card widths) from the card above.
_REACH: Final = 0.45
# Turns (degrees) the back is slid at: backs dealt on one another lie a few degrees apart.
_TURNS: Final = (-2.0, 0.0, 2.0)
# A lower card lies at least this far (card widths, centre to centre) from every chosen card
# (nearer, what shows of it is the card above drawn a pixel or two off: its own border) ...
_APART: Final = 0.1
# ... or this far from a card not placed right (not matching the back whole, ``whole_fit``).
_APART_OFF: Final = 0.15
# The slide's best must reach this for the place to be refined or the grown pass tried (table
# 11019's bottom card slid 0.48 and 0.55; at this bar every back counted on the dev seeds still is,
# and 40 % fewer places are refined than at ``hidden``'s 0.25).
_HOPE: Final = 0.4
# The best place is refined only where the slide reaches this (every back the step counted on the
# development seeds had slid 0.46 or more where it was counted; under it, refinements counted nothing) ...
_REFINE: Final = 0.45
# ... and where this share at least of what shows of the slide's place lies on the stack (every
# back counted had 0.91 or more there; most refinements that counted nothing started on felt, under
# 0.1, and none that started under 0.5 climbed to the 0.85 ``on_stack`` asks: kennard's and
# standard's speed frames judged 75 and 118 places in 10 frames, at these bars 26 and 49). Judged
# before the look: it needs no warp.
_ON_START: Final = 0.5
# Where under this share of the slide's place lies on the stack, the grown pass is not tried either
# (every back the grown pass counted on the development seeds followed a plain place 0.3 or more on
# the stack; of its 41 slides on 60 tables, 33 followed one under 0.25, none counting anything).
_GROW_ON: Final = 0.2
# The best place is refined in steps of this (card widths), at most this many steps.
_STEP: Final = 0.025
_STEPS: Final = 12
# What shows of the lower card matches the registered back in place at least this well (the
# strip test's bar: true strips mostly over 0.8, a face's or a misplaced rectangle's under 0.35) ...
_MATCH: Final = 0.6
# ... shows at least this share of a card ...
_SHOWS: Final = 0.06
# ... and this share of the points along its uncovered sides lies on the blob's outline (its
# own edges: a rectangle framing a chip or a face-up card beside the stack has none there), over
# at least this length (card widths) of side.
_EDGE_ON: Final = 0.6
_EDGE_LEN: Final = 0.3
# A card under a middle one is looked for again with every chosen card grown by this much (card
# widths) hiding it: what shows beside the top of the rectangle of the card under the middle one
# is then its own outer strip, not also the middle card's (cards 0.1 of a width apart; generated
# table 11019, a stack of three by a chip).
_WIDE: Final = 0.12
# The stack's mask ends up to a plane pixel inside a card's edge (a strip a tenth of a card wide
# then shows 15 % felt): whether a lower card lies on the stack is judged this much (card widths)
# inside its rectangle.
_RIM: Final = 0.02
# A lower card's strip shows along a side of the card over it: a band this deep (card widths)
# beyond that side (beyond the cards grown by ``_WIDE`` when they hide more) is unexplained stack
# over at least this share, along one side at least, before the back is slid (every back the step
# counted on the development seeds had 0.33 or more there, most over 0.45; most slides that found
# nothing had under 0.2: kennard's and standard's speed frames slid 28 and 35 times in 10 frames,
# at 0.2 12 and 19; 8 of 171 slides that counted nothing on 60 tables had 0.2-0.25).
_BAND: Final = 0.15
_BESIDE: Final = 0.25
_BAND_POINTS: Final = 16  # points along each side (three deep) the band is judged by
_BAND_ALONG: Final = (np.arange(_BAND_POINTS) + 0.5) / _BAND_POINTS
_BAND_DEPTHS: Final = (np.arange(3) + 0.5) / 3
# Points sampled along each side for the edge test.
_SAMPLES: Final = 24


def slid_backs(
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    contour: ByteImage,
    image: ByteImage,
    tester: BackTester,
    card_w: float,
) -> list[Hypothesis]:
    """Lower backs of the stacks among ``chosen`` (one blob's cards) that the earlier steps left,
    each appended to ``chosen`` and drawn into ``covered``; the ones counted.

    Where a stack's blob also holds a chip or a face-up card it touches, the outline's corners
    there are no card's and the strip beside the top card is reached only a few pixels off (a
    place matching the back in place poorly). The back at the card's size is slid from each
    chosen back over what no chosen card hides (``BackTester.slide``), the best place refined by
    the back's look in place, and counted only where what shows of it is the back (``_MATCH``),
    lies on the stack, lies under backs parallel to it only, and its uncovered sides lie on the
    blob's outline: a card is counted by its own edges and picture, never where only one is.
    """
    added: list[Hypothesis] = []
    # Whether each chosen back (by id: all alive while this runs) matches the back whole, asked only
    # of the cards a place lies near enough for it to matter.
    right_of: dict[int, bool] = {}
    blank = tester.blank(image)

    def right(o: Hypothesis) -> bool:
        if id(o) not in right_of:
            right_of[id(o)] = o.code == BACK and tester.strip_likeness(o, image, blank) >= tester.whole_fit
        return right_of[id(o)]

    for top in [o for o in chosen if o.code == BACK]:
        card = top
        for _ in range(2):  # the card under it, then the one under that
            found = None
            for margin in (0.0, _WIDE * card_w):
                hiding = covered if margin == 0.0 else drawn(covered.shape, (_grown(o.corners, margin) for o in chosen))
                if not _beside(card.corners, solid=solid, hiding=hiding, margin=margin, card_w=card_w):
                    hoped = False  # what no card explains lies off its sides or beyond another card
                else:
                    found, hoped = _under(
                        card,
                        chosen=chosen,
                        hiding=hiding,
                        solid=solid,
                        image=image,
                        tester=tester,
                        right=right,
                        card_w=card_w,
                    )
                if found is not None and _own_edges(found, hiding=hiding, contour=contour, card_w=card_w):
                    break
                found = None
                if not hoped:
                    # The grown cards only where the plain slide found the place yet its look was
                    # spoiled (the card under a middle one, the middle card's strip inside it):
                    # every back the grown pass counted on the development seeds had slid 0.41 or
                    # more in the plain one; elsewhere it refined places that counted nothing.
                    break
            if found is None or _one_card(card, found, image=image, tester=tester):
                break
            found.code, found.confidence, found.hidden = BACK, 0.5 + 0.5 * found.back_score, True
            chosen.append(found)
            added.append(found)
            cv2.fillConvexPoly(covered, np.round(found.corners).astype(np.int32), 255)
            card = found
    return added


def _one_card(top: Hypothesis, low: Hypothesis, *, image: ByteImage, tester: BackTester) -> bool:
    """Whether ``low`` is the far end of ``top``'s own card: a card seen larger than the plane's card
    (a lens or tilt not undone exactly) leaves its far end showing beside a rectangle fitted to its
    near end (as ``backs._one_card``). The rectangle spanning both (each corner the outer of the two)
    then matches the back as a whole card at least as well as the top; under a true top, a true
    lower card's span frames the top's border inside it and matches worse (generated table 1004,
    hershey: a lone back under a glare band, its far end 0.14 of a card's width off).
    """
    span = Hypothesis(corners=outer_span(top.corners, low.corners, mid=0.5 * (top.center + low.center)))
    blank = tester.blank(image)
    score = tester.strip_likeness(span, image, blank)
    return score >= _MATCH and score >= tester.strip_likeness(top, image, blank)


def _grown(quad: Vec, by: float) -> Vec:
    """A card's rectangle grown by ``by`` along both of its sides at each end."""
    a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
    signs = np.array([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
    return np.asarray(quad + by * (signs[:, :1] * a + signs[:, 1:] * b), np.float64)


def _under(
    top: Hypothesis,
    *,
    chosen: list[Hypothesis],
    hiding: ByteImage,
    solid: ByteImage,
    image: ByteImage,
    tester: BackTester,
    right: Callable[[Hypothesis], bool],
    card_w: float,
) -> tuple[Hypothesis | None, bool]:
    """The best lower back within reach of ``top`` where what no chosen card hides of it matches the
    back in place, or None; and whether the slide found a place worth the grown pass (``_HOPE``,
    ``_GROW_ON``).
    ``right`` tells a chosen back matching the back whole."""
    card_area = float(cv2.contourArea(top.corners.astype(np.float32)))
    reach = _REACH * card_w
    c = top.corners
    x0, y0 = (np.floor(c.min(axis=0) - reach)).astype(int)
    x1, y1 = (np.ceil(c.max(axis=0) + reach)).astype(int)
    mh, mw = solid.shape
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, mw), min(y1, mh)
    if x1 <= x0 or y1 <= y0:
        return None, False
    rest = cv2.bitwise_and(solid[y0:y1, x0:x1], cv2.bitwise_not(hiding[y0:y1, x0:x1]))
    if cv2.countNonZero(rest) < _REST * card_area:
        return None, False  # the blob around it is explained: no strip to look for
    scores, quads = tester.slide(top.corners, image, hiding, reach=reach, turns=_TURNS)
    if not len(scores):
        return None, False
    centres = quads.mean(axis=1)
    # Every place's distance from every chosen card at once (cards by places).
    others = np.array([o.center for o in chosen])
    apart = np.hypot(centres[None, :, 0] - others[:, None, 0], centres[None, :, 1] - others[:, None, 1])
    ok = (np.hypot(*(centres - top.center).T) <= reach) & np.all(apart >= _APART * card_w, axis=0)
    # Whether a card is placed right is asked only of the cards a place still lies that near (a
    # card no place lies near keeps none off it, whichever way it is asked).
    near = np.any(ok & (apart < _APART_OFF * card_w), axis=1).tolist()
    for o, off, is_near in zip(chosen, apart, near, strict=True):
        if is_near and not right(o):
            ok &= off >= _APART_OFF * card_w
    scores = np.where(ok, scores, -1.0)
    best = int(np.argmax(scores))
    if scores[best] < _HOPE:
        return None, False
    start = np.asarray(quads[best], np.float64)

    def on_of(quad: Vec) -> float:
        return _on_stack_share(_grown(quad, -_RIM * card_w), solid=solid, hiding=hiding)

    on_start = on_of(start)
    if on_start < _GROW_ON:
        return None, False  # the slide matched felt beside the stack: the grown cards would not help
    if scores[best] < _REFINE or on_start < _ON_START:
        return None, True
    a, b = unit(start[1] - start[0]), unit(start[3] - start[0])
    step = _STEP * card_w
    # Each place is judged once: the places a step tries are a lattice around the slide's best,
    # and most of a step's neighbours were the last step's.
    judged: dict[tuple[int, int], tuple[float, float, Vec]] = {}

    def placed(at: tuple[int, int]) -> tuple[float, float, Vec]:
        # Refined by its look in place and by lying on the stack: a place a few pixels along the
        # strip off the card still matches the back (the felt beside it shows no pattern) but
        # frames felt where the card does not lie.
        if at not in judged:
            quad = start + (at[0] * a + at[1] * b) * step
            on = on_start if at == (0, 0) else on_of(quad)
            look = tester.strip_likeness(Hypothesis(corners=quad), image, hiding)
            judged[at] = (look + on, look, quad)
        return judged[at]

    here = (0, 0)
    for _ in range(_STEPS):
        moves = [(here[0] + su, here[1] + sv) for su, sv in ((-1, 0), (1, 0), (0, -1), (0, 1))]
        better = max(moves, key=lambda at: placed(at)[0])
        if placed(better)[0] <= placed(here)[0]:
            break
        here = better
    _, score, quad = placed(here)
    if score < _MATCH:
        return None, True
    hyp = Hypothesis(corners=quad)
    under = False
    for o in chosen:
        apart = float(np.hypot(*(hyp.center - o.center)))
        if apart < _APART * card_w or (apart < _APART_OFF * card_w and not right(o)):
            return None, True  # a card already counted, or its own border drawn a pixel or two off
        if on_or_under(quad, o, card_area=card_area):
            if o.code != BACK or not parallel(quad, o.corners, within=STACK_COS):
                return None, True  # only a back lies on a back, a few degrees apart
            under = True
    inner = _grown(quad, -_RIM * card_w)
    if not under or not on_stack(inner, solid=solid, hiding=hiding, least=_SHOWS * card_area):
        return None, True
    hyp.back, hyp.back_score = True, score
    return hyp, True


def _on_stack_share(quad: Vec, *, solid: ByteImage, hiding: ByteImage) -> float:
    """The share of what ``hiding`` leaves of ``quad`` that lies on the stack (``solid``): the figure
    ``share(solid, quad, exclude=hiding) / (1 - share(hiding, quad))``, its polygon drawn once."""
    size = area(quad)
    hidden = seen = 0.0
    x, y, w, h, poly = local_poly(quad)
    if w > 0 and h > 0:
        local = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(local, poly, 255)
        total = cv2.countNonZero(local)
        mh, mw = solid.shape
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, mw), min(y + h, mh)
        if total and x1 > x0 and y1 > y0:
            inside = local[y0 - y : y1 - y, x0 - x : x1 - x]
            hidden = float(count_in(inside, hiding[y0:y1, x0:x1])) / float(total)
            on = cv2.bitwise_and(inside, solid[y0:y1, x0:x1])
            on = cv2.bitwise_and(on, cv2.bitwise_not(hiding[y0:y1, x0:x1]))
            seen = float(cv2.countNonZero(on)) / float(total)
    return seen * size / max((1.0 - hidden) * size, 1.0)


def _beside(c: Vec, *, solid: ByteImage, hiding: ByteImage, margin: float, card_w: float) -> bool:
    """Whether the stack shows unexplained along a side of the card with corners ``c``: of points
    spread over the band ``_BAND`` of a card's width deep beyond ``margin`` from that side,
    ``_BESIDE`` at least lie on the stack where no chosen card hides them. A lower card's strip
    runs along a side of the card over it; what no chosen card explains elsewhere near it (off its
    corners, beyond another chosen card, a chip a little way off) gives the slide nothing to find."""
    # All four sides' points at once (numpy's per-call cost was most of the work side by side);
    # each side's outward normal in plain Python (four points).
    mh, mw = solid.shape
    pts4 = c.tolist()
    mx, my = sum(x for x, _ in pts4) / 4.0, sum(y for _, y in pts4) / 4.0
    outs = []
    for (px, py), (qx, qy) in zip(pts4, pts4[1:] + pts4[:1], strict=True):
        nx, ny = qy - py, px - qx
        n = math.hypot(nx, ny)
        nx, ny = (nx / n, ny / n) if n > 1e-9 else (nx, ny)
        flip = nx * (0.5 * (px + qx) - mx) + ny * (0.5 * (py + qy) - my) < 0.0
        outs.append((-nx, -ny) if flip else (nx, ny))
    out = np.array(outs)
    ends = c[[1, 2, 3, 0]]
    deep = margin + _BAND_DEPTHS * _BAND * card_w
    pts = (
        c[:, None, None]
        + _BAND_ALONG[None, :, None, None] * (ends - c)[:, None, None]
        + deep[None, None, :, None] * out[:, None, None]
    )
    xs, ys = np.round(pts[..., 0]).astype(int), np.round(pts[..., 1]).astype(int)
    inside = (xs >= 0) & (xs < mw) & (ys >= 0) & (ys < mh)
    xs, ys = np.where(inside, xs, 0), np.where(inside, ys, 0)
    rest = inside & (solid[ys, xs] > 0) & (hiding[ys, xs] == 0)
    return bool(np.any(np.count_nonzero(rest.reshape(4, -1), axis=1) >= _BESIDE * _BAND_POINTS * len(_BAND_DEPTHS)))


def _own_edges(hyp: Hypothesis, *, hiding: ByteImage, contour: ByteImage, card_w: float) -> bool:
    """Whether the sides of ``hyp`` that no chosen card hides lie on the blob's outline (``_EDGE_ON``
    of them, over ``_EDGE_LEN`` of a card's width at least)."""
    c = hyp.corners
    tol = 0.05 * card_w
    mh, mw = hiding.shape
    shown = on = 0
    length = 0.0  # of side on the outline
    for k in range(4):
        p, q = c[k], c[(k + 1) % 4]
        spacing = float(np.hypot(*(q - p))) / _SAMPLES
        for t in (np.arange(_SAMPLES) + 0.5) / _SAMPLES:
            x, y = p + t * (q - p)
            # A point just inside the side: hidden when a chosen card covers it.
            xi, yi = round(float(x)), round(float(y))
            if not (0 <= xi < mw and 0 <= yi < mh) or hiding[yi, xi]:
                continue
            shown += 1
            if abs(cv2.pointPolygonTest(contour, (float(x), float(y)), True)) < tol:
                on += 1
                length += spacing
    return shown > 0 and on >= _EDGE_ON * shown and length >= _EDGE_LEN * card_w
