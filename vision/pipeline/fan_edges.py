"""A blob's straight outline edges, and where index corners start along them: the places a fanned card can lie."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import IndexBox
from vision.pipeline.outline import collinear, fit_edge, in_line
from vision.pipeline.plane import Plane

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# How far before its visible start a fanned card's index corner may lie, as a share of the side
# the edge is part of (a card turned about a corner shows a short piece of its side between
# its neighbours), and the slack at an edge's own corner (rounded corners, the fit): a fan's
# next card lies past it.
EDGE_BEYOND: Final = 0.9
EDGE_SLACK: Final = 0.12
# The least ratio of the darkest to the brightest colour channel of a face's paper.
PAPER_GREY: Final = 0.55
# A walk's line is followed on over the card below (follow_side): the lines through its visible
# edge turned up to FOLLOW_TURN_DEG either way in steps of FOLLOW_STEP_DEG are tried, on a band
# sampled FOLLOW_ROW frame pixels across and FOLLOW_COL along; the card's side shows where the
# paper drops by at least FOLLOW_DROP of its level within a frame pixel outward. The visible edge
# must show it in FOLLOW_SEEN columns, and the line taken over FOLLOW_LEAST of the reach.
FOLLOW_TURN_DEG: Final = 8.0
FOLLOW_STEP_DEG: Final = 0.5
FOLLOW_ROW: Final = 1.0
FOLLOW_COL: Final = 2.0
FOLLOW_DROP: Final = 0.08
FOLLOW_SEEN: Final = 5
FOLLOW_LEAST: Final = 0.3
# A followed line less than this many degrees off the drawn one leaves the walk as drawn.
FOLLOW_KEEP_DEG: Final = 1.0
# An index start is also looked for where ink darker than this share of the paper (in two rows at
# least) begins: a blurred or grey index whose ink under 0.6 of the paper is a pixel or none. Such
# a start is read as any (strictly, by one index), without the ink check that a plain start's
# box gets first (CornerReader.holds_none: a faint index has too little ink at its level).
FAINT_INK: Final = 0.8
# A row of an index band whose median is under LINE_DARK of the band's brightest row median is a
# line running along the edge (the frame printed round a court card's picture, on the card below:
# dondorf table 3008's Ks under the 9h), not paper: where at most LINE_ROWS rows are such and the
# band's paper judged with them is under LINE_DARK of that judged without them (the line leaves no
# column paper-white), the band's paper, shadows and ink are judged without them. (A band with
# more dark rows runs over a picture or a back, and is judged whole, as before.)
LINE_DARK: Final = 0.6
LINE_ROWS: Final = 3
# A contour point (x, y) as one integer, to find approxPolyDP's vertices among the contour's points.
_POINT_KEY: Final = np.array([1, 1 << 20], np.int64)
# Where along a visible edge paper_along looks (shares of its length).
_ALONG_LIST: Final = np.linspace(0.1, 0.9, 9).tolist()


@dataclass(frozen=True, slots=True)
class Edge:
    """A straight piece of a blob's outline (detection plane): a card's side, or part of one."""

    start: Vec
    direction: Vec  # unit, from start to the other end
    length: float
    inward: Vec  # unit normal pointing into the blob


def outline_edges(contour: ByteImage, *, least: float) -> list[Edge]:
    """The straight edges of a blob's outline at least ``least`` long, each fitted to its points
    (pieces of one line broken by a notch joined, as the outline's corners are found).
    """
    if len(contour) < 8:
        return []
    pts = contour.reshape(-1, 2).astype(np.float32)
    approx = cv2.approxPolyDP(contour, 2.0, True).reshape(-1, 2)
    keys = contour.reshape(-1, 2).astype(np.int64) @ _POINT_KEY
    idx = np.equal((approx.astype(np.int64) @ _POINT_KEY)[:, None], keys[None, :]).argmax(axis=1).tolist()
    xy = {i: pts[i].tolist() for i in idx}
    # The outline runs one way round: its interior lies on one fixed side of every edge.
    side = 1.0 if cv2.contourArea(contour, oriented=True) > 0 else -1.0
    lines: list[tuple[float, float, float, float]] = []
    spans: list[tuple[int, int]] = []
    for k in range(len(idx)):
        i0, i1 = idx[k], idx[(k + 1) % len(idx)]
        if math.hypot(xy[i1][0] - xy[i0][0], xy[i1][1] - xy[i0][1]) < 8.0:
            continue
        line = fit_edge(pts, i0, i1)
        if lines and collinear(lines[-1], line, ends=(xy[spans[-1][0]], xy[spans[-1][1]], xy[i0], xy[i1])):
            i0 = spans.pop()[0]
            lines.pop()
            line = fit_edge(pts, i0, i1)
        elif (
            len(lines) > 1
            and _notch(xy, spans[-1], least)
            and in_line(lines[-2], line, ends=(xy[spans[-2][0]], xy[spans[-2][1]], xy[i0], xy[i1]))
        ):
            # A piece too short to be an edge between two pieces of one line is the notch a
            # card's rounded corner makes in it: a fan whose tops lie in line shows one edge
            # (dondorf's table 19501: the middle 7c's corner cut the top line, and no walk from
            # the bottom card's corner reached the 7c's index; the piece beside the corner, 20
            # plane pixels, fits a direction 4 degrees off: ``in_line``, not ``collinear``).
            spans.pop()
            lines.pop()
            i0 = spans.pop()[0]
            lines.pop()
            line = fit_edge(pts, i0, i1)
        lines.append(line)
        spans.append((i0, i1))
    edges = []
    for (px, py, dx, dy), (i0, i1) in zip(lines, spans, strict=True):
        # The ends are the run's first and last points, projected onto the fitted line.
        t0 = (xy[i0][0] - px) * dx + (xy[i0][1] - py) * dy
        t1 = (xy[i1][0] - px) * dx + (xy[i1][1] - py) * dy
        if t1 - t0 < least:
            continue
        edges.append(
            Edge(
                start=np.array((px + t0 * dx, py + t0 * dy)),
                direction=np.array((dx, dy)),
                length=t1 - t0,
                inward=np.array((-dy * side, dx * side)),
            )
        )
    return edges


def _notch(xy: dict[int, list[float]], span: tuple[int, int], least: float) -> bool:
    """Whether the outline piece ``span`` (its first and last points' indices) is shorter than an
    edge (``least``)."""
    (x0, y0), (x1, y1) = xy[span[0]], xy[span[1]]
    return math.hypot(x1 - x0, y1 - y0) < least


def band_starts(
    image: ByteImage,
    plane: Plane,
    *,
    origin: Vec,
    step: Vec,
    across: Vec,
    rows: tuple[float, float],
    length: int,
    gap: int,
    lead: int,
) -> tuple[list[int], list[int]]:
    """Where an index may start along a line (frame pixels from ``origin``, a plane point, each
    ``step`` long in the plane): in the band ``rows`` (shares of ``across``) off the line, the end
    of the shadow a card's edge casts on the card below, and ink after a clear gap of ``gap``,
    ``lead`` before it (where the index lies from its card's corner; a card's edge on white paper
    can be too faint to show as a step); then, apart, where only faint ink starts so (FAINT_INK)
    and no start above lies within ``gap``.
    """
    band_h = 16
    top, bottom = rows
    # Band pixel (t, row) -> plane point origin + step t + across (top + row (bottom - top) / band_h)
    # -> frame, as one 3x3 map.
    to_plane = np.array(
        [
            [step[0], across[0] * (bottom - top) / band_h, origin[0] + top * across[0]],
            [step[1], across[1] * (bottom - top) / band_h, origin[1] + top * across[1]],
            [0.0, 0.0, 1.0],
        ]
    )
    if plane.rectified:
        m = plane.to_frame_h @ to_plane
        band = cv2.warpPerspective(image, m, (length, band_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    else:
        m = to_plane[:2] / plane.scale
        band = cv2.warpAffine(image, m, (length, band_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    b, g, r = cv2.split(band)
    dark = cv2.min(cv2.min(b, g), r)
    paper = _paper(dark)
    keep = _off_lines(dark)
    if keep is not None and paper < LINE_DARK * _paper(dark[keep]):
        # Only where the line leaves no column paper-white (it runs the band's whole length):
        # elsewhere the band is judged whole, as it always was.
        b, g, r, dark = b[keep], g[keep], r[keep], dark[keep]
        paper = _paper(dark)
    rows_n = dark.shape[0]
    # A card's face is white paper: its brightest parts nearly grey, in any light (a warm lamp's
    # paper keeps 0.6 of its brightest channel in its darkest), where a back's colour does not.
    # (A whole-number pixel is at least a level, or under it, as it is at least or under the
    # level rounded up: the bytes compared with whole numbers, not as a float copy of the band.)
    lit = dark >= math.ceil(0.9 * paper)
    if not lit.any():
        return [], []
    bright = cv2.max(cv2.max(b, g), r)
    if not grey(dark[lit], bright[lit]):
        return [], []
    # The shadow a card's edge casts on the card below: a column a little dark in almost every
    # row, where glyphs leave a gap between rank and suit. The card starts where it ends.
    # (Counted down the columns in bytes: at most band_h, and numpy's bool sum widens to int64.)
    shade = (np.add.reduce(dark < math.ceil(0.85 * paper), axis=0, dtype=np.uint8) >= 0.8 * rows_n).tolist()
    edges = [t for t in range(1, length) if shade[t - 1] and not shade[t]]
    # Ink (in two rows at least: one dark pixel is noise) after a clear gap: an index's leading
    # edge (or a pip's: its read fails).
    ink = (np.add.reduce(dark < math.ceil(0.6 * paper), axis=0, dtype=np.uint8) >= 2).tolist()
    starts = [*edges, *_ink_starts(ink, gap=gap, lead=lead)]
    # A blurred or grey index (kennard's 3s, hershey's 3s of table 19707, beside the big pip of
    # the card below) reaches the ink level above in a pixel or none: its start is where its
    # fainter ink begins.
    faint = (np.add.reduce(dark < math.ceil(FAINT_INK * paper), axis=0, dtype=np.uint8) >= 2).tolist()
    return starts, [t for t in _ink_starts(faint, gap=gap, lead=lead) if all(abs(t - u) > gap for u in starts)]


def _ink_starts(ink: list[bool], *, gap: int, lead: int) -> list[int]:
    """Where ink (columns) starts after at least ``gap`` clear columns, ``lead`` before it."""
    starts = []
    clear = 0
    for t, is_ink in enumerate(ink):
        if is_ink and clear >= gap:
            starts.append(max(0, t - lead))
        clear = 0 if is_ink else clear + 1
    return starts


def _paper(dark: ByteImage) -> float:
    """The paper's level in a band's darkest colour channel: the columns' darkest pixels, at the
    brightest tenth (a column of paper between the glyphs)."""
    lows = np.sort(dark.min(axis=0))
    return float(lows[int(0.9 * (len(lows) - 1))])


def _off_lines(dark: ByteImage) -> npt.NDArray[np.intp] | None:
    """The rows of an index band (its darkest colour channel) that are not a line running along
    it (see LINE_DARK), or None where there is no such line or more than LINE_ROWS rows look so."""
    medians = np.median(dark, axis=1)
    lines = medians < LINE_DARK * float(medians.max())
    count = int(np.count_nonzero(lines))
    if count == 0 or count > LINE_ROWS:
        return None
    return np.flatnonzero(~lines)


@dataclass(frozen=True, slots=True)
class Walk:
    """One way a card can lie along an edge: its index corner on the edge's line, the card on the
    blob's side. Walking with the interior on the right is along a card's short side from its
    index corner; with the interior on the left, along its long side.
    """

    origin: Vec  # the edge's end the walk starts from (plane)
    along: Vec  # unit, the walking direction
    inward: Vec
    length: float  # the edge's length
    short: bool  # the edge is the card's short side (else its long side)
    open_start: bool  # the line runs on into the blob before the walk's start
    open_end: bool  # ... and past its end

    def span(self, side: float) -> tuple[float, float]:
        """Where along the walk (plane pixels) the index corner of another card with this edge as
        part of its ``side`` long side can lie. Where the line runs on into the blob before the
        walk's start, up to nearly a side before it (the card's corner over the card below),
        else past the start's own corner (the outline's, a card hypothesis of its own); to nearly
        the end where the line runs on past it (the side goes under a card), else to a side
        before it (the card ends where the edge does).
        """
        lo = -EDGE_BEYOND * side if self.open_start else EDGE_SLACK * side
        hi = self.length - (EDGE_SLACK if self.open_end else 1.0 - EDGE_SLACK) * side
        return lo, hi

    def card(self, t: float, *, card_w: float, card_h: float) -> Vec:
        """The card whose index corner lies ``t`` plane pixels along the walk (corners clockwise)."""
        c0 = self.origin + self.along * t
        x_vec, y_vec = (
            (self.along * card_w, self.inward * card_h) if self.short else (self.inward * card_w, self.along * card_h)
        )
        return np.array([c0, c0 + x_vec, c0 + x_vec + y_vec, c0 + y_vec])

    def band(self, box: IndexBox, *, card_w: float, card_h: float) -> tuple[tuple[float, float], float, Vec]:
        """The band the index occupies off the line (shares of the vector across it), how far
        along from the corner the index starts (plane pixels), and that vector across.
        """
        if self.short:
            return (0.7 * box.y0, box.y1), box.x0 * card_w, self.inward * card_h
        return (0.7 * box.x0, box.x1), box.y0 * card_h, self.inward * card_w


def walks(edge: Edge, contour: ByteImage, *, probe: float) -> list[Walk]:
    """The edge walked both ways: one way it is a short side, the other way a long one. At each
    end the line either runs on into the blob (``probe`` past the end is well inside it, or the
    outline runs on along the line for two probes more: the card's side goes on under or over
    another card, the other's side in line with it) or leaves it (the card's own corner).
    """
    d, n = edge.direction, edge.inward
    end = edge.start + d * edge.length

    def inside(p: Vec) -> float:
        return float(cv2.pointPolygonTest(contour, (float(p[0]), float(p[1])), True))

    def runs_on(p: Vec, out: Vec) -> bool:
        here = inside(p)
        if here > 1.5:
            return True
        # Cards spread along their side put their edges in one line: past a card's rounded
        # corner the outline runs on along the next card's edge, the probe on it, not inside.
        return abs(here) <= 1.5 and all(abs(inside(p + out * k * probe)) <= 1.5 for k in (1, 2))

    before, after = runs_on(edge.start - d * probe, -d), runs_on(end + d * probe, d)
    short = float(d[0] * n[1] - d[1] * n[0]) > 0
    return [
        Walk(edge.start, d, n, edge.length, short=short, open_start=before, open_end=after),
        Walk(end, -d, n, edge.length, short=not short, open_start=after, open_end=before),
    ]


def grey(dark: npt.NDArray[Any], bright: npt.NDArray[Any]) -> bool:
    """Whether pixels (their darkest and brightest colour channels) are mostly near grey: paper."""
    ratio = dark.astype(np.float32) / np.maximum(bright, 1)
    # Their median as np.median takes it (the float32 mean of the middle two of an even count),
    # from a partition in place: np.median's own checks cost four times the work on these few pixels.
    n = ratio.size
    if n == 0:
        return False
    k = n // 2
    if n % 2:
        ratio.partition(k)
        middle = ratio[k]
    else:
        ratio.partition((k - 1, k))
        middle = (ratio[k - 1] + ratio[k]) / 2
    return float(middle) >= PAPER_GREY


def paper_along(image: ByteImage, walk: Walk, *, across: Vec, rows: tuple[float, float]) -> bool:
    """Whether the band an index occupies under the visible edge is paper (``image`` the plane):
    a few points are enough to pass over a back's edge without warping its band from the frame.
    """
    h, w = image.shape[:2]
    # The points in plain Python (numpy's per-call cost is all of the work for 18 points): the
    # same float64 arithmetic in the same order, rounded half to even as np.round does.
    (ox, oy), (dx, dy), (cx, cy) = walk.origin.tolist(), walk.along.tolist(), across.tolist()
    xs, ys = [], []
    for share in rows:
        for a in _ALONG_LIST:
            t = a * walk.length
            fx, fy = ox + dx * t + cx * share, oy + dy * t + cy * share
            if not (math.isfinite(fx) and math.isfinite(fy)):
                continue  # (nowhere on the plane)
            x, y = round(fx), round(fy)
            if 0 <= x < w and 0 <= y < h:
                xs.append(x)
                ys.append(y)
    if not xs:
        return False
    px = image[ys, xs]
    b, g, r = px[:, 0], px[:, 1], px[:, 2]
    return grey(np.minimum(np.minimum(b, g), r), np.maximum(np.maximum(b, g), r))


def follow_side(image: ByteImage, plane: Plane, walk: Walk, *, reach: float) -> Walk:
    """The walk with its line followed from the visible edge on over the card below for ``reach``
    plane pixels before its start (``image`` the frame): there the card's side shows as the step
    from its paper to the darker shadow it casts. A short visible piece of a side (a fan's card
    turned about a corner shows only a little of its top edge between its neighbours) gives its
    line a few degrees off, which puts an index corner a side's length away several pixels off
    its index; the side's whole visible run fixes it. The walk as it was when the side cannot be
    followed far enough.
    """
    s = plane.scale
    su = FOLLOW_COL * s  # plane pixels per band column ...
    rs = FOLLOW_ROW * s  # ... and per band row
    half = reach * math.tan(math.radians(FOLLOW_TURN_DEG)) + 1.0
    cols = int((reach + walk.length) / su)
    rows = int(2 * half / rs) + 1
    if cols < 8 or rows < 7:
        return walk
    # Band pixel (u, v) -> plane point origin + along (u su - reach) + inward (v rs - half) -> frame.
    a, n, o = walk.along, walk.inward, walk.origin
    to_plane = np.array(
        [
            [a[0] * su, n[0] * rs, o[0] - a[0] * reach - n[0] * half],
            [a[1] * su, n[1] * rs, o[1] - a[1] * reach - n[1] * half],
            [0.0, 0.0, 1.0],
        ]
    )
    if plane.rectified:
        m = plane.to_frame_h @ to_plane
        band = cv2.warpPerspective(image, m, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    else:
        band = cv2.warpAffine(image, to_plane[:2] / s, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    b, g, r = cv2.split(band)
    dark = cv2.min(cv2.min(b, g), r).astype(np.int16)
    few = dark[::2].ravel()
    top = max(1, few.size // 10)
    paper = float(np.partition(few, -top)[-top])  # (the brightest tenth: the paper's level)
    if paper <= 0:
        return walk
    # The drop from the card's paper (inward, higher rows) to what lies outside it, over a frame
    # pixel either side of each row (row v of ``drop`` is band row v + 1).
    drop = dark[2:] - dark[:-2]
    least = FOLLOW_DROP * paper
    line = round(half / rs) - 1  # the row of the walk's own line
    start = round(reach / su)
    # The visible edge itself, away from its ends (rounded corners, the notches beside it).
    u0, u1 = start + round(0.15 * walk.length / su), start + round(0.85 * walk.length / su)
    near = drop[line - 2 : line + 3, u0:u1]
    best = near.argmax(axis=0)
    hit = near[best, np.arange(u1 - u0)] >= least
    if np.count_nonzero(hit) < FOLLOW_SEEN:
        return walk
    us = np.flatnonzero(hit) + u0
    vs = best[hit] + line - 2
    slope, icpt = _line(us, vs)
    # Then on over the card below: of the lines through the visible edge's middle turned up to
    # FOLLOW_TURN_DEG either way, the one along which the step shows furthest (within a frame
    # pixel of it).
    mid = 0.5 * (u0 + u1)
    ext = np.arange(start)
    turns = np.tan(np.radians(np.arange(-FOLLOW_TURN_DEG, FOLLOW_TURN_DEG + 1e-9, FOLLOW_STEP_DEG))) * (su / rs)
    at = np.rint(icpt + slope * mid + (slope + turns)[:, None] * (ext - mid)).astype(np.int64)
    at = np.clip(at, 1, len(drop) - 2)
    steps = np.maximum(np.maximum(drop[at - 1, ext], drop[at, ext]), drop[at + 1, ext]) >= least
    counts = np.count_nonzero(steps, axis=1)
    pick = int(np.argmax(counts))
    if counts[pick] * su < FOLLOW_LEAST * reach:
        return walk
    # The line fitted to the visible edge and to the step where it shows along the one picked,
    # each at its steepest row (to a fraction of a row).
    cols_at = ext[steps[pick]]
    rows_at = at[pick, steps[pick]]
    found = rows_at - 1 + np.stack([drop[rows_at + d, cols_at] for d in (-1, 0, 1)]).argmax(axis=0)
    u_all, v_all = np.concatenate([us, cols_at]), np.concatenate([vs, found])
    v_all = np.clip(v_all, 1, len(drop) - 2)
    lo_, mid_, hi_ = (drop[v_all + d, u_all].astype(np.float64) for d in (-1, 0, 1))
    curve = lo_ - 2 * mid_ + hi_
    shift = np.divide(0.5 * (lo_ - hi_), curve, out=np.zeros_like(curve), where=curve < 0)
    slope = _line(u_all, v_all + np.clip(shift, -0.5, 0.5))[0]
    along = a * su + n * rs * slope
    along /= float(np.hypot(*along))
    turned = abs(math.degrees(math.atan2(float(along @ n), float(along @ a))))
    if turned > FOLLOW_TURN_DEG or turned < FOLLOW_KEEP_DEG:
        return walk  # (within a degree the outline's own fit is as good: the walk is kept)
    inward = np.array((-along[1], along[0]))
    if float(inward @ n) < 0:
        inward = -inward
    # The outline places the visible edge (where the card's paper ends against the felt, as every
    # other walk's): the line keeps that place at the visible piece's middle, turned to the side's
    # direction, and the walk starts where it passes its start.
    middle = o + a * (mid * su - reach)
    origin = middle + along * float((o - middle) @ along)
    return Walk(origin, along, inward, walk.length, walk.short, walk.open_start, walk.open_end)


def _line(u: npt.NDArray[Any], v: npt.NDArray[Any]) -> tuple[float, float]:
    """The least-squares line v = intercept + slope u (slope, intercept); level where u is one value."""
    du = u - u.mean()
    den = float(du @ du)
    slope = float(du @ (v - v.mean())) / den if den > 0 else 0.0
    return slope, float(v.mean()) - slope * float(u.mean())
