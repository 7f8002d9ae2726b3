"""The blobs of a corner patch's ink mask: labelled, counted, and cut free of the patch border.

A glyph joined to the patch border by a hairline (a suit's stem, an artwork's frame line) is
opened off it; a piece of the card's own edge or rounded corner is told from a glyph. Used by
the index reader (``vision.index``) and by deck registration.
"""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

# 8-bit images (single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]

# A blob along the patch's left or top side (see edge_piece) longer than this many times the
# sliver height (a share of the index box's height) is the card's edge: no glyph is that long.
EDGE_LONG: Final = 2.4
# A blob along the patch's left or top side ending within this many pixels past the card's edge
# is the edge itself (see edge_piece).
EDGE_NEAR: Final = 3
# A blob starting at the card's corner filling less than this share of its box is the corner's
# outline (an arc), not a glyph (see edge_piece).
CORNER_HOLLOW: Final = 0.4
SQUARE_3: Final = np.ones((3, 3), np.uint8)
SQUARE_5: Final = np.ones((5, 5), np.uint8)
# The label table of a mask none of whose pieces grows (``grown_ink``).
_NO_GROWTH: Final = bytes(256)


def grown_ink(strong: ByteImage, weak: ByteImage) -> ByteImage:
    """The ink at the usual level, each piece grown to the paler level's blob it lies in.

    A glyph's thin strokes can fall short of the usual level while its thick ones pass: cut
    there, a "2" is read as its foot. The paler blob that holds such pieces is the whole glyph,
    unless it runs on to the patch border (joined to a court card's frame line, or to felt).
    Where no piece grows, ``strong`` itself.
    """
    # Labels alone (the blobs' stats cost twice the labelling), of the mask framed by a line of
    # ink: every blob that runs on to the border joins the frame's blob, label 1 (the frame's
    # corner is the first pixel labelled). One look-up of the labels, one histogram, one table.
    framed = cv2.copyMakeBorder(weak, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    count, labels = cv2.connectedComponents(framed, connectivity=8, ltype=cv2.CV_16U)
    if count <= 256:
        inner = labels[1:-1, 1:-1].astype(np.uint8)
        table = (cv2.calcHist([inner], [0], strong, [256], [0, 256]).reshape(-1) > 0).astype(np.uint8)
        table[:2] = 0  # the background and the frame
        if table.tobytes() == _NO_GROWTH:  # (a bytes compare: ndarray.any costs what it would save)
            # No piece lies in a paler blob clear of the border: nothing grows, and the mask is the
            # usual one itself (a caller then knows it without comparing the two).
            return strong
        return cv2.bitwise_or(strong, cv2.LUT(inner, table))
    count, labels = cv2.connectedComponents(weak, connectivity=8, ltype=cv2.CV_16U)
    keep = _label_counts(labels, count, strong) > 0
    keep[np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])] = False
    keep[0] = False
    return cv2.bitwise_or(strong, _label_mask(keep, labels)) if keep.any() else strong


def _label_counts(labels: npt.NDArray[Any], count: int, mask: ByteImage) -> npt.NDArray[Any]:
    """How many pixels of each label (0 .. count-1) lie under ``mask``: ``np.bincount(labels[mask])``.

    Up to 256 labels, one 8-bit histogram in place of numpy's boolean pick and bincount (a
    third of the cost on a corner patch); the same counts.
    """
    counts: npt.NDArray[Any]
    if count > 256:
        counts = np.bincount(labels[mask.view(bool)], minlength=count)
    else:
        hist = cv2.calcHist([labels.astype(np.uint8)], [0], mask, [256], [0, 256])
        counts = hist.reshape(-1)[:count].astype(np.int64)
    return counts


def _label_mask(chosen: npt.NDArray[np.bool_], labels: npt.NDArray[Any]) -> ByteImage:
    """``chosen.astype(np.uint8)[labels]``: 1 where a pixel's label is chosen, else 0.

    Up to 256 labels the labels fit a byte and OpenCV's table look-up does it at a quarter of
    numpy's fancy indexing; the same mask.
    """
    mask: ByteImage
    if len(chosen) > 256:
        mask = chosen.astype(np.uint8)[labels]
    else:
        table = np.zeros(256, np.uint8)
        table[: len(chosen)] = chosen
        mask = cv2.LUT(labels.astype(np.uint8), table)
    return mask


def hairlines_cut(ink: ByteImage, labels: ByteImage, stats: npt.NDArray[Any], *, min_area: int) -> npt.NDArray[Any]:
    """The blobs' stats, with every blob that runs on to the patch border opened by a 3x3 square
    and split again: many designs tie the index to the card's frame with a hairline (a suit's
    decorative stem, a frame line starting at the rank), and a glyph so joined to the border would
    be dropped with the felt. A hairline (1-2 canonical pixels) does not survive the opening, a
    glyph's strokes do; what still touches the border after it is felt, a neighbour or artwork.
    """
    border = _border_flags(stats.tolist(), ink.shape, min_area)
    if not any(border):
        return stats
    pieces = _border_pieces(labels, border, ink.shape, min_area, glyphs_only=False)
    return np.concatenate([stats[~np.array(border)], np.array(pieces, dtype=stats.dtype).reshape(-1, 5)])


def _border_pieces(
    labels: ByteImage, border: list[bool], shape: tuple[int, ...], min_area: int, *, glyphs_only: bool
) -> list[list[int]]:
    """The rows (x, y, w, h, area, plain ints) :func:`hairlines_cut` puts in place of the blobs
    flagged in ``border`` (see :func:`_border_flags`; at least one is). ``glyphs_only``: see
    :func:`_opened_pieces`.
    """
    joined = _chosen(border, labels)
    # What the openings cut out depends on the border blobs' pixels alone, and a read's paler
    # masks mostly have the same border blobs as its usual one (a blob grown to the paler level
    # never runs on to the border): the last few masks' pieces are remembered, keyed by the mask.
    # (The rows are shared: callers copy the list before adding to it and never change a row.)
    key = (joined.shape, min_area, glyphs_only, joined.tobytes())
    pieces = _PIECES.get(key)
    if pieces is None:
        pieces = _opened_pieces(joined, shape, min_area, glyphs_only=glyphs_only)
        if len(_PIECES) >= _PIECES_KEPT:
            _PIECES.clear()  # (one step, safe should two threads read at once: at worst a miss)
        _PIECES[key] = pieces
    return pieces


# The last few border masks' pieces (see _border_pieces): a read tries up to three ink levels,
# and its first mask's entry is looked up by the next before anything else is kept.
_PIECES: dict[tuple[tuple[int, ...], int, bool, bytes], list[list[int]]] = {}


_PIECES_KEPT: Final = 4


def _opened_pieces(joined: ByteImage, shape: tuple[int, ...], min_area: int, *, glyphs_only: bool) -> list[list[int]]:
    """The stats rows (plain ints) of the pieces :func:`hairlines_cut` cuts out of the blobs in
    ``joined`` (the border blobs' mask): the opened blobs clear of the border, then those still on it.

    ``glyphs_only`` (for :func:`border_cut`): of these, the rows a glyph may be are all there, in
    the same order (those clear of the border, at least ``min_area``), others may be missing or
    added (pieces on the border, or smaller than ``min_area``).
    """
    # Rows as plain ints throughout: a patch has a handful of blobs, and numpy's boolean picks and
    # concatenation of a few rows cost more than the lists (a read's blobs end up as ints anyway).
    kept: list[list[int]] = []
    for square in (SQUARE_3, SQUARE_5):
        # A glyph touching a picture's frame line (a court card's index in some designs) needs
        # the wider opening: the frame's line is thicker than a hairline, still thinner than a glyph.
        opened = cv2.morphologyEx(joined, cv2.MORPH_OPEN, square)
        if glyphs_only and _all_on_border(opened):
            # Most openings cut nothing free (nine in ten of kennard's, three in four of standard's):
            # the blobs' stats are not needed then. All of it goes on to the wider opening, not
            # just the blobs of at least min_area: an opening keeps each blob's pieces within it,
            # and those of a smaller blob are smaller still, never a glyph.
            joined = opened
            continue
        count, labels, more, _c = cv2.connectedComponentsWithStats(opened, connectivity=8, ltype=cv2.CV_16U)
        rows = more[:count].tolist()
        flags = _border_flags(rows, shape, min_area)
        kept += [s for s, still in zip(rows[1:], flags[1:], strict=True) if not still]
        if not any(flags):
            return kept
        joined = _chosen(flags, labels)
    if not glyphs_only:
        kept += [s for s, still in zip(rows[1:], flags[1:], strict=True) if still]
    return kept


def _all_on_border(mask: ByteImage) -> bool:
    """Whether every blob of ``mask`` touches its border: framed by a line of ink, the mask is then
    one blob and the background (labels alone cost a third of labels and stats).
    """
    framed = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    count: int = cv2.connectedComponents(framed, connectivity=8, ltype=cv2.CV_16U)[0]
    return count <= 2


def _chosen(flags: list[bool], labels: npt.NDArray[Any]) -> ByteImage:
    """A mask, non-zero where a pixel's label is flagged (:func:`_label_mask`'s pixels, not its
    values: for the opening and labelling in :func:`_opened_pieces`, which see only non-zero).
    One flagged label, the usual case (the felt or the card's edge), is one comparison.
    """
    if sum(flags) == 1:
        # (OpenCV takes a plain number for a scalar; its stubs know only arrays.)
        mask: ByteImage = cv2.compare(labels, flags.index(True), cv2.CMP_EQ)  # type: ignore[call-overload]
        return mask
    return _label_mask(np.array(flags), labels)


def border_cut(
    ink: ByteImage, labels: ByteImage, stats: npt.NDArray[Any], *, min_area: int
) -> tuple[list[list[int]], int]:
    """:func:`hairlines_cut`'s stats as rows of plain ints, and the first of its rows that is a
    piece cut out of a blob that ran on to the patch border (they follow the blobs that did not).
    Of the pieces, only those that may be glyphs are sure to be there (clear of the border, of at
    least ``min_area``; see :func:`_opened_pieces`).

    Such a piece that is a mere sliver is a card's edge, not a glyph: a patch cut a few pixels
    outside the card's corner holds the card's own edge line (or the next card's) along its left
    or top side, broken by the blur into short thin bits that no longer touch the border, and
    the one nearest the expected index would start the index there.
    """
    # The stats as plain ints once: the caller filters them one value at a time.
    rows = stats.tolist()
    border = _border_flags(rows, ink.shape, min_area)
    kept = [s for s, on in zip(rows, border, strict=True) if not on]
    carved = len(kept)
    if carved < len(rows):
        kept += _border_pieces(labels, border, ink.shape, min_area, glyphs_only=True)
    return kept, carved


def edge_piece(s: list[int], *, carved: bool, lead: int, thin: float, short: float) -> bool:
    """Whether a blob (x, y, w, h, area) is a piece of the card's edge line rather than a glyph.

    The edge (the card's own, or the next card's along it) shows as a line along the patch's left
    or top side, a few pixels from where the corner was put, which blur breaks into short thin
    bits: a thin bit running along that side within twice ``lead`` of it is one. So is a thin
    short piece cut out of a line that ran on to the border (``carved``) anywhere, and any such
    piece that starts within ``lead`` of the side (the card's rounded corner, cut loose).
    """
    x, y, w, h = s[0], s[1], s[2], s[3]
    if carved and ((min(w, h) <= thin and max(w, h) < short) or min(x, y) < lead):
        return True
    if lead > 0 and max(x, y) <= lead + 1 and s[4] < CORNER_HOLLOW * w * h:
        # A hollow blob starting at the corner itself (within a pixel of where it was put, on both
        # sides): the card's rounded corner, its dark outline against the paper below it. Every
        # design insets its index from the corner, and a glyph is solid. Joined to the rank it
        # stretched the rank's box up and left (dondorf's 8s read as a 4s).
        return True
    # A line within the band: thin, or longer than any glyph (blurred to a thick band at the
    # paler ink level); horizontal likewise.
    # Within EDGE_NEAR of the side, a bit of any width is the edge (blurred to 4-5 px wide): no
    # glyph ends there, every design's index being inset from the card's edge.
    return lead > 0 and (
        (x + w <= 2 * lead and (w <= thin or h > EDGE_LONG * short or x + w <= lead + EDGE_NEAR))
        or (y + h <= 2 * lead and (h <= thin or w > EDGE_LONG * short or y + h <= lead + EDGE_NEAR))
    )


def _on_border(stats: npt.NDArray[Any], shape: tuple[int, ...], min_area: int) -> npt.NDArray[np.bool_]:
    """Which blobs (not the background, row 0) of at least ``min_area`` touch the patch border."""
    return np.array(_border_flags(stats.tolist(), shape, min_area), dtype=bool)


def _border_flags(rows: list[list[int]], shape: tuple[int, ...], min_area: int) -> list[bool]:
    """:func:`_on_border` from the stats' rows as plain ints (a patch has a handful of blobs,
    where numpy's eight column operations cost more than the loop), as a list of bools.
    """
    h, w = shape[:2]
    border = [s[4] >= min_area and (s[0] == 0 or s[1] == 0 or s[0] + s[2] >= w or s[1] + s[3] >= h) for s in rows]
    border[0] = False
    return border
