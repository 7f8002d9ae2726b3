"""The middle card of three stacked backs: between two chosen backs, where no outline corner proposes it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import cv2
import numpy as np

from vision.pipeline.geometry import ByteImage, Vec, aligned, drawn, on_stack, redraw, turned, unit
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, parallel

if TYPE_CHECKING:
    from vision.pipeline.hidden import Stack

# A lower card's strip (a middle card's here, one beyond a back in ``hidden``) must match the
# registered back in place at least this well (true strips score mostly over 0.8, a face's or a
# misplaced rectangle's under 0.35).
STRIP_MATCH: Final = 0.6
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
# From a card on top matching the back as a whole card less well than ``whole_fit`` (its rectangle
# may be a few pixels off), a middle card lies at least
# ``APART_OFF`` away: a rectangle off leaves the top card's own border showing as a strip that thin.
# So does the card under it, which is never seen whole (whether it is placed right cannot be told):
# from it, always ``APART_OFF``.
APART_OFF: Final = 0.15
# Under a top placed right, a middle card dealt tight may lie closer than ``APART_OFF`` to the card
# under it (or any other chosen back), down to this (a card already counted is nearer), unless
# that card's own border explains its strip: moved ``_NUDGE`` of a card's width onto the strip,
# the card matches what shows of it better by more than ``_NUDGE_GAIN`` (a card placed right
# loses or gains at most a few hundredths there; one 2-3 px off gains 0.1 or more).
_APART_TIGHT: Final = 0.08
_NUDGE: Final = 0.025
_NUDGE_GAIN: Final = 0.05
# Turns (degrees, from the card on top) the back is slid over a stack at for a middle card: each card
# dealt lies up to 6 degrees from the last (the best place is turned 1.5 more either way when that is
# better). With -2 and 2 alone, dev table 10000's Qh, 5.3 degrees from the top, was missed on six designs.
_SLIDE_TURNS: Final = (-5.0, -2.5, 0.0, 2.5, 5.0)
# Beside a top not placed right, only these: its own border shows as strips of the back, which more
# places would take for a middle card (nicu-white test table 14364: a fourth back at 0.65, slid
# unturned under a top matching the back whole 0.59).
_SLIDE_TURNS_OFF: Final = (-2.0, 2.0)
# A card on top not placed right (under ``whole_fit``) whose fit to the back moves it at least this
# far (card widths) is tried there for the middle card under it: drawn 3 px off (dev table 501,
# kennard: 0.053 of a card's width), it hides part of the middle card's strip and leaves its own
# border showing beside it (the true middle's strip 0.6 as drawn, 0.82 under the fitted top).
_FIT_MOVE: Final = 0.01
# The slide's best must reach this for the search to be refined (true middles' do; strips beyond a back too).
SLIDE_HOPE: Final = 0.25
# The slide's best place is refined in steps of this (card widths: half its own step).
SLIDE_STEP: Final = 0.025


@dataclass
class MiddleCards:
    """The middle cards of three among one blob's chosen backs (``stack``), each pair searched once."""

    stack: Stack

    def between(self) -> list[Hypothesis]:
        """The middle cards of three: between two chosen backs lying parallel, each strip judged
        with the card above it alone hiding it (either of the two may be the top card)."""
        backs = [o for o in self.stack.chosen if o.code == BACK]
        card_w = self.stack.card_w
        out: list[Hypothesis] = []
        for i, one in enumerate(backs):
            for two in backs[i + 1 :]:
                gap = float(np.hypot(*(one.center - two.center)))
                # (Parallel as a stack's cards are, ``STACK_COS``: each card dealt turns a few
                # degrees from the last, so the bottom and top of three lie up to 12 degrees
                # apart, and the bottom's rectangle, never seen whole, a few more; at 8 degrees
                # dev tables 13000, 3015 and 13004 left their middle card unlooked for.)
                if not 0.16 * card_w <= gap <= card_w or not parallel(one.corners, two.corners, within=STACK_COS):
                    continue
                # The card on top shows whole: it is the one matching the back better as a whole card
                # (and it must match it: a rectangle drawn across two cards does not).
                (whole, top), (_, bottom) = sorted(((self.stack.whole(o), o) for o in (one, two)), key=by_score)[::-1]
                if whole < _STILL:
                    continue
                self._keep_middles(bottom=bottom, top=top)
                found = self._middle(bottom=bottom, top=top)
                if found is None and whole < self.stack.whole_fit:
                    found = self._under_fitted(bottom=bottom, top=top)
                if found is not None:
                    out.append(found)
        return out

    def _under_fitted(self, *, bottom: Hypothesis, top: Hypothesis) -> Hypothesis | None:
        """The middle card under ``top`` (not placed right) and over ``bottom`` with the top moved to
        where it matches the back whole better, or None: where the back's brightness slid over it
        fits best (``fit``), else moved step by step while its own look in place as a whole card
        improves (``polished``: for a top drawn between its own corners and the middle card's, the
        slid brightness may fit best where it is drawn; dev table 10000's 2h, 2.7 px off, on six
        designs). Never onto a card already counted: that is the card. Found, the top
        stays there (and ``covered`` is drawn again); else it is put back. The middle is judged as
        under the top as drawn (the same distances from both), unless the top moved matches the back
        whole (``whole_fit``): then it is placed right, as any top that does."""
        drawn_at, tried = (top.corners, top.center), [top.center]

        def moves() -> Iterator[Vec]:
            # (The step-by-step move only when the fit's found no middle: it is a few dozen likenesses.)
            if self.stack.fit is not None:
                yield self.stack.fit(top)
            yield self.stack.polished(drawn_at[0], self.stack.blank())

        for quad in moves():
            centre = quad.mean(axis=0)
            if any(float(np.hypot(*(centre - at))) < _FIT_MOVE * self.stack.card_w for at in tried):
                continue  # (in place already, or where the fit put it: the same search)
            tried.append(centre)
            if any(
                o is not top and float(np.hypot(*(centre - o.center))) < _APART_TIGHT * self.stack.card_w
                for o in self.stack.chosen
            ):
                continue  # moved onto a card counted: that card (nicu-white 10019: a phantom under it)
            fitted = self.stack.likeness(Hypothesis(corners=quad), self.stack.blank())
            if fitted <= self.stack.whole(top):
                continue
            top.corners, top.center = quad, centre
            found = self._middle(bottom=bottom, top=top, placed_top=fitted >= self.stack.whole_fit)
            if found is None:
                top.corners, top.center = drawn_at
                continue
            self.stack.set_whole(top, fitted)
            redraw(self.stack.covered, (o.corners for o in self.stack.chosen), erased=drawn_at[0])
            return found
        return None

    def _keep_middles(self, *, bottom: Hypothesis, top: Hypothesis) -> None:
        """Marks as ``hidden`` the chosen backs between ``top`` and ``bottom`` that are a middle card:
        the outline proposed a rectangle for it, yet it lies almost wholly under the top and over the
        bottom, so it would be dropped later as a card counted twice (``overlaps.drop_twice_counted``;
        table 13003's 8h on five designs). It is judged as a middle card found here is (its strip
        with the cards above it hiding it, against the bottom's look there)."""
        for mid in self.stack.chosen:
            if mid is top or mid is bottom or mid.code != BACK or mid.hidden or mid.whole:
                continue
            near = [float(np.hypot(*(mid.center - o.center))) / self.stack.card_w for o in (top, bottom)]
            if max(near) > _FAR or not parallel(mid.corners, top.corners, within=STACK_COS):
                continue
            above = drawn(
                self.stack.covered.shape, (o.corners for o in self.stack.chosen if o is not bottom and o is not mid)
            )
            # (Drawn from outline corners of two cards, it may lie a few pixels off the middle card.)
            quad = self.stack.polished(mid.corners, above)
            score = self.stack.likeness(Hypothesis(corners=quad), above)
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
        card_w = self.stack.card_w
        if float(np.hypot(*(top.center - bottom.center))) > 2 * _FAR * card_w:
            return None  # no place lies near enough to both
        # (Plane-sized masks made with np.zeros cost nothing until drawn in: only the drawn part
        # and what the likeness warps are ever touched.)
        above = drawn(self.stack.covered.shape, (o.corners for o in self.stack.chosen if o is not bottom))
        # Next to a top placed right (seen whole), nothing hides the top and its own border does
        # not show: a strip beside it is the middle card's, and the middle may lie tight on the
        # card under it (whose own border is ruled out below). Else 0.15 from both.
        if placed_top is None:
            placed_top = self.stack.whole(top) >= self.stack.whole_fit
        turns = _SLIDE_TURNS if placed_top else _SLIDE_TURNS_OFF
        scores, quads = self.stack.slide(top.corners, above, _FAR * card_w, turns)
        if not len(scores):
            return None
        centres = quads.mean(axis=1)
        near = [np.hypot(*(centres - o.center).T) / card_w for o in (top, bottom)]
        apart = _APART if placed_top else APART_OFF
        tight = _APART_TIGHT if placed_top else APART_OFF
        reach = (near[0] >= apart) & (near[1] >= tight) & (near[0] <= _FAR) & (near[1] <= _FAR)
        scores = np.where(reach, scores, -1.0)
        best = int(np.argmax(scores))
        if scores[best] < SLIDE_HOPE:
            return None  # nowhere near a strip of the back: not worth refining

        def placed(mid: Vec) -> tuple[float, Vec]:
            return self.stack.likeness(Hypothesis(corners=mid), above), mid

        score, mid = placed(aligned(quads[best], top.corners))
        a, b = unit(mid[1] - mid[0]), unit(mid[3] - mid[0])
        step = SLIDE_STEP * card_w
        shifted = [mid + (su * a + sv * b) * step for su in (-1, 0, 1) for sv in (-1, 0, 1) if su or sv]
        score, mid = max([(score, mid), *(placed(q) for q in shifted)], key=by_score)
        score, mid = max([(score, mid), *(placed(turned(mid, t)) for t in (-1.5, 1.5))], key=by_score)
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
        card_w = self.stack.card_w
        if placed_top is None:
            placed_top = self.stack.whole(top) >= self.stack.whole_fit
        apart = _APART if placed_top else APART_OFF
        tight = _APART_TIGHT if placed_top else APART_OFF
        if score < STRIP_MATCH:
            return False
        # What shows of it must lie on the stack, not on felt (as a strip beyond a back's, ``Stack.judged``):
        # a rectangle drawn between the bottom card and the top, a few pixels off both, matches a
        # strip of the bottom card well yet reaches past the stack's edge where no card lies.
        if not on_stack(mid, solid=self.stack.solid, hiding=above, least=0.04 * card_w * self.stack.card_h):
            return False
        centre = mid.mean(axis=0)
        for o in self.stack.chosen:
            if o is top or o is own:
                continue
            gap = float(np.hypot(*(centre - o.center))) / card_w
            # A card already counted, or that card a few pixels off: a chosen back's rectangle
            # a little off it leaves its own border showing beside it as a strip.
            if gap < tight or (gap < APART_OFF and self._own_border(o, centre)):
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
        moved = self.stack.polished(bottom.corners, above)
        if (
            moved is not bottom.corners
            and score < self._under_look(moved, mid=mid, above=above) + _BETTER_MOVED
            and self.stack.likeness(Hypothesis(corners=moved), above) < self.stack.likeness(bottom, above) + _MOVED_GAIN
        ):
            return False
        # And the card under it, all but its own strip hidden then, is still the back in place
        # (not a rectangle drawn across two cards of the stack).
        cv2.fillConvexPoly(above, np.round(mid).astype(np.int32), 255)
        return self.stack.likeness(bottom, above) >= _STILL

    def _under_look(self, under: Vec, *, mid: Vec, above: ByteImage) -> float:
        """How well a card at ``under`` matches what ``above`` leaves of the middle card's strip at
        ``mid`` (all else hidden)."""
        x, y, w, h = cv2.boundingRect(np.round(under).astype(np.int32))
        x, y = max(x, 0), max(y, 0)
        elsewhere = np.zeros(above.shape, np.uint8)  # all but the middle card's strip, where the card under it lies
        elsewhere[y : y + h, x : x + w] = 255
        cv2.fillConvexPoly(elsewhere, np.round(mid).astype(np.int32), 0)
        np.bitwise_or(elsewhere[y : y + h, x : x + w], above[y : y + h, x : x + w], out=elsewhere[y : y + h, x : x + w])
        return self.stack.likeness(Hypothesis(corners=under), elsewhere)

    def _own_border(self, card: Hypothesis, toward: Vec) -> bool:
        """Whether a strip at ``toward`` is ``card``'s own border, its rectangle drawn a few pixels
        off: moved a little onto the strip, the card matches what shows of it clearly better (one
        placed right matches worse or the same)."""
        hiding = drawn(self.stack.covered.shape, (o.corners for o in self.stack.chosen if o is not card))
        moved = card.corners + _NUDGE * self.stack.card_w * unit(toward - card.center)
        here = self.stack.likeness(Hypothesis(corners=card.corners), hiding)
        return self.stack.likeness(Hypothesis(corners=moved), hiding) > here + _NUDGE_GAIN


def by_score(pair: tuple[float, object]) -> float:
    """A (score, thing) pair's score: the key that ranks such pairs by score alone."""
    return pair[0]
