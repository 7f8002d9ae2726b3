"""Explaining one blob: which card hypotheses are the cards there, read, counted or refused."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.back_tester import BackTester
from vision.pipeline.backs import card_shaped, squared, stack_backs
from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.fan_middles import fan_cards_between
from vision.pipeline.fan_scan import FanScanner
from vision.pipeline.fans import FanReader
from vision.pipeline.geometry import area, quad_shares, share, side_lengths
from vision.pipeline.holed_backs import holed_backs
from vision.pipeline.hypotheses import BACK, Hypothesis, across, parallel, propose, same_card
from vision.pipeline.lone_card import LoneCardReader
from vision.pipeline.masks import Masks
from vision.pipeline.outline import CARD_ASPECT, Blob
from vision.pipeline.outline_reads import read_on_outline, top_of_fan
from vision.pipeline.overlaps import drop_crossed_backs, drop_twice_counted, under_backs, unread_twins
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.unread_backs import unread_backs

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# A fan-scan card whose index corner is this near (card widths) a corner of a face read across
# it is no card (see _cornered_across): dondorf table 14029's phantom Tc, 0.6 px (0.01 w) off.
CORNER_NEAR: Final = 0.1
# A rectangle turned from the cards read beside it (centres under 0.25 w apart) is another card of
# a tight fan when both its index corners lie this far (card widths) from every corner of theirs:
# nicu-white table 3010's 8c, 12.2 px (0.21 w) from the 5c's; one card's rectangles drawn from
# its corners put its index corners within a few pixels of its own.
FANNED_APART: Final = 0.15
# A card all four of whose corners are the outline's, in a blob that holds this share of a card
# besides it, is read as a card lying alone (see Explainer._bare): a 39 mm chip is 0.22 of a
# card, two pushed against it 0.43; the blob of a card and a chip in standard table 13005 leaves
# 0.27 beside its Qh.
BARE_REST: Final = 0.5
# A lone blob whose least rectangle is a card's size within this share each side (a calibrated
# plane's card is its size within a few per cent: dondorf 3010's 9h 0.5 % and 0.4 % off) and which
# fills that rectangle to this share (a card's rounded corners and ragged edge: 0.92) is that card.
BOX_SIZE: Final = 0.05
BOX_FILL: Final = 0.88
# The most two neighbouring cards of a fan turn from one another (a rectangle drawn from one outline
# corner may lie this far round from another drawn from it).
_FAN_SPREAD_COS: Final = math.cos(math.radians(20.0))


@dataclass
class Explainer:
    """Turns each blob of the plane into the cards that explain it (stage 4 of the pipeline)."""

    settings: RecognizerSettings
    corners: CornerReader
    lone: LoneCardReader
    fans: FanReader
    fan_scan: FanScanner
    backs: BackTester

    def explain(
        self, *, image: ByteImage, plane: Plane, blob: Blob, card_h: float, masks: Masks, covered: ByteImage
    ) -> list[Hypothesis]:
        """The cards of one blob (plane pixels); ``covered`` gets every chosen card drawn in."""
        contour, corners = blob.contour, blob.corners
        fg, paper, ink = masks.fg, masks.paper, masks.ink
        card_w = card_h / CARD_ASPECT
        # A blob no bigger than one card holds that card alone: its whole face is visible.
        alone = cv2.contourArea(contour) < 1.2 * card_w * card_h
        self.fans.outline = contour  # (a card named by one index looks at its far index only near it)
        if alone and blob.rounded is not None:
            # One card's outline: its rounded corners are where its sides meet (see outline_corners).
            corners = blob.rounded
        hyps = propose(corners, card_w=card_w, card_h=card_h, alone=alone)
        if hyps:
            fills = quad_shares(fg, np.stack([hyp.corners for hyp in hyps]))
            for hyp, fill in zip(hyps, fills, strict=True):
                hyp.fill = fill
        if alone and not any(hyp.fill >= self.settings.min_fill for hyp in hyps):
            boxed = boxed_card(contour, card_w=card_w, card_h=card_h)
            if boxed is not None:
                boxed.fill = float(quad_shares(fg, boxed.corners[None])[0])
                hyps.append(boxed)
        holed = [hyp for hyp in hyps if hyp.fill < self.settings.min_fill]
        hyps = [hyp for hyp in hyps if hyp.fill >= self.settings.min_fill]
        pierced: list[Hypothesis] = []
        if holed and masks.solid is not None:
            # A card whose picture has the felt's hue is holed where it has (red ink on red
            # cloth, a warm lamp making a court card's red felt-like): it is kept when it is solid
            # card with its holes filled, and it is the back or a face whose index reads (an
            # unread one is dropped below: holes alone never make a card).
            solid = quad_shares(masks.solid, np.stack([hyp.corners for hyp in holed]))
            for hyp, fill in zip(holed, solid, strict=True):
                if fill >= self.settings.min_fill:
                    hyp.fill = fill
                    hyps.append(hyp)
                    if not self.backs.is_back(hyp, plane.image, masks):
                        pierced.append(hyp)
        if holed and self.backs.like_cloth(masks.felt_hue):
            fg = holed_backs(holed, hyps, image=plane.image, fg=fg, card_w=card_w, tester=self.backs)
            if fg is not masks.fg:  # backs of the cloth's colour found: they are card from here on
                masks = replace(masks, fg=fg, solid=None if masks.solid is None else cv2.bitwise_or(masks.solid, fg))
        # Drawn from a corner whose short edge is a rounded corner's few pixels, tens of degrees off,
        # a rectangle sticks out of its card: holed as drawn, it is kept square to the corner's
        # long edge (see skew_squared) when that fills, to be read there (dondorf table 13015's
        # Kd, 0.83 as drawn: the bottom card of a fan slid along its short sides).
        skewed = [] if alone else _squared_fills(holed, hyps, fg, min_fill=self.settings.min_fill)
        hyps.extend(skewed)
        square_ids = {id(hyp) for hyp in skewed}
        # Best-supported first; a hypothesis beside a card already read is the same card seen
        # from another corner, so it is not read again (reads are most of the frame's cost).
        # Not a fan's top card, turned from it by a fan's few tens of degrees (see top_of_fan:
        # hershey's table 13002, the 5d 16 degrees round from the 2s read below it, their
        # centres 0.24 w apart), nor a card of a tight fan, so turned, whose index corners lie
        # apart from the read cards' corners (see _fanned_apart).
        hyps.sort(key=lambda hh: (hh.support, hh.fill), reverse=True)
        read_here = partial(
            read_on_outline, image, corners=self.corners, fans=self.fans, plane=plane, blob=blob, ink=ink, card_w=card_w
        )
        read: list[Hypothesis] = []
        for hyp in hyps:
            beside = [o for o in read if float(np.hypot(*(hyp.center - o.center))) < 0.25 * card_w]
            fanned = False
            if beside and (
                alone
                or any(parallel(o.corners, hyp.corners) or across(o.corners, hyp.corners) for o in beside)
                or (
                    (hyp.anchors != 1 or top_of_fan(blob, hyp, card_w=card_w) is None)
                    and not (fanned := _fanned_apart(hyp, beside, card_w))
                )
            ):
                continue
            if self.backs.is_back(hyp, plane.image, masks) and not self.backs.against(hyp, plane.image):
                # A back: nothing to read, the selection below counts it. (A face with a chip of
                # the back's colour on it has the back's make-up, not its picture in place.)
                continue
            if alone:
                hyp.code, hyp.confidence = self.lone.read_alone(image, plane.to_frame(hyp.corners))
                if hyp.code == UNKNOWN and hyp.back:
                    # The back's colours, not its picture in place: a printed index makes it a face.
                    hyp.seen = self.lone.printed_index(image, plane.to_frame(hyp.corners))
            else:
                read_here(hyp=hyp, square=id(hyp) in square_ids)
                if hyp.code == UNKNOWN and self._bare(hyp, contour=contour, card_area=card_w * card_h):
                    self._read_bare(hyp, image=image, plane=plane)
                if hyp.code == UNKNOWN and not hyp.seen and hyp.squared is not None:
                    # Drawn along a few pixels of an edge (a rounded corner, a fan's card side
                    # cut short by the next card) and unread: the same card square to the side
                    # the outline confirms is its likelier geometry, kept when it reads.
                    drawn, examined = hyp.corners, hyp.examined
                    hyp.corners, hyp.center, hyp.examined = hyp.squared, hyp.squared.mean(axis=0), ()
                    read_here(hyp=hyp, square=True)
                    if hyp.code == UNKNOWN:
                        # (Nor is it a card seen unread there: as drawn, it was not.)
                        self.fans.forget(hyp)
                        hyp.corners, hyp.center, hyp.examined = drawn, drawn.mean(axis=0), examined
                        hyp.seen, hyp.confidence, hyp.whole = False, 0.0, False
                if fanned and hyp.code == UNKNOWN:
                    # Read only for a name: an index merely seen there blocks the fan scan's start,
                    # which places the card a pixel or two better (kennard table 509's 9s: 0.14
                    # seen here, 0.54 read by the scan).
                    self.fans.forget(hyp)
                    hyp.seen, hyp.confidence, hyp.whole, hyp.examined = False, 0.0, False, ()
            if hyp.code != UNKNOWN:
                read.append(hyp)
        if pierced:
            unread = {id(hyp) for hyp in pierced if hyp.code == UNKNOWN and not hyp.seen}
            hyps = [hyp for hyp in hyps if id(hyp) not in unread]
        # A squared rectangle is kept only when it names a card, perhaps once the blob is read (its
        # two corners showing two cards, one under a card read as what it showed: see settle). It
        # is no card to the fan scan, which looks where its hypotheses do not.
        pending = [hyp for hyp in skewed if hyp.code == UNKNOWN]
        for hyp in pending:
            if not hyp.seen:
                self.fans.forget(hyp)
        hyps = [hyp for hyp in hyps if not (id(hyp) in square_ids and hyp.code == UNKNOWN)]
        # Fans: cards whose index corner is in view but not on the outline, found along its edges.
        scanned: set[int] = set()
        if not alone:
            found = self.fan_scan.scan_blob(image, plane, contour=contour, hyps=hyps, card_w=card_w, card_h=card_h)
            # Cards of a fan the edges did not lead to, between or beyond two of its cards read.
            found += fan_cards_between(
                image, plane, hyps=[*hyps, *found], reader=self.fans, contour=contour, card_w=card_w, card_h=card_h
            )
            scanned = {id(hyp) for hyp in found}
            hyps.extend(found)
            self.fans.settle([*hyps, *pending], card_w=card_w)
            hyps.extend(hyp for hyp in pending if hyp.code != UNKNOWN)
        # Confident reads first, then cards whose index was seen, then the hypotheses most corners
        # agree on.
        hyps.sort(
            key=lambda hh: (
                hh.code != UNKNOWN,
                hh.confidence if hh.code != UNKNOWN else 0,
                hh.seen,
                hh.anchors,
                hh.support,
                hh.fill,
            ),
            reverse=True,
        )
        chosen: list[Hypothesis] = []
        stacked: list[Hypothesis] = []  # left over beside chosen cards: backs under backs, perhaps
        card_area = card_w * card_h
        for hyp in hyps:
            if hyp.code != UNKNOWN:
                # A read card is new unless it is one already taken: the same place, or the same
                # index corner reached from another outline corner. Area does not matter: a
                # card in the middle of a fan is all but hidden under its neighbours.
                if any(same_card(hyp, o, 0.2 * card_w) for o in chosen):
                    continue
                if id(hyp) in scanned and any(_cornered_across(hyp, o, card_w) for o in chosen):
                    continue
                chosen.append(hyp)
                cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
                continue
            if hyp.seen:
                # An index in view but too unsure to name: a card is there, however little of it
                # shows (the middle of a fan), so it is an unknown card, not judged by its area.
                # Not one lying across a card read at the same place, as no fan's card lies: that
                # is the read card's long side taken for a short one, its index "seen" on its face.
                # Nor one drawn from a read card's own index corner: that card's index seen again,
                # less surely from a rectangle turned a little (kennard table 11016's Kc, read from
                # a rectangle 15 degrees round from this one, which its twin check refused).
                if not any(
                    same_card(hyp, o, 0.2 * card_w) or _across_read(hyp, o, card_w) or _same_index_corner(hyp, o)
                    for o in chosen
                ):
                    chosen.append(hyp)
                    cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
                continue
            # (A face read lying turned from this one by a fan's few tens of degrees is another
            # card, not this one again: the cards of a fan turned about a corner have their
            # centres close together. One lying across it is no fan's: it is this rectangle drawn
            # the wrong way round about one of that card's corners.)
            near = [
                o
                for o in chosen
                if float(np.hypot(*(hyp.center - o.center))) < 0.3 * card_w
                and (o.code == BACK or parallel(o.corners, hyp.corners) or across(o.corners, hyp.corners))
            ]
            new = share(fg, hyp.corners, exclude=covered) * area(hyp.corners)
            if near or new < 0.25 * card_area:
                # Close to a chosen card, or mostly under chosen ones: perhaps a back under backs,
                # which the stack's own extent decides once every card on top is chosen.
                stacked.append(hyp)
                continue
            # A card partly under chosen ones is judged by what of it shows.
            overlaps = new < 0.9 * area(hyp.corners)
            if self.backs.is_back(hyp, plane.image, masks) or (
                overlaps and self.backs.visible_back(hyp, plane.image, masks, covered)
            ):
                if not card_shaped(hyp.corners, card_w=card_w, card_h=card_h):
                    # Snapped to corners of two cards of a stack: squared up when it is nearly a
                    # card's rectangle, else perhaps a back under others (the stack decides).
                    square = squared(hyp.corners, card_w=card_w, card_h=card_h)
                    if square is None:
                        stacked.append(hyp)
                        continue
                    hyp.corners, hyp.center = square, square.mean(axis=0)
                hyp.code, hyp.confidence = BACK, 0.5 + 0.5 * hyp.back_score
            elif share(paper, hyp.corners) < self.settings.paper_share:
                continue  # neither a face nor a back
            chosen.append(hyp)
            cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
        unread_twins(chosen)
        unread_backs(
            chosen,
            covered=covered,
            frame=image,
            plane=plane,
            masks=masks,
            lone=self.lone,
            tester=self.backs,
            card_w=card_w,
            card_h=card_h,
        )
        # Unread and lying square with backs: the stack's card to count, never a face.
        squared_on = [
            h for h in chosen if h.code == UNKNOWN and not h.seen and under_backs(h, chosen, card_area=card_area)
        ]
        stacked.extend(squared_on)
        # A rectangle drawn across the stack is no card.
        gone = {id(hyp) for hyp in [*squared_on, *drop_crossed_backs(chosen, hyps, card_area=card_area)]}
        if gone:
            # What they covered is the stack's to explain again.
            for hyp in chosen:
                if id(hyp) in gone:
                    cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 0)
            chosen = [hyp for hyp in chosen if id(hyp) not in gone]
            for hyp in chosen:
                cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
        stack_backs(
            stacked,
            chosen=chosen,
            covered=covered,
            image=plane.image,
            masks=masks,
            contour=contour,
            tester=self.backs,
            card_w=card_w,
            card_h=card_h,
        )
        twice = drop_twice_counted(chosen, fg if masks.solid is None else masks.solid, card_area=card_area)
        if twice:
            gone = {id(hyp) for hyp in twice}
            chosen = [hyp for hyp in chosen if id(hyp) not in gone]
        return chosen

    @staticmethod
    def _bare(hyp: Hypothesis, *, contour: ByteImage, card_area: float) -> bool:
        """Whether ``hyp``, in a blob of more than one card's area, is a card wholly in view with
        nothing but a little beside it: all four of its corners are the outline's (no card lies
        over one) and what of the blob it leaves is less than BARE_REST of a card (a chip or two
        pushed against it, no other card's face).
        """
        if hyp.anchors != 4:
            return False
        rest = cv2.contourArea(contour) - hyp.fill * area(hyp.corners)
        return rest < BARE_REST * card_area

    def _read_bare(self, hyp: Hypothesis, *, image: ByteImage, plane: Plane) -> None:
        """Read a card wholly in view beside a chip (see ``_bare``) as a card lying alone, when the
        reading among others left it unknown: both index corners and its whole face are its own,
        so the lone reader's rules hold (an index a few hundredths short of a fan's one-index bar
        confirmed by the face: standard table 13005's Qh, 0.73 eased, face 0.93, a chip against
        it). Unread so, it stays as the reading among others left it."""
        code, conf = self.lone.read_alone(image, plane.to_frame(hyp.corners))
        if code == UNKNOWN:
            return
        self.fans.forget(hyp)
        hyp.code, hyp.confidence, hyp.seen, hyp.whole, hyp.examined = code, conf, False, True, (0, 2)


def boxed_card(contour: ByteImage, *, card_w: float, card_h: float) -> Hypothesis | None:
    """The card a lone blob is when its outline's corners proposed none that fills: the blob's
    least rectangle, when that is a card's size (each side within ``BOX_SIZE`` of a card's) and
    the blob fills it (``BOX_FILL``). A dim card's paper blurred into the cloth leaves a ragged
    outline whose corners' short edges point tens of degrees off (dondorf table 3010's 9h: its
    best rectangle filled 0.85), while its least rectangle is the card's, 59 x 82 for 58.7 x 82.
    """
    (cx, cy), (a, b), angle = cv2.minAreaRect(contour)
    short, long = min(a, b), max(a, b)
    if abs(short / card_w - 1.0) > BOX_SIZE or abs(long / card_h - 1.0) > BOX_SIZE:
        return None
    if cv2.contourArea(contour) < BOX_FILL * a * b:
        return None
    box = np.asarray(cv2.boxPoints(((cx, cy), (a, b), angle)), np.float64)
    # Clockwise as the plane shows it (y down), starting where the next corner is a short side away.
    order = np.argsort(np.arctan2(box[:, 1] - cy, box[:, 0] - cx))
    box = box[order]
    first, second = side_lengths(box)[:2]
    if first > second:
        box = np.roll(box, -1, axis=0)
    return Hypothesis(corners=box)


def _cornered_across(hyp: Hypothesis, read: Hypothesis, card_w: float) -> bool:
    """Whether the fan-scan card ``hyp`` has its index corner on a corner of the face ``read``
    and lies across it: a rectangle placed along the fan's edge where it turns at a card's
    corner, no card (dondorf table 14029: a "Tc" 0.53 at the 5c's corner, turned 90 degrees
    across the fan; a fan's cards lie a few tens of degrees apart at most, see ``across``)."""
    return _across_face(hyp, read) and float(np.hypot(*(read.corners - hyp.corners[0]).T).min()) < CORNER_NEAR * card_w


def _same_index_corner(hyp: Hypothesis, read: Hypothesis) -> bool:
    """Whether ``hyp`` was drawn from the outline corner that is ``read``'s index corner (the same
    point to a tenth of a pixel: an outline corner proposes several rectangles), both turned alike
    within a fan's spread (20 degrees)."""
    if read.code in (UNKNOWN, BACK):
        return False
    gaps = np.hypot(*(hyp.corners[[0, 2]][:, None, :] - read.corners[[0, 2]][None, :, :]).reshape(-1, 2).T)
    return bool(gaps.min() < 0.1) and parallel(hyp.corners, read.corners, within=_FAN_SPREAD_COS)


def _across_read(hyp: Hypothesis, read: Hypothesis, card_w: float) -> bool:
    """Whether ``hyp`` lies across the face ``read`` (turned more than 60 degrees) at the same place."""
    return float(np.hypot(*(hyp.center - read.center))) < 0.3 * card_w and _across_face(hyp, read)


def _across_face(hyp: Hypothesis, read: Hypothesis) -> bool:
    """Whether ``read`` is a face read (not unknown, not a back) and ``hyp`` lies across it (over 60 degrees)."""
    return read.code not in (UNKNOWN, BACK) and across(read.corners, hyp.corners)


def _fanned_apart(hyp: Hypothesis, beside: list[Hypothesis], card_w: float) -> bool:
    """Whether both index corners of ``hyp`` lie FANNED_APART from every corner of the cards read
    ``beside`` it: not one of them drawn again, so another card of the fan, to read."""
    ends = hyp.corners[[0, 2]]
    return all(
        float(np.hypot(*(o.corners[:, None, :] - ends[None, :, :]).transpose(2, 0, 1)).min()) >= FANNED_APART * card_w
        for o in beside
    )


def _squared_fills(
    holed: list[Hypothesis], hyps: list[Hypothesis], fg: ByteImage, *, min_fill: float
) -> list[Hypothesis]:
    """The holed hypotheses (not already kept in ``hyps``) whose rectangle square to the side or
    long edge the outline confirms (``squared``) fills ``fg`` at least ``min_fill``: redrawn so."""
    kept = {id(hyp) for hyp in hyps}
    rest = [hyp for hyp in holed if hyp.squared is not None and id(hyp) not in kept]
    if not rest:
        return []
    squares = np.stack([hyp.squared for hyp in rest if hyp.squared is not None])
    out: list[Hypothesis] = []
    for hyp, square, fill in zip(rest, squares, quad_shares(fg, squares), strict=True):
        if fill >= min_fill:
            hyp.corners, hyp.center, hyp.squared, hyp.fill = square, square.mean(axis=0), None, fill
            out.append(hyp)
    return out
