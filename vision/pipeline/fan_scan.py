"""The fan scan: cards whose index corner is in view but no outline corner, found along a blob's straight edges."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerReader, index_frame
from vision.pipeline.fan_edges import EDGE_BEYOND, Walk, band_starts, follow_side, outline_edges, paper_along, walks
from vision.pipeline.fan_looks import FAN_SEEN_SCORE
from vision.pipeline.fans import FanReader
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.one_corner import FAN_INDEX_LEAST, FAN_RETRY_SCORE
from vision.pipeline.plane import Plane

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# A scanned fan card whose index matches FAN_RETRY_SCORE but not enough is read again this share
# of a card's width either side (where an index starts is only known to a few pixels).
FAN_NUDGE: Final = 0.03
# A card placed from where its index's ink starts is placed this share of its side early: a glyph
# starts at or after the deck's leftmost index ink (a narrow rank further in), and a patch that
# cuts into a glyph reads nothing where one a little wide reads it.
FAN_EARLY: Final = 0.015
# ... and one whose ink fits no card is read again this share of its side later (standard's Qh
# of seed 6's fan: 0.14 where it starts, 0.76 there, 1.9 frame pixels on).
FAN_LATE: Final = 0.015
# Outline edges scanned for fanned cards are at least this share of a card's width long.
EDGE_LEAST: Final = 0.2
# ... and one shorter than this share of its side is followed on over the card below (follow_side).
FOLLOW_SHORT: Final = 0.5
# The least share of a fanned card within the blob's outline, judged at a grid of points (shares
# of its width and height) over it.
FAN_FILL: Final = 0.9
# A scan start within this share of a card's width of one read already in the blob that showed no
# index at all, the card turned the same way (cosine of the angle between their top edges at least
# MISSED_COS) and its corner no nearer the index's start along the top edge, is not read: its patch
# is the same ink a pixel or two further in, cut out by its own bounding box. (A start a pixel or
# two before one that read nothing may read: that patch cut into a glyph, dondorf's table 3006 6c.)
# Seeds 500 and 3000, six designs: see vscan11's note for the counts.
MISSED_NEAR: Final = 0.02
MISSED_COS: Final = 0.995
# A scan start within this share of a card's width of an index corner a hypothesis read and found
# nothing at is that corner again, and is not read; one further off is (a rectangle drawn from a
# short rounded-corner edge lies a few degrees off its card, its index corner several pixels off:
# standard's table 11006 2c, whose scan start 0.033 w from it reads the 2c, and dondorf's 11002 2s;
# development seeds, six designs: these 2 cards more, no other line changed). A read moved FAN_NUDGE is
# another read.
FAILED_NEAR: Final = 0.02
_GRID: Final = np.array([(x, y) for x in np.linspace(0.05, 0.95, 5) for y in np.linspace(0.04, 0.96, 7)])
# A walk is scanned only where some card placed from a start along it may lie in the blob
# (``_readable``): a card is placed every SPAN_STEP plane pixels along its span and judged
# within the outline grown by _LOOSE pixels, which takes in every grid point of a card placed
# up to half a step either way (SPAN_STEP / 2 along the walk, and a pixel of rounding), so no
# walk with a start that would be read is passed over. Kennard's speed frames: 33 walks a frame
# banded, 24 of them reading nothing; 13 of those have no place a card fits.
SPAN_STEP: Final = 4.0
_LOOSE: Final = 3


class FanScanner:
    """Scans a blob's straight outline edges for index starts and reads each as a fanned card's
    index corner (by the fan reader's one-index read)."""

    def __init__(self, *, corners: CornerReader, reader: FanReader) -> None:
        self.corners = corners
        self.reader = reader
        self.bands = 0  # fan edges scanned since the scanner was made

    def scan_blob(
        self,
        image: ByteImage,
        plane: Plane,
        *,
        contour: ByteImage,
        hyps: Sequence[Hypothesis],
        card_w: float,
        card_h: float,
    ) -> list[Hypothesis]:
        """Cards of a blob of several whose index corner is in view but no outline corner (plane
        pixels): a fan's middle card, whose top edge runs in line with its neighbours' (cards
        spread along their side) or shows only between them, its index corner over the card
        below (cards turned about a corner, as held in the hand).

        Every straight outline edge is part of some card's side, its card on the blob's side of
        it; walked one way it is a short side, the other way a long one. Along its line, and on
        past an end where the line runs on into the blob, an index is looked for where one starts
        in the band the indices occupy; each place is read as that card's index corner, strictly
        (one index, no face to check it by). ``hyps`` are the blob's cards read already: their
        index corners are not read again. (A card read at both its indices need not lie on top:
        the bottom card of a fan spread the other way shows both, and the top card's index lies
        over it.)
        """
        box = self.corners.deck.index_box
        scale = plane.scale
        known = [h for h in hyps if h.code != UNKNOWN or h.seen]
        examined = [h.corners[k] for h in known for k in (0, 2)]
        # (An index corner read that showed nothing is passed over only where a start is that
        # corner itself: see FAILED_NEAR.)
        failed = [h.corners[k] for h in hyps if h.code == UNKNOWN and not h.seen for k in h.examined]
        found: list[Hypothesis] = []
        inside = filled_outline(contour)
        missed: list[tuple[float, float, float, float]] = []  # starts read that showed no index: corner, unit top edge
        # The walks where a start may lie: a card's side from corner to corner has none, and a
        # band under a few pixels is too short to find one in.
        plan: list[tuple[Walk, float, float, float, int, bool, tuple[tuple[float, float], float, Vec]]] = []
        for edge in outline_edges(contour, least=EDGE_LEAST * card_w):
            for walk in walks(edge, contour, probe=0.08 * card_w):
                side = card_w if walk.short else card_h
                lo, hi = walk.span(side)
                if hi < lo:
                    continue
                band = walk.band(box, card_w=card_w, card_h=card_h)
                length = int((hi - lo + band[1]) / scale)
                if length >= 4:
                    # The side runs on over the card below from a short visible piece, and a line
                    # fitted to a few pixels of edge is a few degrees off: it is taken from all of it.
                    follow = walk.short and walk.open_start and walk.length < FOLLOW_SHORT * side
                    plan.append((walk, side, lo, hi, length, follow, band))
        # Where no start may be read, the band is not looked at (a third of the walks). (One to be
        # followed is scanned: its line may turn a few degrees.)
        spans = [(walk, lo, min(hi, lo + (length - 1) * scale)) for walk, _, lo, hi, length, _, _ in plan]
        may = _readable(spans, _loose(inside), card_w=card_w, card_h=card_h) if plan else []
        for (walk, side, lo, hi, length, follow, band), open_walk in zip(plan, may, strict=True):
            if not (follow or open_walk):
                continue
            rows, lead, across = band
            if not paper_along(plane.image, walk, across=across, rows=rows):
                continue  # no face along this edge (a back, a chip): no index to find
            if follow:
                walk = follow_side(image, plane, walk, reach=EDGE_BEYOND * side)  # noqa: PLW2901
                rows, lead, across = walk.band(box, card_w=card_w, card_h=card_h)
            plain, faint = band_starts(
                image,
                plane,
                origin=walk.origin + walk.along * lo,
                step=walk.along * scale,
                across=across,
                rows=rows,
                length=length,
                # (A deck printing its index closer to the card's edge than that shows less
                # paper between the card below's ink and the index: standard's 2 px.)
                gap=max(2, int(min(0.03 * card_w, lead) / scale)),
                lead=round((lead + FAN_EARLY * side) / scale),
            )
            starts = [*plain, *faint]
            faint_from = len(plain)
            self.bands += 1
            reach = ((box.x1 if walk.short else box.y1) + 0.03) * (card_w if walk.short else card_h)
            taken: list[float] = []
            # Cards seen here but not read: the ink of the card below beside an index (a pip,
            # a glyph) fits some card fairly too, and the index beside it may still read.
            unsure: list[tuple[float, Hypothesis]] = []
            for i, start in enumerate(starts):
                t = lo + start * scale
                # A start within an index already found is that index's own glyph (its suit,
                # the "0" of a ten): the next card's index begins past this one's width.
                if not lo <= t <= hi or any(abs(t - u) < reach for u in taken):
                    continue
                near = [u for u in unsure if abs(t - u[0]) < reach]
                quad = walk.card(t, card_w=card_w, card_h=card_h)
                # An index corner already read (a card's own, or a card read) is not read again.
                if _near(examined, quad[0], 0.1 * card_w) or _near(failed, quad[0], FAILED_NEAR * card_w):
                    taken.append(t)
                    continue
                if not self._may_lie(quad, inside) or _missed_near(quad, missed, card_w=card_w):
                    continue
                fanned = self._read_fanned(image, plane, walk, t, card_w=card_w, card_h=card_h, faint=i >= faint_from)
                if fanned is None:
                    missed.append(_top(quad))
                if fanned is None or not _found(fanned):
                    # No index here (or ink that fits no card at all: the edge of the card
                    # below cut into the patch), or only part of one (the patch reaches a
                    # little past its corner, onto the next card's index): a start a little
                    # further on may still find it whole.
                    continue
                if fanned.code == UNKNOWN:
                    if not near:
                        unsure.append((t, fanned))
                    continue
                if self.reader.unasked(fanned):
                    # Named by one blurred index whose far corner was not asked, to be settled
                    # with the blob (FanSettle.soft): a start close by may still read the card
                    # outright (nicu-white's table 503: the fan's middle Kh, soft at its first
                    # start, un-named once settled, read at 0.76 three frame pixels on).
                    for u in near:
                        unsure.remove(u)
                    unsure.append((t, fanned))
                    continue
                # An index read there: another start close by is the same index, and one
                # seen but not read beside it was ink beside it.
                for u in near:
                    unsure.remove(u)
                    self.reader.forget(u[1])
                taken.append(t)
                found.append(fanned)
                examined.append(fanned.corners[0])
            for _, card in unsure:
                found.append(card)
                examined.append(card.corners[0])
        return found

    def _may_lie(self, quad: Vec, inside: tuple[ByteImage, int, int]) -> bool:
        """Whether a card may lie at ``quad``: it lies within the blob's outline (a card sticking
        out past the blob is the face of the card whose edge this is; see ``lies_within``)."""
        return lies_within(quad, inside)

    def _read_fanned(
        self,
        image: ByteImage,
        plane: Plane,
        walk: Walk,
        t: float,
        *,
        card_w: float,
        card_h: float,
        faint: bool = False,
    ) -> Hypothesis | None:
        """The card whose index corner lies ``t`` along ``walk``, read by that index; None when
        no index is there (ink fitting no card at all). A ``faint`` start (see band_starts) is read
        without the box's ink check first: a faint index has too little ink at its level.
        """
        fanned = Hypothesis(corners=walk.card(t, card_w=card_w, card_h=card_h), fill=1.0)
        if not faint and self.corners.holds_none(image, *index_frame(plane.to_frame(fanned.corners), 0)):
            return None  # (a band run on over a back, or a court picture: ink after a gap)
        score = self.reader.read_exposed(image, fanned, 0, plane, seen_score=FAN_SEEN_SCORE, pale=False)
        if score is not None and score < FAN_INDEX_LEAST:
            # Ink that fits no card: a patch placed early (see FAN_EARLY) that takes in the edge
            # of the card the index lies beside reads the index after it so; it is read once
            # more a little later, as a card only where the index there fits one at all.
            side = card_w if walk.short else card_h
            later = walk.card(t + FAN_LATE * side, card_w=card_w, card_h=card_h)
            plain = self.corners.read(image, *index_frame(plane.to_frame(later), 0), pale=False)
            if plain.match is None or plain.match.score < FAN_INDEX_LEAST:
                return None
            fanned = Hypothesis(corners=later, fill=1.0)
            score = self.reader.read_exposed(image, fanned, 0, plane, seen_score=FAN_SEEN_SCORE, pale=False)
        if score is None or score < FAN_INDEX_LEAST:
            return None
        tentative = self.reader.unasked(fanned)
        # A card whose index read at the fan's bar but was refused by its far corner, which fits
        # another card's registered index more clearly, is not read again a few pixels off: its
        # index was found (a nudge helps one placed off its start), and a far corner moved off
        # that other index no longer shows it (vision_blur's dondorf table 18512: a rectangle over
        # a fan's bottom 6s and middle 7h took the top Ks's lower index; its far corner, on the
        # 6s's index, fits the 6s 0.97 and the Ks 0.84; 3 pixels on it fits neither, and the
        # nudged read named the 6s Ks). One refused by the classifier's weaker look there is
        # (hershey's table 13009: a fan's middle Jc, its far corner leaning to a 6h at 0.57), and
        # so is one short of the bar (OneCornerReader.read_exposed: dondorf's table 14976's 4c).
        if (fanned.code == UNKNOWN and not self.reader.refused(fanned)) or tentative:
            # An index that falls short: its start is a few pixels off (a shadow, a glyph that
            # begins further in than the deck's leftmost ink, so the corner was put late); it is
            # read again a little earlier, and a fair match later too. (So is one named only
            # tentatively, see FanSettle.soft: a read outright a little off is surer.)
            side = card_w if walk.short else card_h
            nudges = (-FAN_NUDGE, FAN_NUDGE) if score >= FAN_RETRY_SCORE else (-FAN_NUDGE,)
            base = walk.card(t, card_w=card_w, card_h=card_h)
            shifts = [walk.along * nudge * side for nudge in nudges]
            if score >= FAN_RETRY_SCORE:
                shifts += [walk.inward * s * card_w for s in (-FAN_NUDGE, FAN_NUDGE)]
            for shift in shifts:
                nudged = Hypothesis(corners=base + shift, fill=1.0)
                self.reader.read_exposed(image, nudged, 0, plane, seen_score=FAN_SEEN_SCORE, pale=False)
                if tentative:
                    if nudged.code != UNKNOWN and not self.reader.unasked(nudged):
                        self.reader.forget(fanned)
                        return nudged
                    self.reader.forget(nudged)
                    continue
                if nudged.code != UNKNOWN or (nudged.seen and not fanned.seen):
                    fanned = nudged
                if fanned.code != UNKNOWN:
                    break
        return fanned


def filled_outline(contour: ByteImage) -> tuple[ByteImage, int, int]:
    """A blob's outline filled, in its bounding box, and that box's top-left corner (x0, y0)."""
    x0, y0, bw, bh = cv2.boundingRect(contour)
    filled = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(filled, [contour], -1, 255, cv2.FILLED, offset=(-x0, -y0))
    return filled, x0, y0


def lies_within(quad: Vec, inside: tuple[ByteImage, int, int]) -> bool:
    """Whether a card at ``quad`` lies within a blob's outline, judged at a grid of points over it
    (FAN_FILL of them). (The outline filled, not the felt mask: a red card's pips on a red cloth are
    felt-coloured.) ``inside`` is the filled outline and its box's top-left corner (``filled_outline``).
    """
    filled, x0, y0 = inside
    pts = quad[0] + _GRID @ np.stack([quad[1] - quad[0], quad[3] - quad[0]])
    xy = np.round(pts).astype(np.int64) - (x0, y0)
    h, w = filled.shape
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    hits = int(np.count_nonzero(filled[xy[ok, 1], xy[ok, 0]]))
    return bool(hits >= FAN_FILL * len(pts))


def _near(points: Sequence[Vec], point: Vec, reach: float) -> bool:
    """Whether any of ``points`` lies within ``reach`` of ``point``."""
    return bool(points) and float(np.hypot(*(np.array(points) - point).T).min()) < reach


def _top(quad: Vec) -> tuple[float, float, float, float]:
    """A card's index corner and the unit direction of its top edge, as plain floats (compared
    for every scan start: numpy's per-call cost would be most of the work)."""
    x, y = float(quad[0][0]), float(quad[0][1])
    dx, dy = float(quad[1][0]) - x, float(quad[1][1]) - y
    n = max(math.hypot(dx, dy), 1e-9)
    return x, y, dx / n, dy / n


def _missed_near(quad: Vec, missed: Sequence[tuple[float, float, float, float]], *, card_w: float) -> bool:
    """Whether a card placed at ``quad`` by a scan start lies within MISSED_NEAR of a card's width
    of one placed by a start that showed no index (``missed``: see ``_top``), turned the same way
    and its corner no nearer the index's start along the top edge (see MISSED_NEAR)."""
    if not missed:
        return False
    x, y, ux, uy = _top(quad)
    near = MISSED_NEAR * card_w
    return any(
        math.hypot(x - mx, y - my) < near and ux * ex + uy * ey >= MISSED_COS and ux * (x - mx) + uy * (y - my) >= 0.0
        for mx, my, ex, ey in missed
    )


def _found(card: Hypothesis) -> bool:
    """Whether a card placed by the fan scan was read or seen (an index matching some card fairly)."""
    return card.code != UNKNOWN or card.seen


def _loose(inside: tuple[ByteImage, int, int]) -> tuple[ByteImage, int, int]:
    """The filled outline ``inside`` (and its box's top-left corner) grown by _LOOSE pixels, in a
    box padded so a point just past the outline's box still finds it and its border row and
    column are never outline (see ``_readable``)."""
    filled, x0, y0 = inside
    pad = _LOOSE + 1
    grown = cv2.dilate(
        cv2.copyMakeBorder(filled, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0),
        np.ones((2 * _LOOSE + 1, 2 * _LOOSE + 1), np.uint8),
    )
    return grown, x0 - pad, y0 - pad


def _readable(
    spans: Sequence[tuple[Walk, float, float]],
    loose: tuple[ByteImage, int, int],
    *,
    card_w: float,
    card_h: float,
) -> list[bool]:
    """For each walk and span along it (plane pixels), whether some start there may be read: its
    card may lie in the blob (``FanScanner._may_lie``), judged every SPAN_STEP in ``loose``, the
    outline grown by _LOOSE (``_loose``). Never False where a start would be
    read. (All of a blob's walks at once: numpy's per-call cost would be most of the work walk
    by walk.)
    """
    grown, x0, y0 = loose
    h, w = grown.shape
    counts = [math.ceil((hi - lo) / SPAN_STEP) + 1 for _, lo, hi in spans]
    firsts = [0, *itertools.accumulate(counts[:-1])]
    # Per walk: its origin in ``loose``, its direction, its span, and the card's top and side
    # edges from its index corner as Walk.card lays them.
    rows = []
    for walk, lo, hi in spans:
        ax, ay = walk.along.tolist()
        nx, ny = walk.inward.tolist()
        ox, oy = walk.origin.tolist()
        if walk.short:
            rows.append((ox - x0, oy - y0, ax, ay, lo, hi, ax * card_w, ay * card_w, nx * card_h, ny * card_h))
        else:
            rows.append((ox - x0, oy - y0, ax, ay, lo, hi, nx * card_w, ny * card_w, ax * card_h, ay * card_h))
    table = np.array(rows)
    seg = np.repeat(np.arange(len(spans)), counts)
    per = table[seg]
    ts = np.minimum(per[:, 4] + (np.arange(len(seg)) - np.array(firsts)[seg]) * SPAN_STEP, per[:, 5])
    corners = per[:, 0:2] + ts[:, None] * per[:, 2:4]
    grids = _GRID @ table[:, 6:10].reshape(-1, 2, 2)
    xy = np.rint(corners[:, None, :] + grids[seg]).astype(np.intp)
    x, y = xy[..., 0], xy[..., 1]
    # (A point off the map, negative ones too as unsigned, is looked up at its corner: never outline.)
    inside = (x.view(np.uintp) < w) & (y.view(np.uintp) < h)
    hits = grown.take(np.where(inside, y * w + x, 0))
    ok = np.count_nonzero(hits, axis=1) >= FAN_FILL * len(_GRID)
    return np.logical_or.reduceat(ok, firsts).tolist()  # type: ignore[no-any-return]
