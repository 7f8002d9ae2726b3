"""Corner-index features: the one normalisation shared by deck registration and recognition."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import CARD_PX_H, CARD_PX_W, Box, IndexBox
from vision.frame_line import FrameLine
from vision.index_glyphs import (
    INDEX_WIDTH,
    STACK_GAP,
    cut_at_index,
    glyph_bounds,
    glyph_comps,
    glyph_comps_seen,
    off_frame,
    split_rank_suit,
    stacked,
    union,
)
from vision.ink_blobs import grown_ink

# The normalised index glyph raster (width, height): rank above suit.
RANK_W: Final = 16
RANK_H: Final = 20
SUIT_W: Final = 16
SUIT_H: Final = 16
# Ink thresholds tried in turn, as a share of the paper's brightness (in the sharpened patch).
INK_LEVELS: Final = (0.62, 0.8)
# Past this blur of the suit's edges (sigma, canonical pixels) the ink at the usual level is grown
# to the paler level's blobs (see ink_blobs.grown_ink); a sharp index is whole at the usual level already,
# and grown it can join a court card's pale frame line.
GROW_SOFTNESS: Final = 1.5
# A single glyph row shorter than this share of the registered index is a rank without its suit.
RANK_ALONE: Final = 0.8
# Glyph rows stacked but together shorter than this share of the registered index box may be
# pieces of an index (a rank's lower curve found as a suit: dondorf's blurred 5c, 0.41). Every
# design's registered indices stand 0.79 (standard's) to 0.98 of their box.
SHORT_STACK: Final = 0.6
# Columns cleared beside the card's edge when a suit is cut off a frame line (see ``_frame_cut``).
EDGE_CLEAR: Final = 2
FRAME_INDEX: Final = (0.6, 1.15)

FloatArray = npt.NDArray[np.float32]
# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]


# Weight of the ink colour beside the suit raster's pixels (before whitening, which rescales it).
CHROMA_WEIGHT: Final = 4.0


@dataclass(frozen=True, slots=True)
class IndexFeature:
    """One corner index, normalised: rank and suit glyph rasters (unit vectors) and the ink colour."""

    rank: FloatArray  # RANK_W * RANK_H, zero mean, unit norm
    suit: FloatArray  # SUIT_W * SUIT_H, zero mean, unit norm
    chroma: FloatArray  # ink colour relative to the paper, (b, g, r) summing to 1
    pale: bool = False  # found only at the paler ink level (a soft image): reads need more
    softness: float = 0.0  # the blur of the suit's edges, as a Gaussian sigma in canonical pixels
    trimmed: bool = False  # its suit was cut from ink running on past the index (see cut_at_index)
    framed: bool = False  # its suit was cut from the court picture's frame line (see _frame_cut)
    # Where the rank and the suit were cut out (patch pixels): a suit partly under the next card
    # is matched on its uncovered part from there (``vision.covered_suit``).
    rank_box: Box | None = None
    suit_box: Box | None = None

    def suit_vector(self) -> FloatArray:
        """The suit raster with the ink colour beside it: a blurred heart and diamond differ little in
        shape, a heart and a spade always in colour.
        """
        return np.concatenate([self.suit, CHROMA_WEIGHT * self.chroma]).astype(np.float32)


def _raster(gray: ByteImage, box: Box, paper: float, size: tuple[int, int]) -> FloatArray | None:
    x0, y0, x1, y1 = box
    glyph = cv2.resize(gray[y0:y1, x0:x1].astype(np.float32), size, interpolation=cv2.INTER_AREA)
    vec = np.subtract(paper, glyph, out=glyph).reshape(-1)
    # vec.mean() and np.linalg.norm(vec), spelt out: the same arithmetic (a float32 sum divided in
    # float64, a float32 square root of the dot product) without their per-call overhead, which
    # is most of the cost for these few hundred values.
    vec -= np.float32(float(np.add.reduce(vec)) / vec.size)
    norm = float(np.sqrt(vec.dot(vec)))
    if norm < 1e-3:
        return None
    vec /= norm  # a fresh float32 array: divided in place, the same values as vec / norm
    return vec


def index_feature(
    patch_bgr: ByteImage,
    box: IndexBox,
    *,
    cut: bool = False,
    lead: int = 0,
    frame: FrameLine | None = None,
    pale: bool = True,
    split: float | None = None,
) -> IndexFeature | None:
    """Normalise a search patch (canonical frame, corner at the top left); None when no index is seen.

    With ``cut`` (a read at the table), ink that ran from the index on past its registered right
    edge is cut there when no suit was found under the rank (see ``cut_at_index``). The deck's
    classifier learns without it, so it is the same classifier and a read the cut does not
    touch is the same read.

    ``lead``: the patch starts this many pixels out past the card's corner along both edges (and
    ``box`` is placed so); a piece cut out of a line running on to the border that starts there
    is the card's own edge or corner, never a glyph.

    ``frame`` (with ``cut`` and a ``lead``): where the design's court faces have a picture's frame
    line in the corner (face coordinates; the lead is added here). A rank found without its suit
    is given the suit cut off that line, where the line is seen at that place (see ``_frame_cut``).

    The glyphs are cut out by their own ink bounding box, so a corner found a few pixels off, a
    slightly wrong card scale or a blurred edge still gives the same raster as the registered face.

    Without ``pale`` the paler ink level is not tried alone (see below).

    ``split`` (a read at the table): where the deck's gap between rank and suit lies, a share of the
    index's height (``split_rank_suit``), for glyphs run together. The deck's classifier learns
    without it, as without ``cut``.
    """
    # Ink is whatever absorbs some colour: the darkest channel makes a pale, blurred red stroke
    # as dark as a black one, while white paper stays bright in every channel.
    b, g, r = cv2.split(patch_bgr)
    gray = cv2.min(cv2.min(b, g), r)
    # The paper is judged on the card's own part of the patch: the lead holds felt or the next
    # card, which would move the brightest tenth, and with it the ink level, the glyphs' cut and
    # the ink's colour.
    own = gray[lead:, lead:]
    channels = (b, g, r) if lead <= 0 else (b[lead:, lead:], g[lead:, lead:], r[lead:, lead:])
    k90 = int(0.9 * (own.size - 1))
    paper = float(_kth(own, k90))
    if paper < 40:  # too dark to be the paper of a face-up card
        return None
    # Segment on a sharpened copy: a soft camera leaves thin strokes pale, and an unsharp mask
    # brings them back below the ink threshold without moving them. The raster uses the original.
    soft = _blurred(gray)
    crisp = cv2.addWeighted(gray, 1.8, soft, -0.8, 0)
    # Blur leaves thin strokes (a "5", a "J") pale grey beside a solid suit: a soft index's ink
    # is grown to the paler level's blobs, and when the usual level finds no index at all the
    # paler one alone is tried (a read then needs a closer match).
    strong = _ink(crisp, paper * INK_LEVELS[0])
    frame = frame if cut and lead > 0 else None

    def found_in(ink: ByteImage, comps: list[Box] | None = None) -> IndexFeature | _Glyphs | None:
        return _feature(
            patch_bgr,
            gray,
            ink,
            paper=paper,
            k90=k90,
            box=box,
            channels=channels,
            cut=cut,
            lead=lead,
            frame=frame,
            comps=comps,
            split=split,
        )

    comps, clear = glyph_comps_seen(strong, box, lead=lead, min_area=_min_area(gray))
    first = found_in(strong, comps)
    # A soft index found at the usual level is rastered only when the grown mask finds none: most
    # soft ones are found again there, and the rasters are a fifth of a read.
    blurred = first is not None and first.softness > GROW_SOFTNESS
    feature = None if first is None or blurred else _finished(first)
    if feature is None:
        # The paler level only when it is used (most indices are found crisp at the usual one).
        weak = _ink(crisp, paper * INK_LEVELS[1])
        # Where every blob at the usual level runs on to the patch border (a third of the reads
        # that get here: felt, a back, a card's edge), each lies in a paler blob that does too,
        # and none is grown: the grown mask is the usual one, not worth making.
        grown = grown_ink(strong, weak) if clear else strong
        # A mask the same as one already tried finds nothing new (most corners without an index),
        # and a soft index found again on the same mask would be found the same.
        if grown is not strong and cv2.countNonZero(cv2.absdiff(grown, strong)):
            feature = _finished(found_in(grown))
        if feature is None and blurred:
            feature = _finished(first)
        if feature is None and pale and cv2.countNonZero(cv2.absdiff(weak, grown)):
            feature = _finished(found_in(weak))
            if feature is not None:
                feature = dataclasses.replace(feature, pale=True)
    return feature


@dataclass(frozen=True, slots=True)
class _Glyphs:
    """An index's rank and suit boxes found in one ink mask, with the suit's blur, not yet rastered
    (:func:`_rastered`'s arguments): see :func:`index_feature`.
    """

    patch_bgr: ByteImage
    gray: ByteImage
    ink: ByteImage
    rank_box: Box
    suit_box: Box
    paper: float
    k90: int
    channels: tuple[ByteImage, ByteImage, ByteImage] | None
    trimmed: bool
    softness: float


def _finished(found: IndexFeature | _Glyphs | None) -> IndexFeature | None:
    """The feature of what :func:`_feature` found: its glyphs rastered when they are not yet."""
    if not isinstance(found, _Glyphs):
        return found
    g = found
    return _rastered(
        g.patch_bgr,
        g.gray,
        g.ink,
        g.rank_box,
        g.suit_box,
        paper=g.paper,
        k90=g.k90,
        channels=g.channels,
        trimmed=g.trimmed,
        softness=g.softness,
    )


def _blurred(gray: ByteImage) -> ByteImage:
    """``cv2.GaussianBlur(gray, (5, 5), 1.5)``, the same bytes: OpenCV blurs 8-bit images with a
    fixed-point kernel, exact in both passes and rounded once at the end, so the blur of the
    transposed image is the transposed blur; its rows run the long way along a corner patch
    (taller than wide), where the blur costs two thirds (nicu-ornamental's 115x56: 21 -> 14 us).
    """
    if gray.shape[0] <= gray.shape[1]:
        return cv2.GaussianBlur(gray, (5, 5), 1.5)
    return cv2.transpose(cv2.GaussianBlur(cv2.transpose(gray), (5, 5), 1.5))


def _ink(crisp: ByteImage, level: float) -> ByteImage:
    """``(crisp < level).astype(np.uint8)``: for whole-number pixels, at most the whole number just
    below ``level``, in one OpenCV call in place of numpy's compare and cast (the same 0/1 mask).
    """
    _t, ink = cv2.threshold(crisp, math.ceil(level) - 1, 1, cv2.THRESH_BINARY_INV)
    return ink


def _feature(
    patch_bgr: ByteImage,
    gray: ByteImage,
    ink: ByteImage,
    *,
    paper: float,
    k90: int,
    box: IndexBox,
    channels: tuple[ByteImage, ByteImage, ByteImage] | None = None,
    cut: bool = False,
    lead: int = 0,
    frame: FrameLine | None = None,
    comps: list[Box] | None = None,
    split: float | None = None,
) -> IndexFeature | _Glyphs | None:
    """The index from one ink mask: glyphs cut out and split into rank and suit, rastered by
    :func:`_finished` (an index cut off a court picture's frame line comes rastered).

    ``channels`` are the patch's b, g, r planes when the caller has them already; ``comps`` the
    mask's ``glyph_comps`` when they are found already; ``split`` as :func:`index_feature`'s.
    """
    h, w = gray.shape
    min_area = _min_area(gray)
    if comps is None:
        comps = glyph_comps(ink, box, lead=lead, min_area=min_area)
    expect_h = (box.y1 - box.y0) * CARD_PX_H
    # The frame line in this mask, once: the suit cut off it (_frame_cut) looks for it again.
    seen = frame.seen_in(ink, lead=lead, index_h=expect_h) if frame is not None else None
    if frame is not None:
        comps = off_frame(comps, frame, seen=seen, box=box, lead=lead)
    # The registered index's own width bounds the glyphs joined (a little over it: a look at the
    # table is a few per cent off in scale), never less than a standard index's.
    widest = max(INDEX_WIDTH, 1.15 * (box.x1 - box.x0) * CARD_PX_W)
    seed = (box.x0 * CARD_PX_W, box.y0 * CARD_PX_H)
    cut_out = False

    def bounds(boxes: list[Box]) -> tuple[Box, list[Box]] | None:
        return glyph_bounds(
            boxes, seed=seed, limit=(w, h), max_width=widest, stacked_overlap=True, frame_lines=lead > 0
        )

    found = bounds(comps)
    # Rank and suit stacked but far shorter than an index (SHORT_STACK): the glyphs found may be
    # pieces (a blurred rank run into its suit and the pip beside it, carved off the border:
    # dondorf's 5c, its rank's lower curve a "suit" of its own), the index itself lost with the pip.
    if cut and found is not None and stacked(found[1]) and found[0][3] - found[0][1] < SHORT_STACK * expect_h:
        # Cut at the registered index's right edge, as below: taken only when that makes glyphs as
        # tall as a rank and suit, stacked or run together (split below); most such places hold no
        # index, and the pieces then stand as found.
        trimmed = bounds(comps + cut_at_index(ink, box, min_area))
        if trimmed is not None and trimmed[0][3] - trimmed[0][1] >= RANK_ALONE * expect_h:
            found, cut_out = trimmed, True
    elif cut and (found is None or (not stacked(found[1]) and found[0][3] - found[0][1] < RANK_ALONE * expect_h)):
        # No suit under the rank (a rank alone, not rank and suit run together, which is as tall
        # as the index): a blurred suit can run into a pip or a picture beside the index
        # (dondorf's 8c and 9c), and the two, joined to the patch border, were dropped. Cut at the
        # registered index's right edge, the part of such a blob on the index's side is the suit.
        pieces = cut_at_index(ink, box, min_area)
        trimmed = bounds(comps + pieces)
        whole = trimmed is not None and stacked(trimmed[1])
        # Blurred, the rank can run into the suit too, and the whole index with the pip is one blob
        # (dondorf table 11006's fanned 8c): one piece cut off that runs from the glyphs' top for 0.8
        # of the index's height is rank and suit run together (split below), taken after a court
        # card's frame cut. A piece starting under the rank's top (a suit joined to a picture) is not.
        together = (
            trimmed is not None
            and not whole
            and any(
                piece in trimmed[1] and piece[1] <= trimmed[0][1] and piece[3] - piece[1] >= RANK_ALONE * expect_h
                for piece in pieces
            )
        )
        if whole and trimmed is not None:
            found, cut_out = trimmed, True
        elif seen is not None and found is not None:
            framed = _frame_cut(
                patch_bgr,
                gray,
                ink,
                rank=found[0],
                paper=paper,
                k90=k90,
                box=box,
                channels=channels,
                lead=lead,
                line=seen,
            )
            if framed is not None:
                return framed
        if together and trimmed is not None:
            found, cut_out = trimmed, True
    if found is None:
        return None
    (x0, y0, x1, y1), joined = found
    if (y1 - y0) < 0.45 * expect_h or (x1 - x0) < 2:
        return None
    # Blobs that overlap vertically form a row; the last row is the suit, the rows above it the
    # rank (a "10" is two blobs side by side; a suit drawn in pieces is one row).
    rows: list[list[Box]] = []
    for c in joined:
        if rows and c[1] <= max(r[3] for r in rows[-1]):
            rows[-1].append(c)
        else:
            rows.append([c])
    if len(rows) >= 2:
        suit_box = union(rows[-1])
        rank_box = union([c for row in rows[:-1] for c in row])
    else:
        # A soft camera runs rank and suit into one blob: cut it where the least ink crosses.
        split_boxes = split_rank_suit(ink, (x0, y0, x1, y1), share=split)
        if split_boxes is None:
            return None
        rank_box, suit_box = split_boxes
    return _Glyphs(
        patch_bgr,
        gray,
        ink,
        rank_box,
        suit_box,
        paper=paper,
        k90=k90,
        channels=channels,
        trimmed=cut_out,
        softness=_softness(gray, suit_box, paper),
    )


def _rastered(
    patch_bgr: ByteImage,
    gray: ByteImage,
    ink: ByteImage,
    rank_box: Box,
    suit_box: Box,
    *,
    paper: float,
    k90: int,
    channels: tuple[ByteImage, ByteImage, ByteImage] | None,
    trimmed: bool = False,
    framed: bool = False,
    softness: float | None = None,
) -> IndexFeature | None:
    """The feature of an index whose rank and suit boxes are found: glyph rasters, ink colour, blur
    (``softness``, when known already).
    """
    rank = _raster(gray, rank_box, paper, (RANK_W, RANK_H))
    suit = _raster(gray, suit_box, paper, (SUIT_W, SUIT_H))
    if rank is None or suit is None:
        return None
    # Colour from the ink's core only: blurred stroke edges are a mix of ink and paper.
    sx0, sy0, sx1, sy1 = suit_box
    suit_bgr = patch_bgr[sy0:sy1, sx0:sx1]
    # ``gray < paper * 0.45`` for whole-number pixels, as _ink's mask (0/255 here).
    core = cv2.threshold(gray[sy0:sy1, sx0:sx1], math.ceil(paper * 0.45) - 1, 255, cv2.THRESH_BINARY_INV)[1]
    n = cv2.countNonZero(core)
    if not n:  # no dark core at all: the whole ink mask
        core = ink[sy0:sy1, sx0:sx1]
        n = cv2.countNonZero(core)
    # Each channel's k90-th value, from its own plane: cheaper than counting down the columns of
    # the interleaved pixels, the same values.
    paper_bgr = np.array([_kth(c, k90) for c in channels or cv2.split(patch_bgr)], np.float32) + 1.0
    # Ink colour as the fraction of light each channel lets through, so a warm or cold light
    # (which tints the paper the same way) cancels out.
    if n:
        # The float32 mean of the pixels: their sum is a whole number below 2**24, exact in float32
        # in any order (and in OpenCV's float64 sums of the masked pixels, which cost a third of
        # numpy's gather), so divided in float64 it is the same float32 mean.
        sums = cv2.sumElems(cv2.bitwise_and(suit_bgr, suit_bgr, mask=core))
        mean = (np.array(sums[:3]) / n).astype(np.float32)
        rel = (mean + 1.0) / paper_bgr
    else:
        rel = np.ones(3, np.float32)
    chroma = np.asarray(rel / float(np.add.reduce(rel)), dtype=np.float32)
    if softness is None:
        softness = _softness(gray, suit_box, paper)
    return IndexFeature(
        rank=rank,
        suit=suit,
        chroma=chroma,
        softness=softness,
        trimmed=trimmed or framed,
        framed=framed,
        rank_box=rank_box,
        suit_box=suit_box,
    )


def _frame_cut(
    patch_bgr: ByteImage,
    gray: ByteImage,
    ink: ByteImage,
    *,
    rank: Box,
    paper: float,
    k90: int,
    box: IndexBox,
    channels: tuple[ByteImage, ByteImage, ByteImage] | None,
    lead: int,
    line: tuple[int, int, int],
) -> IndexFeature | None:
    """The index of a rank found alone, its suit cut off the court picture's frame line
    (``line``: as ``FrameLine.seen_in`` found it in ``ink``).

    Where a design's court faces run their picture's frame line down through the index box a few
    pixels right of the suit (standard's), blur joins the suit to it, and the line, running on
    to the patch border, takes the suit with it. Only where the ink has such a line at the place
    the registered faces have theirs (as tall, as thin, starting as high) are its columns taken
    out; the rank found is given the blob then found under it as its suit, when the two stand as
    tall as the registered index. The feature is marked
    ``framed`` (a read must name a card whose face has the line: ``match_index``) and
    ``trimmed`` (unread, it proves nothing).
    """
    expect_h = (box.y1 - box.y0) * CARD_PX_H
    x0, x1, top = line
    cleared = ink.copy()
    cleared[top:, max(x0 - 1, 0) : x1 + 1] = 0  # with the blurred edge columns beside the line
    # And the card's own edge: the index is inset from it on every design, but blur joins a suit
    # printed close to it (standard's, 2 px in), and the edge too runs on to the border.
    cleared[:, : lead + EDGE_CLEAR] = 0
    comps = glyph_comps(cleared, box, lead=lead, min_area=_min_area(ink))
    # The suit: the blobs under the rank, in its columns, within a glyph gap; the nearest row.
    under = [c for c in comps if rank[3] <= c[1] <= rank[3] + STACK_GAP and c[0] < rank[2] and c[2] > rank[0]]
    if under:
        first = min(under, key=lambda c: c[1])
        suit_box = union([c for c in under if c[1] < first[3]])
    else:
        # Freed from the line and the edge, the suit may still be joined to the rank (a Q's
        # tail): the blob holding the rank and reaching on below it is cut where the least ink
        # crosses, as a soft index's rank and suit run together are.
        held = [c for c in comps if c[1] <= rank[1] + 2 and c[3] > rank[3] and c[0] < rank[2] and c[2] > rank[0]]
        split = split_rank_suit(cleared, held[0]) if len(held) == 1 else None
        if split is None:
            return None
        rank, suit_box = split
    # Rank and suit together about as tall as the registered index (the box holds every face's,
    # the tallest): a suit, not a scrap of the line or a pip below.
    if not FRAME_INDEX[0] * expect_h <= suit_box[3] - rank[1] <= FRAME_INDEX[1] * expect_h:
        return None
    return _rastered(patch_bgr, gray, cleared, rank, suit_box, paper=paper, k90=k90, channels=channels, framed=True)


def _min_area(patch: ByteImage) -> int:
    """The least area (pixels) of a blob that may be a glyph in a patch of this size."""
    h, w = patch.shape[:2]
    return max(3, int(w * h) // 400)


def _kth(values: ByteImage, k: int) -> int:
    """The k-th smallest (from 0) of an 8-bit image's values (a plane or a view of one).

    Whichever way costs least at the size: a copy partitioned in place up to ``_PARTITIONED``
    pixels (the softness' suit region on kennard, ~350 pixels: 1.7-2.8 us, a count 3.3); counted
    by numpy's bincount up to ``_COUNTED_BY_NUMPY`` (kennard's corner patch, 67x36: 6.3 us, the
    partition 8.6, cv2.calcHist 8.3); above, OpenCV's histogram, which reads a view in place where
    numpy copies it and widens every value (nicu-ornamental's 115x56: 12 -> 8 us). A count's value
    is the first whose running count passes ``k``: the partition's.
    """
    if values.size <= _PARTITIONED:
        flat = values.flatten()
        flat.partition(k)
        return int(flat[k])
    if values.size > _COUNTED_BY_NUMPY:
        hist = cv2.calcHist([values], [0], None, [256], [0, 256]).reshape(-1)
        return int(hist.cumsum().searchsorted(k + 1))
    return int(np.bincount(values.ravel(), minlength=256).cumsum().searchsorted(k + 1))


# Where the ways in _kth cost the same (CPU): suit regions of the speed frames' reads, 600-1000
# pixels partition 2.4 us, bincount 3.9; 1000-1600 pixels 5.9 and 5.0. Random planes (views of a
# larger image): 1600 pixels bincount 5.2 us, calcHist 6.0; 3200 pixels 7.0 and 6.4.
_PARTITIONED: Final = 1000
_COUNTED_BY_NUMPY: Final = 2400


def _softness(gray: ByteImage, box: Box, paper: float) -> float:
    """How blurred the suit's edges are, as the sigma (canonical pixels) of a Gaussian blur.

    A suit is a solid glyph: across its edge a blur of sigma spreads the ink-to-paper contrast C
    so that the steepest slope is C / (sigma * sqrt(2 pi)).
    """
    h, w = gray.shape
    x0, y0, x1, y1 = max(box[0] - 2, 0), max(box[1] - 2, 0), min(box[2] + 2, w), min(box[3] + 2, h)
    region = gray[y0:y1, x0:x1]
    if region.shape[0] < 3 or region.shape[1] < 3:
        return 0.0
    # The 3x3 Sobel derivatives in one call: whole numbers, so the same as a float Sobel's.
    gx, gy = cv2.spatialGradient(region)
    # The quantile of the squared slopes, exact in integers, then one square root: the same frame
    # gives the same softness on every run (cv2.magnitude's float32 result depends on where its
    # input lies in memory, so a read at a bar could go either way between two runs). Squared and
    # summed in place, and partitioned in place: the array is the call's own.
    slopes = gx.astype(np.int32)
    slopes *= slopes
    gy32 = gy.astype(np.int32)
    gy32 *= gy32
    slopes += gy32
    flat = slopes.reshape(-1)
    k = int(0.99 * (flat.size - 1))
    flat.partition(k)
    slope = math.sqrt(float(flat[k])) / 8.0  # Sobel weighs 8
    # The 3 % quantile of the region's 8-bit values is its k-th smallest: counted, not partitioned.
    contrast = paper - _kth(region, int(0.03 * (region.size - 1)))
    return contrast / (math.sqrt(2.0 * math.pi) * max(slope, 1e-3))
