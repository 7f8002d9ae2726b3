"""Which ink blobs of an index corner's patch are the index's glyphs: rows, reach, and the cuts at
the index's edge and off the face's frame."""

from __future__ import annotations

import math
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import CARD_PX_H, CARD_PX_W, Box, IndexBox
from vision.frame_line import FRAME_SLACK, FrameLine
from vision.ink_blobs import SQUARE_3, border_cut, edge_piece

# 8-bit images (single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]

# An ink blob at most this wide (share of the card width) and shorter than this share of the
# index box is a sliver of a hairline, not a glyph (a glyph's thinnest part, the "1" of a "10",
# is tall).
SLIVER_WIDTH: Final = 0.02
SLIVER_HEIGHT: Final = 0.25
# A blob at least this many times taller than wide, right of an index's glyphs, is a frame line.
FRAME_TALL: Final = 4.0
# glyph_bounds' distances in canonical pixels: how near the seed the first blob lies, how far
# beside and below what is joined so far a blob may start, and how wide an index can be.
_SEED_DX: Final = 0.06 * CARD_PX_W * 1.5
_SEED_DY: Final = 0.07 * CARD_PX_H
_SIDE_SLACK: Final = 0.03 * CARD_PX_W
STACK_GAP: Final = 0.06 * CARD_PX_H
INDEX_WIDTH: Final = 0.2 * CARD_PX_W


def glyph_bounds(
    comps: list[Box],
    *,
    seed: tuple[float, float],
    limit: tuple[int, int],
    max_width: float = INDEX_WIDTH,
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
    # Plain loops and comparisons over the few boxes (the builtins' calls cost more than the
    # tests), considering the boxes in the same order: the same start (the first of the nearest),
    # the same boxes joined in the same turn, the same set.
    start = None
    nearest = 0.0
    for c in comps:
        dx, dy = abs(c[0] - sx), abs(c[1] - sy)
        if dx < _SEED_DX and dy < _SEED_DY and (start is None or dx + dy < nearest):
            start, nearest = c, dx + dy
    if start is None:
        return None
    x0, y0, x1, y1 = start
    joined = {start}
    # The boxes not joined yet, in order: a pass over them is a pass over all, skipping the joined.
    rest = [c for c in comps if c != start]
    grew = True
    while grew and rest:
        grew = False
        left = []
        for c in rest:
            if c in joined:  # (a box listed twice, joined earlier in this pass)
                continue
            cx0, cy0, cx1, cy1 = c
            gap = cy0 - y1 if cy0 - y1 > y0 - cy1 else y0 - cy1  # (below 0, rows shared: passes as 0)
            slack = 0.0 if stacked_overlap and (cy0 >= y1 or cy1 <= y0) else _SIDE_SLACK
            if frame_lines and cx0 >= x1 and cy1 - cy0 >= FRAME_TALL * (cx1 - cx0):
                left.append(c)
            elif cx0 < x1 + slack and cx1 > x0 - slack and gap <= STACK_GAP and cx1 - x0 < max_width:
                joined.add(c)
                x0, y0 = (cx0 if cx0 < x0 else x0), (cy0 if cy0 < y0 else y0)
                x1, y1 = (cx1 if cx1 > x1 else x1), (cy1 if cy1 > y1 else y1)
                grew = True
            else:
                left.append(c)
        rest = left
    if x1 > limit[0] or y1 > limit[1]:
        return None
    return (x0, y0, x1, y1), sorted(joined, key=lambda c: c[1])


def union(boxes: list[Box]) -> Box:
    x0, y0, x1, y1 = boxes[0]
    for c in boxes[1:]:  # one loop, not four generators: these lists hold a box or two
        x0, y0, x1, y1 = min(x0, c[0]), min(y0, c[1]), max(x1, c[2]), max(y1, c[3])
    return x0, y0, x1, y1


# How far (a share of the index's height) from the deck's own gap between rank and suit a split
# of glyphs run together is looked for: a deck's faces lie within 0.03 of their median, and a
# blurred look moves the glyphs' ends a little.
SPLIT_NEAR: Final = 0.12


def split_rank_suit(ink: ByteImage, box: Box, *, share: float | None = None) -> tuple[Box, Box] | None:
    """Rank and suit boxes of an index whose glyphs ran together: the row of least ink in the
    middle of the blob is the gap between them; each part is then trimmed to its own ink.

    ``share``: where the deck's own gap lies (a share of the index's height, see
    ``DeckProfile.rank_share``); a row of least ink further than SPLIT_NEAR from it is looked for
    again within SPLIT_NEAR of it: a rank's own waist can hold less ink than a gap its blurred
    foot crossed (dondorf's 9c, fanned: the 9's waist at 0.39, the gap at 0.6).
    """
    x0, y0, x1, y1 = box
    h = y1 - y0
    if h < 6:
        return None
    # Row sums of a 0/1 mask in one OpenCV call: whole numbers, the same float32 profile.
    profile = cv2.reduce(ink[y0:y1, x0:x1], 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S).reshape(-1).astype(np.float32)
    lo, hi = int(0.35 * h), int(0.7 * h)
    if hi <= lo:
        return None
    cut = y0 + lo + int(np.argmin(profile[lo:hi]))
    if share is not None and abs((cut - y0 + 0.5) / h - share) > SPLIT_NEAR:
        # Far from the deck's own gap: a waist, not the gap (a split near it is left as it was).
        lo, hi = max(int((share - SPLIT_NEAR) * h), 1), min(int((share + SPLIT_NEAR) * h) + 1, h - 1)
        if hi > lo:
            cut = y0 + lo + int(np.argmin(profile[lo:hi]))
    parts = []
    for top, bottom in ((y0, cut), (cut + 1, y1)):
        sub = ink[top:bottom, x0:x1]
        # The part's ink counted and boxed by OpenCV: the bounds of numpy's nonzero, two calls.
        if sub.size == 0 or cv2.countNonZero(sub) < 3:
            return None
        x, y, w, h_ = cv2.boundingRect(sub)
        parts.append((x0 + x, top + y, x0 + x + w, top + y + h_))
    return parts[0], parts[1]


def off_frame(
    comps: list[Box], frame: FrameLine, *, seen: tuple[int, int, int] | None, box: IndexBox, lead: int
) -> list[Box]:
    """The blobs that are not the face's frame: the blobs starting at or right of the design's
    frame line, no higher than its top, are the frame's or the picture's inside it, never the
    index's. Where the line is seen in the ink at its registered place, from its left edge as
    seen; elsewhere (blur and noise break a thin line, or the face has none) from its registered
    place, but not before the registered index box ends (every registered glyph lies left of it).

    The frame's corner, where its top and its side meet, is thicker than either line: the border
    opening (``ink_blobs.hairlines_cut``) cuts it loose as a blob of its own, which, level with
    the rank's foot and within a glyph's reach, was joined to the rank (hershey's Ah read as a 4h).

    ``seen``: the line as ``frame.seen_in`` finds it in the blobs' ink mask.
    """
    if seen is not None:
        x_from, top = seen[0] - 1, seen[2]
    else:
        x_from, top = max(frame.x0 + lead, math.ceil(box.x1 * CARD_PX_W)) - 1, frame.y0 + lead
    return [c for c in comps if c[0] < x_from or c[1] < top - FRAME_SLACK]


def glyph_comps(ink: ByteImage, box: IndexBox, *, lead: int, min_area: int) -> list[Box]:
    """The ink mask's blobs that may be glyphs: clear of the patch border, no hairline sliver, no
    piece of the card's edge (see ``ink_blobs.edge_piece``).
    """
    return glyph_comps_seen(ink, box, lead=lead, min_area=min_area)[0]


def glyph_comps_seen(ink: ByteImage, box: IndexBox, *, lead: int, min_area: int) -> tuple[list[Box], bool]:
    """:func:`glyph_comps`, and whether any blob of the mask (of any size) lies clear of the patch
    border: when none does, growing the mask's blobs to a paler level's (``ink_blobs.grown_ink``)
    leaves it as it is, and the index reader skips it.
    """
    h, w = ink.shape
    # 16-bit labels (a patch has far fewer than 65536 blobs): the same blobs, half the label memory
    # to write, which is a third of the call's time at this size.
    count, labels, stats, _centroids = cv2.connectedComponentsWithStats(ink, connectivity=8, ltype=cv2.CV_16U)
    rows, carved = border_cut(ink, labels, stats[:count], min_area=min_area)
    # Touching the patch border means felt, a neighbour's edge or artwork running on past the
    # index: none of it is part of the index.
    # Short slivers at the index's right edge are the pieces a blurred hairline (an artwork frame
    # beside the index) breaks into at the ink level; stacked under the suit they would pass for
    # a row of the index. (Further left, slivers are a thin glyph's broken strokes: kept.)
    sliver_w, sliver_h = SLIVER_WIDTH * CARD_PX_W, SLIVER_HEIGHT * (box.y1 - box.y0) * CARD_PX_H
    sliver_x = (box.x0 + 0.75 * (box.x1 - box.x0)) * CARD_PX_W
    # Every blob the border cut keeps whole (``rows[1:carved]``: those it did not flag, all that
    # do not touch the border and those too small to be flagged) as the labelling found it.
    clear = any(s[0] > 0 and s[1] > 0 and s[0] + s[2] < w and s[1] + s[3] < h for s in rows[1:carved])
    # Plain ints: indexing numpy rows one value at a time costs more than the whole filter.
    comps = [
        (s[0], s[1], s[0] + s[2], s[1] + s[3])
        for i, s in enumerate(rows[1:], 1)
        if s[4] >= min_area
        and s[0] > 0
        and s[1] > 0
        and s[0] + s[2] < w
        and s[1] + s[3] < h
        and not (s[2] <= sliver_w and s[3] < sliver_h and s[0] >= sliver_x)
        and not edge_piece(s, carved=i >= carved, lead=lead, thin=sliver_w, short=sliver_h)
    ]
    return comps, clear


def stacked(joined: list[Box]) -> bool:
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


def cut_at_index(ink: ByteImage, box: IndexBox, min_area: int) -> list[Box]:
    """Ink blobs cut at the registered index's right edge that ran on past it to the patch's right
    border (and touch no other border): each one's part on the index's side.
    """
    w = ink.shape[1]
    edge = min(w - 1, math.ceil(box.x1 * CARD_PX_W) + 1)
    # Opened as hairlines_cut opens a blob on the border: a blurred suit's tip can touch the rank.
    part = cv2.morphologyEx(np.ascontiguousarray(ink[:, :edge]), cv2.MORPH_OPEN, SQUARE_3)
    # Labels alone: the blobs wanted are those in the cut's column and in no other side's, one or
    # two, whose boxes cost less one at a time than every blob's stats (a third of the labelling).
    # The same labels as the labelling with stats, taken in its order.
    _count, labels = cv2.connectedComponents(part, connectivity=8, ltype=cv2.CV_16U)
    reach = set(labels[:, -1].tolist())
    reach.difference_update(labels[0].tolist(), labels[-1].tolist(), labels[:, 0].tolist(), (0,))
    pieces = []
    for label in sorted(reach):
        blob = cv2.compare(labels, label, cv2.CMP_EQ)
        if cv2.countNonZero(blob) >= min_area:
            x, y, bw, bh = cv2.boundingRect(blob)
            pieces.append((x, y, x + bw, y + bh))
    return pieces
