"""A one-corner read checked against its same-coloured twin (or another rival) by the registered indices, blurred."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, DeckProfile
from vision.deck_memo import DeckMemo

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# Suits run c d h s: each suit's twin is the other suit of its colour (club and spade, diamond and heart).
TWIN_SUIT: Final = {"c": "s", "s": "c", "d": "h", "h": "d"}
# The registered index is cut this many canonical pixels out past its box (the glyphs' blurred rims).
TWIN_PAD: Final = 3
# How far (canonical pixels) the frame's index may lie off its corner's pose each way: a fan's
# corner is placed from a neighbour's edge a pixel or two off (corners.CORNER_LEAD is 6).
TWIN_REACH: Final = 12
# ... and how far (canonical pixels) both cards' looks are then shifted about where it lies.
TWIN_NEAR: Final = 2
# The blurs (Gaussian sigma, canonical pixels) the registered indices are seen at: a frame's blur
# of 1.2-1.6 px with motion smear and JPEG measures a softness of ~2-2.8 (corners.SOFT_KNEE).
TWIN_BLURS: Final = (0.8, 1.4, 2.0, 2.6, 3.2)
# How much better (normalised correlation) the read card's registered index, at its best blur and
# shift, must fit the frame's index than its twin's, as a whole or at the suit alone. Measured on
# fan cards read by one corner under dim light, blur 1.2-1.6 px, motion smear, JPEG and noise (new
# seeds 18000-18149, kennard): the 24 clubs read as spades fit the spade better by 0.006-0.027 as a
# whole and 0.003-0.021 at the suit; right reads' whole lead is -0.002 and up but for a few.
TWIN_LEAD: Final = 0.005
# Where the two cards' looks differ by at least this share of their most, there lies the suit.
TWIN_SUIT_SHARE: Final = 0.25
# The least fit either card's look must reach for the check to judge at all: a patch no registered
# index fits (right reads fit their own 0.81-0.98 there) shows nothing to tell the two suits by.
TWIN_SEEN: Final = 0.6
# How far apart the read card's fit and a rival's must lie, beyond the rival's own lead, in units
# of the noise that separates them: sqrt(residual x separation), the corner's unexplained part
# (1 - the read card's best fit) times how far apart the two registered looks are at that blur
# (1 - their correlation). The lead of a frame that is the read card's look plus noise is the
# looks' separation plus the noise along their difference, whose spread grows with the square root
# of both: under heavy blur two looks run together (hershey's 5 and 8 at sigma 2.6 correlate 0.996
# as a whole) while the residual stays that of the noise, and a lead of a few thousandths is then
# noise, not evidence (vision_blur: hershey 18660's 5d read 8d by 0.0022 as a whole, residual 0.034,
# separation 0.0037: 0.19 of the unit; 18720's 5c read 8c by 0.0001 at the rank: 0.006).
# Right reads lie at 0.28 and up but for one (vision_blur 18620-18627, kennard, hershey, standard:
# 1058 comparisons, the least of whole and part taken; one at 0.16 is refused at any bar above the
# misread's 0.19): a quarter of the unit lies between.
TELL_APART: Final = 0.25
# How many of the cards that fit a silent corner best, where the read card's look places the index,
# are placed again by their own looks (``TwinSuit.best_other``).
SILENT_FEW: Final = 4
# ... within this many canonical pixels of where the read card's look places it.
SILENT_REACH: Final = 4
# How far (pixels) OpenCV's Gaussian kernel reaches for the largest blur: its float kernel is
# round(8 sigma + 1) wide, made odd.
_KERNEL_REACH: Final = (round(8 * max(TWIN_BLURS) + 1) | 1) // 2
# A norm below this (of a look or a window, 0-255 grey levels) is flat: it fits nothing.
_FLAT: Final = 1e-6
# The suits whose pairs' looks are kept first (each twin pair's looks are made once).
_FIRST: Final = "cd"


def twin_of(code: str) -> str:
    """The same rank in the other suit of its colour: 4c -> 4s, Kh -> Kd."""
    return code[:-1] + TWIN_SUIT[code[-1]]


# Per deck (a recognizer reads one; the benchmarks make a recognizer per table), every code's looks
# and every code pair's looks cut and normalised.
_KEPT: DeckMemo[_Registered] = DeckMemo()

Box = tuple[int, int, int, int]


class _Registered:
    """One deck's index looks as the twin check correlates them, all made at once (7-13 ms and
    3-10 MB a deck, kennard to nicu-ornamental) so that no frame pays for them: each code's looks
    at TWIN_BLURS, and each twin pair's looks (the club's or diamond's first, then its twin's) cut
    to the whole index and to the suit, zero-mean, unit-norm, one row each."""

    def __init__(self, *, deck: DeckProfile, box: Box) -> None:
        self.looks = {code: _looks(face, box) for code, face in zip(CODES, deck.faces, strict=True)}
        self._pairs: dict[tuple[str, str, bool], tuple[Box, npt.NDArray[np.float32]]] = {}
        self._apart: dict[tuple[str, str, bool], npt.NDArray[np.float64]] = {}
        self._at_blur: dict[int, npt.NDArray[np.float32]] = {}
        # Each code's looks as a whole, rows as in a pair's (the same per row): several codes are
        # fitted to one patch by one product (``TwinSuit.judged``).
        self.whole = {code: _rows(self.looks[code], (0, 0, *self.looks[code][0].shape[::-1])) for code in CODES}
        for code in CODES:
            if code[-1] in _FIRST:
                for whole in (True, False):
                    self._pairs[code, twin_of(code), whole] = self._made(code, twin_of(code), whole=whole)

    def _made(self, first: str, second: str, *, whole: bool) -> tuple[Box, npt.NDArray[np.float32]]:
        """Two codes' looks cut to the whole index or to where they differ, one zero-mean unit-norm
        row each (``first``'s, then ``second``'s)."""
        middle = len(TWIN_BLURS) // 2
        mine, theirs = self.looks[first], self.looks[second]
        h, w = mine[middle].shape
        part = (0, 0, w, h) if whole else _suit_box(mine[middle], theirs[middle])
        return part, _rows([*mine, *theirs], part)

    def at_blur(self, blur: int) -> npt.NDArray[np.float32]:
        """Every code's whole look at TWIN_BLURS[``blur``], one row each in CODES order (made when
        first asked for)."""
        made = self._at_blur.get(blur)
        if made is None:
            made = self._at_blur[blur] = np.ascontiguousarray(np.stack([self.whole[c][blur] for c in CODES]))
        return made

    def apart(self, code: str, rival: str, *, whole: bool) -> npt.NDArray[np.float64]:
        """How far apart ``code``'s and ``rival``'s looks are at each of TWIN_BLURS (1 - their
        normalised correlation), as a whole or where they differ."""
        key = (code, rival, whole)
        made = self._apart.get(key)
        if made is None:
            if whole:
                mine, theirs = self.whole[code], self.whole[rival]
            else:
                _part, rows, looks, twins = self.pair(code, whole=False, rival=rival)
                mine, theirs = rows[looks], rows[twins]
            made = self._apart[key] = 1.0 - np.sum(mine.astype(np.float64) * theirs, axis=1)
        return made

    def pair(
        self, code: str, *, whole: bool, rival: str | None = None
    ) -> tuple[Box, npt.NDArray[np.float32], slice, slice]:
        """The part of the index compared (all of it, or where the two cards' looks differ:
        ``_suit_box``, the suit for a twin) as x0, y0, x1, y1 in look pixels; ``code``'s and its
        ``rival``'s (by default its twin's) looks cut to it, one zero-mean unit-norm row each (a
        window's normalised correlation with every look is then one matrix product); and which
        rows are ``code``'s, which the rival's. A twin pair's rows are made with the deck's looks,
        any other pair's when first asked for (a read's runner-ups: ``rival_check``)."""
        other = twin_of(code) if rival is None else rival
        first = CODES.index(code) < CODES.index(other)
        key = (code, other, whole) if first else (other, code, whole)
        made = self._pairs.get(key)
        if made is None:
            made = self._pairs[key] = self._made(key[0], key[1], whole=whole)
        part, rows = made
        looks, twins = slice(0, len(TWIN_BLURS)), slice(len(TWIN_BLURS), None)
        return (part, rows, looks, twins) if first else (part, rows, twins, looks)


def _rows(looks: Sequence[npt.NDArray[np.float32]], part: Box) -> npt.NDArray[np.float32]:
    """Looks cut to ``part`` (x0, y0, x1, y1), one zero-mean unit-norm row each."""
    x0, y0, x1, y1 = part
    rows = np.stack([look[y0:y1, x0:x1].ravel() for look in looks]).astype(np.float64)
    rows -= rows.mean(axis=1, keepdims=True)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), _FLAT)
    return np.asarray(rows, dtype=np.float32)


def _registered(deck: DeckProfile, box: Box) -> _Registered:
    """The deck's looks, made once per deck."""
    return _KEPT.get(deck, lambda: _Registered(deck=deck, box=box))


def _looks(face: ByteImage, box: Box) -> list[npt.NDArray[np.float32]]:
    """A face's registered index, cut to ``box``, at each of TWIN_BLURS (darkest channel)."""
    # Only the index box and a kernel's reach round it are blurred: the same values as blurring the
    # whole face (where the box meets the face's edge, both reflect there), at a fraction of the work.
    bx0, by0, bx1, by1 = box
    x0, y0 = max(bx0 - _KERNEL_REACH, 0), max(by0 - _KERNEL_REACH, 0)
    x1, y1 = min(bx1 + _KERNEL_REACH, CARD_PX_W), min(by1 + _KERNEL_REACH, CARD_PX_H)
    around = face[y0:y1, x0:x1]
    darkest = np.asarray(cv2.min(cv2.min(around[..., 0], around[..., 1]), around[..., 2]), dtype=np.float32)
    dy, dx, h, w = by0 - y0, bx0 - x0, by1 - by0, bx1 - bx0
    return [np.ascontiguousarray(cv2.GaussianBlur(darkest, (0, 0), s)[dy : dy + h, dx : dx + w]) for s in TWIN_BLURS]


def _suit_box(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> Box:
    """The box, grown a few pixels, round where two looks differ by a quarter of their most: the
    suit, where a card and its twin differ."""
    diff = np.abs(a - b)
    h, w = a.shape
    if not diff.any():
        return 0, 0, w, h  # the same look twice (every pair is made at once, whatever the deck): all of it
    ys, xs = np.nonzero(diff > TWIN_SUIT_SHARE * float(diff.max()))
    return (
        max(int(xs.min()) - TWIN_PAD, 0),
        max(int(ys.min()) - TWIN_PAD, 0),
        min(int(xs.max()) + TWIN_PAD + 1, w),
        min(int(ys.max()) + TWIN_PAD + 1, h),
    )


class TwinSuit:
    """Tells a card's index from its twin's (same rank, the other suit of its colour) by correlating
    the frame's index with both registered indices at a few blurs: the deck's index classifier
    learnt sharp and Gaussian-blurred looks, and under motion smear a club's three leaves run into a
    spade's blob, while the whole blurred glyph still fits its own suit's best."""

    def __init__(self, *, deck: DeckProfile) -> None:
        box = deck.index_box
        self._x0 = max(round(box.x0 * CARD_PX_W) - TWIN_PAD, 0)
        self._y0 = max(round(box.y0 * CARD_PX_H) - TWIN_PAD, 0)
        self._x1 = min(round(box.x1 * CARD_PX_W) + TWIN_PAD, CARD_PX_W)
        self._y1 = min(round(box.y1 * CARD_PX_H) + TWIN_PAD, CARD_PX_H)
        self._registered = _registered(deck, (self._x0, self._y0, self._x1, self._y1))
        # The last patch's windows round the last place fitted: a judgement fits the same place
        # again with other looks (a third of the fits on the speed frames), the same windows.
        self._last: _Windows | None = None

    def holds(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str) -> bool:
        """Whether the index at one corner (``CornerReader.read``'s vectors) fits ``code``'s
        registered index clearly better than its twin's (TWIN_LEAD), as a whole or at the suit
        alone, or fits neither (TWIN_SEEN)."""
        return self.judged(image, origin, x_vec, y_vec, code=code, rivals=((twin_of(code), TWIN_LEAD),)) is not None

    def judged(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str, rivals: Sequence[tuple[str, float]]
    ) -> float | None:
        """How well the index at one corner fits ``code``'s registered index as a whole, when it
        fits it better than each rival's by that rival's lead (its twin's by TWIN_LEAD), as a
        whole or where the two cards' looks differ (the suit of a twin, the rank of a card of
        another rank), or fits neither (TWIN_SEEN); None when a rival fits as well. Under blur
        the lead must also exceed TELL_APART units of the noise between the two looks (``_needed``)."""
        patch, at = self._located(image, origin, x_vec, y_vec, code=code)
        codes = [code, *(rival for rival, _lead in rivals)]
        fits = self._whole_fits_by_blur(patch, at, codes)
        mine_at = int(np.argmax(fits[0]))
        own = float(fits[0][mine_at])
        for (rival, lead), theirs_at in zip(rivals, fits[1:], strict=True):
            other = float(theirs_at.max())
            if max(own, other) < TWIN_SEEN:
                continue
            apart = self._registered.apart(code, rival, whole=True)[mine_at]
            if own - other >= _needed(lead, fit=own, apart=apart):
                continue
            # A small suit beside a large rank moves the whole index's fit little (standard's,
            # dondorf's clubs lead their spades by 0.003 as a whole, 0.015-0.03 at the suit): the
            # part where the two looks differ judges too.
            part_mine, part_theirs = self._fits_by_blur(patch, at, code, whole=False, rival=rival)
            at_part = int(np.argmax(part_mine))
            apart = self._registered.apart(code, rival, whole=False)[at_part]
            best = float(part_mine[at_part])
            if best - float(part_theirs.max()) < _needed(lead, fit=best, apart=apart):
                return None
        return own

    def fits(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str, rival: str
    ) -> tuple[float, float]:
        """How well the index at one corner fits ``code``'s registered index and ``rival``'s, as a
        whole (located by ``code``'s)."""
        patch, at = self._located(image, origin, x_vec, y_vec, code=code)
        return self._fits(patch, at, code, whole=True, rival=rival)

    def best_other(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str
    ) -> tuple[str, float, float]:
        """The card other than ``code`` whose registered index fits the index at one corner best as
        a whole, how well, and how well ``code``'s fits there. Every card's look at the blur
        ``code``'s fits best is fitted where ``code``'s places the index (one product), and the
        SILENT_FEW that fit best so are fitted at every blur, placed again by their own looks (a
        rank's glyph can sit a pixel or two apart from another's)."""
        patch, at = self._located(image, origin, x_vec, y_vec, code=code)
        mine = self._whole_fits_by_blur(patch, at, [code])[0]
        blur = int(np.argmax(mine))
        h, w = self._registered.looks[code][0].shape
        rough = self._correlated(patch, at, (w, h), self._registered.at_blur(blur))
        order = [int(i) for i in np.argsort(-rough) if CODES[int(i)] != code][:SILENT_FEW]
        best, shown = code, -1.0
        for i in order:
            other = CODES[i]
            fit = self._whole_fits(patch, self._placed(patch, other, near=at), [other])[0]
            if fit > shown:
                best, shown = other, fit
        return best, shown, float(mine.max())

    def _looks(self, code: str) -> list[npt.NDArray[np.float32]]:
        """``code``'s registered index at each of TWIN_BLURS (darkest channel), made once per deck."""
        return self._registered.looks[code]

    def _located(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str
    ) -> tuple[npt.NDArray[np.float32], tuple[int, int]]:
        """The patch round the index box and where in it ``code``'s look at a middle blur fits best:
        the rank, common to both cards, places the index; both cards' looks are then fitted a pixel
        or two about there."""
        patch = self._patch(image, origin, x_vec, y_vec)
        return patch, self._placed(patch, code)

    def _placed(
        self, patch: npt.NDArray[np.float32], code: str, *, near: tuple[int, int] | None = None
    ) -> tuple[int, int]:
        """Where in the patch ``code``'s look at a middle blur fits best (x, y): anywhere, or within
        SILENT_REACH pixels of ``near``."""
        look = self._looks(code)[len(TWIN_BLURS) // 2]
        x0 = y0 = 0
        if near is not None:
            h, w = look.shape
            x0, y0 = max(near[0] - SILENT_REACH, 0), max(near[1] - SILENT_REACH, 0)
            patch = patch[y0 : near[1] + h + SILENT_REACH, x0 : near[0] + w + SILENT_REACH]
        _lo, _hi, _at, (x, y) = cv2.minMaxLoc(cv2.matchTemplate(patch, look, cv2.TM_CCOEFF_NORMED))
        return x0 + x, y0 + y

    def _patch(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> npt.NDArray[np.float32]:
        """The frame round the index box, warped to the canonical card, as its darkest channel."""
        dx, dy = x_vec / CARD_PX_W, y_vec / CARD_PX_H
        start = origin + (self._x0 - TWIN_REACH) * dx + (self._y0 - TWIN_REACH) * dy
        size = (self._x1 - self._x0 + 2 * TWIN_REACH, self._y1 - self._y0 + 2 * TWIN_REACH)
        m = np.array([[dx[0], dy[0], start[0]], [dx[1], dy[1], start[1]]], dtype=np.float64)
        patch = cv2.warpAffine(
            image, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
        # The darkest channel by OpenCV: numpy's min along a 3-long axis costs ~20x as much.
        darkest = cv2.min(cv2.min(patch[..., 0], patch[..., 1]), patch[..., 2])
        return np.asarray(darkest, dtype=np.float32)

    def _fits(
        self,
        patch: npt.NDArray[np.float32],
        at: tuple[int, int],
        code: str,
        *,
        whole: bool,
        rival: str | None = None,
    ) -> tuple[float, float]:
        """The best normalised correlation of ``code``'s looks (TWIN_BLURS) and of its rival's (by
        default its twin's), cut to the whole index or where they differ, with the patch within
        TWIN_NEAR pixels of where the index lies (``at``)."""
        mine, theirs = self._fits_by_blur(patch, at, code, whole=whole, rival=rival)
        return float(mine.max()), float(theirs.max())

    def _fits_by_blur(
        self, patch: npt.NDArray[np.float32], at: tuple[int, int], code: str, *, whole: bool, rival: str | None = None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``_fits`` per blur (TWIN_BLURS), for ``code`` and for its rival."""
        (x0, y0, x1, y1), rows, looks, twins = self._registered.pair(code, whole=whole, rival=rival)
        best = self._correlated(patch, (at[0] + x0, at[1] + y0), (x1 - x0, y1 - y0), rows)
        return best[looks], best[twins]

    def _correlated(
        self, patch: npt.NDArray[np.float32], at: tuple[int, int], size: tuple[int, int], rows: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float64]:
        """Each row's best normalised correlation with the patch within TWIN_NEAR pixels of ``at``
        (x, y), the windows (``size`` w, h) made once for consecutive fits of the same place."""
        last = self._last
        if last is None or last.patch is not patch or last.at != at or last.size != size:
            last = self._last = _windows(patch, at, size)
        return _correlated(last, rows)

    def _whole_fits(self, patch: npt.NDArray[np.float32], at: tuple[int, int], codes: Sequence[str]) -> list[float]:
        """``_fits`` of the whole index for several codes at once (one product for all their looks)."""
        return [float(fits.max()) for fits in self._whole_fits_by_blur(patch, at, codes)]

    def _whole_fits_by_blur(
        self, patch: npt.NDArray[np.float32], at: tuple[int, int], codes: Sequence[str]
    ) -> list[npt.NDArray[np.float64]]:
        """``_whole_fits`` per blur (TWIN_BLURS) for each code."""
        whole = self._registered.whole
        rows = np.concatenate([whole[c] for c in codes]) if len(codes) > 1 else whole[codes[0]]
        h, w = self._registered.looks[codes[0]][0].shape
        best = self._correlated(patch, at, (w, h), rows).reshape(len(codes), len(TWIN_BLURS))
        return list(best)


def _needed(lead: float, *, fit: float, apart: float) -> float:
    """The lead a read card's fit (``fit``, its best) needs over a rival's: the rival's own
    ``lead``, or TELL_APART units of the noise between the two looks (``apart``: 1 - their
    correlation at the blur the read card fits best), whichever is more."""
    return max(lead, TELL_APART * float(np.sqrt(max(1.0 - fit, 0.0) * max(apart, 0.0))))


class _Windows(NamedTuple):
    """The patch's windows round one place, for :func:`_correlated` (see ``_windows``)."""

    patch: npt.NDArray[np.float32]  # held: while kept, no later patch can take its id
    at: tuple[int, int]
    size: tuple[int, int]
    flat: npt.NDArray[np.float32]  # each shifted window, flat (shifts row by row), less the patch's mean
    norms: npt.NDArray[np.float64]  # each window's spread about its own mean, (shifts, 1)


def _windows(patch: npt.NDArray[np.float32], at: tuple[int, int], size: tuple[int, int]) -> _Windows:
    """The ``size`` (w, h) windows of the patch within TWIN_NEAR pixels of ``at`` (x, y), and their norms."""
    w, h = size
    x, y = at
    near = patch[max(y - TWIN_NEAR, 0) : y + h + TWIN_NEAR, max(x - TWIN_NEAR, 0) : x + w + TWIN_NEAR]
    # Taking the patch's mean out first keeps the float32 sums' rounding small; the looks being
    # zero-mean, it changes no fit.
    near = near - np.float32(near.mean())
    flat = sliding_window_view(near, (h, w)).reshape(-1, h * w)
    sums, squares = cv2.integral2(near, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
    spread = (squares[h:, w:] - squares[:-h, w:] - squares[h:, :-w] + squares[:-h, :-w]) - (
        sums[h:, w:] - sums[:-h, w:] - sums[h:, :-w] + sums[:-h, :-w]
    ) ** 2 / (h * w)
    return _Windows(patch, at, size, flat, np.sqrt(np.maximum(spread, 0.0)).reshape(-1, 1))


def _correlated(windows: _Windows, rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Each row's (a look, zero-mean, unit-norm, the windows' size) best normalised correlation with
    the patch's ``windows``.

    OpenCV's TM_CCOEFF_NORMED for every look at once (one matchTemplate call each cost ~10x the
    arithmetic on these few shifts): a shifted window's dot product with a zero-mean unit-norm
    look, over the window's own spread about its mean (from its sums; a flat window fits
    nothing, 0 as OpenCV's).
    """
    dots = windows.flat @ rows.T
    norms = windows.norms
    fits = np.divide(dots, norms, out=np.zeros(dots.shape), where=norms > _FLAT)
    return np.asarray(fits.max(axis=0))
