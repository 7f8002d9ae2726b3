"""Blob outlines: right-angled corners with exactly fitted edges, whole card sides, the card size they vote for."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

CARD_ASPECT: Final = 88.0 / 63.0
# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]
Point = tuple[float, float]
# A contour point (x, y) as one integer, x + y * 2**20, to find points by equality.
_POINT_KEY: Final = np.array([1, 1 << 20], np.int64)


@dataclass(slots=True)
class Corner:
    """A right-angled convex corner of a blob's outline (detection plane pixels)."""

    # Plain floats: numpy's per-call cost would be most of the work for these 2-vectors.
    point: Point
    x_dir: Point  # unit vector along the clockwise-next edge
    y_dir: Point  # unit vector along the other edge
    x_len: float  # visible edge lengths
    y_len: float


@dataclass(slots=True)
class Blob:
    """One connected region of not-felt: its outline, the outline's right-angled corners and the
    whole card sides among its edges.
    """

    contour: ByteImage
    corners: list[Corner]
    sides: list[float]
    # The corners where the sides meet, rounded corners' pieces left out, when that leaves four
    # sides (see outline_corners): a lone card's (``explain``), never a stack's or a fan's.
    rounded: list[Corner] | None = None


def find_blobs(fg: ByteImage, *, min_area: float) -> list[Blob]:
    """Every not-felt region of at least ``min_area`` pixels with its outline corners."""
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    blobs = []
    for contour in contours:
        if cv2.contourArea(contour) < min_area:
            continue
        corners, rounded = outline_corners(contour)
        blobs.append(Blob(contour=contour, corners=corners, sides=full_sides(corners), rounded=rounded))
    return blobs


def outline_corners(contour: ByteImage) -> tuple[list[Corner], list[Corner] | None]:
    """Right-angled convex corners of a blob outline, with exact edge directions; and the corners
    found where the sides meet once rounded corners' pieces are left out, when that leaves four
    sides (one card's outline, see ``_without_roundings``; else None)."""
    pts = contour.reshape(-1, 2).astype(np.float32)  # integer pixels: exact in float32
    approx = cv2.approxPolyDP(contour, 2.0, True).reshape(-1, 2)
    # Where each polygon vertex sits along the contour (approxPolyDP returns points only): the
    # first contour point equal to it (a handful of vertices against a few hundred points: one
    # comparison table is cheaper than sorting the contour).
    keys = contour.reshape(-1, 2).astype(np.int64) @ _POINT_KEY
    idx = np.equal((approx.astype(np.int64) @ _POINT_KEY)[:, None], keys[None, :]).argmax(axis=1).tolist()
    # Only the vertices' coordinates are looked up (the whole contour as lists costs more).
    xy = dict(zip(idx, pts[idx].tolist(), strict=True))
    m = len(idx)
    # Edges as plain floats (numpy's per-call cost would be most of the work for 2-vectors):
    # point on the line, unit direction, length.
    edges: list[tuple[float, float, float, float, float]] = []
    spans: list[tuple[int, int]] = []  # each edge's first and last contour point
    for k in range(m):
        i0, i1 = idx[k], idx[(k + 1) % m]
        dx, dy = xy[i1][0] - xy[i0][0], xy[i1][1] - xy[i0][1]
        length = math.hypot(dx, dy)
        if length < 8.0:
            continue
        line = fit_edge(pts, i0, i1)
        # (Edges too short to fit, skipped above, may lie between: a notch's own sides.)
        if edges and collinear(edges[-1], line, ends=(xy[spans[-1][0]], xy[spans[-1][1]], xy[i0], xy[i1])):
            # A fan's cards lie with their edges in one line, but the notch where one card's
            # rounded corner meets the next breaks the outline there: the pieces are one edge,
            # as long as the whole run (a fan is scanned along its full length).
            i0 = spans[-1][0]
            edges.pop()
            spans.pop()
            line = fit_edge(pts, i0, i1)
            length = math.hypot(xy[i1][0] - xy[i0][0], xy[i1][1] - xy[i0][1])
        edges.append((*line, length))
        spans.append((i0, i1))
    if len(edges) > 2 and collinear(
        edges[-1], edges[0][:4], ends=(xy[spans[-1][0]], xy[spans[-1][1]], xy[spans[0][0]], xy[spans[0][1]])
    ):
        i0, i1 = spans[-1][0], spans[0][1]
        line = fit_edge(pts, i0, i1)
        edges[0] = (*line, math.hypot(xy[i1][0] - xy[i0][0], xy[i1][1] - xy[i0][1]))
        edges.pop()
    rounded = None
    if len(edges) > 4:
        sides = _without_roundings(edges, [(xy[i0], xy[i1]) for i0, i1 in spans])
        rounded = None if sides is edges else _corners(contour, sides)
    return _corners(contour, edges), rounded


def _corners(contour: ByteImage, edges: list[tuple[float, float, float, float, float]]) -> list[Corner]:
    """The right-angled convex corners between consecutive fitted edges (point, direction, length)."""
    corners: list[Corner] = []
    for k in range(len(edges)):
        pax, pay, dax, day, la = edges[k]
        pbx, pby, dbx, dby, lb = edges[(k + 1) % len(edges)]
        if abs(dax * dbx + day * dby) > 0.42:  # not within about 25 degrees of a right angle
            continue
        denom = dax * dby - day * dbx
        t = ((pbx - pax) * dby - (pby - pay) * dbx) / denom
        px, py = pax + t * dax, pay + t * day
        # Both edges pointing away from the corner: (-da) and db. A corner is convex when the
        # interior lies between them: a probe a little way along their bisector is inside.
        bx, by = dbx - dax, dby - day
        bn = math.hypot(bx, by)
        if bn > 1e-9 and cv2.pointPolygonTest(contour, (px + 4.0 * bx / bn, py + 4.0 * by / bn), False) < 0:
            continue
        point, out_a, out_b = (px, py), (-dax, -day), (dbx, dby)
        if -dax * dby + day * dbx > 0:
            corners.append(Corner(point, out_a, out_b, la, lb))
        else:
            corners.append(Corner(point, out_b, out_a, lb, la))
    return corners


# Directions within about six degrees of square (|cos| of the angle between them).
_SQUARE_COS: Final = 0.1
# Within about ten degrees of one direction (|cos| of the angle between them).
_ALONG_COS: Final = 0.985


def _without_roundings(
    edges: list[tuple[float, float, float, float, float]], ends: list[tuple[Sequence[float], Sequence[float]]]
) -> list[tuple[float, float, float, float, float]]:
    """The edges without the pieces of rounded corners: a short edge between two long ones square
    to each other, whose middle lies near where they meet, and which is either a chord (along
    neither) or a side's own end bending into the rounding (along it, starting on its line).

    The polygon cuts a large rounded corner (dondorf's, 7 plane pixels on a 57-pixel card) with
    one chord from a tangent point on one side to a point of the arc near the other, 15-20
    degrees off that side: the corner it makes with the next edge is that much askew, and the
    card drawn from it reads nothing (held-out 19700's lone dondorf 3s). The card's corner is
    where the two long sides meet. Only for a blob of one card's size whose outline is then four
    sides: in a stack or a fan a short edge between two square sides is as often a lower card's,
    its corner a real one (taken out everywhere, it lost 19 stacked backs and made 3 phantoms on
    the development seeds; in any blob under 1.2 cards, 2 backs of tight stacks). A short edge
    along a side but set off from its line is kept even so: the step of a squared stack.
    """
    n = len(edges)
    drop = set()
    for k in range(n):
        pax, pay, dax, day, la = edges[k - 1]
        _, _, dbx, dby, lb = edges[k]
        pcx, pcy, dcx, dcy, lc = edges[(k + 1) % n]
        if lb >= 0.5 * min(la, lc) or abs(dax * dcx + day * dcy) > _SQUARE_COS:
            continue
        (b0x, b0y), (b1x, b1y) = ends[k]
        if abs(dbx * dax + dby * day) > _ALONG_COS and abs((b0x - pax) * day - (b0y - pay) * dax) > 1.5:
            continue  # along the side before, set off from its line: a step (a stack's lower card)
        if abs(dbx * dcx + dby * dcy) > _ALONG_COS and abs((b1x - pcx) * dcy - (b1y - pcy) * dcx) > 1.5:
            continue  # the same, along the side after
        denom = dax * dcy - day * dcx
        t = ((pcx - pax) * dcy - (pcy - pay) * dcx) / denom
        mx, my = (b0x + b1x) / 2 - (pax + t * dax), (b0y + b1y) / 2 - (pay + t * day)
        if math.hypot(mx, my) <= lb:
            drop.add(k)
    if n - len(drop) != 4:
        return edges  # not a rectangle once its corners are whole: a stack's steps, a chip on it
    return [edge for k, edge in enumerate(edges) if k not in drop]


def full_sides(corners: list[Corner]) -> list[float]:
    """Visible edge lengths that run from one right-angled corner to the next: whole card sides."""
    plain = [(c.point[0], c.point[1], (*c.x_dir, c.x_len), (*c.y_dir, c.y_len)) for c in corners]
    out = []
    for i, (ax, ay, a_x, a_y) in enumerate(plain):
        for bx, by, _bx, _by in plain[i + 1 :]:
            dx, dy = bx - ax, by - ay
            dist = math.hypot(dx, dy)
            if dist < 10:
                continue
            ux, uy = dx / dist, dy / dist
            for vx, vy, length in (a_x, a_y):
                if ux * vx + uy * vy > 0.995 and abs(length - dist) < 0.12 * dist:
                    out.append(dist)
    return out


def fit_edge(pts: npt.NDArray[np.float32], i0: int, i1: int) -> tuple[float, float, float, float]:
    """The line (point, unit direction from i0 towards i1) through the contour points i0..i1,
    fitted to the middle of the run: its ends bend into the rounded card corners.
    """
    n = len(pts)
    seg_len = (i1 - i0) % n
    trim = seg_len // 6
    first, count = i0 + trim, max(seg_len - 2 * trim, 2)
    sel = pts[first : first + count] if first + count <= n else pts[(first + np.arange(count)) % n]
    vx, vy, x0, y0 = cv2.fitLine(sel, cv2.DIST_L2, 0, 0.01, 0.01).reshape(-1).tolist()
    dx, dy = float(pts[i1 % n][0] - pts[i0][0]), float(pts[i1 % n][1] - pts[i0][1])
    if vx * dx + vy * dy < 0:
        vx, vy = -vx, -vy
    return x0, y0, vx, vy


def collinear(a: Sequence[float], b: Sequence[float], *, ends: Sequence[Sequence[float]]) -> bool:
    """Whether two fitted edges (point, unit direction) run in one line (detection scale).

    ``ends`` are the first and last outline points of a and of b. They do when parallel within
    about three degrees, each point within a pixel and a half of the other's line; or, for a
    short piece (a few pixels between a rounded corner and a notch fit no direction well), when
    both its ends lie within two pixels of the longer one's line.
    """
    ax, ay, adx, ady = a[0], a[1], a[2], a[3]
    bx, by, bdx, bdy = b[0], b[1], b[2], b[3]
    a_len = math.hypot(ends[1][0] - ends[0][0], ends[1][1] - ends[0][1])
    b_len = math.hypot(ends[3][0] - ends[2][0], ends[3][1] - ends[2][1])
    if (
        adx * bdx + ady * bdy >= 0.9986
        and abs((bx - ax) * ady - (by - ay) * adx) < 1.5
        and abs((ax - bx) * bdy - (ay - by) * bdx) < 1.5
    ):
        return True
    if min(a_len, b_len) >= 20.0:
        return False
    return in_line(a, b, ends=ends)


def in_line(a: Sequence[float], b: Sequence[float], *, ends: Sequence[Sequence[float]]) -> bool:
    """Whether two fitted edges (point, unit direction) lie in one line by their ends: parallel
    within about ten degrees, the shorter one's ends (``ends``: a's first and last outline points,
    then b's) within two pixels of the longer one's line. (A piece running into a rounded corner
    fits a direction a few degrees off.)"""
    if a[2] * b[2] + a[3] * b[3] < 0.985:
        return False
    a_len = math.hypot(ends[1][0] - ends[0][0], ends[1][1] - ends[0][1])
    b_len = math.hypot(ends[3][0] - ends[2][0], ends[3][1] - ends[2][1])
    longer, short = (a, ends[2:]) if a_len >= b_len else (b, ends[:2])
    px, py, dx, dy = longer[0], longer[1], longer[2], longer[3]
    return all(abs((x - px) * dy - (y - py) * dx) < 2.0 for x, y in short)


def vote_height(
    sides: npt.NDArray[np.float64], tol: float = 0.08, *, most: npt.NDArray[np.float64] | None = None
) -> float | None:
    """The card height (long side) most of ``sides`` agree with, refined as their median.

    ``most`` (one per side) is the tallest card the side's blob can hold. Two heights as many sides
    agree with are told apart by the sides whose card fits in their blob: a lone card whose
    outline gives only its long sides whole agrees as well with a card 1.4 times as tall (its long
    sides read as short ones), which its blob cannot hold; the tie went to the taller card.
    """
    if len(sides) == 0:
        return None
    if len(sides) <= 8:
        return vote_height_few([float(v) for v in sides], tol, most=None if most is None else [float(v) for v in most])
    turned = sides * CARD_ASPECT
    candidates = np.concatenate([sides, turned])
    cand = candidates[:, None]
    reach = tol * cand
    # |side - candidate| < reach or |side * aspect - candidate| < reach, the (candidates x sides)
    # tables computed in place: allocating them is most of the cost.
    gap = np.subtract(sides[None, :], cand)
    agree = np.less(np.abs(gap, out=gap), reach)
    np.subtract(turned[None, :], cand, out=gap)
    turned_agree = np.less(np.abs(gap, out=gap), reach)
    counts = (agree | turned_agree).sum(axis=1)
    top = np.flatnonzero(counts == counts.max())
    if most is not None and len(top) > 1:
        fit = (agree[top] | (turned_agree[top] & (candidates[top, None] <= most[None, :]))).sum(axis=1)
        top = top[fit == fit.max()]
    best_h = float(candidates[top].max())
    implied = np.where(np.abs(sides - best_h) < tol * best_h, sides, sides * CARD_ASPECT)
    close = np.sort(implied[np.abs(implied - best_h) < tol * best_h])
    # The median, without np.median's overhead (this runs for every blob).
    half = len(close) // 2
    return float(close[half]) if len(close) % 2 else float(close[half - 1] + close[half]) / 2.0


def vote_height_few(sides: list[float], tol: float, *, most: list[float] | None = None) -> float:
    """``_vote_height`` for the few sides of one blob, in plain Python (numpy's per-call cost is
    most of the work for a handful of numbers; the result is the same).
    """
    turned = [v * CARD_ASPECT for v in sides]
    room = [float("inf")] * len(sides) if most is None else most
    candidates = sides + turned
    best_h, best_n, best_fit = 0.0, -1, -1
    for cand in candidates:
        reach = tol * cand
        n = fit = 0
        for v, t, r in zip(sides, turned, room, strict=True):
            if abs(v - cand) < reach:
                n, fit = n + 1, fit + 1
            elif abs(t - cand) < reach:
                n, fit = n + 1, fit + (cand <= r)
        if (n, fit, cand) > (best_n, best_fit, best_h):
            best_h, best_n, best_fit = cand, n, fit
    implied = [v if abs(v - best_h) < tol * best_h else v * CARD_ASPECT for v in sides]
    close = sorted(v for v in implied if abs(v - best_h) < tol * best_h)
    half = len(close) // 2
    return close[half] if len(close) % 2 else (close[half - 1] + close[half]) / 2.0
