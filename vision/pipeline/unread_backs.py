"""Unread rectangles with the back's colours where no face's lie: backs drawn as one card, counted as backs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN
from vision.pipeline.geometry import aligned, share
from vision.pipeline.hypotheses import BACK, Hypothesis
from vision.pipeline.overlaps import under_backs
from vision.pipeline.stack_tops import card_along

if TYPE_CHECKING:
    from vision.pipeline.back_tester import BackTester
    from vision.pipeline.lone_card import LoneCardReader
    from vision.pipeline.masks import Masks
    from vision.pipeline.plane import Plane

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# The least back likeness (``Hypothesis.back_score``: 1 - d / (2 limit), d the distance of its
# colours to the nearest look of the back) of an unread rectangle counted as backs: 0.5 is the
# back's own limit. A rectangle drawn over two or three backs a few millimetres apart frames
# their borders and the step between them, more paper-white than a back shows, and its colours
# lie nearer some face's look than the back's (the judge's second test), yet within the back's
# limit (0.60-0.65 on dev tables 3010, 503, 10013, 10014 over dondorf and standard); no face-up
# card of the dev tables (1, 500-511, 1000-1005, 3000-3019 on dondorf, standard and nicu-white,
# read or not, under glare, blur, chips) came within it: 0.44 at most (standard's court cards).
_WITHIN_LIMIT: Final = 0.5
# What shows there must be the back's picture too, somewhere near the rectangle (slid over it up
# to a third of a card's width at a card's size, then fitted, ``_fitted``): the stacks taken for a
# face on the dev tables match it 0.32-0.43 so (a fine pattern blurred, a dim lamp and glare keep
# it low). Faces fit it as poorly or a little better (0.06-0.40): the colours tell them apart,
# the picture keeps out a face whose colours a plain chip of the back's colour brings near the
# back's (such a chip is no picture in place: under 0.15, ``BackTester.against``).
_PICTURE: Final = 0.3
# How far (card widths) the back is slid over the rectangle for its picture: two backs dealt on
# one another lie 6-25 mm apart (0.1-0.4 of a card's width), the rectangle on either or between.
_REACH: Final = 0.3
_TURNS: Final = (-2.0, 0.0, 2.0)
# The rectangle is moved to where the back matches best when that matches this much better: the
# card on top, where the outline's rectangle lay between it and the card under it.
_MOVED_BETTER: Final = 0.05
# The back matching best nearer a chosen card than this (card widths, centre to centre) is that
# card (a stack's cards lie 0.1-0.4 of a card's width apart).
_SAME: Final = 0.08


def unread_backs(
    chosen: list[Hypothesis],
    *,
    covered: ByteImage,
    frame: ByteImage,
    plane: Plane,
    masks: Masks,
    lone: LoneCardReader,
    tester: BackTester,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """The unread cards of ``chosen`` that are backs after all, each made a back in place (put
    where the back matches best, ``covered`` drawn again); the ones made backs.

    An unread card with no index seen is kept as an unknown face when its rectangle has paper
    enough; a stack of backs dealt a few millimetres apart whose outline proposes no card's own
    rectangle is kept so too, and the dealer is shown a face-up card where there are backs. It
    is a back when its colours lie within the back's own limit (``_WITHIN_LIMIT``: no face's do),
    the back's picture shows there (``_PICTURE``) and neither index corner reads a card
    (``LoneCardReader.printed_index``: a printed index is a face, whatever its colours). The card
    on top of the stack is then where the back matches best; the stack's later steps count the
    cards under it.
    """
    image = plane.image
    solid = masks.fg if masks.solid is None else masks.solid
    made: list[Hypothesis] = []
    blank = tester.blank(image)
    for hyp in chosen:
        if hyp.code != UNKNOWN or hyp.seen or hyp.back is not False or hyp.back_score < _WITHIN_LIMIT:
            continue
        if under_backs(hyp, chosen, card_area=card_w * card_h):
            continue  # lying square on chosen backs: the stack's steps count it already
        # At the plane card's size and at the size the lens shows a card there (larger off the
        # frame's centre): the back fitted at either may match it best.
        fits = [
            _fitted(hyp, tester=tester, image=image, card_w=card_w * grown, card_h=card_h * grown)
            for grown in dict.fromkeys((1.0, _lens_growth(plane, hyp.center)))
        ]
        score, fitted = max(fits, key=lambda fit: fit[0])
        drawn = tester.strip_likeness(hyp, image, blank)
        if max(score, drawn) < _PICTURE:
            continue
        centre = fitted.mean(axis=0)
        if any(o is not hyp and float(np.hypot(*(centre - o.center))) < _SAME * card_w for o in chosen):
            continue  # the picture found is a card chosen already: nothing of this one's own
        if lone.printed_index(frame, plane.to_frame(hyp.corners)):
            continue
        if score >= drawn + _MOVED_BETTER and share(solid, fitted) >= 0.95:
            cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 0)
            hyp.corners, hyp.center = fitted, fitted.mean(axis=0)
        hyp.code, hyp.back = BACK, True
        hyp.confidence = 0.5 + 0.5 * hyp.back_score
        made.append(hyp)
    if made:
        for o in chosen:
            cv2.fillConvexPoly(covered, np.round(o.corners).astype(np.int32), 255)
    return made


def _fitted(
    hyp: Hypothesis, *, tester: BackTester, image: ByteImage, card_w: float, card_h: float
) -> tuple[float, Vec]:
    """Where the back, slid over ``hyp``'s place at a card's size and fitted, matches best as a
    whole card, and how well (-1: nowhere)."""
    card = card_along(hyp.corners, hyp.corners.mean(axis=0), card_w=card_w, card_h=card_h)
    scores, quads = tester.slide(card, image, tester.blank(image), reach=_REACH * card_w, turns=_TURNS)
    if not len(scores):
        return -1.0, hyp.corners
    start = Hypothesis(corners=aligned(quads[int(np.argmax(scores))], card))
    fitted = tester.fit_whole(start, image, reach=0.08 * card_w)
    return tester.strip_likeness(Hypothesis(corners=fitted), image, tester.blank(image)), fitted


def _lens_growth(plane: Plane, at: Vec) -> float:
    """How much larger than the plane's card a card shows at plane point ``at`` (1 without a lens)."""
    here = plane.card_height_at(at)
    if here is None or plane.card_height is None:
        return 1.0
    return here / plane.card_height
