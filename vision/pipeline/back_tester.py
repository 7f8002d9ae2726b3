"""Whether a card hypothesis is the deck's back: its colours, its picture in place, its fit."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.back_signature import PATCH_H, PATCH_W, BackSignature, features
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.masks import Masks
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
STRIP_MATCH: Final = 0.6
# A back matching the back as a whole card (``whole_likeness``) at least this well shows whole,
# placed right: nothing lies on it (true tops placed right score over 0.8; drawn a few pixels off,
# far less).
WHOLE_FIT: Final = 0.8
# A back with this share of its pixels within this many hue steps of the cloth's (the felt
# test's band) is holed on that cloth where it has them.
_LIKE_CLOTH: Final = 0.1
_HUE_BAND: Final = 14
# Turns (degrees) tried when a card showing whole is fitted to the back (``fit_whole``).
_FIT_TURNS: Final = (0.0, -1.5, 1.5, -3.0, 3.0)
# Room (template pixels) kept around the patch the turns are made in: a turn of 3.75 degrees
# moves the back's corners up to about 2.
_FIT_ROOM: Final = 3
_STRIP_CORNERS: Final = np.array([[0, 0], [_STRIP_W, 0], [_STRIP_W, _STRIP_H], [0, _STRIP_H]], np.float32)
_ONES: Final = np.ones(_STRIP_W * _STRIP_H, np.float64)
# The strip's pixels a rectangle nothing hides keeps (all but the outermost: see ``_strip_likeness``),
# row by row, and the key its likeness is remembered under in place of the (empty) warped mask's.
_OPEN_AT: Final = np.flatnonzero(np.pad(np.ones((_STRIP_H - 2, _STRIP_W - 2), bool), 1))
_OPEN: Final = b"open"
# The back's brightness is slid over a stack at this size (half the strip test's: a plane pixel
# and a half per step, where to look only).
_SLIDE_W: Final = 20
_SLIDE_H: Final = 28
# A back whose two ways up correlate this well at that size is slid one way only.
_SAME_WAYS: Final = 0.98
# A back's picture finer than the strip resolves: its interior box-resized to the strip keeps less
# than this correlation with the same resized without aliasing (Gaussian first, a sigma of half the
# scale). Standard's fine diamonds: -0.00 (the box-resized strip is moiré stripes the camera never
# shows); kennard, dondorf, the nicu designs 0.99-1.0, hershey's grid 0.86.
_RESOLVED: Final = 0.5
# Such a back and a card seen whole are both compared softened by this much more (strip pixels):
# the plane resamples the fine picture into moiré of its own, which matches nothing. (Standard's
# tops on dev tables 3002, 510: 0.58, 0.50 unsoftened, counted from 0.5 on; at 0.75 and more a
# rectangle drawn between two cards matches as well as the top on them, 503's Qh lost.)
_FINE_BLUR: Final = 0.5
# A chip lying on a back: pixels whose colour is this far (0-255 steps, summed over the three
# colours as a distance) from every colour of the back (its few main colours, after the lamp's
# gain), ...
_FAR_COLOUR: Final = 75.0
_PALETTE: Final = 8
# ... forming a blob compact as a disc cut by the card's edge (its area at least this share of
# its enclosing circle's: a half or quarter disc 0.5, a felt band beside a rectangle a few pixels
# off or a felt corner of one across two cards 0.3 or less) and thicker than a felt sliver (it
# survives an opening of this size, strip pixels), ...
_DISC_FILL: Final = 0.45
_SLIVER: Final = 5
# ... covering this share of the strip at least and at most (not the whole card: a face's picture,
# felt, a stack of chips are no back with something on it).
_CHIP_LEAST: Final = 0.03
_CHIP_MOST: Final = 0.35
# Only a card matching at least this well with the chip in is looked at for one: a back under a chip
# (at most a third of it) still matches 0.49-0.58 (dev 3004's top 0.545; the test's chips), while most
# faces (0.25-0.45) and felt (about 0) need no look (standard's speed frames: 14.5 looks a frame,
# 1.6 ms each profiled, without this).
_CHIP_HOPE: Final = 0.4
# ... the likeness of what the chip leaves at most (just under ``WHOLE_FIT``).
_CHIPPED: Final = math.nextafter(WHOLE_FIT, 0.0)
_SLIVER_KERNEL: Final = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_SLIVER, _SLIVER))
# The rank of the upper of the strip's two middle pixels (its pixel count is even).
_MIDDLE: Final = _STRIP_W * _STRIP_H // 2


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
        # Whether the back's picture is finer than the strip resolves: then a card seen whole and the
        # back are both compared softened (``_FINE_BLUR``; strips under others as before: the back's
        # border, which they show, is no finer than the strip).
        self._fine = False
        # The back's main colours (at the strip's size; after the lamp's gain, what is far from all is no back).
        self._palette = np.zeros((0, 3), np.float32)
        self._median = np.ones(3, np.float32)
        self._palette_norms = np.zeros((1, 0), np.float32)
        if back is not None:
            sharp = cv2.resize(back, (_STRIP_W, _STRIP_H), interpolation=cv2.INTER_AREA).astype(np.float32)
            small = np.asarray(cv2.GaussianBlur(sharp, (0, 0), 0.7), np.float32)
            # Its brightness alone, for sliding it over the picture (``fit_whole``): as the box resize made it.
            self._gray = [
                np.asarray(cv2.cvtColor(np.clip(t, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY), np.float32)
                for t in (small, np.ascontiguousarray(small[::-1, ::-1]))
            ]
            resolved = _resized(back)
            self._fine = _correlation(small[5:-5, 5:-5], resolved[5:-5, 5:-5]) < _RESOLVED
            self._templates = [small, np.ascontiguousarray(small[::-1, ::-1])]
            self._palette, self._median = _palette(small)
            self._palette_norms = (self._palette * self._palette).sum(axis=1)[None, :]
            if self._fine:
                soft = np.asarray(cv2.GaussianBlur(resolved, (0, 0), _FINE_BLUR), np.float32)
                whole_templates = [soft, np.ascontiguousarray(soft[::-1, ::-1])]
            # Coarser, for sliding it over a stack (``slide``); once when it looks the same both ways up.
            self._coarse = [
                np.asarray(cv2.resize(g, (_SLIDE_W, _SLIDE_H), interpolation=cv2.INTER_AREA), np.float32)
                for g in self._gray
            ]
            if float(np.corrcoef(self._coarse[0].ravel(), self._coarse[1].ravel())[0, 1]) >= _SAME_WAYS:
                self._coarse = self._coarse[:1]
        self._clear: ByteImage | None = None
        # The last picture's strip likenesses, by rectangle and what of it is hidden (see
        # ``strip_likeness``); the picture itself is held, so that a new one is never taken for it.
        self._likeness_of: ByteImage | None = None
        self._likenesses: dict[tuple[bytes, bytes], float] = {}
        # The same picture's fits of cards seen whole (``fit_whole``), by rectangle and reach: a stack's
        # steps fit the same chosen card again (kennard's speed frames: 0.5 of 5.6 fits a frame).
        self._fits: dict[tuple[bytes, float], npt.NDArray[np.float64]] = {}
        # Share of the back's pixels of each hue (coloured ones): whether it may pass for felt.
        self._hues: npt.NDArray[np.float64] | None = None
        if back is not None:
            hsv = cv2.cvtColor(back, cv2.COLOR_BGR2HSV)
            hist = cv2.calcHist([hsv], [0], cv2.inRange(hsv[:, :, 1], 45, 255), [180], [0, 180]).reshape(-1)
            self._hues = hist.astype(np.float64) / float(back.shape[0] * back.shape[1])
        self._like_cloth: dict[int, bool] = {}
        # Per strip pixel: both templates' three colours, then each one's sum of squares (what a
        # strip's sums are gathered from, ``strip_likeness``).
        self._moments = _moments(self._templates)
        # The same for a card seen whole (softened when the back's picture is fine) ...
        self._whole_moments = _moments(whole_templates) if self._fine else self._moments
        # ... gathered for a rectangle nothing hides (most strips asked of a stack's cards and
        # tops): its kept pixels are always the strip's inner ones, so their rows and sums are fixed.
        self._open_rows = np.take(self._whole_moments, _OPEN_AT, axis=0)
        self._open_sums: list[float] = (_ONES[: len(_OPEN_AT)] @ self._open_rows).tolist()

    def like_cloth(self, felt_hue: int) -> bool:
        """Whether enough of the registered back has the cloth's hue (the felt test's band) for
        the back to be holed on it: only then may a holed rectangle be a back (``pattern_back``).
        """
        if self._hues is None:
            return False
        if felt_hue not in self._like_cloth:  # (asked for every holed hypothesis: the cloth's hue is one)
            offset = (np.arange(180) - felt_hue + 90) % 180 - 90
            self._like_cloth[felt_hue] = float(self._hues[np.abs(offset) <= _HUE_BAND].sum()) >= _LIKE_CLOTH
        return self._like_cloth[felt_hue]

    def is_back(self, hyp: Hypothesis, image: ByteImage, masks: Masks) -> bool:
        """Judged once per hypothesis (remembered on it, with how clearly in ``back_score``)."""
        if hyp.back is None:
            hyp.back, hyp.back_score = self._judge(hyp, image, masks.fg if masks.solid is None else masks.solid)
        return hyp.back

    def against(self, hyp: Hypothesis, image: ByteImage) -> bool:
        """Whether ``hyp`` seen whole contradicts the back in place (see ``visible_back``)."""
        return _contradicts(self.strip_likeness(hyp, image, self.blank(image)))

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
        if likeness < STRIP_MATCH:
            return False
        hyp.back, hyp.back_score = True, score if covered is None else likeness
        return True

    def whole_likeness(self, image: ByteImage) -> Callable[[Hypothesis], float]:
        """How well a hypothesis matches the back in place as a whole card (``strip_likeness`` with
        nothing hidden; remembered there by the rectangle, per frame: a stack's steps ask again of
        the same chosen backs). Not by the hypothesis' id: a passing hypothesis' id is reused by
        the next one made, which then got the first one's score.
        """
        blank = self.blank(image)
        return lambda hyp: self.strip_likeness(hyp, image, blank)

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
        likeness = self.strip_likeness(hyp, image, covered)  # (asked either way below)
        if back and _contradicts(likeness):
            # Colours alone: a face's paper with a chip of the back's colour on it (a fan's
            # bottom card beside the card over it) has a pictured back's make-up, but not its
            # picture where the back has it. (Too little shown, or a plain back there: no say.)
            back = False
        elif not back:
            # A strip along the card's edge is mostly its border: its colours alone look like a
            # face's white paper as much as a back's, but its border lines lie where the back's do.
            back, score = likeness >= STRIP_MATCH, likeness
        if back:
            hyp.back_score = score
        return back

    def new_frame(self) -> None:
        """Forget the last frame's strip likenesses and fits (a camera may hand over its next frame in the
        same buffer)."""
        self._likeness_of, self._likenesses, self._fits = None, {}, {}

    def _remember_for(self, image: ByteImage) -> None:
        """Forget what was remembered of another picture than ``image`` (held, so that a new one is
        never taken for it)."""
        if image is not self._likeness_of:
            self._likeness_of, self._likenesses, self._fits = image, {}, {}

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
        quad = hyp.corners.astype(np.float32)
        # The warp is made only when a mask is warped or the likeness is not yet known: a third of
        # the asks (kennard's speed frames: 74 a frame, 24 of them already answered) need none.
        h: npt.NDArray[Any] | None = None
        # The all-clear mask hides nothing of a rectangle wholly on the plane (every pixel the
        # strip samples lies inside it): no mask need be warped to know. Nothing hidden of the
        # pixels the likeness keeps (``_strip_likeness``), it is one case however it was told (None).
        hidden = None
        if covered is not self._clear or not _on_plane(quad, covered.shape):
            h = cv2.getPerspectiveTransform(quad, _STRIP_CORNERS)
            hidden = cv2.warpPerspective(covered, h, (_STRIP_W, _STRIP_H), flags=cv2.INTER_NEAREST, borderValue=255)
            if not hidden[1:-1, 1:-1].any():
                hidden = None
        # The same rectangle with the same part of it hidden is asked for again within a frame (a
        # back's whole likeness by the face check, the stack's middle cards and its tops; the
        # middle card's shifted places): the answer is the same, so it is remembered per picture.
        self._remember_for(image)
        key = (quad.tobytes(), _OPEN if hidden is None else hidden.tobytes())
        known = self._likenesses.get(key)
        if known is None:
            if h is None:
                h = cv2.getPerspectiveTransform(quad, _STRIP_CORNERS)
            known = self._likenesses[key] = self._strip_likeness(image, h, hidden)
        return known

    def _strip_likeness(self, image: ByteImage, h: npt.NDArray[Any], hidden: ByteImage | None) -> float:
        """``strip_likeness`` of the rectangle warped by ``h``, ``hidden`` (its strip-sized mask) hiding
        part of it (None: nothing)."""
        if hidden is not None and not hidden[1:-1, 1:-1].any():
            hidden = None  # (nothing of the kept pixels hidden: the same case as None)
        if hidden is None:
            patch = self._seen(image, h, whole=True)
            # The strip's inner pixels in the same order as gathered below (the same numbers).
            seen = patch[1:-1, 1:-1].reshape(-1, patch.shape[2]).astype(np.float64)
            plain = self._correlated(seen, self._open_rows, self._open_sums)
            if plain >= WHOLE_FIT or plain < _CHIP_HOPE:
                return plain
            # A card seen whole with a chip on it: the chip is no part of the back's picture. Something
            # lies on that card, though: it never passes for one seen whole (``WHOLE_FIT``), from which
            # the cards under it are looked for more closely (kennard-3004: a phantom middle card).
            chip = self._chip(patch)
            if chip is None:
                return plain
            return max(plain, min(self._kept(patch, np.flatnonzero(chip), self._whole_moments), _CHIPPED))
        # The inner pixels nothing hides, in order (the outermost may be felt when a pixel off): gathered
        # from the mask once, not drawn into a strip-sized mask and searched again.
        at = _OPEN_AT[np.take(hidden, _OPEN_AT) == 0]
        if len(at) < 0.04 * _STRIP_W * _STRIP_H:
            return -1.0  # (before the picture is warped: nothing of it would be looked at)
        return self._kept(self._seen(image, h, whole=False), at, self._moments)

    def _seen(self, image: ByteImage, h: npt.NDArray[Any], *, whole: bool) -> ByteImage:
        """The picture warped by ``h`` to the strip's size (a card seen ``whole`` softened as the back is
        when its picture is fine)."""
        patch = cv2.warpPerspective(image, h, (_STRIP_W, _STRIP_H), flags=cv2.INTER_AREA)
        return cv2.GaussianBlur(patch.astype(np.float32), (0, 0), _FINE_BLUR) if whole and self._fine else patch

    def _kept(self, patch: ByteImage, at: npt.NDArray[np.intp], moments: npt.NDArray[np.float64]) -> float:
        """``_correlated`` over the strip pixels at ``at`` (flat places, ascending) of ``patch`` (-1: too
        few), against the templates' ``moments``."""
        n = len(at)
        if n < 0.04 * _STRIP_W * _STRIP_H:
            return -1.0
        seen = np.take(patch.reshape(-1, patch.shape[2]), at, axis=0).astype(np.float64)
        tmpl = np.take(moments, at, axis=0)
        return self._correlated(seen, tmpl, (_ONES[:n] @ tmpl).tolist())

    def _chip(self, patch: ByteImage) -> npt.NDArray[np.bool_] | None:
        """The strip pixels to keep when a chip lies on the card seen whole in ``patch``: all but a
        compact blob of colours far from every one of the back's (``_FAR_COLOUR``: after the lamp's
        gain, each colour's median scaled to the back's), or None when there is no such blob (or
        it is most of the card: a face's picture, felt, chips)."""
        if not len(self._palette):
            return None
        # Colour by colour (planes of the strip's pixels): numpy reduces and broadcasts over a short inner
        # axis (3 colours, 8 palette colours) a pixel at a time, several times slower. These are the same
        # numbers in the same order: each colour's median is the mean of its two middle values, as numpy's.
        planes = np.ascontiguousarray(patch.reshape(-1, 3).T, dtype=np.float32)
        mid = np.partition(planes, [_MIDDLE - 1, _MIDDLE], axis=1)
        gain = self._median / np.maximum((mid[:, _MIDDLE - 1] + mid[:, _MIDDLE]) / np.float32(2.0), 1.0)
        lit = planes * gain[:, None]
        # Squared distances to every main colour, as |p|^2 - 2 p.c + |c|^2 (one product, not a difference
        # cube), each pixel's |p|^2 summed colour by colour, the nearest colour's taken across the palette.
        sq = lit * lit
        near = (sq[0] + sq[1] + sq[2]) - 2.0 * (self._palette @ lit) + self._palette_norms.T
        nearest = np.minimum.reduce(near, axis=0)
        far = (nearest > _FAR_COLOUR**2).reshape(_STRIP_H, _STRIP_W)
        total = _STRIP_W * _STRIP_H
        if np.count_nonzero(far) < _CHIP_LEAST * total:
            return None
        # (Closed first: a chip's inlay ring and spots, of the back's white, split it.)
        blobs = cv2.morphologyEx(far.astype(np.uint8), cv2.MORPH_CLOSE, _SLIVER_KERNEL)
        blobs = cv2.morphologyEx(blobs, cv2.MORPH_OPEN, _SLIVER_KERNEL)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
        hidden = np.zeros((_STRIP_H, _STRIP_W), np.uint8)
        for k in range(1, count):
            size = int(stats[k, cv2.CC_STAT_AREA])
            if not _CHIP_LEAST * total <= size <= _CHIP_MOST * total:
                continue
            points = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
            (x, y), radius = cv2.minEnclosingCircle(points)
            if size >= _DISC_FILL * math.pi * max(radius, 1.0) ** 2:
                # The chip's whole disc: its inlay and rim (white, or the back's colour) are chip too.
                cv2.circle(hidden, (round(x), round(y)), math.ceil(radius) + 1, 1, -1)
        if not hidden.any() or np.count_nonzero(hidden) > _CHIP_MOST * total:
            return None
        keep = np.zeros((_STRIP_H, _STRIP_W), bool)
        keep[1:-1, 1:-1] = hidden[1:-1, 1:-1] == 0
        return keep

    def _correlated(self, seen: npt.NDArray[np.float64], tmpl: npt.NDArray[np.float64], sums: list[float]) -> float:
        """The best correlation of a strip's kept pixels ``seen`` (n, 3) with either template's,
        ``tmpl`` (their rows of the template moments) and ``sums`` (those rows' column sums)."""
        # Correlated colour by colour, each less its mean over the kept pixels, from sums over them
        # (float64: the strip's are of whole numbers, exact; the templates' one pass is exact enough).
        n = len(seen)
        # Each strip colour's sum and its products with every template column.
        (p0, p1, p2), by_colour = (_ONES[:n] @ seen).tolist(), (seen.T @ tmpl).tolist()
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
        # The same rectangle is fitted again within a frame (a chosen card by the stack's tops and its
        # merged backs): the answer is the same, so it is remembered per picture (a copy handed out).
        self._remember_for(image)
        key = (hyp.corners.astype(np.float64).tobytes(), reach)
        known = self._fits.get(key)
        if known is None:
            known = self._fits[key] = np.array(self._fit_whole(hyp.corners, image, reach=reach), np.float64)
        return known.copy()

    def _fit_whole(self, c: npt.NDArray[np.float64], image: ByteImage, *, reach: float) -> npt.NDArray[np.float64]:
        """``fit_whole`` of the rectangle ``c``, worked out."""
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


def _on_plane(quad: npt.NDArray[np.float32], shape: tuple[int, ...]) -> bool:
    """Whether a rectangle lies a pixel or more inside a plane of ``shape``: every point a warp of
    it samples (its inside, rounded to the nearest pixel) is then a pixel of the plane."""
    height, width = shape[:2]
    return all(1.0 <= x <= width - 2 and 1.0 <= y <= height - 2 for x, y in quad.tolist())


def _moments(templates: list[npt.NDArray[np.float32]]) -> npt.NDArray[np.float64]:
    """Per strip pixel: both templates' three colours, then each one's sum of squares."""
    moments = np.zeros((_STRIP_W * _STRIP_H, 8), np.float64)
    for j, tmpl in enumerate(templates):
        flat = tmpl.reshape(-1, 3).astype(np.float64)
        moments[:, 3 * j : 3 * j + 3] = flat
        moments[:, 6 + j] = (flat * flat).sum(axis=1)
    return moments


def _resized(back: ByteImage) -> npt.NDArray[np.float32]:
    """``back`` at the strip's size without aliasing (a Gaussian of half the scale first), softened as the
    strip template is."""
    sigma = 0.5 * back.shape[1] / _STRIP_W
    soft = cv2.GaussianBlur(back.astype(np.float32), (0, 0), sigma)
    return np.asarray(
        cv2.GaussianBlur(cv2.resize(soft, (_STRIP_W, _STRIP_H), interpolation=cv2.INTER_AREA), (0, 0), 0.7), np.float32
    )


def _correlation(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    """Correlation of two colour pictures, each colour less its own mean."""
    da, db = a - a.mean(axis=(0, 1)), b - b.mean(axis=(0, 1))
    return float((da * db).sum() / max(math.sqrt(float((da * da).sum()) * float((db * db).sum())), 1e-6))


def _palette(template: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The back's main colours at the strip's size (k-means, fixed seed) and each colour's median."""
    pixels = template.reshape(-1, 3).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(15)
    _, _, centres = cv2.kmeans(pixels, _PALETTE, None, criteria, 3, cv2.KMEANS_PP_CENTERS)  # type: ignore[call-overload]
    return np.asarray(centres, np.float32), np.asarray(np.median(pixels, axis=0), np.float32)


def _contradicts(likeness: float) -> bool:
    """Whether a strip likeness says the picture is not the back's in place (-1: no say)."""
    return -1.0 < likeness < _NOT_AGAINST
