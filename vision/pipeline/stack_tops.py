"""The card on top of a stack where the rectangle chosen for it lies on another card of the stack."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.geometry import aligned, area, overlap_area, share, shrink, unit
from vision.pipeline.hidden import on_stack
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, parallel

if TYPE_CHECKING:
    from vision.pipeline.back_tester import BackTester

ByteImage = npt.NDArray[Any]
# A back matching the back as a whole card this well is placed right on a card showing whole.
_PLACED: Final = 0.8
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
    nothing hidden, then ``fit_whole``) matches best where it lies. Looked for only around a
    chosen back that does not match the back whole (0.8) with some of the blob beside it that no
    chosen card explains (4 % of a card), and not when the slide's best place is the chosen
    rectangle itself (a card's size, within 0.04 of a card's width). Taken when it matches the back
    as a whole card (0.6) and 0.05 better than the chosen rectangle, lies wholly on the blob and
    only on backs lying parallel. The chosen rectangle stays as the card under it when what the
    new top leaves of it lies on the stack (not on felt) and, nearer the top than 0.15 of a card's
    width, is a strip of the back in place (0.6, the strip bar); else (between the two cards, or
    the top itself a few pixels off) the top takes its place, and the lower card's strip is left
    for the stack's later steps (``hidden.hidden_backs``). A chosen rectangle of one card's shape
    (the plane card's, evenly scaled: ``_card_shaped``) is a card and is never moved: nearer the fit
    than 0.08 of a card's width the fit is that card placed a pixel or two better (a card in a
    barrelled corner shows larger than the plane card), and it is left alone; farther, the top is
    only ever added beside it. Run after the stack's other steps (``backs.stack_backs``).
    """
    blank = tester.blank(image)
    whole_of = tester.whole_likeness(image)

    added: list[Hypothesis] = []
    for low in [o for o in chosen if o.code == BACK and not o.whole and not o.hidden]:
        around = shrink(low.corners, 1.0 + 2.0 * _REACH)
        if share(solid, around, exclude=covered) * area(around) < 0.04 * card_w * card_h:
            continue  # no card's part beside it that no chosen card explains: no card on it unseen
        if whole_of(low) >= _PLACED:
            continue  # placed right on a card showing whole: nothing lies on it
        # A card's size: an outline drawn round two cards a few mm apart may be a rectangle of neither's.
        card = _card_sized(low.corners, card_w=card_w, card_h=card_h)
        scores, quads = tester.slide(card, image, blank, reach=_REACH * card_w, turns=_TURNS)
        if not len(scores) or float(scores.max()) < _MATCH:
            continue  # (true tops score 0.8 or more at that size)
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
        gap = float(np.hypot(*(top.center - low.center)))
        sized = _card_shaped(low.corners, card)
        if sized and gap < _SAME * card_w:
            continue  # a card's rectangle a pixel or two off the fit: the same card, left where it was chosen
        over = [o for o in chosen if o is not low and overlap_area(top.corners, o.corners) > 1.0]
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
            and not _still_lower(o, top=top, chosen=chosen, solid=solid, tester=tester, image=image, card_w=card_w)
            for o in over
        ):
            continue  # a chosen card a few pixels off it: its own border shows beside it, no strip of another
        top.code, top.confidence, top.back, top.back_score = BACK, 0.5 + 0.5 * score, True, score
        top.whole = True  # it lies on top: the cards under it do not hide it
        if gap >= _SAME * card_w and _still_lower(
            low, top=top, chosen=chosen, solid=solid, tester=tester, image=image, card_w=card_w
        ):
            chosen.append(top)
            added.append(top)
            cv2.fillConvexPoly(covered, np.round(top.corners).astype(np.int32), 255)
            continue
        if sized:
            continue  # a card's rectangle is a card: the top is only ever added beside it, never put in its place
        k = next(i for i, o in enumerate(chosen) if o is low)
        chosen[k] = top
        cv2.fillConvexPoly(covered, np.round(low.corners).astype(np.int32), 0)
        for o in chosen:
            cv2.fillConvexPoly(covered, np.round(o.corners).astype(np.int32), 255)
    return added


def _card_sized(quad: npt.NDArray[np.float64], *, card_w: float, card_h: float) -> npt.NDArray[np.float64]:
    """The plane card's rectangle with ``quad``'s centre and directions (corners in its order)."""
    a, b = unit(quad[1] - quad[0]), unit(quad[3] - quad[0])
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * 0.5
    return np.asarray(quad.mean(axis=0) + half[:, :1] * card_w * a + half[:, 1:] * card_h * b, np.float64)


def _card_size(quad: npt.NDArray[np.float64], card: npt.NDArray[np.float64]) -> bool:
    """Whether ``quad``'s sides are within 3 % of ``card``'s (the plane card's)."""
    return bool(
        np.all(
            np.abs(np.hypot(*(np.roll(quad, -1, 0) - quad).T) / np.hypot(*(np.roll(card, -1, 0) - card).T) - 1) <= 0.03
        )
    )


def _card_shaped(quad: npt.NDArray[np.float64], card: npt.NDArray[np.float64]) -> bool:
    """Whether ``quad`` is ``card`` (the plane card) scaled evenly, within 3 %, by at most a tenth
    (a card in a barrelled corner shows up to a tenth larger): one card's rectangle, not one drawn
    round two cards a few mm apart (longer along their offset only)."""
    ratio = np.hypot(*(np.roll(quad, -1, 0) - quad).T) / np.hypot(*(np.roll(card, -1, 0) - card).T)
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
) -> bool:
    """Whether ``low`` is a card under ``top``: what ``top`` and the other chosen cards leave of it
    lies on the stack and is a strip of the back in place."""
    hiding = np.zeros(solid.shape[:2], np.uint8)
    for o in (*chosen, top):
        if o is not low:
            cv2.fillConvexPoly(hiding, np.round(o.corners).astype(np.int32), 255)
    if not on_stack(low.corners, solid=solid, hiding=hiding, least=0.04 * area(low.corners)):
        return False
    # Nearer the top than a stack's cards lie apart, what shows of it may be the top card's own
    # border (the top found a few pixels off the rectangle chosen for it): only the back in place.
    far = float(np.hypot(*(low.center - top.center))) >= _APART * card_w
    return far or tester.strip_likeness(low, image, hiding) >= _MATCH
