"""Backs hidden in a stack: the rectangles of lower cards that no outline corner proposes."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.back_tester import WHOLE_FIT
from vision.pipeline.geometry import aligned, area, drawn, overlap_area, redraw, share, unit
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, parallel

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# How well what the given mask does not hide of a rectangle matches the registered back in place.
Likeness = Callable[[Hypothesis, ByteImage], float]
# How well what the given mask does not hide matches the back's brightness at every shift (up to
# the given reach, plane pixels) of the given corners, turned by each of the given degrees:
# scores (n,) and corners (n, 4, 2), where to look (``BackTester.slide``).
Slide = Callable[[Vec, ByteImage, float, tuple[float, ...]], tuple[Vec, Vec]]
# The corners near a card's where a card showing whole matches the registered back best
# (``BackTester.fit_whole``, a few pixels' reach).
Fit = Callable[[Hypothesis], Vec]
# A lower card's strip must match the registered back in place at least this well (the strip
# test's own bar: true strips score mostly over 0.8, a face's or a misplaced rectangle's under 0.35).
_MATCH: Final = 0.6
# How much better than the card under it a middle card must match its strip.
_BETTER: Final = 0.2
# How much better than the card under it, moved a few pixels onto it (``_polished``), a middle card
# must match its strip: the card moved reaches into a true middle's strip too (dev seeds 13000/11000,
# kennard test table 507: true middles 0.09-0.7 better, phantoms of a bottom drawn 2-6 px off
# 0.17 worse to 0.06 better).
_BETTER_MOVED: Final = 0.075
# ... unless moved so it matches what shows of it this much better (true middles' bottoms there
# gained 0.26-0.48, the phantoms' 0.09-0.19: an empirical bar on six cases, dev seeds 500/11000/13000).
_MOVED_GAIN: Final = 0.22
# How well the cards next to a middle one must match in place themselves (neither is a
# rectangle drawn across two cards: those score under 0.35; a glare spot on the top card
# takes a true one down to about 0.5).
_STILL: Final = 0.4
# A middle card lies at least this far (card widths, centre to centre) from each of its
# neighbours (cards dealt on one another lie 6-25 mm apart, 0.1-0.4 of a card's width) ...
_APART: Final = 0.1
# ... and at most this far from each.
_FAR: Final = 0.45
# From a card on top matching the back as a whole card less well than ``WHOLE_FIT`` (its rectangle
# may be a few pixels off), a middle card lies at least
# ``_APART_OFF`` away: a rectangle off leaves the top card's own border showing as a strip that thin.
# So does the card under it, which is never seen whole (whether it is placed right cannot be told):
# from it, always ``_APART_OFF``.
_APART_OFF: Final = 0.15
# Under a top placed right, a middle card dealt tight may lie closer than ``_APART_OFF`` to the card
# under it (or any other chosen back), down to this (a card already counted is nearer), unless
# that card's own border explains its strip: moved ``_NUDGE`` of a card's width onto the strip,
# the card matches what shows of it better by more than ``_NUDGE_GAIN`` (a card placed right
# loses or gains at most a few hundredths there; one 2-3 px off gains 0.1 or more).
_APART_TIGHT: Final = 0.08
_NUDGE: Final = 0.025
_NUDGE_GAIN: Final = 0.05
# At least this share of what shows of a lower card lies on the stack's blob (the rest is felt:
# a rectangle off the cards, not a card's strip): ``on_stack``.
ON_STACK: Final = 0.85
# Turns (degrees) tried for a lower card: backs dealt on one another lie a few degrees apart.
_TURNS: Final = (0.0, -3.0, 3.0, -6.0, 6.0)
# Turns (degrees, from the card on top) the back is slid over a stack at for a middle card.
_SLIDE_TURNS: Final = (-2.0, 2.0)
# The slide's best must reach this for the search to be refined (true middles' do).
_HOPE: Final = 0.25
# The slide's best place is refined in steps of this (card widths: half its own step).
_STEP: Final = 0.025
# A strip beyond a back is moved at most this many steps (0.1 of a card's width along each side).
_POLISH_STEPS: Final = 4
# A card on top not placed right (under ``WHOLE_FIT``) whose fit to the back moves it at least this
# far (card widths) is tried there for the middle card under it: drawn 3 px off (dev table 501,
# kennard: 0.053 of a card's width), it hides part of the middle card's strip and leaves its own
# border showing beside it (the true middle's strip 0.6 as drawn, 0.82 under the fitted top).
_FIT_MOVE: Final = 0.01


def hidden_backs(
    *,
    chosen: list[Hypothesis],
    covered: ByteImage,
    solid: ByteImage,
    contour: ByteImage,
    likeness: Likeness,
    slide: Slide,
    card_w: float,
    card_h: float,
    fit: Fit | None = None,
) -> list[Hypothesis]:
    """Lower backs of the stacks among ``chosen`` (one blob's cards) whose rectangles no outline
    corner proposed; each one counted is appended to ``chosen`` and drawn into ``covered``.

    A card dealt under a back shows a strip along its offset; its corners lie along its
    neighbours' edges (the middle card of three) or its visible part holds a neighbour's strip
    too, so the outline proposes no rectangle for it. A card's size is known and backs are dealt
    nearly parallel, so the lower card is a chosen back shifted to where an uncovered strip's
    outer edges are (beyond a back), or lies between two chosen backs (the middle of three).
    Such a rectangle is only ever counted by the back's own look in place (``likeness``: what
    no card above it hides, correlated with the registered back, 0.6 or more), never from
    geometry alone: ``likeness(hyp, covered)`` is ``BackTester.strip_likeness`` on the plane.
    """
    stack = _Stack(
        chosen=chosen,
        covered=covered,
        solid=solid,
        likeness=likeness,
        slide=slide,
        card_w=card_w,
        card_h=card_h,
        fit=fit,
    )
    added: list[Hypothesis] = []
    for _ in range(3):  # each card found uncovers no strip but may leave another beside it
        found = stack.beyond(contour)
        if found is None:
            break
        added.append(stack.count(found))
    # Each pair of backs is searched once; middles found are counted best first, not twice.
    for found in sorted(stack.between(), key=lambda hyp: hyp.back_score, reverse=True):
        if all(float(np.hypot(*(found.center - o.center))) >= 0.08 * card_w for o in chosen):
            added.append(stack.count(found))
    return added


@dataclass
class _Stack:
    """One blob's chosen cards and what a lower back among them is judged with."""

    chosen: list[Hypothesis]
    covered: ByteImage
    solid: ByteImage
    likeness: Likeness
    slide: Slide
    card_w: float
    card_h: float
    fit: Fit | None = None
    # Each back's likeness as a whole card (nothing hiding it), by the back's id: a back is one
    # of several pairs, and the all-clear mask is made once.
    _whole: dict[int, float] = field(default_factory=dict)
    _blank: ByteImage | None = None

    def whole(self, hyp: Hypothesis) -> float:
        """How well ``hyp`` matches the back as a whole card (nothing hides it; remembered)."""
        if id(hyp) not in self._whole:
            self._whole[id(hyp)] = self.likeness(hyp, self._blank_mask())
        return self._whole[id(hyp)]

    def count(self, hyp: Hypothesis) -> Hypothesis:
        hyp.code, hyp.confidence = BACK, 0.5 + 0.5 * hyp.back_score
        hyp.hidden = True
        self.chosen.append(hyp)
        cv2.fillConvexPoly(self.covered, np.round(hyp.corners).astype(np.int32), 255)
        return hyp

    def beyond(self, contour: ByteImage) -> Hypothesis | None:
        """The best-matching lower back whose strip shows beside a chosen back, uncovered."""
        backs = [o for o in self.chosen if o.code == BACK]
        if not backs:
            return None
        card_w = self.card_w
        pts = np.concatenate([o.corners for o in backs])
        pad = 0.6 * card_w
        mh, mw = self.solid.shape
        x0, y0 = max(int(pts[:, 0].min() - pad), 0), max(int(pts[:, 1].min() - pad), 0)
        x1, y1 = min(int(pts[:, 0].max() + pad) + 1, mw), min(int(pts[:, 1].max() + pad) + 1, mh)
        if x1 <= x0 or y1 <= y0:
            return None
        # What of the blob no chosen card explains, less the slivers along the drawn edges.
        rest = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(rest, [contour], -1, 255, -1, offset=(-x0, -y0))
        rest = cv2.bitwise_and(rest, self.solid[y0:y1, x0:x1])
        rest = cv2.bitwise_and(rest, cv2.bitwise_not(self.covered[y0:y1, x0:x1]))
        if cv2.countNonZero(rest) < 0.04 * card_w * self.card_h:
            return None  # every part of the blob explained: no strip
        k = max(3, round(0.05 * card_w) | 1)
        rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
        best: Hypothesis | None = None
        short: list[tuple[float, Vec]] = []  # places that lie right but fell short of the bar
        for label in range(1, n):
            if stats[label, cv2.CC_STAT_AREA] < 0.04 * card_w * self.card_h:
                continue
            ys, xs = np.nonzero(labels == label)
            strip = np.stack([xs + x0, ys + y0], axis=1).astype(np.float64)
            for top in backs:
                for turn in _TURNS:
                    corners = _reaching(turned(top.corners, turn), strip, card_w)
                    hyp = None if corners is None else self._judged(corners, short=short)
                    if hyp is not None and (best is None or hyp.back_score > best.back_score):
                        best = hyp
        if best is None and short:
            # The strip's outer edges place the card along the offset they face; along the other
            # side it may lie a few pixels either way under the card above, where no edge shows
            # (a pair 16 mm apart along the long side and 5 mm across, dev table 3010: the strip
            # 0.34 in place as reached, 0.65 where the card lies). Refined by its look in place.
            score, corners = max(short, key=_first)
            if score >= _HOPE:
                best = self._judged(self._polished(corners))
        return best

    def _polished(self, quad: Vec, hiding: ByteImage | None = None) -> Vec:
        """``quad`` moved along its sides in steps of ``_STEP`` of a card's width while what shows
        of it (``hiding``, else every card counted, left out) matches the back in place better (a
        few steps), then turned when that is better still."""
        mask = self.covered if hiding is None else hiding

        def placed(corners: Vec) -> tuple[float, Vec]:
            return self.likeness(Hypothesis(corners=corners), mask), corners

        a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
        step = _STEP * self.card_w
        best = placed(quad)
        # The eight moves are the same at every step (worked out once: the same floats).
        moves = [(su * a + sv * b) * step for su in (-1, 0, 1) for sv in (-1, 0, 1) if su or sv]
        for _ in range(_POLISH_STEPS):
            moved = [best[1] + move for move in moves]
            better = max((placed(q) for q in moved), key=_first)
            if better[0] <= best[0]:
                break
            best = better
        return max([best, *(placed(turned(best[1], t)) for t in (-1.5, 1.5))], key=_first)[1]

    def between(self) -> list[Hypothesis]:
        """The middle cards of three: between two chosen backs lying parallel, each strip judged
        with the card above it alone hiding it (either of the two may be the top card)."""
        backs = [o for o in self.chosen if o.code == BACK]
        card_w = self.card_w
        out: list[Hypothesis] = []
        for i, one in enumerate(backs):
            for two in backs[i + 1 :]:
                gap = float(np.hypot(*(one.center - two.center)))
                if not 0.16 * card_w <= gap <= card_w or not parallel(one.corners, two.corners, within=0.99):
                    continue
                # The card on top shows whole: it is the one matching the back better as a whole card
                # (and it must match it: a rectangle drawn across two cards does not).
                (whole, top), (_, bottom) = sorted(((self.whole(o), o) for o in (one, two)), key=_first)[::-1]
                if whole < _STILL:
                    continue
                self._keep_middles(bottom=bottom, top=top)
                found = self._middle(bottom=bottom, top=top)
                if found is None and whole < WHOLE_FIT:
                    found = self._under_fitted(bottom=bottom, top=top)
                if found is not None:
                    out.append(found)
        return out

    def _under_fitted(self, *, bottom: Hypothesis, top: Hypothesis) -> Hypothesis | None:
        """The middle card under ``top`` (not placed right) and over ``bottom`` with the top moved to
        where it matches the back whole better (``fit``), or None. Found, the top stays there (and
        ``covered`` is drawn again); else it is put back. The middle is judged as under the top as
        drawn (the same distances from both: the fit makes no top one placed right)."""
        if self.fit is None:
            return None
        quad = self.fit(top)
        if float(np.hypot(*(quad.mean(axis=0) - top.center))) < _FIT_MOVE * self.card_w:
            return None  # (in place already: the same search)
        fitted = self.likeness(Hypothesis(corners=quad), self._blank_mask())
        if fitted <= self.whole(top):
            return None
        drawn_at, placed = (top.corners, top.center), self.whole(top) >= WHOLE_FIT
        top.corners, top.center = quad, quad.mean(axis=0)
        found = self._middle(bottom=bottom, top=top, placed_top=placed)
        if found is None:
            top.corners, top.center = drawn_at
            return None
        self._whole[id(top)] = fitted
        redraw(self.covered, (o.corners for o in self.chosen), erased=drawn_at[0])
        return found

    def _blank_mask(self) -> ByteImage:
        """The all-clear mask (nothing hides a card), made once."""
        if self._blank is None:
            self._blank = np.zeros(self.covered.shape, np.uint8)
        return self._blank

    def _keep_middles(self, *, bottom: Hypothesis, top: Hypothesis) -> None:
        """Marks as ``hidden`` the chosen backs between ``top`` and ``bottom`` that are a middle card:
        the outline proposed a rectangle for it, yet it lies almost wholly under the top and over the
        bottom, so it would be dropped later as a card counted twice (``overlaps.drop_twice_counted``;
        table 13003's 8h on five designs). It is judged as a middle card found here is (its strip
        with the cards above it hiding it, against the bottom's look there)."""
        for mid in self.chosen:
            if mid is top or mid is bottom or mid.code != BACK or mid.hidden or mid.whole:
                continue
            near = [float(np.hypot(*(mid.center - o.center))) / self.card_w for o in (top, bottom)]
            if max(near) > _FAR or not parallel(mid.corners, top.corners, within=STACK_COS):
                continue
            above = drawn(self.covered.shape, (o.corners for o in self.chosen if o is not bottom and o is not mid))
            # (Drawn from outline corners of two cards, it may lie a few pixels off the middle card.)
            quad = self._polished(mid.corners, above)
            score = self.likeness(Hypothesis(corners=quad), above)
            if self._holds(quad, score=score, bottom=bottom, top=top, above=above, own=mid):
                mid.corners, mid.center, mid.hidden = quad, quad.mean(axis=0), True

    def _middle(self, *, bottom: Hypothesis, top: Hypothesis, placed_top: bool | None = None) -> Hypothesis | None:
        """The best middle card under ``top`` and over ``bottom``: a card dealt by hand lies a few
        millimetres from each of its neighbours in any direction, turned a few degrees (not in
        line with them, not half way, not always inside the box between them). The back's
        brightness is slid over the stack at every shift of the top card within reach of both
        (``slide``: what the cards above hide left out), turned each way; the best place is
        then refined by the back's own look in place (``likeness``). ``placed_top``: whether the top
        counts as placed right (else by its own look)."""
        card_w = self.card_w
        if float(np.hypot(*(top.center - bottom.center))) > 2 * _FAR * card_w:
            return None  # no place lies near enough to both
        # (Plane-sized masks made with np.zeros cost nothing until drawn in: only the drawn part
        # and what the likeness warps are ever touched.)
        above = drawn(self.covered.shape, (o.corners for o in self.chosen if o is not bottom))
        scores, quads = self.slide(top.corners, above, _FAR * card_w, _SLIDE_TURNS)
        if not len(scores):
            return None
        centres = quads.mean(axis=1)
        near = [np.hypot(*(centres - o.center).T) / card_w for o in (top, bottom)]
        # Next to a top placed right (seen whole), nothing hides the top and its own border does
        # not show: a strip beside it is the middle card's, and the middle may lie tight on the
        # card under it (whose own border is ruled out below). Else 0.15 from both.
        if placed_top is None:
            placed_top = self.whole(top) >= WHOLE_FIT
        apart = _APART if placed_top else _APART_OFF
        tight = _APART_TIGHT if placed_top else _APART_OFF
        reach = (near[0] >= apart) & (near[1] >= tight) & (near[0] <= _FAR) & (near[1] <= _FAR)
        scores = np.where(reach, scores, -1.0)
        best = int(np.argmax(scores))
        if scores[best] < _HOPE:
            return None  # nowhere near a strip of the back: not worth refining

        def placed(mid: Vec) -> tuple[float, Vec]:
            return self.likeness(Hypothesis(corners=mid), above), mid

        score, mid = placed(aligned(quads[best], top.corners))
        a, b = unit(mid[1] - mid[0]), unit(mid[3] - mid[0])
        step = _STEP * card_w
        shifted = [mid + (su * a + sv * b) * step for su in (-1, 0, 1) for sv in (-1, 0, 1) if su or sv]
        score, mid = max([(score, mid), *(placed(q) for q in shifted)], key=_first)
        score, mid = max([(score, mid), *(placed(turned(mid, t)) for t in (-1.5, 1.5))], key=_first)
        if not self._holds(mid, score=score, bottom=bottom, top=top, above=above, placed_top=placed_top):
            return None
        hyp = Hypothesis(corners=mid)
        hyp.back, hyp.back_score = True, score
        return hyp

    def _holds(
        self,
        mid: Vec,
        *,
        score: float,
        bottom: Hypothesis,
        top: Hypothesis,
        above: ByteImage,
        own: Hypothesis | None = None,
        placed_top: bool | None = None,
    ) -> bool:
        """Whether a middle card at ``mid`` under ``top`` and over ``bottom``, matching what ``above``
        leaves of it ``score``, is one more card (``own``: the chosen back drawn there, if any);
        ``above`` gets it drawn in."""
        card_w = self.card_w
        if placed_top is None:
            placed_top = self.whole(top) >= WHOLE_FIT
        apart = _APART if placed_top else _APART_OFF
        tight = _APART_TIGHT if placed_top else _APART_OFF
        if score < _MATCH:
            return False
        # What shows of it must lie on the stack, not on felt (as a strip beyond a back's, ``_judged``):
        # a rectangle drawn between the bottom card and the top, a few pixels off both, matches a
        # strip of the bottom card well yet reaches past the stack's edge where no card lies.
        if not on_stack(mid, solid=self.solid, hiding=above, least=0.04 * card_w * self.card_h):
            return False
        centre = mid.mean(axis=0)
        for o in self.chosen:
            if o is top or o is own:
                continue
            gap = float(np.hypot(*(centre - o.center))) / card_w
            # A card already counted, or that card a few pixels off: a chosen back's rectangle
            # a little off it leaves its own border showing beside it as a strip.
            if gap < tight or (gap < _APART_OFF and self._own_border(o, centre)):
                return False
        if float(np.hypot(*(centre - top.center))) < apart * card_w:
            return False  # a strip this thin is as much the top card's own edge, drawn a little off
        # Two backs dealt far apart leave the lower one's picture there: a middle card must
        # match what shows clearly better than the card under it does ...
        if score < self._under_look(bottom.corners, mid=mid, above=above) + _BETTER:
            return False
        # ... and better than that card moved a few pixels onto it does: the card under it is never
        # seen whole, and drawn a few pixels off it leaves a strip of its own beside its rectangle
        # that a card half way to the top explains.
        # (Unless moving it gains the card under it a great deal: then it lay well off its own strip
        # too, and what it reaches into is the middle card's strip.)
        moved = self._polished(bottom.corners, above)
        if (
            moved is not bottom.corners
            and score < self._under_look(moved, mid=mid, above=above) + _BETTER_MOVED
            and self.likeness(Hypothesis(corners=moved), above) < self.likeness(bottom, above) + _MOVED_GAIN
        ):
            return False
        # And the card under it, all but its own strip hidden then, is still the back in place
        # (not a rectangle drawn across two cards of the stack).
        cv2.fillConvexPoly(above, np.round(mid).astype(np.int32), 255)
        return self.likeness(bottom, above) >= _STILL

    def _under_look(self, under: Vec, *, mid: Vec, above: ByteImage) -> float:
        """How well a card at ``under`` matches what ``above`` leaves of the middle card's strip at
        ``mid`` (all else hidden)."""
        x, y, w, h = cv2.boundingRect(np.round(under).astype(np.int32))
        x, y = max(x, 0), max(y, 0)
        elsewhere = np.zeros(above.shape, np.uint8)  # all but the middle card's strip, where the card under it lies
        elsewhere[y : y + h, x : x + w] = 255
        cv2.fillConvexPoly(elsewhere, np.round(mid).astype(np.int32), 0)
        np.bitwise_or(elsewhere[y : y + h, x : x + w], above[y : y + h, x : x + w], out=elsewhere[y : y + h, x : x + w])
        return self.likeness(Hypothesis(corners=under), elsewhere)

    def _own_border(self, card: Hypothesis, toward: Vec) -> bool:
        """Whether a strip at ``toward`` is ``card``'s own border, its rectangle drawn a few pixels
        off: moved a little onto the strip, the card matches what shows of it clearly better (one
        placed right matches worse or the same)."""
        hiding = drawn(self.covered.shape, (o.corners for o in self.chosen if o is not card))
        moved = card.corners + _NUDGE * self.card_w * unit(toward - card.center)
        here = self.likeness(Hypothesis(corners=card.corners), hiding)
        return self.likeness(Hypothesis(corners=moved), hiding) > here + _NUDGE_GAIN

    def _judged(self, corners: Vec, *, short: list[tuple[float, Vec]] | None = None) -> Hypothesis | None:
        """A lower back at ``corners`` when it may lie there (under backs only, parallel, none of
        them) and what shows of it is the back in place (``short`` gets the place and its score
        when only that falls short)."""
        hyp = Hypothesis(corners=corners)
        under = False
        for o in self.chosen:
            if float(np.hypot(*(hyp.center - o.center))) < 0.08 * self.card_w:
                return None  # a card already counted
            if overlap_area(corners, o.corners) > 1.0:
                if o.code != BACK or not parallel(corners, o.corners, within=STACK_COS):
                    return None
                under = True
        if not under:
            return None
        # (A place a few pixels off shows felt where the card does not lie, and matches poorly.)
        placed = on_stack(corners, solid=self.solid, hiding=self.covered, least=0.04 * self.card_w * self.card_h)
        score = self.likeness(hyp, self.covered) if placed or short is not None else -1.0
        if not placed or score < _MATCH:
            if short is not None:
                short.append((score, corners))
            return None  # too little of it shows, what shows is partly felt (no card's strip), or no back
        hyp.back, hyp.back_score = True, score
        return hyp


def on_stack(corners: Vec, *, solid: ByteImage, hiding: ByteImage, least: float) -> bool:
    """Whether what ``hiding`` leaves of a lower card's rectangle shows at least ``least`` (square
    pixels) and lies on the stack (``solid``), not on felt, as a card's strip does (85 %).
    """
    size = area(corners)
    shown = (1.0 - share(hiding, corners)) * size
    seen = share(solid, corners, exclude=hiding) * size
    return seen >= least and seen >= ON_STACK * shown


def _first(pair: tuple[float, object]) -> float:
    """A (score, thing) pair's score: the key that ranks such pairs by score alone."""
    return pair[0]


def turned(quad: Vec, degrees: float) -> Vec:
    """``quad`` turned about its centre."""
    if degrees == 0.0:
        return quad
    t = math.radians(degrees)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    mid = quad.mean(axis=0)
    return np.asarray((quad - mid) @ rot.T + mid, np.float64)


def _reaching(quad: Vec, strip: Vec, card_w: float) -> Vec | None:
    """``quad`` shifted along its sides until they reach the strip's outer edges (a strip beside
    it, offset by 0.08-0.5 of a card's width), or None."""
    a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
    w, h = float(np.hypot(*(quad[1] - quad[0]))), float(np.hypot(*(quad[3] - quad[0])))
    rel = strip - quad[0]
    u, v = rel @ a, rel @ b
    # Only a strip beside the card: one reaching past its far sides is something else.
    umin, umax, vmin, vmax = float(u.min()), float(u.max()), float(v.min()), float(v.max())
    if umin < -w or umax > 2 * w or vmin < -h or vmax > 2 * h:
        return None
    # The shift along each side is at most how far the strip's farthest point lies beyond it
    # (the percentiles lie within the extremes): too small a bound needs no percentiles.
    if math.hypot(max(umax - w, -umin, 0.0), max(vmax - h, -vmin, 0.0)) < 0.08 * card_w:
        return None
    (u0, u1), (v0, v1) = _percentiles(u), _percentiles(v)
    slack = 0.04 * card_w
    su = float(u1 - w) if u1 > w + slack else float(u0) if u0 < -slack else 0.0
    sv = float(v1 - h) if v1 > h + slack else float(v0) if v0 < -slack else 0.0
    if not 0.08 * card_w <= math.hypot(su, sv) <= 0.5 * card_w:
        return None
    return np.asarray(quad + su * a + sv * b, np.float64)


def _percentiles(values: Vec) -> tuple[float, float]:
    """``np.percentile(values, (1, 99))``, the same floats (its linear interpolation between the
    neighbouring order statistics), from one partition without its general machinery."""
    n = len(values)
    at = [(n - 1) * q for q in (0.01, 0.99)]
    lows = [min(math.floor(x), n - 1) for x in at]
    ranked = np.partition(values, sorted({k for low in lows for k in (low, min(low + 1, n - 1))}))
    out = []
    for x, low in zip(at, lows, strict=True):
        if x >= n - 1:
            out.append(float(ranked[n - 1]))
            continue
        a, b = float(ranked[low]), float(ranked[low + 1])
        t = x - low
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out[0], out[1]
