"""Card hypotheses: the rectangles an outline's corners propose, fitted to the outline and merged."""

from __future__ import annotations

import math
from dataclasses import InitVar, dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from vision.pipeline.geometry import overlap_area
from vision.pipeline.outline import Corner

UNKNOWN: Final = "unknown"
BACK: Final = "back"  # a hypothesis' code once it is counted face down
# A quad snapped at four corners further than this (card widths) from a parallelogram has one
# corner that is not the card's; a corner whose sides are within this share of a card's and
# whose angle's cosine is below it is the card's own (see square_up).
_SQUARE_TOL: Final = 0.04
# Two cards in one place lie parallel within this cosine (8 degrees) when they are one card.
PARALLEL_COS: Final = math.cos(math.radians(8.0))
# ... and of two faces read as different cards (see same_card).
FACES_COS: Final = math.cos(math.radians(4.0))
# Backs dealt on one another lie within this cosine (about 18 degrees) of each other.
STACK_COS: Final = 0.95
# A face whose rectangle overlaps a back's by less than this share of a card lies over or under a
# corner of it, beside the stack rather than in it: a stack pushed against a fan meets its cards over
# a corner's few pixels (hershey table 19706's top back, 0.4 % of it on the 5s beside it), and a
# single dealt after a stack may lie across its top's corner (table 14017's 7c on the 4h, 5 %).
# Taken for a card lying on the back or under it, such a back was not counted.
TOUCH: Final = 0.08
# Two cards lie across one another beyond this cosine (60 degrees): no fan turns a card so far.
ACROSS_COS: Final = 0.5
# An outline edge shorter than this share of a card's width gives its direction only to several
# degrees (a rounded corner's few pixels, a side cut short by the next card of a fan): a quad
# drawn along it and confirmed at both ends of a side is also offered square to that side (see fit_side).
SHORT_EDGE: Final = 0.3
# ... when the corner's other edge runs along that side within this sine (3 degrees).
SIDE_SIN: Final = math.sin(math.radians(3.0))
# A corner whose edges are further than this sine (6 degrees) off square, one of them a short
# edge (SHORT_EDGE) and the other longer than that, has the short one's direction wrong: the
# few pixels of a rounded corner before the next card of a fan (kennard table 3008's Qs: 8.6 px
# 22 degrees off, its other edge 106 px along the card's side). Its rectangle is also offered
# square to the long edge (see skew_squared); a real card corner is within ~3 degrees.
SKEW_SIN: Final = math.sin(math.radians(6.0))
# A side confirmed between two outline corners shorter than this share of its card's, one end a
# corner with a short edge (a rounded corner under a glare band, found down the side) and the
# other a corner of two long edges, is that card's side cut short at the rounded end: dondorf
# table 2's 7d, 0.94 of its height, its index corner 3.4 px down the side (see full_side).
FULL_SIDE: Final = 0.97
Vec = npt.NDArray[np.float64]
ByteImage = npt.NDArray[Any]

# A card rectangle's corners from one outline corner, as steps along that corner's (x, y) edges
# in card widths (_RECT_W) plus card heights (_RECT_H): short side first along x (the corner is
# an index corner), then long side first.
_RECT_W: Final = np.array(
    [[[0, 0], [1, 0], [1, 0], [0, 0]], [[0, 0], [0, 1], [0, 1], [0, 0]]],
    dtype=np.float64,
)
_RECT_H: Final = np.array(
    [[[0, 0], [0, 0], [0, 1], [0, 1]], [[1, 0], [1, 0], [0, 0], [0, 0]]],
    dtype=np.float64,
)


@dataclass(slots=True)
class Hypothesis:
    """One way a card may lie (detection plane), with what reading it found."""

    corners: Vec  # (4, 2) detection-scale, clockwise, corners[0] an index corner
    run_x: float = 0.0  # visible straight edge from corners[0] along corners[1] (fans run long)
    support: int = 1
    fill: float = 0.0
    code: str = UNKNOWN
    confidence: float = 0.0
    seen: bool = False  # an index was seen where this card's should be, too unsure to read: a card is there
    anchors: int = 0  # how many of its corners are right-angled corners of the outline
    back: bool | None = None  # face down (its interior looks like the deck's back); None until tested
    back_score: float = 0.0  # how clearly its interior is the back (0..1), once tested
    whole: bool = False  # read at both index corners, or a back matched whole: it lies on top of its neighbours
    examined: tuple[int, ...] = ()  # which of its index corners (0, 2) were read
    hidden: bool = False  # a stack's lower back no outline corner proposed, counted by its strip in place
    squared: Vec | None = None  # the same card square to a side the outline confirms, where likelier (see fit_side)
    center: Vec = field(init=False)  # the mean of the corners
    at: InitVar[Vec | None] = None  # the centre when already known (computed for many at once)

    def __post_init__(self, at: Vec | None) -> None:
        if at is not None:
            self.center = at
        else:
            c = self.corners
            self.center = (c[0] + c[1] + c[2] + c[3]) * 0.25  # ndarray.mean costs several times more


def propose(corners: list[Corner], *, card_w: float, card_h: float, alone: bool) -> list[Hypothesis]:
    """The card rectangles a blob's outline corners propose, snapped to the outline and merged.

    Each corner is an index corner (short side clockwise-next) or it is not; a fan's collinear
    edges make visible lengths no guide, so both are tried. A card lying alone shows whole sides:
    one as long as a card's long side is not its short side.
    """
    if not corners:
        return []
    hyps: list[Hypothesis] = []
    picks: list[tuple[int, float]] = []  # (row of both_ways below, run_x) of each hypothesis
    # (All corners' rectangles at once: numpy's per-call cost dominates single quads.)
    seen = np.array([c.point for c in corners])
    axes = np.array([(c.x_dir, c.y_dir) for c in corners])  # (m, 2 axes, 2)
    # Each corner's two rectangles, short side first and long side first: (m, 2, 4, 2).
    steps = (card_w * _RECT_W + card_h * _RECT_H).reshape(8, 2)  # (2 ways x 4 corners, 2 edges)
    both_ways = seen[:, None, :] + steps @ axes  # (m, 2 ways x 4 corners, 2)
    for k, c in enumerate(corners):
        if not (alone and abs(c.x_len - card_h) < 0.1 * card_h):
            picks.append((2 * k, c.x_len))
        if c.y_len < card_w * 1.15:
            picks.append((2 * k + 1, 0.0))
    if not picks:
        return []
    quads = both_ways.reshape(-1, 4, 2)[[row for row, _run in picks]]  # (n, 4, 2)
    # A rectangle drawn from one corner misses the far corners by a few pixels under a tilted
    # camera; where the outline has a corner close by, that corner is the truth.
    gaps = np.hypot(*np.moveaxis(quads[:, :, None, :] - seen[None, None, :, :], -1, 0))  # (n, 4, m)
    nearest = gaps.argmin(axis=2)
    close = np.take_along_axis(gaps, nearest[:, :, None], axis=2)[:, :, 0] < 0.12 * card_w
    snapped = np.where(close[:, :, None], seen[nearest], quads)
    complete_fourth(snapped, close, seen, 0.12 * card_w)
    square_up(snapped, close, card_w=card_w, card_h=card_h)
    # Each quad's drawing corner's two edges: their directions and visible lengths.
    rows = [row for row, _run in picks]
    edges = [(axes[row // 2], (corners[row // 2].x_len, corners[row // 2].y_len)) for row in rows]
    squared = fit_side(snapped, quads, close, edges, card_w=card_w, card_h=card_h)
    for k, whole in full_side(snapped, close, nearest, corners, card_w=card_w, card_h=card_h).items():
        squared.setdefault(k, whole)
    for k, square in skew_squared(corners, rows, steps, card_w=card_w).items():
        # (Drawn from that corner alone: a quad another outline corner confirms has its geometry.)
        if close[k].sum() == 1 and k not in squared:
            squared[k] = square
    centres = snapped.mean(axis=1)
    anchors = close.sum(axis=1).tolist()
    for k, (_row, run_x) in enumerate(picks):
        if anchors[k]:
            hyps.append(
                Hypothesis(corners=snapped[k], run_x=run_x, anchors=anchors[k], at=centres[k], squared=squared.get(k))
            )
        else:
            hyps.append(Hypothesis(corners=quads[k], run_x=run_x))
    indexed = (close[:, 0] | close[:, 2]).tolist()
    return merge(hyps, snapped.reshape(len(picks), 8).tolist(), card_w * 0.15, indexed=indexed)


def fit_side(
    quads: Vec,
    drawn: Vec,
    close: npt.NDArray[np.bool_],
    edges: list[tuple[Vec, tuple[float, float]]],
    *,
    card_w: float,
    card_h: float,
) -> dict[int, Vec]:
    """Redraw each quad confirmed at just the two ends of one side (``close``) from that side, in
    place, with the sides of the rectangle it was ``drawn`` as, scaled to the confirmed side's
    length: the card's own side measures its size where it lies, the frame's card height only on
    average (a tilted camera makes near cards bigger than far ones by several per cent, enough to
    put the far index corner off its index). A side more than about a tenth off a card's is
    not one card's side (a fan's edge) and leaves the quad as drawn.

    ``edges`` holds each quad's drawing corner's two edge directions and visible lengths. Where
    the edge the quad's other sides were drawn along is short (see SHORT_EDGE) and the corner's
    other edge runs along the confirmed side, the quad square to that side is returned (by row)
    as well: the card's likelier geometry, which a reader tries when the quad as drawn reads
    nothing (the quad itself stays as drawn: stacks of backs are judged on it).
    """
    squared: dict[int, Vec] = {}
    two = np.flatnonzero(close.sum(axis=1) == 2)
    for r in two.tolist():
        k = [j for j in range(4) if close[r, j]]
        if k[1] - k[0] == 1:
            a, b = k
        elif k == [0, 3]:
            a, b = 3, 0
        else:
            continue  # opposite corners: no side between them
        q = quads[r]
        length = float(np.hypot(*(q[b] - q[a])))
        # Sides 0-1 and 2-3 are short (corner 0 is an index corner), 1-2 and 3-0 long.
        ratio = length / (card_w if a % 2 == 0 else card_h)
        if not 0.9 <= ratio <= 1.12:
            continue
        c, d = (b + 1) % 4, (a + 3) % 4
        other = drawn[r, c] - drawn[r, b]
        q[c] = q[b] + other * ratio
        q[d] = q[a] + (drawn[r, d] - drawn[r, a]) * ratio
        axes, lens = edges[r]
        along = int(np.argmax(np.abs(axes @ other)))  # the drawing corner's edge the sides follow
        side = (q[b] - q[a]) / length
        # (The corner's other edge runs along the confirmed side when that side is its card's,
        # not a line between corners of two cards, as of two backs dealt a little apart.)
        on_side = abs(float(side[0] * axes[1 - along][1] - side[1] * axes[1 - along][0])) < SIDE_SIN
        if lens[along] >= SHORT_EDGE * card_w or not on_side:
            continue
        # That edge is a few pixels of a rounded corner, or the piece of a side that shows
        # before the next card of a fan covers it: its direction is degrees off, where the
        # confirmed side's is not. A card is a rectangle on the plane: square to that side.
        normal = np.array((-side[1], side[0]))
        if float(normal @ other) < 0:
            normal = -normal
        reach = normal * float(np.hypot(*other)) * ratio
        square = q.copy()
        square[c], square[d] = q[b] + reach, q[a] + reach
        squared[r] = square
    return squared


def full_side(
    quads: Vec,
    close: npt.NDArray[np.bool_],
    nearest: npt.NDArray[np.intp],
    corners: list[Corner],
    *,
    card_w: float,
    card_h: float,
) -> dict[int, Vec]:
    """Each quad (by row) confirmed at the two ends of one side (``close``, ``nearest`` the outline
    corner of each) that side short of its card's (FULL_SIDE) where one end is a corner of a short
    edge and the other of two long ones: the card drawn from the sure end, square to the side, at
    the card's size. The end with a few pixels of edge is a rounded corner the glare or the card
    above cut into, found down the side; the index there is then a few pixels off the drawn quad's.
    """
    out: dict[int, Vec] = {}
    short = SHORT_EDGE * card_w
    for r in np.flatnonzero(close.sum(axis=1) == 2).tolist():
        k = [j for j in range(4) if close[r, j]]
        if k[1] - k[0] == 1:
            a, b = k
        elif k == [0, 3]:
            a, b = 3, 0
        else:
            continue
        q = quads[r]
        length = float(np.hypot(*(q[b] - q[a])))
        size, across = (card_w, card_h) if a % 2 == 0 else (card_h, card_w)
        if not 0.9 * size <= length < FULL_SIDE * size:
            continue
        ends = [corners[int(nearest[r, j])] for j in (a, b)]
        rounded = [min(c.x_len, c.y_len) < short for c in ends]
        if rounded[0] == rounded[1]:
            continue
        sure, cut = (a, b) if rounded[1] else (b, a)
        along = (q[cut] - q[sure]) / length
        whole = q.copy()
        whole[cut] = q[sure] + along * size
        normal = np.array((-along[1], along[0]))
        if float(normal @ (q[(b + 1) % 4] - q[b])) < 0:
            normal = -normal
        whole[(b + 1) % 4] = whole[b] + normal * across
        whole[(a + 3) % 4] = whole[a] + normal * across
        out[r] = whole
    return out


def skew_squared(corners: list[Corner], rows: list[int], steps: Vec, *, card_w: float) -> dict[int, Vec]:
    """Each quad (by position in ``rows``, its row of ``propose``'s corner-by-way table: corner
    ``row // 2``, way ``row % 2`` of ``steps``) drawn from a corner off square by more than
    SKEW_SIN whose one edge is short and the other not, drawn again with the short edge's
    direction replaced by the long edge's normal: a long edge gives its card's direction to a
    degree, a short one (a rounded corner's few pixels) to tens of degrees.
    """
    out: dict[int, Vec] = {}
    short = SHORT_EDGE * card_w
    for r, row in enumerate(rows):
        c = corners[row // 2]
        (xx, xy), (yx, yy) = c.x_dir, c.y_dir
        if abs(xx * yx + xy * yy) < SKEW_SIN:
            continue
        if c.x_len >= short > c.y_len:
            x = np.array((xx, xy))
            y = np.array((-xy, xx)) if yx * -xy + yy * xx > 0 else np.array((xy, -xx))
        elif c.y_len >= short > c.x_len:
            y = np.array((yx, yy))
            x = np.array((-yy, yx)) if xx * -yy + xy * yx > 0 else np.array((yy, -yx))
        else:
            continue
        way = row % 2
        out[r] = np.array(c.point) + steps[4 * way : 4 * way + 4] @ np.stack((x, y))
    return out


def complete_fourth(quads: Vec, close: npt.NDArray[np.bool_], seen: Vec, tol: float) -> None:
    """Place the one corner of each quad that no outline corner confirmed (``close``) opposite the
    three that were, in place: a rectangle drawn from one corner drifts from the card by its
    direction and size error (a few degrees off a short rounded-corner edge, a height a few per
    cent small), while three outline corners fix the fourth within a pixel at card size. The
    completed corner is snapped to an outline corner within ``tol`` when there is one.
    """
    three = np.flatnonzero(close.sum(axis=1) == 3)
    if len(three) == 0:
        return
    k = np.argmin(close[three], axis=1)
    r = three
    completed = quads[r, (k + 1) % 4] + quads[r, (k + 3) % 4] - quads[r, (k + 2) % 4]
    gaps = np.hypot(*np.moveaxis(completed[:, None, :] - seen[None, :, :], -1, 0))  # (n, m)
    nearest = gaps.argmin(axis=1)
    hit = gaps[np.arange(len(r)), nearest] < tol
    quads[r, k] = np.where(hit[:, None], seen[nearest], completed)
    close[r[hit], k[hit]] = True


def square_up(quads: Vec, close: npt.NDArray[np.bool_], *, card_w: float, card_h: float) -> None:
    """Redraw, in place, the one corner of each quad snapped at all four corners that does not
    make a rectangle with the other three: an outline corner near a card's corner can be a notch
    (an index or pip of the felt's colour printed close to the edge, a chip against it) rather
    than the card's corner. The corner opposite it is the one whose two sides have a card's
    lengths at a right angle; the bad corner is placed opposite it, as by ``complete_fourth``.
    """
    four = np.flatnonzero(close.all(axis=1))
    if len(four) == 0:
        return
    q = quads[four]  # (n, 4, 2)
    # How far each quad is from a parallelogram: one bad corner moves every corner's completion
    # from the other three by the same amount.
    gap = np.hypot(*(q[:, 0] + q[:, 2] - q[:, 1] - q[:, 3]).T)
    off = np.flatnonzero(gap > _SQUARE_TOL * card_w)
    for r in off.tolist():
        c = q[r]
        best, best_err = -1, _SQUARE_TOL
        for k in range(4):
            a, b = c[(k + 3) % 4] - c[k], c[(k + 1) % 4] - c[k]
            la, lb = float(np.hypot(*a)), float(np.hypot(*b))
            # Sides k..k+1 are short when k is even (corner 0 is an index corner).
            want_b, want_a = (card_w, card_h) if k % 2 == 0 else (card_h, card_w)
            err = max(abs(la / want_a - 1.0), abs(lb / want_b - 1.0), abs(float(a @ b)) / (la * lb))
            if err < best_err:
                best, best_err = k, err
        if best >= 0:
            bad = (best + 2) % 4
            quads[four[r], bad] = c[(best + 1) % 4] + c[(best + 3) % 4] - c[best]


def merge(
    hyps: list[Hypothesis], flats: list[list[float]], tol: float, *, indexed: list[bool] | None = None
) -> list[Hypothesis]:
    """Join hypotheses that describe the same card (same corners, or the same turned 180 degrees).

    ``flats`` holds each hypothesis' corners as plain floats, x0 y0 x1 y1 x2 y2 x3 y3; ``indexed``
    whether an outline corner confirms one of its index corners (see below), where known.
    """
    merged: list[tuple[Hypothesis, list[float], float, float, bool]] = []
    for i, (hyp, flat) in enumerate(zip(hyps, flats, strict=True)):
        cx, cy = (flat[0] + flat[2] + flat[4] + flat[6]) / 4.0, (flat[1] + flat[3] + flat[5] + flat[7]) / 4.0
        at_index = indexed is not None and indexed[i]
        for j, (other, of, ox, oy, other_at_index) in enumerate(merged):
            if abs(cx - ox) > tol or abs(cy - oy) > tol:
                continue
            d_same = max(abs(a - b) for a, b in zip(flat, of, strict=True))
            d_turned = max(abs(a - b) for a, b in zip(flat, of[4:] + of[:4], strict=True))
            if min(d_same, d_turned) < tol:
                other.support += 1
                other.run_x = max(other.run_x, hyp.run_x)
                # The outline confirms more of this one's corners: its geometry is the card's. As
                # many: the one confirmed at an index corner, as its index is read there, where the
                # other's is drawn a card's size from a blank corner (a card a few per cent larger
                # than the frame's average puts it off its index: nicu-white's table 11006 5h).
                if hyp.anchors > other.anchors or (hyp.anchors == other.anchors and at_index and not other_at_index):
                    other.corners, other.center, other.anchors = hyp.corners, hyp.center, hyp.anchors
                    other.squared = hyp.squared
                    merged[j] = (other, of, ox, oy, other_at_index or at_index)
                break
        else:
            merged.append((hyp, flat, cx, cy, at_index))
    return [entry[0] for entry in merged]


def same_card(a: Hypothesis, b: Hypothesis, tol: float) -> bool:
    """Whether two hypotheses are one card: the same place and lie (cards of a fan turned about
    a corner have their centres close, but each lies a few degrees further round), or the same
    index corner read as the same code. Two faces read as different cards lie alike only within
    FACES_COS: one card's rectangles drawn from its outline corners lie within a degree or two,
    where a fan turned about a corner turns each card a few degrees (hershey's table 11015: the
    Td 7.6 degrees from the Qs, their centres 0.19 w apart).
    """
    faces = a.code != b.code and a.code not in (UNKNOWN, BACK) and b.code not in (UNKNOWN, BACK)
    within = FACES_COS if faces else PARALLEL_COS
    if float(np.hypot(*(a.center - b.center))) < tol and parallel(a.corners, b.corners, within=within):
        return True
    if a.code != b.code:
        return False
    index_a, index_b = a.corners[[0, 2]], b.corners[[0, 2]]
    gaps = np.hypot(*(index_a[:, None, :] - index_b[None, :, :]).reshape(-1, 2).T)
    return bool(gaps.min() < tol)


def across(a: Vec, b: Vec) -> bool:
    """Whether two card quads lie turned more than 60 degrees from one another (either way up):
    more than the cards of a fan ever are.
    """
    (ax, ay), (bx, by) = (a[1] - a[0]).tolist(), (b[1] - b[0]).tolist()
    cos = (ax * bx + ay * by) / max(math.hypot(ax, ay) * math.hypot(bx, by), 1e-9)
    return bool(abs(cos) < ACROSS_COS)


def parallel(a: Vec, b: Vec, *, within: float = PARALLEL_COS) -> bool:
    """Whether two card quads lie parallel (either way up): the cosine of their turn beyond
    ``within`` (by default about 8 degrees: one card's rectangles)."""
    (ax, ay), (bx, by) = (a[1] - a[0]).tolist(), (b[1] - b[0]).tolist()
    cos = (ax * bx + ay * by) / max(math.hypot(ax, ay) * math.hypot(bx, by), 1e-9)
    return bool(abs(cos) > within)


def on_or_under(quad: Vec, card: Hypothesis, *, card_area: float) -> bool:
    """Whether chosen ``card`` lies on ``quad`` or under it: their rectangles share more than a
    pixel, or, for a face, more than ``TOUCH`` of a card (a face only touching a stack's back)."""
    return overlap_area(quad, card.corners) > (1.0 if card.code == BACK else TOUCH * card_area)
