"""The registered back in place: what shows of a rectangle compared with the back pixel by pixel."""

from __future__ import annotations

import math
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

ByteImage = npt.NDArray[Any]

# A strip of a back under others is compared with the registered back itself, place by place, at
# this size (about two thirds of the detection plane's card): its border lines and the edge of
# its picture lie where the back's do when the rectangle is the card's.
STRIP_W: Final = 40
STRIP_H: Final = 56
# A back matching the back as a whole card (``BackTester.whole_likeness``) at least this well shows whole,
# placed right: nothing lies on it. Backs seen whole match at their true rectangles 0.92-0.95 (tenth
# percentile, dev seeds 3000-3009) on five designs; drawn a few pixels off, far less.
WHOLE_FIT: Final = 0.8
# The same bar for a back whose picture is finer than the strip resolves, compared softened: standard's
# match 0.84 (median 0.91), and under 0.8 a tenth of its true tops a pixel off were taken for cards not
# placed right (stacks every other design counted whole came out a card short: five on the dev seeds).
FINE_WHOLE_FIT: Final = 0.75
STRIP_CORNERS: Final = np.array([[0, 0], [STRIP_W, 0], [STRIP_W, STRIP_H], [0, STRIP_H]], np.float32)
_ONES: Final = np.ones(STRIP_W * STRIP_H, np.float64)
# The strip's pixels a rectangle nothing hides keeps (all but the outermost: see ``likeness``), row by row.
_OPEN_AT: Final = np.flatnonzero(np.pad(np.ones((STRIP_H - 2, STRIP_W - 2), bool), 1))
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
# felt, a stack of chips are no back with something on it). A chip on a third of a card covers
# more than a third of the strip with its rim (standard's top on dev table 13004: 0.34 with it in,
# and the middle card under it went unlooked for); faces with a chip left out stay under the strip
# bar 0.6 (0.50 at most: six faces, black and blue chips of a fifth to two fifths of the card).
_CHIP_LEAST: Final = 0.03
_CHIP_MOST: Final = 0.45
# Only a card matching at least this well with the chip in is looked at for one: a back under a chip
# (at most a third of it) still matches 0.34-0.58 (dev 13004's top 0.34, 3004's 0.545; the test's
# chips), while many faces (0.25-0.45) and felt (about 0) need no look (standard's speed frames:
# 14.5 looks a frame, 1.6 ms each profiled, without this).
_CHIP_HOPE: Final = 0.3
_SLIVER_KERNEL: Final = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_SLIVER, _SLIVER))
# The rank of the upper of the strip's two middle pixels (its pixel count is even).
_MIDDLE: Final = STRIP_W * STRIP_H // 2


class BackInPlace:
    """The registered back at the strip test's size, and how well what shows of a rectangle matches it
    place by place (``likeness``): the back's border lines and picture where they lie on a card, each
    colour less its mean, so the lamp's level and tint do not matter.
    """

    def __init__(self, back: ByteImage | None) -> None:
        # The registered back at the strip test's size, both ways up (a back may be dealt either
        # way round), softened as the camera's blur and the plane's resampling soften it.
        self._templates: list[npt.NDArray[np.float32]] = []
        # Whether the back's picture is finer than the strip resolves: then a card seen whole and the
        # back are both compared softened (``_FINE_BLUR``; strips under others as before: the back's
        # border, which they show, is no finer than the strip).
        self._fine = False
        # The back's main colours (at the strip's size; after the lamp's gain, what is far from all is no back).
        self._palette = np.zeros((0, 3), np.float32)
        self._median = np.ones(3, np.float32)
        self._palette_norms = np.zeros((1, 0), np.float32)
        if back is not None:
            sharp = cv2.resize(back, (STRIP_W, STRIP_H), interpolation=cv2.INTER_AREA).astype(np.float32)
            small = np.asarray(cv2.GaussianBlur(sharp, (0, 0), 0.7), np.float32)
            resolved = _resized(back)
            self._fine = _correlation(small[5:-5, 5:-5], resolved[5:-5, 5:-5]) < _RESOLVED
            self._templates = [small, np.ascontiguousarray(small[::-1, ::-1])]
            self._palette, self._median = _palette(small)
            self._palette_norms = (self._palette * self._palette).sum(axis=1)[None, :]
            if self._fine:
                soft = np.asarray(cv2.GaussianBlur(resolved, (0, 0), _FINE_BLUR), np.float32)
                whole_templates = [soft, np.ascontiguousarray(soft[::-1, ::-1])]
        # The bar a card seen whole is placed right by: the back's own.
        self.whole_fit = FINE_WHOLE_FIT if self._fine else WHOLE_FIT
        # Per strip pixel: both templates' three colours, then each one's sum of squares (what a
        # strip's sums are gathered from, ``likeness``).
        self._moments = _moments(self._templates)
        # The same for a card seen whole (softened when the back's picture is fine) ...
        self._whole_moments = _moments(whole_templates) if self._fine else self._moments
        # ... gathered for a rectangle nothing hides (most strips asked of a stack's cards and
        # tops): its kept pixels are always the strip's inner ones, so their rows and sums are fixed.
        self._open_rows = np.take(self._whole_moments, _OPEN_AT, axis=0)
        self._open_sums: list[float] = (_ONES[: len(_OPEN_AT)] @ self._open_rows).tolist()

    @property
    def templates(self) -> list[npt.NDArray[np.float32]]:
        """The back at the strip's size, both ways up (none when no back is registered)."""
        return self._templates

    def likeness(self, image: ByteImage, h: npt.NDArray[Any], hidden: ByteImage | None) -> float:
        """How closely the rectangle of ``image`` warped to the strip by ``h`` matches the back in
        place (a correlation, -1..1; -1 when too little shows or it shows no pattern), ``hidden``
        (its strip-sized mask) hiding part of it (None: nothing)."""
        # The inner pixels nothing hides, in order (the outermost may be felt when a pixel off): gathered
        # from the mask once, not drawn into a strip-sized mask and searched again. All of them: nothing
        # of the kept pixels is hidden, the same case as None.
        at = None if hidden is None else _OPEN_AT[np.take(hidden, _OPEN_AT) == 0]
        if at is None or len(at) == len(_OPEN_AT):
            patch = self._seen(image, h, whole=True)
            # The strip's inner pixels in the same order as gathered below (the same numbers).
            seen = patch[1:-1, 1:-1].reshape(-1, patch.shape[2]).astype(np.float64)
            plain = self._correlated(seen, self._open_rows, self._open_sums)
            if plain >= self.whole_fit or plain < _CHIP_HOPE:
                return plain
            # A card seen whole with a chip on it: the chip is no part of the back's picture. Something
            # lies on that card, though: it never passes for one seen whole (``whole_fit``), from which
            # the cards under it are looked for more closely (kennard-3004: a phantom middle card).
            chip = self._chip(patch)
            if chip is None:
                return plain
            # (What the chip leaves matches at most just under the bar.)
            kept = self._kept(patch, np.flatnonzero(chip), self._whole_moments)
            return max(plain, min(kept, math.nextafter(self.whole_fit, 0.0)))
        if len(at) < 0.04 * STRIP_W * STRIP_H:
            return -1.0  # (before the picture is warped: nothing of it would be looked at)
        return self._kept(self._seen(image, h, whole=False), at, self._moments)

    def _seen(self, image: ByteImage, h: npt.NDArray[Any], *, whole: bool) -> ByteImage:
        """The picture warped by ``h`` to the strip's size (a card seen ``whole`` softened as the back is
        when its picture is fine)."""
        patch = cv2.warpPerspective(image, h, (STRIP_W, STRIP_H), flags=cv2.INTER_AREA)
        return cv2.GaussianBlur(patch.astype(np.float32), (0, 0), _FINE_BLUR) if whole and self._fine else patch

    def _kept(self, patch: ByteImage, at: npt.NDArray[np.intp], moments: npt.NDArray[np.float64]) -> float:
        """``_correlated`` over the strip pixels at ``at`` (flat places, ascending) of ``patch`` (-1: too
        few), against the templates' ``moments``."""
        n = len(at)
        if n < 0.04 * STRIP_W * STRIP_H:
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
        far = (nearest > _FAR_COLOUR**2).reshape(STRIP_H, STRIP_W)
        total = STRIP_W * STRIP_H
        if np.count_nonzero(far) < _CHIP_LEAST * total:
            return None
        # (Closed first: a chip's inlay ring and spots, of the back's white, split it.)
        blobs = cv2.morphologyEx(far.astype(np.uint8), cv2.MORPH_CLOSE, _SLIVER_KERNEL)
        blobs = cv2.morphologyEx(blobs, cv2.MORPH_OPEN, _SLIVER_KERNEL)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
        hidden = np.zeros((STRIP_H, STRIP_W), np.uint8)
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
        keep = np.zeros((STRIP_H, STRIP_W), bool)
        keep[1:-1, 1:-1] = hidden[1:-1, 1:-1] == 0
        return keep

    def _correlated(self, seen: npt.NDArray[np.float64], tmpl: npt.NDArray[np.float64], sums: list[float]) -> float:
        """The best correlation of a strip's kept pixels ``seen`` (n, 3) with either template's,
        ``tmpl`` (their rows of the template moments) and ``sums`` (those rows' column sums)."""
        # Correlated colour by colour, each less its mean over the kept pixels, from sums over them
        # (float64: the strip's are of whole numbers, exact; the templates' one pass is exact enough).
        n = len(seen)
        # Each strip colour's sum and its products with every template column.
        (p0, p1, p2), by_colour = (_ONES[:n] @ seen).tolist(), np.dot(seen.T, tmpl).tolist()
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


def _moments(templates: list[npt.NDArray[np.float32]]) -> npt.NDArray[np.float64]:
    """Per strip pixel: both templates' three colours, then each one's sum of squares."""
    moments = np.zeros((STRIP_W * STRIP_H, 8), np.float64)
    for j, tmpl in enumerate(templates):
        flat = tmpl.reshape(-1, 3).astype(np.float64)
        moments[:, 3 * j : 3 * j + 3] = flat
        moments[:, 6 + j] = (flat * flat).sum(axis=1)
    return moments


def _resized(back: ByteImage) -> npt.NDArray[np.float32]:
    """``back`` at the strip's size without aliasing (a Gaussian of half the scale first), softened as the
    strip template is."""
    sigma = 0.5 * back.shape[1] / STRIP_W
    soft = cv2.GaussianBlur(back.astype(np.float32), (0, 0), sigma)
    return np.asarray(
        cv2.GaussianBlur(cv2.resize(soft, (STRIP_W, STRIP_H), interpolation=cv2.INTER_AREA), (0, 0), 0.7), np.float32
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
