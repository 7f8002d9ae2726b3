"""Corner-index features: the one normalisation shared by deck registration and recognition."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.frame_line import FRAME_SLACK, FrameLine
from vision.ink_blobs import SQUARE_3, border_cut, edge_piece, grown_ink

# Canonical card raster: every stored face and every read works in this frame (short side x).
CARD_PX_W: Final = 160
CARD_PX_H: Final = 224
# How far past the registered index box the search patch reaches, as a fraction of the card.
SEARCH_MARGIN: Final = 0.05
# The normalised index glyph raster (width, height): rank above suit.
RANK_W: Final = 16
RANK_H: Final = 20
SUIT_W: Final = 16
SUIT_H: Final = 16
# An ink blob at most this wide (share of the card width) and shorter than this share of the
# index box is a sliver of a hairline, not a glyph (a glyph's thinnest part, the "1" of a "10",
# is tall).
SLIVER_WIDTH: Final = 0.02
SLIVER_HEIGHT: Final = 0.25
# Ink thresholds tried in turn, as a share of the paper's brightness (in the sharpened patch).
INK_LEVELS: Final = (0.62, 0.8)
# Past this blur of the suit's edges (sigma, canonical pixels) the ink at the usual level is grown
# to the paler level's blobs (see ink_blobs.grown_ink); a sharp index is whole at the usual level already,
# and grown it can join a court card's pale frame line.
GROW_SOFTNESS: Final = 1.5
# A single glyph row shorter than this share of the registered index is a rank without its suit.
RANK_ALONE: Final = 0.8
# A blob at least this many times taller than wide, right of an index's glyphs, is a frame line.
FRAME_TALL: Final = 4.0
# Columns cleared beside the card's edge when a suit is cut off a frame line (see ``_frame_cut``).
EDGE_CLEAR: Final = 2
FRAME_INDEX: Final = (0.6, 1.15)

FloatArray = npt.NDArray[np.float32]
# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class IndexBox:
    """Where the rank and suit sit in the top-left corner, as fractions of card width and height."""

    x0: float
    y0: float
    x1: float
    y1: float

    def search_size(self) -> tuple[int, int]:
        """Pixel size (w, h) of the search patch in the canonical card raster."""
        w = round((self.x1 + SEARCH_MARGIN) * CARD_PX_W)
        h = round((self.y1 + SEARCH_MARGIN) * CARD_PX_H)
        return max(w, 8), max(h, 8)


Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)


# glyph_bounds' distances in canonical pixels: how near the seed the first blob lies, how far
# beside and below what is joined so far a blob may start, and how wide an index can be.
_SEED_DX: Final = 0.06 * CARD_PX_W * 1.5
_SEED_DY: Final = 0.07 * CARD_PX_H
_SIDE_SLACK: Final = 0.03 * CARD_PX_W
_STACK_GAP: Final = 0.06 * CARD_PX_H
_INDEX_WIDTH: Final = 0.2 * CARD_PX_W


def glyph_bounds(
    comps: list[Box],
    *,
    seed: tuple[float, float],
    limit: tuple[int, int],
    max_width: float = _INDEX_WIDTH,
    stacked_overlap: bool = False,
    frame_lines: bool = False,
) -> tuple[Box, list[Box]] | None:
    """Bounds of the index: the ink blob nearest ``seed`` plus the blobs stacked with it.

    Rank and suit sit one above the other (a "10" side by side), so blobs are joined while they
    share columns with what is joined so far and the vertical gap stays small; artwork beside the
    index shares no columns and is left out. With ``stacked_overlap`` a blob above or below what
    is joined (no rows in common) must share real columns with it, not only come within the side
    slack: a suit lies under its rank, where a pip or picture a few pixels to the side of the
    index's column, which a patch cut a little off the card's corner brings within the slack,
    does not. With ``frame_lines`` a tall thin blob beside what is joined, to its right and
    sharing no real columns with it, is not joined: a court picture's frame line running down
    beside the index, broken by the blur (no glyph right of the rank's first is a bar).
    """
    sx, sy = seed
    near = [c for c in comps if abs(c[0] - sx) < _SEED_DX and abs(c[1] - sy) < _SEED_DY]
    if not near:
        return None
    start = min(near, key=lambda c: abs(c[0] - sx) + abs(c[1] - sy))
    x0, y0, x1, y1 = start
    joined = {start}
    grew = True
    while grew:
        grew = False
        for c in comps:
            if c in joined:
                continue
            gap = max(c[1] - y1, y0 - c[3], 0)
            slack = 0.0 if stacked_overlap and (c[1] >= y1 or c[3] <= y0) else _SIDE_SLACK
            shares_columns = c[0] < x1 + slack and c[2] > x0 - slack
            if frame_lines and c[0] >= x1 and c[3] - c[1] >= FRAME_TALL * (c[2] - c[0]):
                continue
            if shares_columns and gap <= _STACK_GAP and c[2] - x0 < max_width:
                joined.add(c)
                x0, y0, x1, y1 = min(x0, c[0]), min(y0, c[1]), max(x1, c[2]), max(y1, c[3])
                grew = True
    if x1 > limit[0] or y1 > limit[1]:
        return None
    return (x0, y0, x1, y1), sorted(joined, key=lambda c: c[1])


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
    trimmed: bool = False  # its suit was cut from ink running on past the index (see _cut_at_index)
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


def _union(boxes: list[Box]) -> Box:
    x0, y0, x1, y1 = boxes[0]
    for c in boxes[1:]:  # one loop, not four generators: these lists hold a box or two
        x0, y0, x1, y1 = min(x0, c[0]), min(y0, c[1]), max(x1, c[2]), max(y1, c[3])
    return x0, y0, x1, y1


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


def _split_rank_suit(ink: ByteImage, box: Box) -> tuple[Box, Box] | None:
    """Rank and suit boxes of an index whose glyphs ran together: the row of least ink in the
    middle of the blob is the gap between them; each part is then trimmed to its own ink.
    """
    x0, y0, x1, y1 = box
    h = y1 - y0
    if h < 6:
        return None
    profile = ink[y0:y1, x0:x1].sum(axis=1).astype(np.float32)
    lo, hi = int(0.35 * h), int(0.7 * h)
    if hi <= lo:
        return None
    cut = y0 + lo + int(np.argmin(profile[lo:hi]))
    parts = []
    for top, bottom in ((y0, cut), (cut + 1, y1)):
        sub = ink[top:bottom, x0:x1]
        ys, xs = np.nonzero(sub)
        if len(ys) < 3:
            return None
        parts.append((x0 + int(xs.min()), top + int(ys.min()), x0 + int(xs.max()) + 1, top + int(ys.max()) + 1))
    return parts[0], parts[1]


def index_feature(
    patch_bgr: ByteImage,
    box: IndexBox,
    *,
    cut: bool = False,
    lead: int = 0,
    frame: FrameLine | None = None,
    pale: bool = True,
) -> IndexFeature | None:
    """Normalise a search patch (canonical frame, corner at the top left); None when no index is seen.

    With ``cut`` (a read at the table), ink that ran from the index on past its registered right
    edge is cut there when no suit was found under the rank (see ``_cut_at_index``). The deck's
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
    """
    # Ink is whatever absorbs some colour: the darkest channel makes a pale, blurred red stroke
    # as dark as a black one, while white paper stays bright in every channel.
    b, g, r = cv2.split(patch_bgr)
    gray = cv2.min(cv2.min(b, g), r)
    # The paper is judged on the card's own part of the patch: the lead holds felt or the next
    # card, which would move the brightest tenth, and with it the ink level, the glyphs' cut and
    # the ink's colour.
    flat = gray[lead:, lead:].flatten()  # a copy, partitioned in place (np.partition's wrapper costs as much)
    channels = (b, g, r) if lead <= 0 else (b[lead:, lead:], g[lead:, lead:], r[lead:, lead:])
    k90 = int(0.9 * (flat.size - 1))
    flat.partition(k90)
    paper = float(flat[k90])
    if paper < 40:  # too dark to be the paper of a face-up card
        return None
    # Segment on a sharpened copy: a soft camera leaves thin strokes pale, and an unsharp mask
    # brings them back below the ink threshold without moving them. The raster uses the original.
    soft = cv2.GaussianBlur(gray, (5, 5), 1.5)
    crisp = cv2.addWeighted(gray, 1.8, soft, -0.8, 0)
    # Blur leaves thin strokes (a "5", a "J") pale grey beside a solid suit: a soft index's ink
    # is grown to the paler level's blobs, and when the usual level finds no index at all the
    # paler one alone is tried (a read then needs a closer match).
    strong = _ink(crisp, paper * INK_LEVELS[0])
    frame = frame if cut and lead > 0 else None

    def found_in(ink: ByteImage) -> IndexFeature | _Glyphs | None:
        return _feature(
            patch_bgr, gray, ink, paper=paper, k90=k90, box=box, channels=channels, cut=cut, lead=lead, frame=frame
        )

    first = found_in(strong)
    # A soft index found at the usual level is rastered only when the grown mask finds none: most
    # soft ones are found again there, and the rasters are a fifth of a read.
    blurred = first is not None and first.softness > GROW_SOFTNESS
    feature = None if first is None or blurred else _finished(first)
    if feature is None:
        # The paler level only when it is used (most indices are found crisp at the usual one).
        weak = _ink(crisp, paper * INK_LEVELS[1])
        grown = grown_ink(strong, weak)
        # A mask the same as one already tried finds nothing new (most corners without an index),
        # and a soft index found again on the same mask would be found the same.
        if cv2.countNonZero(cv2.absdiff(grown, strong)):
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
) -> IndexFeature | _Glyphs | None:
    """The index from one ink mask: glyphs cut out and split into rank and suit, rastered by
    :func:`_finished` (an index cut off a court picture's frame line comes rastered).

    ``channels`` are the patch's b, g, r planes when the caller has them already.
    """
    h, w = gray.shape
    min_area = max(3, (w * h) // 400)
    comps = _glyph_comps(ink, box, lead=lead, min_area=min_area)
    expect_h = (box.y1 - box.y0) * CARD_PX_H
    if frame is not None:
        comps = _off_frame(comps, ink, frame, box=box, lead=lead, index_h=expect_h)
    # The registered index's own width bounds the glyphs joined (a little over it: a look at the
    # table is a few per cent off in scale), never less than a standard index's.
    widest = max(_INDEX_WIDTH, 1.15 * (box.x1 - box.x0) * CARD_PX_W)
    seed = (box.x0 * CARD_PX_W, box.y0 * CARD_PX_H)
    cut_out = False
    found = glyph_bounds(comps, seed=seed, limit=(w, h), max_width=widest, stacked_overlap=True, frame_lines=lead > 0)
    if cut and (found is None or (not _stacked(found[1]) and found[0][3] - found[0][1] < RANK_ALONE * expect_h)):
        # No suit under the rank (a rank alone, not rank and suit run together, which is as tall
        # as the index): a blurred suit can run into a pip or a picture beside the index
        # (dondorf's 8c and 9c), and the two, joined to the patch border, were dropped. Cut at the
        # registered index's right edge, the part of such a blob on the index's side is the suit.
        trimmed = glyph_bounds(
            comps + _cut_at_index(ink, box, min_area),
            seed=seed,
            limit=(w, h),
            max_width=widest,
            stacked_overlap=True,
            frame_lines=lead > 0,
        )
        if trimmed is not None and _stacked(trimmed[1]):
            found, cut_out = trimmed, True
        elif frame is not None and found is not None:
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
                frame=frame,
            )
            if framed is not None:
                return framed
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
        suit_box = _union(rows[-1])
        rank_box = _union([c for row in rows[:-1] for c in row])
    else:
        # A soft camera runs rank and suit into one blob: cut it where the least ink crosses.
        split = _split_rank_suit(ink, (x0, y0, x1, y1))
        if split is None:
            return None
        rank_box, suit_box = split
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
    region = patch_bgr[sy0:sy1, sx0:sx1][gray[sy0:sy1, sx0:sx1] < paper * 0.45]  # (n, 3), in row order
    if not len(region):  # no dark core at all: the whole ink mask
        region = patch_bgr[sy0:sy1, sx0:sx1][ink[sy0:sy1, sx0:sx1].astype(bool)]
    # Each channel's k90-th value, from its own (contiguous) plane: cheaper than partitioning down
    # the columns of the interleaved pixels, the same values.
    paper_bgr = np.array([_kth(c, k90) for c in channels or cv2.split(patch_bgr)], np.float32) + 1.0
    # Ink colour as the fraction of light each channel lets through, so a warm or cold light
    # (which tints the paper the same way) cancels out.
    if len(region):
        # The float32 mean of the pixels: their sum is a whole number below 2**24, exact in float32
        # in any order, so summed as integers and divided in float64 it is the same float32 mean.
        mean = (np.add.reduce(region, axis=0, dtype=np.int64) / len(region)).astype(np.float32)
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
    frame: FrameLine,
) -> IndexFeature | None:
    """The index of a rank found alone, its suit cut off the court picture's frame line.

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
    line = frame.seen_in(ink, lead=lead, index_h=expect_h)
    if line is None:
        return None
    x0, x1, top = line
    cleared = ink.copy()
    cleared[top:, max(x0 - 1, 0) : x1 + 1] = 0  # with the blurred edge columns beside the line
    # And the card's own edge: the index is inset from it on every design, but blur joins a suit
    # printed close to it (standard's, 2 px in), and the edge too runs on to the border.
    cleared[:, : lead + EDGE_CLEAR] = 0
    h, w = ink.shape
    comps = _glyph_comps(cleared, box, lead=lead, min_area=max(3, (w * h) // 400))
    # The suit: the blobs under the rank, in its columns, within a glyph gap; the nearest row.
    under = [c for c in comps if rank[3] <= c[1] <= rank[3] + _STACK_GAP and c[0] < rank[2] and c[2] > rank[0]]
    if under:
        first = min(under, key=lambda c: c[1])
        suit_box = _union([c for c in under if c[1] < first[3]])
    else:
        # Freed from the line and the edge, the suit may still be joined to the rank (a Q's
        # tail): the blob holding the rank and reaching on below it is cut where the least ink
        # crosses, as a soft index's rank and suit run together are.
        held = [c for c in comps if c[1] <= rank[1] + 2 and c[3] > rank[3] and c[0] < rank[2] and c[2] > rank[0]]
        split = _split_rank_suit(cleared, held[0]) if len(held) == 1 else None
        if split is None:
            return None
        rank, suit_box = split
    # Rank and suit together about as tall as the registered index (the box holds every face's,
    # the tallest): a suit, not a scrap of the line or a pip below.
    if not FRAME_INDEX[0] * expect_h <= suit_box[3] - rank[1] <= FRAME_INDEX[1] * expect_h:
        return None
    return _rastered(patch_bgr, gray, cleared, rank, suit_box, paper=paper, k90=k90, channels=channels, framed=True)


def _off_frame(
    comps: list[Box], ink: ByteImage, frame: FrameLine, *, box: IndexBox, lead: int, index_h: float
) -> list[Box]:
    """The blobs that are not the face's frame: the blobs starting at or right of the design's
    frame line, no higher than its top, are the frame's or the picture's inside it, never the
    index's. Where the line is seen in the ink at its registered place, from its left edge as
    seen; elsewhere (blur and noise break a thin line, or the face has none) from its registered
    place, but not before the registered index box ends (every registered glyph lies left of it).

    The frame's corner, where its top and its side meet, is thicker than either line: the border
    opening (``ink_blobs.hairlines_cut``) cuts it loose as a blob of its own, which, level with
    the rank's foot and within a glyph's reach, was joined to the rank (hershey's Ah read as a 4h).
    """
    line = frame.seen_in(ink, lead=lead, index_h=index_h)
    if line is not None:
        x_from, top = line[0] - 1, line[2]
    else:
        x_from, top = max(frame.x0 + lead, math.ceil(box.x1 * CARD_PX_W)) - 1, frame.y0 + lead
    return [c for c in comps if c[0] < x_from or c[1] < top - FRAME_SLACK]


def _glyph_comps(ink: ByteImage, box: IndexBox, *, lead: int, min_area: int) -> list[Box]:
    """The ink mask's blobs that may be glyphs: clear of the patch border, no hairline sliver, no
    piece of the card's edge (see ``ink_blobs.edge_piece``).
    """
    h, w = ink.shape
    # 16-bit labels (a patch has far fewer than 65536 blobs): the same blobs, half the label memory
    # to write, which is a third of the call's time at this size.
    count, labels, stats, _centroids = cv2.connectedComponentsWithStats(ink, connectivity=8, ltype=cv2.CV_16U)
    stats, carved = border_cut(ink, labels, stats[:count], min_area=min_area)
    count = len(stats)
    # Touching the patch border means felt, a neighbour's edge or artwork running on past the
    # index: none of it is part of the index.
    # Short slivers at the index's right edge are the pieces a blurred hairline (an artwork frame
    # beside the index) breaks into at the ink level; stacked under the suit they would pass for
    # a row of the index. (Further left, slivers are a thin glyph's broken strokes: kept.)
    sliver_w, sliver_h = SLIVER_WIDTH * CARD_PX_W, SLIVER_HEIGHT * (box.y1 - box.y0) * CARD_PX_H
    sliver_x = (box.x0 + 0.75 * (box.x1 - box.x0)) * CARD_PX_W
    # Plain ints: indexing numpy rows one value at a time costs more than the whole filter.
    return [
        (s[0], s[1], s[0] + s[2], s[1] + s[3])
        for i, s in enumerate(stats[1:count].tolist(), 1)
        if s[4] >= min_area
        and s[0] > 0
        and s[1] > 0
        and s[0] + s[2] < w
        and s[1] + s[3] < h
        and not (s[2] <= sliver_w and s[3] < sliver_h and s[0] >= sliver_x)
        and not edge_piece(s, carved=i >= carved, lead=lead, thin=sliver_w, short=sliver_h)
    ]


def _stacked(joined: list[Box]) -> bool:
    """Whether glyph boxes (top to bottom) lie in more than one row: a rank above a suit.

    Rows as :func:`_feature` makes them: a box starting below every box above it starts a row. (A
    glyph broken in pieces, a blurred K whose arm was carved off the card's edge, has a small
    piece first: below that piece is not below the glyph.)
    """
    bottom = joined[0][3]
    for c in joined[1:]:
        if c[1] > bottom:
            return True
        bottom = max(bottom, c[3])
    return False


def _cut_at_index(ink: ByteImage, box: IndexBox, min_area: int) -> list[Box]:
    """Ink blobs cut at the registered index's right edge that ran on past it to the patch's right
    border (and touch no other border): each one's part on the index's side.
    """
    h, w = ink.shape
    edge = min(w - 1, math.ceil(box.x1 * CARD_PX_W) + 1)
    # Opened as hairlines_cut opens a blob on the border: a blurred suit's tip can touch the rank.
    part = cv2.morphologyEx(np.ascontiguousarray(ink[:, :edge]), cv2.MORPH_OPEN, SQUARE_3)
    count, _labels, stats, _c = cv2.connectedComponentsWithStats(part, connectivity=8, ltype=cv2.CV_16U)
    return [
        (s[0], s[1], s[0] + s[2], s[1] + s[3])
        for s in stats[1:count].tolist()
        if s[4] >= min_area and s[0] > 0 and s[1] > 0 and s[1] + s[3] < h and s[0] + s[2] == edge
    ]


def _kth(values: ByteImage, k: int) -> int:
    """The k-th smallest of an 8-bit image's values."""
    flat = values.flatten()  # a copy, partitioned in place (np.partition's wrapper costs as much)
    flat.partition(k)
    return int(flat[k])


def _quantile(values: ByteImage, q: float) -> float:
    """The ``q`` quantile (nearest rank) of an array: np.percentile costs more than a read's glyphs."""
    flat = values.flatten()  # a copy, partitioned in place (np.partition's wrapper costs as much)
    k = int(q * (flat.size - 1))
    flat.partition(k)
    return float(flat[k])


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
    # input lies in memory, so a read at a bar could go either way between two runs).
    gx32, gy32 = gx.astype(np.int32), gy.astype(np.int32)
    slope = math.sqrt(_quantile(gx32 * gx32 + gy32 * gy32, 0.99)) / 8.0  # Sobel weighs 8
    contrast = paper - _quantile(region, 0.03)
    return contrast / (math.sqrt(2.0 * math.pi) * max(slope, 1e-3))
