"""Quadrilateral geometry on masks: shares of a card's pixels in a mask, shrinking, areas."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
Point = tuple[float, float]
# At least this share of what shows of a lower card lies on the stack's blob (the rest is felt:
# a rectangle off the cards, not a card's strip): ``on_stack``.
ON_STACK: Final = 0.85


def unit(v: Vec) -> Vec:
    x, y = float(v[0]), float(v[1])
    n = math.hypot(x, y)
    return np.array((x / n, y / n)) if n > 1e-9 else v


def shrink(quad: Vec, factor: float) -> Vec:
    if quad.dtype != np.float64 or quad.shape != (4, 2):
        centre = (quad[0] + quad[1] + quad[2] + quad[3]) * 0.25
        return np.asarray(centre + (quad - centre) * factor, dtype=np.float64)
    # The same float64 arithmetic in plain Python: numpy's per-call cost is all of it for 4 points.
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = quad.tolist()
    mx, my = (ax + bx + cx + dx) * 0.25, (ay + by + cy + dy) * 0.25
    return np.array(
        [
            (mx + (ax - mx) * factor, my + (ay - my) * factor),
            (mx + (bx - mx) * factor, my + (by - my) * factor),
            (mx + (cx - mx) * factor, my + (cy - my) * factor),
            (mx + (dx - mx) * factor, my + (dy - my) * factor),
        ]
    )


def drawn(shape: tuple[int, ...], quads: Iterable[Vec]) -> ByteImage:
    """A mask of ``shape`` (its first two sides) with each of ``quads`` filled (255): what those
    cards hide of another."""
    mask = np.zeros(shape[:2], np.uint8)
    for quad in quads:
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 255)
    return mask


def redraw(covered: ByteImage, quads: Iterable[Vec], *, erased: Vec) -> None:
    """``covered`` after a card was moved, replaced or dropped: ``erased`` (its quad as it was
    drawn) cleared, every card in ``quads`` drawn again (the cleared quad shared pixels with them)."""
    cv2.fillConvexPoly(covered, np.round(erased).astype(np.int32), 0)
    for quad in quads:
        cv2.fillConvexPoly(covered, np.round(quad).astype(np.int32), 255)


def side_lengths(quad: Vec) -> Vec:
    """The lengths of ``quad``'s four sides, from ``quad[0]``'s to ``quad[3]``'s (back to ``quad[0]``)."""
    return np.asarray(np.hypot(*(np.roll(quad, -1, 0) - quad).T), np.float64)


def area(quad: Vec) -> float:
    return float(abs(cv2.contourArea(quad.astype(np.float32))))


def overlap_area(a: Vec, b: Vec) -> float:
    """The area two convex quads share (pixels squared)."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter)


def aligned(quad: Vec, to: Vec) -> Vec:
    """``quad``'s corners in the order of ``to``'s (the corner order of two cards of a stack may
    differ by a half turn or start at any corner: corners[0] is an index corner)."""
    shifts = [np.roll(quad, -k, axis=0) for k in range(4)]
    return min(shifts, key=lambda c: float(np.hypot(*(c - to).T).sum()))


def outer_span(quad: Vec, other: Vec, *, mid: Vec) -> Vec:
    """The rectangle spanning two drawings of one card (``mid`` the middle of their centres): each
    corner of ``quad`` or of ``other`` (put in ``quad``'s order), whichever lies farther from ``mid``."""
    turned = aligned(other, quad)
    far = np.hypot(*(quad - mid).T) >= np.hypot(*(turned - mid).T)
    return np.asarray(np.where(far[:, None], quad, turned), np.float64)


def local_poly(quad: Vec) -> tuple[int, int, int, int, npt.NDArray[np.int32]]:
    """``cv2.boundingRect`` of the rounded polygon (x, y, w, h) and the polygon rounded in that box's
    frame, ``np.round(quad - (x, y)).astype(np.int32)``: the same integers in plain Python (its
    round, like numpy's, takes halves to the even neighbour), for numpy's per-call cost on 4 points.
    """
    pts = quad.tolist()
    try:
        xs = [round(p[0]) for p in pts]
        ys = [round(p[1]) for p in pts]
    except (ValueError, OverflowError):  # not finite: numpy's own (meaningless) integers
        x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
        return x, y, w, h, np.round(quad - (x, y)).astype(np.int32)
    x, y = min(xs), min(ys)
    return (
        x,
        y,
        max(xs) - x + 1,
        max(ys) - y + 1,
        np.array([(round(px - x), round(py - y)) for px, py in pts], np.int32),
    )


def shares(masks: Sequence[ByteImage], quad: Vec) -> list[float]:
    """Share of a quadrilateral's pixels set in each of ``masks`` (one polygon drawn for all)."""
    x, y, w, h, poly = local_poly(quad)
    mh, mw = masks[0].shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, mw), min(y + h, mh)
    if w <= 0 or h <= 0 or x1 <= x0 or y1 <= y0:
        return [0.0] * len(masks)
    local = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(local, poly, 255)
    total = cv2.countNonZero(local)
    if total == 0:
        return [0.0] * len(masks)
    inside = local[y0 - y : y1 - y, x0 - x : x1 - x]
    return [float(count_in(inside, m[y0:y1, x0:x1])) / float(total) for m in masks]


def quad_shares(mask: ByteImage, quads: Vec) -> list[float]:
    """``share(mask, quad)`` for each of ``quads`` (n, 4, 2), the same figures with the rounding
    done for all at once (numpy's per-call cost is most of the work for one quad).
    """
    pts = np.round(quads).astype(np.int32)
    lows = pts.min(axis=1)
    # cv2.boundingRect of integer points: the least x and y, and the extent plus one.
    boxes = np.concatenate([lows, pts.max(axis=1) - lows + 1], axis=1).tolist()
    locals_ = np.round(quads - lows[:, None, :]).astype(np.int32)
    mh, mw = mask.shape
    out = []
    for (x, y, w, h), poly in zip(boxes, locals_, strict=True):
        local = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(local, poly, 255)
        total = cv2.countNonZero(local)
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, mw), min(y + h, mh)
        if total == 0 or x1 <= x0 or y1 <= y0:
            out.append(0.0)
            continue
        out.append(float(count_in(local[y0 - y : y1 - y, x0 - x : x1 - x], mask[y0:y1, x0:x1])) / float(total))
    return out


def count_in(drawn: ByteImage, mask: ByteImage) -> int:
    """How many pixels of a polygon drawn with 255 on zeros are set in ``mask``: the same count as
    countNonZero(bitwise_and(drawn, mask)), as the L1 norm of ``drawn`` under ``mask`` (255 per
    pixel, an exact whole number), in one call and no temporary image.
    """
    return round(cv2.norm(drawn, cv2.NORM_L1, mask=mask) / 255.0)


def share(mask: ByteImage, quad: Vec, *, exclude: ByteImage | None = None) -> float:
    """Share of a quadrilateral's pixels set in ``mask`` and not in ``exclude`` (outside the frame: unset)."""
    x, y, w, h, poly = local_poly(quad)
    if w <= 0 or h <= 0:
        return 0.0
    local = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(local, poly, 255)
    total = cv2.countNonZero(local)
    if total == 0:
        return 0.0
    mh, mw = mask.shape
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, mw), min(y + h, mh)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inside = local[y0 - y : y1 - y, x0 - x : x1 - x]
    if exclude is None:
        return float(count_in(inside, mask[y0:y1, x0:x1])) / float(total)
    seen = cv2.bitwise_and(inside, mask[y0:y1, x0:x1])
    seen = cv2.bitwise_and(seen, cv2.bitwise_not(exclude[y0:y1, x0:x1]))
    return float(cv2.countNonZero(seen)) / float(total)


def on_outline(contour: ByteImage, point: Vec, tol: float) -> bool:
    """True when ``point`` lies within ``tol`` of the blob's outline (inside or out)."""
    return abs(cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True)) < tol


def rotation(radians: float) -> Vec:
    """The 2 x 2 matrix turning a plane vector by ``radians`` (from x towards y)."""
    return np.array([[math.cos(radians), -math.sin(radians)], [math.sin(radians), math.cos(radians)]])


def turned(quad: Vec, degrees: float, *, about: Vec | None = None) -> Vec:
    """``quad`` turned about its centre, or ``about`` a given point."""
    if degrees == 0.0:
        return quad
    mid = quad.mean(axis=0) if about is None else about
    return np.asarray((quad - mid) @ rotation(math.radians(degrees)).T + mid, np.float64)


def on_stack(corners: Vec, *, solid: ByteImage, hiding: ByteImage, least: float) -> bool:
    """Whether what ``hiding`` leaves of a lower card's rectangle shows at least ``least`` (square
    pixels) and lies on the stack (``solid``), not on felt, as a card's strip does (85 %).
    """
    size = area(corners)
    shown = (1.0 - share(hiding, corners)) * size
    seen = share(solid, corners, exclude=hiding) * size
    return seen >= least and seen >= ON_STACK * shown
