"""Backs hidden in a stack: the rectangles of lower cards that no outline corner proposes."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import cv2
import numpy as np

from vision.pipeline.geometry import ByteImage, Vec, aligned, on_stack, turned, unit
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, on_or_under, parallel
from vision.pipeline.middle_cards import APART_OFF, SLIDE_HOPE, SLIDE_STEP, STRIP_MATCH, MiddleCards, by_score

# How well what the given mask does not hide of a rectangle matches the registered back in place.
Likeness = Callable[[Hypothesis, ByteImage], float]
# How well what the given mask does not hide matches the back's brightness at every shift (up to
# the given reach, plane pixels) of the given corners, turned by each of the given degrees:
# scores (n,) and corners (n, 4, 2), where to look (``BackTester.slide``).
Slide = Callable[[Vec, ByteImage, float, tuple[float, ...]], tuple[Vec, Vec]]
# The corners near a card's where a card showing whole matches the registered back best
# (``BackTester.fit_whole``, a few pixels' reach).
Fit = Callable[[Hypothesis], Vec]
# Turns (degrees) tried for a lower card: backs dealt on one another lie a few degrees apart.
_TURNS: Final = (0.0, -3.0, 3.0, -6.0, 6.0)
# A strip beyond a back is moved at most this many steps (0.1 of a card's width along each side).
_POLISH_STEPS: Final = 4
# Where a strip's edges place no card, the back is slid this far (card widths) from a chosen back
# (the bottom of three lies up to two offsets from the top: 0.8 of a card's width) ...
_SLIDE_REACH: Final = 0.8
# ... turned this much either way (degrees; the place found is turned 1.5 more when that is better).
_SLIDE_TURNS: Final = (-3.0, 0.0, 3.0)
# ... to places at least ``APART_OFF`` from every card counted (a rectangle a few pixels off leaves
# its own border showing as a strip up to about that thin: the middle search's bar).
# The best few places so are tried (best first) ...
_SLID_TRIES: Final = 3
# ... each holding at least this much (of a card's area) of a strip no card explains: the least
# uncovered part of a stack taken for a strip at all.
_STRIP_PIECE: Final = 0.04


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
    whole_fit: float,
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
    geometry alone: ``likeness(hyp, covered)`` is ``BackTester.strip_likeness`` on the plane, and
    ``whole_fit`` the bar a card seen whole is placed right by (``BackTester.whole_fit``).
    """
    stack = Stack(
        chosen=chosen,
        covered=covered,
        solid=solid,
        likeness=likeness,
        slide=slide,
        card_w=card_w,
        card_h=card_h,
        fit=fit,
        whole_fit=whole_fit,
    )
    added: list[Hypothesis] = []
    for _ in range(3):  # each card found uncovers no strip but may leave another beside it
        found = stack.beyond(contour)
        if found is None:
            break
        added.append(stack.count(found))
    # Each pair of backs is searched once; middles found are counted best first, not twice.
    for found in sorted(MiddleCards(stack=stack).between(), key=lambda hyp: hyp.back_score, reverse=True):
        if all(float(np.hypot(*(found.center - o.center))) >= 0.08 * card_w for o in chosen):
            added.append(stack.count(found))
    return added


@dataclass
class Stack:
    """One blob's chosen cards and what a lower back among them is judged with."""

    chosen: list[Hypothesis]
    covered: ByteImage
    solid: ByteImage
    likeness: Likeness
    slide: Slide
    card_w: float
    card_h: float
    # The bar a card seen whole is placed right by (the registered back's, ``BackTester.whole_fit``).
    whole_fit: float
    fit: Fit | None = None
    # Each back's likeness as a whole card (nothing hiding it), by the back's id: a back is one
    # of several pairs, and the all-clear mask is made once.
    _whole: dict[int, float] = field(default_factory=dict)
    _blank: ByteImage | None = None

    def whole(self, hyp: Hypothesis) -> float:
        """How well ``hyp`` matches the back as a whole card (nothing hides it; remembered)."""
        if id(hyp) not in self._whole:
            self._whole[id(hyp)] = self.likeness(hyp, self.blank())
        return self._whole[id(hyp)]

    def set_whole(self, hyp: Hypothesis, likeness: float) -> None:
        """Remembers ``hyp``'s likeness as a whole card anew (its corners were moved)."""
        self._whole[id(hyp)] = likeness

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
        if cv2.countNonZero(rest) < _STRIP_PIECE * card_w * self.card_h:
            return None  # every part of the blob explained: no strip
        k = max(3, round(0.05 * card_w) | 1)
        rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
        best: Hypothesis | None = None
        short: list[tuple[float, Vec]] = []  # places that lie right but fell short of the bar
        strips: list[Vec] = []
        for label in range(1, n):
            if stats[label, cv2.CC_STAT_AREA] < _STRIP_PIECE * card_w * self.card_h:
                continue
            ys, xs = np.nonzero(labels == label)
            strip = np.stack([xs + x0, ys + y0], axis=1).astype(np.float64)
            strips.append(strip)
            for top in backs:
                for turn in _TURNS:
                    corners = _reaching(turned(top.corners, turn), strip, card_w)
                    hyp = None if corners is None else self.judged(corners, short=short)
                    if hyp is not None and (best is None or hyp.back_score > best.back_score):
                        best = hyp
        if best is None and short:
            # The strip's outer edges place the card along the offset they face; along the other
            # side it may lie a few pixels either way under the card above, where no edge shows
            # (a pair 16 mm apart along the long side and 5 mm across, dev table 3010: the strip
            # 0.34 in place as reached, 0.65 where the card lies). Refined by its look in place.
            score, corners = max(short, key=by_score)
            if score >= SLIDE_HOPE:
                best = self.judged(self.polished(corners))
        if best is None and strips:
            best = self._slid_beyond(backs, strips)
        return best

    def _slid_beyond(self, backs: list[Hypothesis], strips: list[Vec]) -> Hypothesis | None:
        """The lower back whose strip shows beside a chosen back where the strip's edges place no
        card (its strip runs into another's: the bottom and middle of three both beyond the top, or
        a chip or glare cuts the edge): the back's brightness slid over the stack from each chosen
        back (``slide``, what the cards counted hide left out), the best place that explains a
        piece of a strip refined by the back's own look in place and judged as any lower back."""
        card_w, card_area = self.card_w, self.card_w * self.card_h
        found: Hypothesis | None = None
        for top in backs:
            scores, quads = self.slide(top.corners, self.covered, _SLIDE_REACH * card_w, _SLIDE_TURNS)
            if not len(scores):
                continue
            centres = quads.mean(axis=1)
            # Not a card counted, nor that card a few pixels off (its own border shows as a strip).
            apart = np.ones(len(scores), bool)
            for o in self.chosen:
                apart &= np.hypot(*(centres - o.center).T) >= APART_OFF * card_w
            scores = np.where(apart, scores, -1.0)
            for k in np.argsort(-scores)[:_SLID_TRIES]:
                if scores[k] < SLIDE_HOPE:
                    break
                quad = aligned(quads[k], top.corners)
                # It must hold a piece of a strip no card explains (else it only re-frames what shows).
                if not any(_inside(quad, strip) >= _STRIP_PIECE * card_area for strip in strips):
                    continue
                hyp = self.judged(self.polished(quad))
                if hyp is None or any(
                    float(np.hypot(*(hyp.center - o.center))) < APART_OFF * card_w for o in self.chosen
                ):
                    continue
                if found is None or hyp.back_score > found.back_score:
                    found = hyp
                break
        return found

    def polished(self, quad: Vec, hiding: ByteImage | None = None) -> Vec:
        """``quad`` moved along its sides in steps of ``SLIDE_STEP`` of a card's width while what shows
        of it (``hiding``, else every card counted, left out) matches the back in place better (a
        few steps), then turned when that is better still."""
        mask = self.covered if hiding is None else hiding

        def placed(corners: Vec) -> tuple[float, Vec]:
            return self.likeness(Hypothesis(corners=corners), mask), corners

        a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
        step = SLIDE_STEP * self.card_w
        best = placed(quad)
        # The eight moves are the same at every step (worked out once: the same floats).
        moves = [(su * a + sv * b) * step for su in (-1, 0, 1) for sv in (-1, 0, 1) if su or sv]
        for _ in range(_POLISH_STEPS):
            moved = [best[1] + move for move in moves]
            better = max((placed(q) for q in moved), key=by_score)
            if better[0] <= best[0]:
                break
            best = better
        return max([best, *(placed(turned(best[1], t)) for t in (-1.5, 1.5))], key=by_score)[1]

    def blank(self) -> ByteImage:
        """The all-clear mask (nothing hides a card), made once."""
        if self._blank is None:
            self._blank = np.zeros(self.covered.shape, np.uint8)
        return self._blank

    def judged(self, corners: Vec, *, short: list[tuple[float, Vec]] | None = None) -> Hypothesis | None:
        """A lower back at ``corners`` when it may lie there (under backs only, parallel, none of
        them) and what shows of it is the back in place (``short`` gets the place and its score
        when only that falls short)."""
        hyp = Hypothesis(corners=corners)
        under = False
        for o in self.chosen:
            if float(np.hypot(*(hyp.center - o.center))) < 0.08 * self.card_w:
                return None  # a card already counted
            if on_or_under(corners, o, card_area=self.card_w * self.card_h):
                if o.code != BACK or not parallel(corners, o.corners, within=STACK_COS):
                    return None
                under = True
        if not under:
            return None
        # (A place a few pixels off shows felt where the card does not lie, and matches poorly.)
        placed = on_stack(corners, solid=self.solid, hiding=self.covered, least=0.04 * self.card_w * self.card_h)
        score = self.likeness(hyp, self.covered) if placed or short is not None else -1.0
        if not placed or score < STRIP_MATCH:
            if short is not None:
                short.append((score, corners))
            return None  # too little of it shows, what shows is partly felt (no card's strip), or no back
        hyp.back, hyp.back_score = True, score
        return hyp


def _inside(quad: Vec, points: Vec) -> int:
    """How many of ``points`` lie inside the convex ``quad`` (on the inner side of all four sides)."""
    inside = np.ones(len(points), bool)
    for i in range(4):
        edge = quad[(i + 1) % 4] - quad[i]
        rel = points - quad[i]
        cross = edge[0] * rel[:, 1] - edge[1] * rel[:, 0]
        inside &= cross * _orientation(quad) >= 0
    return int(np.count_nonzero(inside))


def _orientation(quad: Vec) -> float:
    """+1 when ``quad``'s corners run one way round, -1 the other (the sign of its signed area)."""
    x, y = quad[:, 0], quad[:, 1]
    return 1.0 if float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) >= 0 else -1.0


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
