"""Face-down cards: telling a back from a face by the registered deck's own back signature."""

from __future__ import annotations

import math
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.back_signature import PATCH_H, PATCH_W, BackSignature, features
from vision.pipeline.geometry import aligned, area, on_outline, overlap_area, share, unit
from vision.pipeline.hidden import hidden_backs
from vision.pipeline.hypotheses import BACK, STACK_COS, Hypothesis, parallel
from vision.pipeline.masks import Masks
from vision.pipeline.stack_tops import shifted_tops
from vision.pipeline.strips import slide_strip

ByteImage = npt.NDArray[Any]
_PATCH_CORNERS: Final = np.array([[0, 0], [PATCH_W, 0], [PATCH_W, PATCH_H], [0, PATCH_H]], np.float32)
# A strip of a back under others is compared with the registered back itself, place by place, at
# this size (about two thirds of the detection plane's card): its border lines and the edge of
# its picture lie where the back's do when the rectangle is the card's.
_STRIP_W: Final = 40
_STRIP_H: Final = 56
# What shows of a rectangle whose colours are the back's must not match the back in place worse
# than this: a face's paper with a chip of the back's colour on it does not (-0.2 on a generated
# fan), a strip of a back under a face or a chip does (0.4 and more).
_NOT_AGAINST: Final = 0.15
# A correlation this high with the back in place is a strip of the back (faces' strips and
# misplaced rectangles stay under 0.35 on the generated tables; true strips are mostly above 0.8).
_STRIP_MATCH: Final = 0.6
# A back with this share of its pixels within this many hue steps of the cloth's (the felt
# test's band) is holed on that cloth where it has them.
_LIKE_CLOTH: Final = 0.1
_HUE_BAND: Final = 14
# A card on top must match the back as a whole card this much better than a chosen rectangle it
# replaces (one a few pixels off, or between it and the card under it).
_TOP_BETTER: Final = 0.05
# The backs a card on top lies on must still match their strips in place this well (a glare
# spot or a rectangle a pixel or two off takes a true strip down to about 0.5).
_STILL: Final = 0.4
# A rectangle on a stack matching the back as a whole card this well may be the card on top a
# few pixels off: it is fitted to the back (true tops drawn 3 px off score about 0.35).
_TOP_HOPE: Final = 0.25
# A back matching this well as a whole card shows whole: nothing lies on it.
_TOP_FITS: Final = 0.8
# Turns (degrees) tried when a card showing whole is fitted to the back (``fit_whole``).
_FIT_TURNS: Final = (0.0, -1.5, 1.5, -3.0, 3.0)
# Room (template pixels) kept around the patch the turns are made in: a turn of 3.75 degrees
# moves the back's corners up to about 2.
_FIT_ROOM: Final = 3
_STRIP_CORNERS: Final = np.array([[0, 0], [_STRIP_W, 0], [_STRIP_W, _STRIP_H], [0, _STRIP_H]], np.float32)
_ONES: Final = np.ones(_STRIP_W * _STRIP_H, np.float64)
# The back's brightness is slid over a stack at this size (half the strip test's: a plane pixel
# and a half per step, where to look only).
_SLIDE_W: Final = 20
_SLIDE_H: Final = 28
# A back whose two ways up correlate this well at that size is slid one way only.
_SAME_WAYS: Final = 0.98


class BackTester:
    """Whether a card hypothesis shows the deck's back: its interior's colours and brightness make-up
    compared with the back's and the faces' looks learnt at registration, so any design's back
    (saturated, white-bordered, a muted picture) is judged against itself, not against constants.
    """

    def __init__(self, *, signature: BackSignature, back: ByteImage | None = None) -> None:
        self.signature = signature
        # The registered back at the strip test's size, both ways up (a back may be dealt either
        # way round), softened as the camera's blur and the plane's resampling soften it.
        self._templates: list[npt.NDArray[np.float32]] = []
        self._gray: list[npt.NDArray[np.float32]] = []
        self._coarse: list[npt.NDArray[np.float32]] = []
        if back is not None:
            sharp = cv2.resize(back, (_STRIP_W, _STRIP_H), interpolation=cv2.INTER_AREA).astype(np.float32)
            small = np.asarray(cv2.GaussianBlur(sharp, (0, 0), 0.7), np.float32)
            self._templates = [small, np.ascontiguousarray(small[::-1, ::-1])]
            # Its brightness alone, for sliding it over the picture (``fit_whole``).
            self._gray = [
                np.asarray(cv2.cvtColor(np.clip(t, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY), np.float32)
                for t in self._templates
            ]
            # Coarser, for sliding it over a stack (``slide``); once when it looks the same both ways up.
            self._coarse = [
                np.asarray(cv2.resize(g, (_SLIDE_W, _SLIDE_H), interpolation=cv2.INTER_AREA), np.float32)
                for g in self._gray
            ]
            if float(np.corrcoef(self._coarse[0].ravel(), self._coarse[1].ravel())[0, 1]) >= _SAME_WAYS:
                self._coarse = self._coarse[:1]
        self._clear: ByteImage | None = None
        # Share of the back's pixels of each hue (coloured ones): whether it may pass for felt.
        self._hues: npt.NDArray[np.float64] | None = None
        if back is not None:
            hsv = cv2.cvtColor(back, cv2.COLOR_BGR2HSV)
            hist = cv2.calcHist([hsv], [0], cv2.inRange(hsv[:, :, 1], 45, 255), [180], [0, 180]).reshape(-1)
            self._hues = hist.astype(np.float64) / float(back.shape[0] * back.shape[1])
        # Per strip pixel: both templates' three colours, then each one's sum of squares (what a
        # strip's sums are gathered from, ``strip_likeness``).
        self._moments = np.zeros((_STRIP_W * _STRIP_H, 8), np.float64)
        for j, tmpl in enumerate(self._templates):
            flat = tmpl.reshape(-1, 3).astype(np.float64)
            self._moments[:, 3 * j : 3 * j + 3] = flat
            self._moments[:, 6 + j] = (flat * flat).sum(axis=1)

    def like_cloth(self, felt_hue: int) -> bool:
        """Whether enough of the registered back has the cloth's hue (the felt test's band) for
        the back to be holed on it: only then may a holed rectangle be a back (``pattern_back``).
        """
        if self._hues is None:
            return False
        offset = (np.arange(180) - felt_hue + 90) % 180 - 90
        return float(self._hues[np.abs(offset) <= _HUE_BAND].sum()) >= _LIKE_CLOTH

    def is_back(self, hyp: Hypothesis, image: ByteImage, masks: Masks) -> bool:
        """Judged once per hypothesis (remembered on it, with how clearly in ``back_score``)."""
        if hyp.back is None:
            hyp.back, hyp.back_score = self._judge(hyp, image, masks.fg if masks.solid is None else masks.solid)
        return hyp.back

    def against(self, hyp: Hypothesis, image: ByteImage) -> bool:
        """Whether ``hyp`` seen whole contradicts the back in place (see ``visible_back``)."""
        likeness = self.strip_likeness(hyp, image, self.blank(image))
        return -1.0 < likeness < _NOT_AGAINST

    def pattern_back(self, hyp: Hypothesis, image: ByteImage, covered: ByteImage | None = None) -> bool:
        """Whether ``hyp`` is the back although much of it looks like felt: a back with the cloth's
        colour (a blue picture on blue felt, a red back under a warm lamp on red cloth) is holed in
        the not-felt mask, yet its interior has the back's colours, and its border lines and picture
        lie where the back's do. Both must hold: a patch of felt framed by cards may have a plain
        back's colours, never its pattern in place (a face's neither). With ``covered`` (backs on
        top of it), what shows is a strip, mostly border, judged by its pattern in place alone
        (as ``visible_back`` judges one). Remembered on ``hyp`` when it is the back.
        """
        if not self._templates:
            return False
        score = 0.0
        if covered is None:
            back, score = self._judge(hyp, image, None)
            if not back:
                return False
        likeness = self.strip_likeness(hyp, image, self.blank(image) if covered is None else covered)
        if likeness < _STRIP_MATCH:
            return False
        hyp.back, hyp.back_score = True, score if covered is None else likeness
        return True

    def blank(self, image: ByteImage) -> ByteImage:
        """An all-clear 'covered' mask of the plane's size (made once per size)."""
        if self._clear is None or self._clear.shape != image.shape[:2]:
            self._clear = np.zeros(image.shape[:2], np.uint8)
        return self._clear

    def visible_back(self, hyp: Hypothesis, image: ByteImage, masks: Masks, covered: ByteImage) -> bool:
        """Whether the part of ``hyp`` that no chosen card ``covers`` is the back: a back under
        another shows only a strip, and the card on top (its border across the middle) would
        make the whole quad look like neither. Not remembered: ``covered`` grows as cards are chosen.
        """
        visible = cv2.bitwise_and(masks.fg if masks.solid is None else masks.solid, cv2.bitwise_not(covered))
        back, score = self._judge(hyp, image, visible, least=0.08)
        likeness = self.strip_likeness(hyp, image, covered) if back else None
        if likeness is not None and -1.0 < likeness < _NOT_AGAINST:
            # Colours alone: a face's paper with a chip of the back's colour on it (a fan's
            # bottom card beside the card over it) has a pictured back's make-up, but not its
            # picture where the back has it. (Too little shown, or a plain back there: no say.)
            back = False
        elif not back:
            # A strip along the card's edge is mostly its border: its colours alone look like a
            # face's white paper as much as a back's, but its border lines lie where the back's do.
            likeness = self.strip_likeness(hyp, image, covered)
            back, score = likeness >= _STRIP_MATCH, likeness
        if back:
            hyp.back_score = score
        return back

    def strip_likeness(self, hyp: Hypothesis, image: ByteImage, covered: ByteImage) -> float:
        """How closely what no chosen card ``covers`` of ``hyp`` matches the registered back in the
        same place (a correlation, -1..1; -1 when too little shows or it shows no pattern).

        A strip of a lower card holds the back's edge: its border lines, the edge of its
        picture, where the back has them. Compared place by place (each colour's deviations from
        its mean, so the lamp's level and tint do not matter), a rectangle a few pixels off or
        drawn between two cards' corners shows felt or the card on top where the back has its
        border, and matches poorly.
        """
        if not self._templates:
            return -1.0
        h = cv2.getPerspectiveTransform(hyp.corners.astype(np.float32), _STRIP_CORNERS)
        hidden = cv2.warpPerspective(covered, h, (_STRIP_W, _STRIP_H), flags=cv2.INTER_NEAREST, borderValue=255)
        keep = np.zeros((_STRIP_H, _STRIP_W), bool)
        keep[1:-1, 1:-1] = hidden[1:-1, 1:-1] == 0  # the outermost pixels may be felt when a pixel off
        n = int(np.count_nonzero(keep))
        if n < 0.04 * _STRIP_W * _STRIP_H:
            return -1.0  # (before the picture is warped: nothing of it would be looked at)
        patch = cv2.warpPerspective(image, h, (_STRIP_W, _STRIP_H), flags=cv2.INTER_AREA)
        # Correlated colour by colour, each less its mean over the kept pixels, from sums over them
        # (float64: the strip's are of whole numbers, exact; the templates' one pass is exact enough).
        at = np.flatnonzero(keep)
        seen = np.take(patch.reshape(-1, patch.shape[2]), at, axis=0).astype(np.float64)
        tmpl = np.take(self._moments, at, axis=0)
        # Each strip colour's sum and its products with every template column, and those columns' sums.
        (p0, p1, p2), by_colour = (_ONES[:n] @ seen).tolist(), (seen.T @ tmpl).tolist()
        sums = (_ONES[:n] @ tmpl).tolist()
        energy = float(np.vdot(seen, seen)) - (p0 * p0 + p1 * p1 + p2 * p2) / n
        best = -1.0
        for j in range(len(self._templates)):
            t0, t1, t2 = sums[3 * j : 3 * j + 3]
            spread = sums[6 + j] - (t0 * t0 + t1 * t1 + t2 * t2) / n
            if spread < n * 3 * 12.0**2:
                continue  # the back is plain there: nothing to match
            cross = sum(by_colour[c][3 * j + c] for c in range(3)) - (p0 * t0 + p1 * t1 + p2 * t2) / n
            best = max(best, cross / max(math.sqrt(max(energy, 0.0) * spread), 1e-6))
        return best

    def slide(
        self,
        corners: npt.NDArray[np.float64],
        image: ByteImage,
        covered: ByteImage,
        *,
        reach: float,
        turns: tuple[float, ...],
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """How well what ``covered`` does not hide matches the back's brightness at every shift of
        ``corners`` up to ``reach`` plane pixels, turned by each of ``turns`` degrees (a coarse
        correlation: where a strip may lie, not whether it is the back): scores (n,), corners
        (n, 4, 2); nothing when no back is registered."""
        if not self._coarse:
            return np.zeros(0, np.float64), np.zeros((0, 4, 2), np.float64)
        return slide_strip(
            self._coarse, image=image, covered=covered, corners=corners, reach=reach, turns=turns, least=0.04
        )

    def fit_whole(self, hyp: Hypothesis, image: ByteImage, *, reach: float) -> npt.NDArray[np.float64]:
        """The corners near ``hyp``'s (shifted up to about ``reach`` plane pixels, turned up to 3
        degrees) where a card showing whole matches the registered back best: a card's rectangle
        drawn from outline corners a few pixels off shows its border lines where the back has
        none. The back's brightness is slid over the picture around the rectangle (one warp per
        turn, a normalised correlation at every shift), the way up the back lies already chosen.
        """
        if not self._gray:
            return hyp.corners
        c = hyp.corners
        pad = max(1, round(reach * _STRIP_W / max(float(np.hypot(*(c[1] - c[0]))), 1.0)))
        # The picture around the rectangle is warped once, with room for the turns; each turn is
        # then a turn of that small patch about its middle (the back's scale is nearly the same
        # along both sides, so a turn there is the turn on the plane).
        room = pad + _FIT_ROOM
        frame = _STRIP_CORNERS + np.float32(room)
        h = cv2.getPerspectiveTransform(c.astype(np.float32), frame)
        size = (_STRIP_W + 2 * room, _STRIP_H + 2 * room)
        whole = cv2.cvtColor(cv2.warpPerspective(image, h, size, flags=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        whole = whole.astype(np.float32)
        centre = (size[0] / 2.0, size[1] / 2.0)
        to_plane = np.linalg.inv(h)
        best: tuple[float, float, npt.NDArray[np.float64]] = (-2.0, 0.0, c)
        ways = list(range(len(self._gray)))  # after the first slide, only the way up that matched

        def slide(turn: float) -> None:
            nonlocal best, ways
            rot = cv2.getRotationMatrix2D(centre, turn, 1.0)
            patch = whole if turn == 0.0 else cv2.warpAffine(whole, rot, size, flags=cv2.INTER_LINEAR)
            patch = patch[_FIT_ROOM:-_FIT_ROOM, _FIT_ROOM:-_FIT_ROOM]
            found = []
            for k in ways:
                res = cv2.matchTemplate(patch, self._gray[k], cv2.TM_CCOEFF_NORMED)
                _, score, _, (dx, dy) = cv2.minMaxLoc(res)
                found.append((float(score), k))
                if score > best[0]:
                    # The back's corners where it matched, back through the patch's turn and the warp.
                    moved = (frame + np.array([dx - pad, dy - pad], np.float32)).reshape(-1, 1, 2)
                    unturned = cv2.transform(moved, cv2.invertAffineTransform(rot))
                    back = cv2.perspectiveTransform(unturned, to_plane).reshape(4, 2)
                    best = (float(score), turn, np.asarray(back, np.float64))
            ways = [max(found)[1]]

        for turn in _FIT_TURNS:
            slide(turn)
        turn = best[1]
        for finer in (turn - 0.75, turn + 0.75):  # the turn matters most at the card's far ends
            slide(finer)
        return best[2]

    def _judge(
        self, hyp: Hypothesis, image: ByteImage, fg: ByteImage | None, least: float = 0.25
    ) -> tuple[bool, float]:
        h = cv2.getPerspectiveTransform(hyp.corners.astype(np.float32), _PATCH_CORNERS)
        patch = cv2.warpPerspective(image, h, (PATCH_W, PATCH_H), flags=cv2.INTER_AREA)
        # Felt inside the quad (a stacked card's strip beside the card on top, an outline a
        # little off) is no part of the card; off the plane is felt too. (None: every pixel counts.)
        valid = None if fg is None else cv2.warpPerspective(fg, h, (PATCH_W, PATCH_H), flags=cv2.INTER_NEAREST)
        vector = features(patch, valid, least=least)
        return (False, 0.0) if vector is None else self.signature.judge(vector)


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
    cards has none there) and what shows of it is the back. First, the card on top of the stack is
    added where the cards under it were chosen before it (``_tops``); then the lower backs no
    outline corner proposes (``hidden.hidden_backs``: the middle card of three, a strip beyond a
    back); last, the card on top where no rectangle was proposed for it
    (``stack_tops.shifted_tops``), and the lower backs again where that adds or moves a card.
    """
    card_area = card_w * card_h
    solid = masks.fg if masks.solid is None else masks.solid
    pool = []
    for hyp in candidates:
        square = squared(hyp.corners, card_w=card_w, card_h=card_h) if hyp.anchors >= 1 else None
        if square is not None:
            hyp.corners, hyp.center = square, square.mean(axis=0)
            pool.append(hyp)
    added = _tops(
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
    on the blob, matches the back in place as a whole card (``_STRIP_MATCH``) and better than any
    chosen back it lies on (a card under others, a rectangle a few pixels off or drawn across two
    cards match worse: part of what they frame is another card's border), and each of those still
    shows its own strip of the back in place with it on top.
    """
    backs = [o for o in chosen if o.code == BACK]
    if not backs:
        return []
    blank = tester.blank(image)
    whole: dict[int, float] = {}

    def whole_of(hyp: Hypothesis) -> float:
        if id(hyp) not in whole:
            whole[id(hyp)] = tester.strip_likeness(hyp, image, blank)
        return whole[id(hyp)]

    added: list[Hypothesis] = []
    fitted: list[Hypothesis] = []
    for first in pool:
        over = _backs_under(first, chosen, card_h)
        if over is None:
            continue
        if first.back is False or any(float(np.hypot(*(first.center - o.center))) < 0.08 * card_w for o in fitted):
            continue  # its colours are no back's, or the same card proposed from another corner
        if any(whole_of(o) >= _TOP_FITS for o in over):
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
        if score < _STRIP_MATCH or any(
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
            _redraw(covered, chosen, erased=near[0])
        else:
            chosen.append(hyp)
            added.append(hyp)
            cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
    return added


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
            other = aligned(low.corners, top.corners)
            mid = 0.5 * (top.center + low.center)
            far = np.hypot(*(top.corners - mid).T) >= np.hypot(*(other - mid).T)
            span = np.where(far[:, None], top.corners, other)
            if not card_shaped(span, card_w=card_w, card_h=card_h) or share(solid, span) < 0.95:
                continue
            one = Hypothesis(corners=np.asarray(span, np.float64), anchors=top.anchors)
            score = tester.strip_likeness(one, image, blank)
            if top_score is None:
                top_score = tester.strip_likeness(top, image, blank)
            best = max(top_score, tester.strip_likeness(low, image, blank))
            if score < _STRIP_MATCH or score < best + _TOP_BETTER:
                continue
            one.code, one.confidence, one.back, one.back_score = BACK, 0.5 + 0.5 * score, True, score
            one.whole = True
            chosen[:] = [one if o is top else o for o in chosen if o is not low]
            added[:] = [one if o is top else o for o in added if o is not low]
            _redraw(covered, chosen, erased=low)
            return


def _backs_under(hyp: Hypothesis, chosen: list[Hypothesis], card_h: float) -> list[Hypothesis] | None:
    """The chosen cards ``hyp`` overlaps, when there are some and all are backs lying parallel
    with it (a stack it may lie on); else None."""
    over = [o for o in chosen if _overlap(hyp, o, card_h)]
    if not over or any(o.code != BACK or not parallel(hyp.corners, o.corners, within=STACK_COS) for o in over):
        return None
    return over


def _redraw(covered: ByteImage, chosen: list[Hypothesis], *, erased: Hypothesis) -> None:
    """``covered`` after a chosen back was replaced or dropped: ``erased`` cleared, every chosen
    card drawn again (the cleared quad shared pixels with others)."""
    cv2.fillConvexPoly(covered, np.round(erased.corners).astype(np.int32), 0)
    for o in chosen:
        cv2.fillConvexPoly(covered, np.round(o.corners).astype(np.int32), 255)


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
    hiding = np.zeros(shape[:2], np.uint8)
    for o in (*chosen, top):
        if o is not card and all(o is not g for g in gone):
            cv2.fillConvexPoly(hiding, np.round(o.corners).astype(np.int32), 255)
    return tester.strip_likeness(card, image, hiding) >= _STILL


def _overlap(hyp: Hypothesis, other: Hypothesis, card_h: float) -> bool:
    """Whether two card rectangles overlap (their centres closer than a card's length, quads meeting)."""
    if float(np.hypot(*(hyp.center - other.center))) >= card_h:
        return False
    return overlap_area(hyp.corners, other.corners) > 1.0


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
    c = quad
    across = unit(c[1] - c[0]) + unit(c[2] - c[3])  # the short sides' direction
    down = unit(c[3] - c[0]) + unit(c[2] - c[1])  # the long sides', a quarter turn on (y points down)
    a = unit(unit(across) + np.array([down[1], -down[0]]) / max(float(np.hypot(*down)), 1e-9))
    b = np.array([-a[1], a[0]])
    w = 0.5 * (float(np.hypot(*(c[1] - c[0]))) + float(np.hypot(*(c[2] - c[3]))))
    h = 0.5 * (float(np.hypot(*(c[3] - c[0]))) + float(np.hypot(*(c[2] - c[1]))))
    if not (0.88 <= w / card_w <= 1.12 and 0.88 <= h / card_h <= 1.12):
        return None
    mid = c.mean(axis=0)
    rect = np.array(
        [
            mid - a * w / 2 - b * h / 2,
            mid + a * w / 2 - b * h / 2,
            mid + a * w / 2 + b * h / 2,
            mid - a * w / 2 + b * h / 2,
        ]
    )
    if float(np.hypot(*(rect - c).T).max()) > 0.1 * card_w:
        return None
    return np.asarray(rect, np.float64)


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
