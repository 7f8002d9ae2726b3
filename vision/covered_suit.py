"""A corner index whose suit is partly under the next card: the suit matched on its uncovered part.

In a fan the card above covers the far side of the suit of the card below beyond a straight edge
(its own side) while the rank stays whole; the cut suit's raster, stretched to its box, then fits
no suit. Here the registered faces of the rank read, in the classifier's suit and in the other
suit of its colour, are laid over the patch where their rank matches the rank read, and each suit
is compared with the patch on the near side of the edge only (see ``suit_fits`` and
``covered_suit``); the card is named only when the uncovered part tells the two apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import Box
from vision.deck_memo import DeckMemo
from vision.index import IndexFeature, index_feature
from vision.index_match import IndexMatch, match_scores

if TYPE_CHECKING:
    from vision.deck import DeckProfile

ByteImage = npt.NDArray[Any]
FloatArray = npt.NDArray[np.float32]

SUITS: Final = "cdhs"
# The other suit of each suit's colour (by index into SUITS): what the colour cannot tell apart.
_TWIN: Final = (3, 2, 1, 0)
# The next card's edge over the suit: a straight line within this many degrees of the card's side
# (a fan spread along the side puts it parallel, one fanned in the hand turned some 10-30 degrees),
# tried every _TILT_STEP degrees and every canonical pixel across the suit's place.
COVER_TILT: Final = 30.0
_TILT_STEP: Final = 5.0
_TILTS: Final = np.tan(np.radians(np.arange(-COVER_TILT, COVER_TILT + 0.1, _TILT_STEP)))
# How far (canonical pixels) the registered face may shift from where the rank boxes put it, each
# way, and the sizes it is tried at: the rank's best fit over them places it.
_SHIFT: Final = 2
_SCALES: Final = (1.0, 0.95, 1.05)
# How far past the suit's registered box (any suit's) its place at the table reaches, each way.
_GROW: Final = 3
# An edge leaving fewer pixels than this of the suit's place in view is no comparison.
_LEAST_PIXELS: Final = 12
# A suit is named on its uncovered part only where the registered glyph fits it at least this
# well (correlation of ink darkness) ...
COVER_FIT: Final = 0.95
# ... judged on the edge that leaves the most of it in view among those where either suit of its
# colour fits so (the least cover that explains the patch: a wrong suit cannot pick an edge of its
# own), where it must beat the other suit of its colour by at least this much.
COVER_GAP: Final = 0.06


@dataclass(frozen=True, slots=True)
class _Glyphs:
    """One registered face's index: its darkness (the face's top-left, 0 paper .. 1 ink) and
    where its rank and suit were cut out (face pixels), as a read cuts them."""

    dark: FloatArray
    rank_box: Box
    suit_box: Box


@dataclass(frozen=True, slots=True)
class SuitFit:
    """How well each suit's registered glyph fits a read's suit on the near side of each edge tried."""

    fits: npt.NDArray[np.float64]  # (suits, edges): the correlation on the near side
    shown: npt.NDArray[np.float64]  # the same: the share of the suit's registered ink on that side


# The glyphs of the last few decks read (a recognizer reads one): per code, its glyphs.
_CACHE: DeckMemo[dict[str, _Glyphs]] = DeckMemo()


def _darkness(bgr: ByteImage, paper: float) -> FloatArray:
    """0 at the paper's brightness up to 1 at black, by the darkest channel (as ink is judged)."""
    gray = cv2.min(cv2.min(bgr[..., 0], bgr[..., 1]), bgr[..., 2]).astype(np.float32)
    return np.asarray(np.clip((paper - gray) / max(paper, 1.0), 0.0, 1.0), dtype=np.float32)


def _registered(profile: DeckProfile) -> dict[str, _Glyphs]:
    """Every face's index glyphs, cut out once per deck."""
    return _CACHE.get(profile, lambda: _glyphs(profile))


def _glyphs(profile: DeckProfile) -> dict[str, _Glyphs]:
    """Every face's index glyphs, cut out."""
    from vision.deck import CODES  # (the deck module imports this package's index reader)

    box = profile.index_box
    sw, sh = box.search_size()
    glyphs: dict[str, _Glyphs] = {}
    for code, face in zip(CODES, profile.faces, strict=True):
        feature = index_feature(face[:sh, :sw], box)
        if feature is None or feature.rank_box is None or feature.suit_box is None:
            continue
        region = face[: sh + 2 * _GROW, : sw + 2 * _GROW]
        gray = cv2.min(cv2.min(region[..., 0], region[..., 1]), region[..., 2])
        paper = float(np.percentile(gray, 90))
        glyphs[code] = _Glyphs(dark=_darkness(region, paper), rank_box=feature.rank_box, suit_box=feature.suit_box)
    return glyphs


def _window(image: FloatArray, x0: int, y0: int, x1: int, y1: int) -> FloatArray:
    """``image[y0:y1, x0:x1]``, zero (paper) where it reaches past the image."""
    h, w = image.shape
    out = np.zeros((y1 - y0, x1 - x0), np.float32)
    ax0, ay0, ax1, ay1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if ax1 > ax0 and ay1 > ay0:
        out[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0] = image[ay0:ay1, ax0:ax1]
    return out


def suit_fits(
    profile: DeckProfile, patch_bgr: ByteImage, feature: IndexFeature, *, rank: str, suits: str, lead: int
) -> SuitFit | None:
    """Each of ``suits``' fit to a read's suit on the near side of each edge the card above may have there.

    For each suit the registered face of ``rank`` in that suit, blurred as the read's suit is, is
    laid over the patch where its rank agrees best with the rank read (the rank boxes' corners
    put together, a pixel or two either way, the face as registered or 5 % larger or smaller).
    Each straight edge within COVER_TILT of the card's side that passes right of the whole rank
    is tried across the suits' place; the suit's glyph is correlated with the patch on the
    edge's near side. None when the read has no glyph boxes,
    the deck no face for the rank, or the suit's place lies off the patch.
    """
    if feature.rank_box is None or feature.suit_box is None:
        return None
    faces = _registered(profile)
    if any(rank + suit not in faces for suit in suits):
        return None
    h, w = patch_bgr.shape[:2]
    gray = cv2.min(cv2.min(patch_bgr[..., 0], patch_bgr[..., 1]), patch_bgr[..., 2])
    seen = _darkness(patch_bgr, float(np.percentile(gray[lead:, lead:], 90)))
    sigma = max(feature.softness, 0.5)
    rx0, ry0, rx1, ry1 = feature.rank_box
    ax0, ay0, ax1, ay1 = max(rx0 - 2, 0), max(ry0 - 2, 0), min(rx1 + 2, w), min(ry1 + 2, h)
    rank_seen = np.ascontiguousarray(seen[ay0:ay1, ax0:ax1])
    placed: list[tuple[FloatArray, int, int]] = []  # each suit's blurred face and its offset
    boxes: list[Box] = []
    for suit in suits:
        glyphs = faces[rank + suit]
        best: tuple[float, FloatArray, int, int, Box] | None = None
        for scale in _SCALES:
            # The face a few per cent larger or smaller (a pose's card size is known to a few per
            # cent), its boxes with it.
            dark = glyphs.dark
            if scale != 1.0:
                dark = np.asarray(cv2.resize(dark, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR))
            dark = np.asarray(cv2.GaussianBlur(dark, (0, 0), sigma), dtype=np.float32)
            gx0, gy0 = round(glyphs.rank_box[0] * scale), round(glyphs.rank_box[1] * scale)
            # Every shift of a pixel or two at once: the face's part under the read's rank region,
            # grown by the shift, correlated with that region (a normalised correlation).
            tx0, ty0 = rx0 - gx0, ry0 - gy0
            around = _window(dark, ax0 - tx0 - _SHIFT, ay0 - ty0 - _SHIFT, ax1 - tx0 + _SHIFT, ay1 - ty0 + _SHIFT)
            scores = cv2.matchTemplate(around, rank_seen, cv2.TM_CCOEFF_NORMED)
            # Shift (dx, dy) of the face is read at (_SHIFT - dx, _SHIFT - dy) of the scores.
            _lo, hi, _lo_at, (bx, by) = cv2.minMaxLoc(scores)
            if best is None or hi > best[0]:
                sx0, sy0, sx1, sy1 = (round(v * scale) for v in glyphs.suit_box)
                tx, ty = tx0 + _SHIFT - bx, ty0 + _SHIFT - by
                best = (hi, dark, tx, ty, (sx0 + tx, sy0 + ty, sx1 + tx, sy1 + ty))
        assert best is not None
        _hi, dark, tx, ty, suit_place = best
        placed.append((dark, tx, ty))
        boxes.append(suit_place)
    bx0 = max(min(b[0] for b in boxes) - _GROW, lead)
    by0 = max(min(b[1] for b in boxes) - _GROW, 0)
    bx1 = min(max(b[2] for b in boxes) + _GROW, w)
    by1 = min(max(b[3] for b in boxes) + _GROW, h)
    if bx1 - bx0 < 4 or by1 - by0 < 4:
        return None
    obs = seen[by0:by1, bx0:bx1].reshape(-1).astype(np.float64)
    # The sums a correlation needs, per pixel: count, patch, patch squared, then per suit its
    # glyph, glyph squared and the product.
    columns = [np.ones_like(obs), obs, obs * obs]
    for dark, tx, ty in placed:
        tpl = _window(dark, bx0 - tx, by0 - ty, bx1 - tx, by1 - ty).reshape(-1).astype(np.float64)
        columns += [tpl, tpl * tpl, obs * tpl]
    values = np.stack(columns)
    sums = _near_side_sums(values, feature.rank_box, (bx0, by0, bx1, by1))
    if sums is None:
        return None
    n, so, soo = np.maximum(sums[:, 0], 1.0), sums[:, 1], sums[:, 2]
    var_o = soo - so * so / n
    totals = values.sum(axis=1)
    fits = np.zeros((len(suits), len(sums)), np.float64)
    shown = np.zeros((len(suits), len(sums)), np.float64)
    for k in range(len(suits)):
        st, stt, sot = sums[:, 3 + 3 * k], sums[:, 4 + 3 * k], sums[:, 5 + 3 * k]
        cov = sot - so * st / n
        var = var_o * (stt - st * st / n)
        ok = (sums[:, 0] >= _LEAST_PIXELS) & (var > 1e-9)
        fits[k] = np.where(ok, cov / np.sqrt(np.where(ok, var, 1.0)), 0.0)
        shown[k] = st / max(float(totals[3 + 3 * k]), 1e-6)
    return SuitFit(fits=fits, shown=shown)


def _near_side_sums(values: npt.NDArray[np.float64], rank_box: Box, place: Box) -> npt.NDArray[np.float64] | None:
    """Per edge tried (a row each), the sums of ``values`` (a column per pixel of the suit's
    ``place``, row by row) over the pixels on its near side: each line ``x = xc + (y - yc) t`` (``yc`` the place's
    middle row) that passes right of the whole rank, for every tilt and every ``xc`` across the
    place. None when there is none.
    """
    bx0, by0, bx1, by1 = place
    _rx0, ry0, rx1, ry1 = rank_box
    ys, xs = np.mgrid[by0:by1, bx0:bx1]
    xs, ys = xs.reshape(-1).astype(np.float64), ys.reshape(-1).astype(np.float64)
    yc = 0.5 * (by0 + by1)
    rows = []
    for t in _TILTS:
        least = max(rx1 - (ry0 - yc) * t, rx1 - (ry1 - yc) * t)
        edges = np.arange(max(bx0 + 2.0, least), bx1 + 1.0, 1.0)
        if not len(edges):
            continue
        # A pixel lies on the near side of the edge at xc when x - (y - yc) t <= xc: sorted by
        # that, each edge's pixels are a prefix, and its sums a cumulative sum.
        u = xs - (ys - yc) * t
        order = np.argsort(u, kind="stable")
        running = np.zeros((values.shape[0], len(order) + 1))
        np.cumsum(values[:, order], axis=1, out=running[:, 1:])
        rows.append(running[:, np.searchsorted(u[order], edges, side="right")])
    if not rows:
        return None
    return np.concatenate(rows, axis=1).T


def covered_suit(fit: SuitFit) -> tuple[float, float] | None:
    """Whether a read's uncovered part shows the first suit of ``fit`` (the classifier's best: its
    colour is told by the ink's colour, which a cover leaves as it is) rather than the second (the
    other suit of its colour): the fit and the lead over that other suit, judged on the edge that
    leaves the most of the suit in view among those where either of the two fits at least
    COVER_FIT. None when neither fits so, or the first leads the second there by less than
    COVER_GAP.
    """
    best = fit.fits.max(axis=0)
    fitting = np.flatnonzero(best >= COVER_FIT)
    if not len(fitting):
        return None
    which = np.argmax(fit.fits, axis=0)
    shown = fit.shown[which, np.arange(len(which))]
    edge = int(fitting[np.argmax(shown[fitting])])
    lead = float(fit.fits[0, edge] - fit.fits[1, edge])
    if lead < COVER_GAP:
        return None
    return float(fit.fits[0, edge]), lead


# A rank read this plainly (its fit) may have its suit named on the suit's uncovered part.
COVER_RANK: Final = 0.85
# ... when the ink is plainly red for a heart or a diamond (red's share of the ink's colour, past
# the larger of blue's and green's, at least COVER_RED: 0.4 and more on the benchmark's red
# indices) or plainly not for a club or a spade (at most COVER_BLACK: black's stay under 0.05).
COVER_RED: Final = 0.2
COVER_BLACK: Final = 0.1


def covered_match(
    profile: DeckProfile, patch_bgr: ByteImage, feature: IndexFeature, match: IndexMatch, *, lead: int, least: float
) -> IndexMatch | None:
    """The card of a read whose rank is plain but whose suit fits no suit well (the suit partly
    under the next card), named by the suit's uncovered part; None when it cannot be.

    Only a read whose rank fits at least COVER_RANK and whose best rank and suit both lead the
    others by at least ``least`` (the read's margin), and whose ink is plainly of the best
    suit's colour (COVER_RED, COVER_BLACK), is looked at. The suit is the classifier's best when
    the registered glyphs, on the suit's uncovered part, tell it from the other suit of its
    colour (``covered_suit``). The match then fits as its rank does (the suit's uncovered part
    fits at least COVER_FIT).
    """
    rank = int(np.argmax(match.rank_scores))
    suit = int(np.argmax(match.suit_scores))
    rank_fit = float(match.rank_scores[rank])
    if rank_fit < COVER_RANK or match.margin < least:
        return None
    # The colour on its own evidence too: a cut suit can lean the classifier to the other colour
    # (a partly covered spade read as a diamond), the ink's colour does not.
    red = float(feature.chroma[2] - max(feature.chroma[0], feature.chroma[1]))
    if (red < COVER_RED) if SUITS[suit] in "dh" else (red > COVER_BLACK):
        return None
    pair = SUITS[suit] + SUITS[_TWIN[suit]]
    fit = suit_fits(profile, patch_bgr, feature, rank=match.code[0], suits=pair, lead=lead)
    judged = None if fit is None else covered_suit(fit)
    if judged is None:
        return None
    score = min(rank_fit, judged[0])
    suit_scores = np.array(match.suit_scores, dtype=np.float32)
    suit_scores[suit] = max(float(suit_scores[suit]), score)
    return match_scores(match.rank_scores, suit_scores)
