"""Find the cards in one frame: face-up cards read from their corner index, face-down cards counted."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any, Final, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import Calibration
from vision.config import VisionSettings, ZoneConfig
from vision.deck import CODES, DeckProfile, IndexMatch, face_thumb, lead_over, match_index, match_scores
from vision.errors import ImageError
from vision.index import CARD_PX_H, CARD_PX_W, SEARCH_MARGIN, index_feature

BACK: Final = "back"
UNKNOWN: Final = "unknown"
CARD_ASPECT: Final = 88.0 / 63.0
# The margin two agreeing index corners need together, as a share of one corner's margin.
COMBINED_MARGIN: Final = 0.75
# The least score each of the two corners needs then, as a share of the accepting score.
COMBINED_FLOOR: Final = 1.0
# What an index seen only at the paler ink level (a soft image) adds to the accepting score.
PALE_EXTRA_SCORE: Final = 0.08
# Blur of an index's edges (sigma in canonical card pixels, see ``IndexFeature.softness``) past
# which its reads need more score, how much more per pixel, and past which it is not read at all:
# beyond the blur the deck's classifier learnt from, its scores can no longer be trusted (a
# half-seen suit is as near a heart as a diamond). A 1.3 px frame blur on a 150 px card is ~2.1.
SOFT_KNEE: Final = 1.9
SOFT_EXTRA_SCORE: Final = 0.3
SOFT_LIMIT: Final = 2.5
# How far below the accepting score a corner's best rank or suit may fit and still speak against
# the other corner's read.
DISSENT_SLACK: Final = 0.22
# What a card found only by scanning a fan (one index in view, no face to check) adds to it.
FAN_EXTRA_SCORE: Final = 0.04
# An index found by scanning a fan's edge that matches some card at least this well is one (a
# card is there, unknown), though far from well enough to name it: a blurred index is still an
# index, where a pip or a picture's edge fits no rank and suit at all.
FAN_SEEN_SCORE: Final = 0.5
# ... and below this it is no index at all.
FAN_INDEX_LEAST: Final = 0.3
# A scanned fan card whose index matches at least this well but not enough is read again this
# share of a card's width either side (where an index starts is only known to a few pixels).
FAN_RETRY_SCORE: Final = 0.55
FAN_NUDGE: Final = 0.03
# The least share of an index box (detection scale) that must be ink before it is read.
INDEX_INK_SHARE: Final = 0.02
# A card lying alone whose first index corner clears the accepting score by this much, and the
# margin by this factor, is not read at its second corner (its whole face still has to agree).
SURE_EXTRA_SCORE: Final = 0.04
SURE_MARGIN_FACTOR: Final = 1.5
# The lead the whole face must give one of two same-coloured suits to settle a torn index suit.
FACE_SUIT_MARGIN: Final = 0.025
# ... and the least correlation of the face with the suit it picks (a face half hidden or
# mislocated matches neither well and settles nothing).
FACE_SUIT_LEAST: Final = 0.8

# The lead the whole face must give one card over every other to name a blurred index's rank,
# the least correlation it needs, and how many ranks the index may fit better than that one.
FACE_RANK_MARGIN: Final = 0.03
FACE_RANK_LEAST: Final = 0.9
FACE_RANK_AMONG: Final = 3

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
# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]
Point = tuple[float, float]
_SQUARE_3: Final = np.ones((3, 3), np.uint8)
# A contour point (x, y) as one integer, x + y * 2**20, to find points by equality.
_POINT_KEY: Final = np.array([1, 1 << 20], np.int64)
_SQUARE_5: Final = np.ones((5, 5), np.uint8)
# The corners of the small face image _face_agrees warps a card to.
_THUMB_DST: Final = np.array(
    [[0, 0], [CARD_PX_W // 4, 0], [CARD_PX_W // 4, CARD_PX_H // 4], [0, CARD_PX_H // 4]], np.float32
)
Vec = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class RecognizerSettings:
    """Tuning of the recognizer; the defaults are the ones the benchmark measures."""

    accept_score: float = 0.72  # least fit of the index to its rank and suit (0..1) for a read
    accept_margin: float = 0.17  # least lead over the best other rank and the best other suit
    min_fill: float = 0.86  # share of a card hypothesis that must be non-felt
    back_share: float = 0.45  # share of the card's middle in the back's colours to call it a back
    paper_share: float = 0.30  # share of white paper for an unreadable thing to count as a card
    felt_hue: int | None = None  # OpenCV hue (0-179) of the felt; None = the frame's main hue
    card_height_px: float | None = None  # expected card height in the frame; None = measured

    @classmethod
    def from_config(cls, settings: VisionSettings) -> RecognizerSettings:
        """The recognition part of a table's ``[vision]`` settings."""
        return cls(accept_score=settings.accept_score, accept_margin=settings.accept_margin)

    def sized_by(self, calibration: Calibration, zones: Sequence[ZoneConfig]) -> RecognizerSettings:
        """These settings with the card height a calibrated layout implies over its zones (unless a
        height is set already, or there are no zones): cards are then found even in a frame of
        fans alone, which has no whole card side to measure a card by.
        """
        if self.card_height_px is not None or not zones:
            return self
        return dataclasses.replace(self, card_height_px=calibration.layout_card_height_px(zones))


@dataclass(frozen=True, slots=True)
class CardRead:
    """One card found in a frame.

    ``code`` is a card code such as ``"As"``, ``"back"`` for a face-down card or ``"unknown"``
    for a face-up card whose index could not be read with enough confidence. ``corners`` are the
    card's four corners in image pixels, clockwise, starting at an index corner.
    """

    code: str
    confidence: float
    corners: tuple[Point, Point, Point, Point]

    @property
    def center(self) -> Point:
        """The card's centre in image pixels."""
        xs = [p[0] for p in self.corners]
        ys = [p[1] for p in self.corners]
        return sum(xs) / 4.0, sum(ys) / 4.0

    @property
    def face_up(self) -> bool:
        """True for face-up cards, read or not."""
        return self.code != BACK


@dataclass(frozen=True)
class FrameReading:
    """Everything found in one frame.

    ``clutter`` marks (at ``mask_scale`` of the frame) the non-felt pixels that no card explains:
    a hand, a chip, a cloth; the tracker uses it to ignore covered zones.
    """

    cards: tuple[CardRead, ...]
    clutter: ByteImage = field(repr=False)
    mask_scale: float
    card_height_px: float | None

    def clutter_share(self, polygon_px: npt.NDArray[np.float64]) -> float:
        """Share of a polygon (image pixels) covered by unexplained non-felt pixels."""
        poly = np.round(np.asarray(polygon_px, dtype=np.float64) * self.mask_scale).astype(np.int32)
        mask = np.zeros_like(self.clutter)
        cv2.fillPoly(mask, [poly], 255)
        area = cv2.countNonZero(mask)
        if area == 0:
            return 0.0
        return float(cv2.countNonZero(cv2.bitwise_and(mask, self.clutter))) / float(area)


@dataclass(slots=True)
class _Corner:
    # Plain floats: numpy's per-call cost would be most of the work for these 2-vectors.
    point: Point  # detection-scale pixels
    x_dir: Point  # unit vector along the clockwise-next edge
    y_dir: Point  # unit vector along the other edge
    x_len: float  # visible edge lengths
    y_len: float


@dataclass(slots=True)
class _Hypothesis:
    corners: Vec  # (4, 2) detection-scale, clockwise, corners[0] an index corner
    run_x: float = 0.0  # visible straight edge from corners[0] along corners[1] (fans run long)
    support: int = 1
    fill: float = 0.0
    code: str = UNKNOWN
    confidence: float = 0.0
    seen: bool = False  # an index was seen where this card's should be, too unsure to read: a card is there
    anchors: int = 0  # how many of its corners are right-angled corners of the outline
    back: bool | None = None  # face down (the back's colours in its middle); None until tested
    whole: bool = False  # read at both index corners: it lies on top of its neighbours
    examined: tuple[int, ...] = ()  # which of its index corners (0, 2) were read
    center: Vec = field(init=False)  # the mean of the corners
    at: InitVar[Vec | None] = None  # the centre when already known (computed for many at once)

    def __post_init__(self, at: Vec | None) -> None:
        if at is not None:
            self.center = at
        else:
            c = self.corners
            self.center = (c[0] + c[1] + c[2] + c[3]) * 0.25  # ndarray.mean costs several times more


class _CornerRead(NamedTuple):
    code: str  # the accepted code, or UNKNOWN
    confidence: float
    best: str | None  # the best match even when too weak to accept; None if no index was seen
    match: IndexMatch | None = None  # the scores behind it; None when the index is too soft to trust


def _unit(v: Vec) -> Vec:
    x, y = float(v[0]), float(v[1])
    n = math.hypot(x, y)
    return np.array((x / n, y / n)) if n > 1e-9 else v


class Recognizer:
    """Reads frames against one registered deck; cheap to call once per frame (30 fps on one core)."""

    def __init__(self, *, deck: DeckProfile, settings: RecognizerSettings | None = None) -> None:
        self.deck = deck
        self.settings = settings or RecognizerSettings()
        hsv = cv2.cvtColor(deck.back_palette.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV)
        # Only saturated back colours are told apart by hue; white borders are not "back" colour.
        self._back_hues = [int(h) for h, s, _v in hsv.reshape(-1, 3) if s >= 70]
        # The bands 12 either side of those hues, overlapping ones joined: one test per band.
        self._back_bands: list[tuple[int, int]] = []
        for bh in sorted(set(self._back_hues)):
            if self._back_bands and bh - 12 <= self._back_bands[-1][1] + 1:
                self._back_bands[-1] = (self._back_bands[-1][0], bh + 12)
            else:
                self._back_bands.append((bh - 12, bh + 12))
        self._search = deck.index_box.search_size()
        self._face_size = (CARD_PX_W // 2, CARD_PX_H // 2)
        self._faces = np.stack(
            [_face_vector(cv2.resize(face, self._face_size, interpolation=cv2.INTER_AREA)) for face in deck.faces]
        )
        # The frame being read's corner reads (see _read_corner); emptied by read().
        self._corner_reads: dict[tuple[int, bytes], _CornerRead] = {}

    # -- masks ---------------------------------------------------------------------------------

    def _masks(self, small: ByteImage) -> tuple[ByteImage, ByteImage, ByteImage]:
        """Foreground (not felt), white paper and back-coloured masks at detection scale."""
        hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
        hue, sat, val = cv2.split(hsv)
        felt_hue = self.settings.felt_hue
        if felt_hue is None:
            # The cloth is most of the frame: every fourth pixel each way finds its hue as surely,
            # at a sixteenth of the cost.
            few_hue, few_sat = np.ascontiguousarray(hue[::4, ::4]), np.ascontiguousarray(sat[::4, ::4])
            hist = cv2.calcHist([few_hue], [0], cv2.inRange(few_sat, 60, 255), [180], [0, 180]).reshape(-1)
            felt_hue = int(np.argmax(hist))
        felt = cv2.bitwise_and(_hue_band(hue, felt_hue, 14), cv2.inRange(sat, 45, 255))
        felt = cv2.bitwise_and(felt, cv2.inRange(val, 20, 255))
        fg = cv2.bitwise_not(felt)
        # A 3x3 opening, then a 3x3 closing: erode, dilate, dilate, erode, and two 3x3 dilations
        # are one 5x5 dilation (the same pixels, one pass fewer over the frame).
        fg = cv2.erode(cv2.dilate(cv2.erode(fg, _SQUARE_3), _SQUARE_5), _SQUARE_3)
        paper = cv2.bitwise_and(cv2.inRange(sat, 0, 70), cv2.inRange(val, 90, 255))
        back: ByteImage | None = None
        for lo, hi in self._back_bands:
            band = _hue_range(hue, lo, hi)
            back = band if back is None else cv2.bitwise_or(back, band)
        back = cv2.bitwise_and(back, cv2.inRange(sat, 70, 255)) if back is not None else np.zeros_like(fg)
        return fg, paper, back

    # -- geometry ------------------------------------------------------------------------------

    def _corners(self, contour: ByteImage) -> tuple[list[_Corner], list[float]]:
        """Right-angled convex corners of a blob outline, with exact edge directions."""
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
            line = _fit_edge(pts, i0, i1)
            # (Edges too short to fit, skipped above, may lie between: a notch's own sides.)
            if edges and _collinear(edges[-1], line, ends=(xy[spans[-1][0]], xy[spans[-1][1]], xy[i0], xy[i1])):
                # A fan's cards lie with their edges in one line, but the notch where one card's
                # rounded corner meets the next breaks the outline there: the pieces are one edge,
                # as long as the whole run (a fan is scanned along its full length).
                i0 = spans[-1][0]
                edges.pop()
                spans.pop()
                line = _fit_edge(pts, i0, i1)
                length = math.hypot(xy[i1][0] - xy[i0][0], xy[i1][1] - xy[i0][1])
            edges.append((*line, length))
            spans.append((i0, i1))
        if len(edges) > 2 and _collinear(
            edges[-1], edges[0][:4], ends=(xy[spans[-1][0]], xy[spans[-1][1]], xy[spans[0][0]], xy[spans[0][1]])
        ):
            i0, i1 = spans[-1][0], spans[0][1]
            line = _fit_edge(pts, i0, i1)
            edges[0] = (*line, math.hypot(xy[i1][0] - xy[i0][0], xy[i1][1] - xy[i0][1]))
            edges.pop()
        corners: list[_Corner] = []
        lengths = [e[4] for e in edges]
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
                corners.append(_Corner(point, out_a, out_b, la, lb))
            else:
                corners.append(_Corner(point, out_b, out_a, lb, la))
        return corners, lengths

    # -- reading -------------------------------------------------------------------------------

    def _read_corner(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> _CornerRead:
        """Read the index at one corner (full-resolution vectors spanning the whole card), once a frame.

        Reads are most of a frame's cost and a corner can be asked for twice (a lone card's first
        corner alone, then again by _read_card when it was unsure), so each is remembered, keyed by
        the frame and the patch.
        """
        key = (id(image), np.round(np.concatenate([origin, x_vec, y_vec]), 2).tobytes())
        found = self._corner_reads.get(key)
        if found is None:
            found = self._corner_reads[key] = self._read_corner_once(image, origin, x_vec, y_vec)
        return found

    def _read_corner_once(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> _CornerRead:
        """Read the index at one corner: warp its patch, normalise the glyphs, match the deck."""
        sw, sh = self._search
        m = np.array(
            [
                [x_vec[0] / CARD_PX_W, y_vec[0] / CARD_PX_H, origin[0]],
                [x_vec[1] / CARD_PX_W, y_vec[1] / CARD_PX_H, origin[1]],
            ],
            dtype=np.float64,
        )
        patch = cv2.warpAffine(
            image, m, (sw, sh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
        feat = index_feature(np.asarray(patch, dtype=np.uint8), self.deck.index_box)
        if feat is None:
            return _CornerRead(UNKNOWN, 0.0, None, None)
        match = match_index(self.deck, feat)
        if feat.softness > SOFT_LIMIT:
            return _CornerRead(UNKNOWN, 0.0, match.code, None)
        # A blurred index's score is discounted, so every use of it (one corner, two pooled, a
        # fan's scan) asks more of a soft read.
        soft = SOFT_EXTRA_SCORE * max(feat.softness - SOFT_KNEE, 0.0)
        if soft > 0.0:
            match = dataclasses.replace(match, score=match.score - soft)
        s = self.settings
        # Confidence: how far the read clears both thresholds, on 0..1; 0.5 is the bar.
        conf = 0.5 * min(match.score / s.accept_score, match.margin / s.accept_margin, 2.0)
        conf = max(0.0, min(1.0, conf))
        # An index found only at the paler ink level is a soft one: it must match more closely.
        need = s.accept_score + (PALE_EXTRA_SCORE if feat.pale else 0.0)
        if match.score >= need and match.margin >= s.accept_margin:
            return _CornerRead(match.code, conf, match.code, match)
        return _CornerRead(UNKNOWN, conf, match.code, match)

    def _read_card(self, image: ByteImage, corners: Vec, *, alone: bool) -> tuple[str, float]:
        c0, c1, c2, c3 = corners
        first = self._read_corner(image, c0, c1 - c0, c3 - c0)
        second = self._read_corner(image, c2, c3 - c2, c1 - c2)
        reads = [r for r in (first, second) if r.code != UNKNOWN]
        if len({r.code for r in reads}) > 1:
            # The two corners of one card disagree: that is never a read.
            return UNKNOWN, 0.0
        both = self._combined(first, second)
        if reads:
            code, conf = reads[0].code, max(r.confidence for r in reads)
            # Alone, both corners are in view: a corner that saw an index must not tell another
            # card from this one as clearly as a read would, or the two corners' scores together
            # must still pick this card. (A badly seen corner leaning vaguely elsewhere is no
            # evidence against a clear read.)
            leans_away = any(
                r.best not in (None, code) and (r.match is None or self._dissents(r.match, code))
                for r in (first, second)
            )
            if (
                alone
                and leans_away
                and (both is None or both[0] != code)
                and not self._face_settles(image, corners, code, [r.best for r in (first, second) if r.best])
            ):
                return UNKNOWN, 0.0
        elif both is not None:
            # Neither corner alone is sure enough, but both saw the same card: two looks at one
            # index halve the noise, so their mean scores decide.
            code, conf = both
        else:
            matches = [r.match for r in (first, second) if r.match is not None]
            by_face = self._suit_by_face(image, corners, matches) if alone else None
            if by_face is None:
                by_face = self._rank_by_face(image, corners, matches)
            if by_face is None:
                return UNKNOWN, max(first.confidence, second.confidence)
            code, conf = by_face
        if not self._face_agrees(image, corners, code, alone=alone):
            return UNKNOWN, 0.0
        return code, conf

    def _dissents(self, match: IndexMatch, code: str) -> bool:
        """Whether one corner's scores set its own best rank or suit clearly apart from ``code``'s,
        with a best that is a plausible look at all (a suit cut out wrongly fits nothing well).
        """
        at = CODES.index(code)
        s = self.settings
        return any(
            float(fits.max()) >= s.accept_score - DISSENT_SLACK and lead_over(fits, own) >= s.accept_margin
            for fits, own in ((match.rank_scores, at // 4), (match.suit_scores, at % 4))
        )

    def _suit_by_face(self, image: ByteImage, corners: Vec, matches: Sequence[IndexMatch]) -> tuple[str, float] | None:
        """A clear rank whose small index suit is torn between the two suits of one colour (a
        blurred heart and diamond, club and spade): the card's face, whose pips or court picture
        are many times the index's size, picks between them. Only for a card lying alone: a strip
        of a card fanned under others proved no safe guide (its pips misled in tests).
        """
        if not matches:
            return None
        s = self.settings
        rank_scores = _pooled([m.rank_scores for m in matches])
        suit_scores = _pooled([m.suit_scores for m in matches])
        r_order = np.argsort(rank_scores)[::-1]
        rank = int(r_order[0])
        if rank_scores[rank] < s.accept_score or lead_over(rank_scores, int(r_order[1])) < s.accept_margin:
            return None
        s_order = [int(k) for k in np.argsort(suit_scores)[::-1]]
        pair = s_order[:2]
        # Both candidates of one colour (suits run c d h s: c and s black, d and h red), each
        # well clear of the other two suits.
        if {pair[0], pair[1]} not in ({0, 3}, {1, 2}):
            return None
        if (
            suit_scores[pair[1]] < s.accept_score - 0.15
            or lead_over(suit_scores[[pair[1], s_order[2]]], 1) < s.accept_margin
        ):
            return None
        faces = self._face_scores(image, corners)
        scores = [float(faces[rank * 4 + k]) for k in pair]
        lead = scores[0] - scores[1]
        if abs(lead) < FACE_SUIT_MARGIN or max(scores) < FACE_SUIT_LEAST:
            return None
        suit = pair[0] if lead > 0 else pair[1]
        return CODES[rank * 4 + suit], min(1.0, 0.5 * abs(lead) / FACE_SUIT_MARGIN)

    def _face_scores(self, image: ByteImage, corners: Vec) -> npt.NDArray[np.float32]:
        """The card's whole face at half the canonical size correlated with every registered face
        (either way up: the two index corners look alike).
        """
        w, h = self._face_size
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
        card = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR)
        face = _face_vector(np.asarray(card))
        # (A reversed view is multiplied element by element, eight times slower than a copy by BLAS.)
        turned = np.ascontiguousarray(face[::-1])
        return np.asarray(np.maximum(self._faces @ face, self._faces @ turned), dtype=np.float32)

    def _face_settles(self, image: ByteImage, corners: Vec, code: str, named: Sequence[str]) -> bool:
        """Whether a lone card's whole face settles two index corners that name different cards
        (a blurred 5 whose second index passes for an 8) in favour of ``code``: the face must fit
        that card best of its suit (a design's clubs and spades pips can look alike blurred; the
        index's suit is the clear part), clearly better than every card the corners named.
        """
        faces = self._face_scores(image, corners)
        at = CODES.index(code)
        if float(faces[at % 4 :: 4].max()) > faces[at] or faces[at] < FACE_RANK_LEAST:
            return False
        return all(faces[at] - faces[CODES.index(other)] >= FACE_RANK_MARGIN for other in named if other != code)

    def _rank_by_face(self, image: ByteImage, corners: Vec, matches: Sequence[IndexMatch]) -> tuple[str, float] | None:
        """A clear suit whose index rank is lost to blur (a thin 8, 9, 6 or Q at 150 px): the
        card's face, its pips' count and layout or its court picture, names the rank, but only a
        rank the index itself leans to. A card read at both index corners among others (the top
        card of a fan) shows its face too; one partly covered correlates too little to name any.
        """
        if not matches:
            return None
        s = self.settings
        suit_scores = _pooled([m.suit_scores for m in matches])
        suit, other = (int(k) for k in np.argsort(suit_scores)[::-1][:2])
        if suit_scores[suit] < s.accept_score or lead_over(suit_scores, other) < s.accept_margin:
            return None
        rank_scores = _pooled([m.rank_scores for m in matches])
        faces = self._face_scores(image, corners)
        same = faces[suit::4]
        order = np.argsort(same)[::-1]
        rank = int(order[0])
        lead = float(same[rank] - same[int(order[1])])
        best = rank * 4 + suit
        among = int(np.sum(rank_scores > rank_scores[rank]))
        # The face must name one rank of the index's suit clearly, no card of another suit may
        # look more like it (a face seen through glare can lean anywhere), and the index itself
        # must rank that rank among its best few.
        if int(np.argmax(faces)) != best or same[rank] < FACE_RANK_LEAST or lead < FACE_RANK_MARGIN:
            return None
        if among >= FACE_RANK_AMONG:
            return None
        return CODES[best], min(1.0, 0.5 * lead / FACE_RANK_MARGIN)

    def _combined(self, first: _CornerRead, second: _CornerRead) -> tuple[str, float] | None:
        """The card both index corners' mean scores pick, when they pick one clearly enough."""
        if first.match is None or second.match is None:
            return None
        a, b = first.match, second.match
        both = match_scores(_pooled([a.rank_scores, b.rank_scores]), _pooled([a.suit_scores, b.suit_scores]))
        s = self.settings
        need = s.accept_margin * COMBINED_MARGIN
        if both.score < s.accept_score or both.margin < need:
            return None
        # Each corner must lean to that card on its own, and neither may be a poor match.
        if a.code != both.code or b.code != both.code or min(a.score, b.score) < COMBINED_FLOOR * s.accept_score:
            return None
        return both.code, max(0.0, min(1.0, 0.5 * min(both.score / s.accept_score, both.margin / need, 2.0)))

    def _face_agrees(self, image: ByteImage, corners: Vec, code: str, *, alone: bool) -> bool:
        """Second opinion from the whole face: it must not look more like another card.

        An index blurred past reading can pass for a neighbour's (a K for a 6); the picture or the
        pips in the middle of the card cannot. A card lying alone must match its own face; a card
        partly under others is only refused when its visible face clearly is another card's.
        """
        m = cv2.getPerspectiveTransform(corners.astype(np.float32), _THUMB_DST)
        card = cv2.warpPerspective(image, m, (CARD_PX_W // 4, CARD_PX_H // 4), flags=cv2.INTER_LINEAR)
        thumb = face_thumb(card)
        turned = np.ascontiguousarray(thumb[::-1])  # the same card half a turn round (a copy: BLAS)
        scores = np.maximum(self.deck.thumbs @ thumb, self.deck.thumbs @ turned)
        claimed = float(scores[CODES.index(code)])
        best = float(scores.max())
        if alone:
            return claimed >= 0.5 and claimed >= best - 0.03
        return not (best >= 0.45 and best > claimed + 0.2)

    def _is_back(self, hyp: _Hypothesis, back: ByteImage, paper: ByteImage) -> bool:
        """The middle of a back is mostly the back's colour and hardly any white paper; the red
        pips of a ten of hearts can be the one but never the other.
        """
        if hyp.back is None:
            inner = _shrink(hyp.corners, 0.6)
            back_share, paper_share = _shares((back, paper), inner)
            hyp.back = back_share >= self.settings.back_share and paper_share < 0.25
        return hyp.back

    def _read_alone(self, image: ByteImage, corners: Vec) -> tuple[str, float]:
        """Read a card lying alone: one index corner when it is sure, else both (reads are most of
        a frame's cost, and most cards are plain to read at the first corner).
        """
        c0, c1, _c2, c3 = corners
        first = self._read_corner(image, c0, c1 - c0, c3 - c0)
        s = self.settings
        match = first.match
        if (
            first.code != UNKNOWN
            and match is not None
            and match.score >= s.accept_score + SURE_EXTRA_SCORE
            and match.margin >= s.accept_margin * SURE_MARGIN_FACTOR
        ):
            if self._face_agrees(image, corners, first.code, alone=True):
                return first.code, first.confidence
            return UNKNOWN, 0.0
        return self._read_card(image, corners, alone=True)

    def _index_inked(self, ink: ByteImage, corners: Vec, corner: int) -> bool:
        """Whether the index box at one corner (0 or 2) of a hypothesis (detection scale) holds
        any ink: a blank corner of a card, where a hypothesis turned the wrong way puts its
        index, is not worth an index read.
        """
        box = self.deck.index_box
        o, a, b = (corners[0], corners[1], corners[3]) if corner == 0 else (corners[2], corners[3], corners[1])
        x_vec, y_vec = a - o, b - o
        x0, y0 = box.x0 - SEARCH_MARGIN, box.y0 - SEARCH_MARGIN
        x1, y1 = box.x1 + SEARCH_MARGIN, box.y1 + SEARCH_MARGIN
        quad = np.array([o + x_vec * fx + y_vec * fy for fx, fy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))])
        return _share(ink, quad) >= INDEX_INK_SHARE

    def _read_among(self, image: ByteImage, hyp: _Hypothesis, scale: float) -> None:
        """Read a card among others whose two index corners both lie on the blob's outline.

        That is a card on top (both indices in view) or the bottom card of a fan, whose far
        corner lies on the fan's straight edge under the cards above: there the card is read by
        the one index that matches well while the other shows none (the face, mostly the other
        cards', is no check then).
        """
        c = hyp.corners / scale
        hyp.code, hyp.confidence = self._read_card(image, c, alone=False)
        # Both corners were just read and are remembered: asking again costs nothing.
        first = self._read_corner(image, c[0], c[1] - c[0], c[3] - c[0])
        second = self._read_corner(image, c[2], c[3] - c[2], c[1] - c[2])
        if hyp.code != UNKNOWN:
            hyp.whole = first.best == second.best == hyp.code
            return
        strong = [
            k
            for k, r in ((0, first), (2, second))
            if r.match is not None and r.match.score >= self.settings.accept_score + FAN_EXTRA_SCORE
        ]
        if len(strong) == 1 and (first if strong[0] == 2 else second).code == UNKNOWN:
            self._read_exposed(image, hyp, strong[0], scale)
        elif strong:
            # Clear indices that do not settle on one card (two corners disagreeing): a card is
            # there all the same, unread.
            hyp.seen = True

    def _read_exposed(
        self, image: ByteImage, hyp: _Hypothesis, corner: int, scale: float, *, seen_score: float | None = None
    ) -> float | None:
        """Read a card among others by the one index corner in view (0 or 2 of its corners);
        returns the index's match score, None when no index was seen there.

        With a single index and no face to check it against, a read must match more closely; an
        index that matches some card at least ``seen_score`` (by default as closely as a read) but
        not one card clearly still proves a card is there.
        """
        c = hyp.corners / scale
        origin, x_vec, y_vec = (c[0], c[1] - c[0], c[3] - c[0]) if corner == 0 else (c[2], c[3] - c[2], c[1] - c[2])
        code, conf, _best, match = self._read_corner(image, origin, x_vec, y_vec)
        if match is None:
            return None
        s = self.settings
        if match.score >= s.accept_score + FAN_EXTRA_SCORE and code != UNKNOWN:
            hyp.code, hyp.confidence = code, conf
        elif match.score >= (s.accept_score + FAN_EXTRA_SCORE if seen_score is None else seen_score):
            hyp.seen, hyp.confidence = True, conf
        return match.score

    def _scan_fan(
        self, image: ByteImage, hyp: _Hypothesis, scale: float, *, examined: Sequence[Vec] = ()
    ) -> list[_Hypothesis]:
        """Cards fanned over the card at a corner: read an index wherever one starts along the edge.

        Where a fan's top edges run in one line, the cards on top have no outline corner of
        their own; their indices (and the shadows their edges cast) show in the band under the
        edge where the indices sit.
        """
        c0, c1, _c2, c3 = hyp.corners / scale
        x_unit, y_vec = _unit(c1 - c0), c3 - c0
        card_w = float(np.hypot(*(c1 - c0)))
        length = int(min(hyp.run_x / scale, 3.0 * card_w))
        if length < card_w * 1.15:
            return []
        # A card starting further along than a card's width before the run's end would stick out
        # past it: what lies there is the top card's face.
        lo, hi = int(0.15 * card_w), int(length - 0.88 * card_w)
        found: list[_Hypothesis] = []
        taken: list[int] = []
        reach = (self.deck.index_box.x1 + 0.03) * card_w
        for t in self._fan_index_starts(image, c0, x_unit, y_vec, length=length, card_w=card_w):
            # A start within an index already found is that index's own glyph (its suit, the
            # "0" of a ten): the next card's index begins past this one's width.
            if not lo <= t < hi or any(abs(t - u) < reach for u in taken):
                continue
            corners = hyp.corners + x_unit * float(t) * scale
            # An index corner already read (a card's own, or a card read) is not read again.
            if any(float(np.hypot(*(corners[0] - e))) < 0.1 * card_w * scale for e in examined):
                taken.append(t)
                continue
            fanned = _Hypothesis(corners=corners, fill=1.0)
            score = self._read_exposed(image, fanned, 0, scale, seen_score=FAN_SEEN_SCORE)
            if score is None or score < FAN_INDEX_LEAST:
                # No index here (or ink that fits no card at all: the edge of the card below
                # cut into the patch); a start a little further on may still find one.
                continue
            # An index was there: another start close by is the same index.
            taken.append(t)
            if fanned.code == UNKNOWN and score >= FAN_RETRY_SCORE:
                # A fair match that falls short: the start is a few pixels off (a shadow, a
                # glyph that begins further in); the index is read again either side.
                for nudge in (-FAN_NUDGE, FAN_NUDGE):
                    nudged = _Hypothesis(corners=corners + x_unit * nudge * card_w * scale, fill=1.0)
                    self._read_exposed(image, nudged, 0, scale, seen_score=FAN_SEEN_SCORE)
                    if nudged.code != UNKNOWN or (nudged.seen and not fanned.seen):
                        fanned = nudged
                    if fanned.code != UNKNOWN:
                        break
            if fanned.code != UNKNOWN or fanned.seen:
                found.append(fanned)
        return found

    def _fan_index_starts(
        self, image: ByteImage, c0: Vec, x_unit: Vec, y_vec: Vec, *, length: int, card_w: float
    ) -> list[int]:
        """Where the indices of cards fanned along an edge start: ink in the band the index
        occupies, below the edge; a card's edge on white paper can be too faint to show as a step.
        """
        box = self.deck.index_box
        band_h = 16
        top, bottom = 0.7 * box.y0, box.y1
        m = np.array(
            [
                [x_unit[0], y_vec[0] * (bottom - top) / band_h, c0[0] + top * y_vec[0]],
                [x_unit[1], y_vec[1] * (bottom - top) / band_h, c0[1] + top * y_vec[1]],
            ]
        )
        band = cv2.warpAffine(image, m, (length, band_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        b, g, r = cv2.split(band)
        dark = cv2.min(cv2.min(b, g), r)
        paper = float(np.percentile(dark.min(axis=0), 90))
        # The shadow a card's edge casts on the card below: a column a little dark in almost every
        # row, where glyphs leave a gap between rank and suit. The card starts where it ends.
        shade = ((dark < 0.85 * paper).mean(axis=0) >= 0.8).tolist()
        edges = [t for t in range(1, length) if shade[t - 1] and not shade[t]]
        # Ink (in two rows at least: one dark pixel is noise) after a clear gap: an index's left
        # edge (or a pip's: its read fails).
        ink = ((dark < 0.6 * paper).sum(axis=0) >= 2).tolist()
        gap = max(2, int(0.03 * card_w))
        starts = []
        clear = 0
        for t, is_ink in enumerate(ink):
            if is_ink and clear >= gap:
                starts.append(max(0, t - round(box.x0 * card_w)))
            clear = 0 if is_ink else clear + 1
        return edges + starts

    # -- main ----------------------------------------------------------------------------------

    def read(self, image: ByteImage) -> FrameReading:
        """Find and read every card in a BGR frame.

        Raises:
            ImageError: the frame is not an 8-bit BGR image.
        """
        if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise ImageError("a frame must be an 8-bit BGR image (height x width x 3)")
        h, w = image.shape[:2]
        if h < 32 or w < 32:
            raise ImageError(f"frame of {w}x{h} is too small")
        self._corner_reads = {}
        scale = 0.5 if w > 1280 else 1.0
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale != 1 else image
        fg, paper, back = self._masks(small)
        min_area = (
            0.25 * (60.0 * scale) ** 2 * CARD_ASPECT
            if self.settings.card_height_px is None
            else (0.3 * (self.settings.card_height_px * scale) ** 2 / CARD_ASPECT)
        )
        contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        blobs = []
        sides: list[float] = []
        for contour in contours:
            if cv2.contourArea(contour) < min_area:
                continue
            corners, _lengths = self._corners(contour)
            blob_sides = _full_sides(corners)
            blobs.append((contour, corners, blob_sides))
            sides.extend(blob_sides)
        card_h = self._card_height(sides, scale)
        found: list[_Hypothesis] = []
        covered = np.zeros_like(fg)
        # Ink at detection scale: neither felt nor white paper (a glyph, a pip, a picture).
        ink = cv2.bitwise_and(fg, cv2.bitwise_not(paper))
        if card_h is not None:
            for contour, corners, blob_sides in blobs:
                # Under a tilted camera near cards look bigger than far ones: a blob's own whole
                # sides, when they agree with the frame's height, give its local size.
                if len(blob_sides) > 8:
                    local = _vote_height(np.array(blob_sides) / scale)
                else:  # the few sides of one blob in plain Python, as _vote_height itself does
                    local = _vote_height_few([v / scale for v in blob_sides], 0.08) if len(blob_sides) > 1 else None
                blob_h = local if local is not None and abs(local - card_h) < 0.15 * card_h else card_h
                found.extend(
                    self._explain_blob(
                        image=image,
                        contour=contour,
                        corners=corners,
                        card_h=blob_h * scale,
                        scale=scale,
                        fg=fg,
                        paper=paper,
                        back=back,
                        ink=ink,
                        covered=covered,
                    )
                )
        clutter = cv2.bitwise_and(fg, cv2.bitwise_not(cv2.dilate(covered, np.ones((5, 5), np.uint8))))
        reads = tuple(
            CardRead(
                code=hyp.code,
                confidence=round(hyp.confidence, 4),
                corners=tuple((float(p[0] / scale), float(p[1] / scale)) for p in hyp.corners),  # type: ignore[arg-type]
            )
            for hyp in found
        )
        return FrameReading(cards=reads, clutter=clutter, mask_scale=scale, card_height_px=card_h)

    def _card_height(self, sides: list[float], scale: float) -> float | None:
        """Card height in full-resolution pixels: the setting, or a vote of the complete card sides.

        Every whole side votes for the height it implies as a long side and as a short one; the
        height most sides agree with wins, so the width of a fan (not a card side) is outvoted.
        """
        if self.settings.card_height_px is not None:
            return self.settings.card_height_px
        if not sides:
            return None
        return _vote_height(np.array(sides) / scale)

    def _explain_blob(
        self,
        *,
        image: ByteImage,
        contour: ByteImage,
        corners: list[_Corner],
        card_h: float,
        scale: float,
        fg: ByteImage,
        paper: ByteImage,
        back: ByteImage,
        ink: ByteImage,
        covered: ByteImage,
    ) -> list[_Hypothesis]:
        card_w = card_h / CARD_ASPECT
        # A blob no bigger than one card holds that card alone: its whole face is visible.
        alone = cv2.contourArea(contour) < 1.2 * card_w * card_h
        hyps: list[_Hypothesis] = []
        picks: list[tuple[int, float]] = []  # (row of both_ways below, run_x) of each hypothesis
        if corners:
            # Each corner is an index corner (short side clockwise-next) or it is not; a fan's
            # collinear edges make visible lengths no guide, so both are tried. A card lying
            # alone shows whole sides: one as long as a card's long side is not its short side.
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
        if picks:
            quads = both_ways.reshape(-1, 4, 2)[[row for row, _run in picks]]  # (n, 4, 2)
            # A rectangle drawn from one corner misses the far corners by a few pixels under a
            # tilted camera; where the outline has a corner close by, that corner is the truth.
            gaps = np.hypot(*np.moveaxis(quads[:, :, None, :] - seen[None, None, :, :], -1, 0))  # (n, 4, m)
            nearest = gaps.argmin(axis=2)
            close = np.take_along_axis(gaps, nearest[:, :, None], axis=2)[:, :, 0] < 0.12 * card_w
            snapped = np.where(close[:, :, None], seen[nearest], quads)
            _complete_fourth(snapped, close, seen, 0.12 * card_w)
            _fit_side(snapped, quads, close, card_w=card_w, card_h=card_h)
            centres = snapped.mean(axis=1)
            anchors = close.sum(axis=1).tolist()
            for k, (_row, run_x) in enumerate(picks):
                if anchors[k]:
                    hyps.append(_Hypothesis(corners=snapped[k], run_x=run_x, anchors=anchors[k], at=centres[k]))
                else:
                    hyps.append(_Hypothesis(corners=quads[k], run_x=run_x))
            hyps = _merge(hyps, snapped.reshape(len(picks), 8).tolist(), card_w * 0.15)
        if hyps:
            fills = _quad_shares(fg, np.stack([hyp.corners for hyp in hyps]))
            for hyp, fill in zip(hyps, fills, strict=True):
                hyp.fill = fill
        hyps = [hyp for hyp in hyps if hyp.fill >= self.settings.min_fill]
        # A back needs its colour over most of a card's middle; a blob (and a margin round it)
        # holding far less of it than that has no back to find, so none of its hypotheses is
        # tested one by one (most blobs are face-up cards).
        bx, by, bw, bh = cv2.boundingRect(contour)
        pad = round(0.2 * card_h)
        back_px = cv2.countNonZero(back[max(by - pad, 0) : by + bh + pad, max(bx - pad, 0) : bx + bw + pad])
        if back_px < 0.9 * self.settings.back_share * 0.36 * card_w * card_h:
            for hyp in hyps:
                hyp.back = False
        # Best-supported first; a hypothesis beside a card already read is the same card seen
        # from another corner, so it is not read again (reads are most of the frame's cost).
        hyps.sort(key=lambda hh: (hh.support, hh.fill), reverse=True)
        read: list[_Hypothesis] = []
        for hyp in hyps:
            if any(float(np.hypot(*(hyp.center - o.center))) < 0.25 * card_w for o in read):
                continue
            if self._is_back(hyp, back, paper):
                continue  # a back: nothing to read, the selection below counts it
            if alone:
                hyp.code, hyp.confidence = self._read_alone(image, hyp.corners / scale)
            else:
                # Among other cards an index corner is in view only on the blob's outline: one
                # inside it lies under a neighbour and would show the neighbour's face. A card
                # seen by one index only is read when two of its corners are the outline's (one
                # is any hypothesis turned the wrong way about that corner).
                exposed = [k for k in (0, 2) if _on_outline(contour, hyp.corners[k], 0.06 * card_w)]
                if len(exposed) == 2:
                    hyp.examined = (0, 2)
                    self._read_among(image, hyp, scale)
                elif exposed and hyp.anchors >= 2 and self._index_inked(ink, hyp.corners, exposed[0]):
                    hyp.examined = (exposed[0],)
                    self._read_exposed(image, hyp, exposed[0], scale)
            if hyp.code != UNKNOWN:
                read.append(hyp)
        # Fans: every outline edge longer than a card's short side may run under cards fanned on
        # top; scan along it whether or not the card it starts from could be read. (A blob of one
        # card's size is no fan: its long edges are that card's long sides.)
        for c in [] if alone else corners:
            # (An edge as long as a card's long side is just that, a card's side, unless the edge
            # beside it is as long too: one card's two sides at a corner are never both long, so
            # that is a fan as wide as a card is long.)
            card_side = abs(c.x_len - card_h) <= 0.06 * card_h and abs(c.y_len - card_h) > 0.1 * card_h
            if c.x_len > 1.15 * card_w and not card_side:
                p, x, y = np.array(c.point), np.array(c.x_dir), np.array(c.y_dir)
                quad = np.array([p, p + card_w * x, p + card_w * x + card_h * y, p + card_h * y])
                known = [h for h in hyps if h.code != UNKNOWN or h.seen]
                # A card read at both its indices lies on top: the cards under it show theirs
                # at the fan's other end, none along an edge that starts at this card.
                if any(h.whole and _near_index(h, p, 0.1 * card_w) for h in known):
                    continue
                if _share(paper, _shrink(quad, 0.6)) < 0.4:
                    continue  # backs have no index to find
                fan = _Hypothesis(corners=quad, run_x=c.x_len)
                # Index corners already read are not read again from a fan's edge, whatever they
                # gave: an index refused there (two corners disagreeing) must not be named by a
                # second look from a slightly different angle.
                examined = [h.corners[k] for h in hyps for k in h.examined]
                examined += [h.corners[k] for h in known for k in (0, 2)]
                hyps.extend(self._scan_fan(image, fan, scale, examined=examined))
        # Confident reads first, then cards whose index was seen, then the hypotheses most corners
        # agree on.
        hyps.sort(
            key=lambda hh: (
                hh.code != UNKNOWN,
                hh.confidence if hh.code != UNKNOWN else 0,
                hh.seen,
                hh.anchors,
                hh.support,
                hh.fill,
            ),
            reverse=True,
        )
        chosen: list[_Hypothesis] = []
        card_area = card_w * card_h
        for hyp in hyps:
            if hyp.code != UNKNOWN:
                # A read card is new unless it is one already taken: the same place, or the same
                # index corner reached from another outline corner. Area does not matter: a
                # card in the middle of a fan is all but hidden under its neighbours.
                if any(_same_card(hyp, o, 0.2 * card_w) for o in chosen):
                    continue
                chosen.append(hyp)
                cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
                continue
            if hyp.seen:
                # An index in view but too unsure to name: a card is there, however little of it
                # shows (the middle of a fan), so it is an unknown card, not judged by its area.
                if not any(_same_card(hyp, o, 0.2 * card_w) for o in chosen):
                    chosen.append(hyp)
                    cv2.fillConvexPoly(covered, np.round(hyp.corners).astype(np.int32), 255)
                continue
            if any(float(np.hypot(*(hyp.center - o.center))) < 0.3 * card_w for o in chosen):
                continue
            poly = np.round(hyp.corners).astype(np.int32)
            new = _share(fg, hyp.corners, exclude=covered) * _area(hyp.corners)
            if new < 0.25 * card_area:
                continue
            if self._is_back(hyp, back, paper):
                back_share = _share(back, _shrink(hyp.corners, 0.6))
                hyp.code, hyp.confidence = BACK, min(1.0, back_share / self.settings.back_share * 0.5)
            elif _share(paper, hyp.corners) < self.settings.paper_share:
                continue  # neither a face nor a back: a hand, a chip, a cloth
            chosen.append(hyp)
            cv2.fillConvexPoly(covered, poly, 255)
        return chosen


def _pooled(fits: Sequence[npt.NDArray[np.floating[Any]]]) -> npt.NDArray[np.float64]:
    """Several looks' fits pooled as their geometric mean: a fit is exp(-distance), so this is the
    fit at the looks' mean distance (independent looks at one index average out their noise).
    """
    logs = np.log(np.maximum(np.stack(fits).astype(np.float64), 1e-300))
    return np.asarray(np.exp(logs.mean(axis=0)), dtype=np.float64)


def _face_vector(card_bgr: ByteImage) -> npt.NDArray[np.float32]:
    """A card face in the canonical frame at half size as a soft grey unit vector (row-major, so
    the vector reversed is the same face half a turn round).
    """
    gray = cv2.GaussianBlur(cv2.cvtColor(card_bgr, cv2.COLOR_BGR2GRAY), (0, 0), 1.2).astype(np.float32)
    gray -= gray.mean()
    gray /= max(float(np.linalg.norm(gray)), 1e-6)
    return np.asarray(gray.reshape(-1), dtype=np.float32)


def _hue_range(hue: ByteImage, lo: int, hi: int) -> ByteImage:
    """Pixels whose hue lies from ``lo`` to ``hi`` on OpenCV's circular 0-179 scale (either end may
    run past the scale's ends: the band wraps round).
    """
    band = cv2.inRange(hue, max(lo, 0), min(hi, 179))
    if lo < 0:
        band = cv2.bitwise_or(band, cv2.inRange(hue, 180 + lo, 179))
    if hi > 179:
        band = cv2.bitwise_or(band, cv2.inRange(hue, 0, hi - 180))
    return band


def _hue_band(hue: ByteImage, centre: int, width: int) -> ByteImage:
    """Pixels whose hue is within ``width`` of ``centre`` on OpenCV's circular 0-179 scale."""
    return _hue_range(hue, centre - width, centre + width)


def _vote_height(sides: npt.NDArray[np.float64], tol: float = 0.08) -> float | None:
    """The card height (long side) most of ``sides`` agree with, refined as their median."""
    if len(sides) == 0:
        return None
    if len(sides) <= 8:
        return _vote_height_few([float(v) for v in sides], tol)
    turned = sides * CARD_ASPECT
    candidates = np.concatenate([sides, turned])
    cand = candidates[:, None]
    reach = tol * cand
    # |side - candidate| < reach or |side * aspect - candidate| < reach, the (candidates x sides)
    # tables computed in place: allocating them is most of the cost.
    gap = np.subtract(sides[None, :], cand)
    agree = np.less(np.abs(gap, out=gap), reach)
    np.subtract(turned[None, :], cand, out=gap)
    agree |= np.less(np.abs(gap, out=gap), reach)
    counts = agree.sum(axis=1)
    top = np.flatnonzero(counts == counts.max())
    best_h = float(candidates[top].max())
    implied = np.where(np.abs(sides - best_h) < tol * best_h, sides, sides * CARD_ASPECT)
    close = np.sort(implied[np.abs(implied - best_h) < tol * best_h])
    # The median, without np.median's overhead (this runs for every blob).
    half = len(close) // 2
    return float(close[half]) if len(close) % 2 else float(close[half - 1] + close[half]) / 2.0


def _vote_height_few(sides: list[float], tol: float) -> float:
    """``_vote_height`` for the few sides of one blob, in plain Python (numpy's per-call cost is
    most of the work for a handful of numbers; the result is the same).
    """
    turned = [v * CARD_ASPECT for v in sides]
    candidates = sides + turned
    best_h, best_n = 0.0, -1
    for cand in candidates:
        reach = tol * cand
        n = sum(1 for v, t in zip(sides, turned, strict=True) if abs(v - cand) < reach or abs(t - cand) < reach)
        if n > best_n or (n == best_n and cand > best_h):
            best_h, best_n = cand, n
    implied = [v if abs(v - best_h) < tol * best_h else v * CARD_ASPECT for v in sides]
    close = sorted(v for v in implied if abs(v - best_h) < tol * best_h)
    half = len(close) // 2
    return close[half] if len(close) % 2 else (close[half - 1] + close[half]) / 2.0


def _full_sides(corners: list[_Corner]) -> list[float]:
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


def _fit_edge(pts: npt.NDArray[np.float32], i0: int, i1: int) -> tuple[float, float, float, float]:
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


def _collinear(a: Sequence[float], b: Sequence[float], *, ends: Sequence[Sequence[float]]) -> bool:
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
    if min(a_len, b_len) >= 20.0 or adx * bdx + ady * bdy < 0.985:
        return False
    longer, short = (a, ends[2:]) if a_len >= b_len else (b, ends[:2])
    px, py, dx, dy = longer[0], longer[1], longer[2], longer[3]
    return all(abs((x - px) * dy - (y - py) * dx) < 2.0 for x, y in short)


def _fit_side(quads: Vec, drawn: Vec, close: npt.NDArray[np.bool_], *, card_w: float, card_h: float) -> None:
    """Redraw each quad confirmed at just the two ends of one side (``close``) from that side, in
    place, with the sides of the rectangle it was ``drawn`` as, scaled to the confirmed side's
    length: the card's own side measures its size where it lies, the frame's card height only on
    average (a tilted camera makes near cards bigger than far ones by several per cent, enough to
    put the far index corner off its index). A side more than about a tenth off a card's is
    not one card's side (a fan's edge) and leaves the quad as drawn.
    """
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
        q[c] = q[b] + (drawn[r, c] - drawn[r, b]) * ratio
        q[d] = q[a] + (drawn[r, d] - drawn[r, a]) * ratio


def _complete_fourth(quads: Vec, close: npt.NDArray[np.bool_], seen: Vec, tol: float) -> None:
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


def _merge(hyps: list[_Hypothesis], flats: list[list[float]], tol: float) -> list[_Hypothesis]:
    """Join hypotheses that describe the same card (same corners, or the same turned 180 degrees).

    ``flats`` holds each hypothesis' corners as plain floats, x0 y0 x1 y1 x2 y2 x3 y3.
    """
    merged: list[tuple[_Hypothesis, list[float], float, float]] = []
    for hyp, flat in zip(hyps, flats, strict=True):
        cx, cy = (flat[0] + flat[2] + flat[4] + flat[6]) / 4.0, (flat[1] + flat[3] + flat[5] + flat[7]) / 4.0
        for other, of, ox, oy in merged:
            if abs(cx - ox) > tol or abs(cy - oy) > tol:
                continue
            d_same = max(abs(a - b) for a, b in zip(flat, of, strict=True))
            d_turned = max(abs(a - b) for a, b in zip(flat, of[4:] + of[:4], strict=True))
            if min(d_same, d_turned) < tol:
                other.support += 1
                other.run_x = max(other.run_x, hyp.run_x)
                if hyp.anchors > other.anchors:
                    # The outline confirms more of this one's corners: its geometry is the card's.
                    other.corners, other.center, other.anchors = hyp.corners, hyp.center, hyp.anchors
                break
        else:
            merged.append((hyp, flat, cx, cy))
    return [hyp for hyp, _flat, _cx, _cy in merged]


def _on_outline(contour: ByteImage, point: Vec, tol: float) -> bool:
    """True when ``point`` lies within ``tol`` of the blob's outline (inside or out)."""
    return abs(cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True)) < tol


def _near_index(hyp: _Hypothesis, point: Vec, tol: float) -> bool:
    """True when one of the hypothesis' two index corners is within ``tol`` of ``point``."""
    # Plain floats, the same comparisons: numpy's per-call cost is all of it for two points.
    (ax, ay), _b, (cx, cy), _d = hyp.corners.tolist()
    px, py = float(point[0]), float(point[1])
    return bool(min(max(abs(ax - px), abs(ay - py)), max(abs(cx - px), abs(cy - py))) < tol)


def _same_card(a: _Hypothesis, b: _Hypothesis, tol: float) -> bool:
    if float(np.hypot(*(a.center - b.center))) < tol:
        return True
    if a.code != b.code:
        return False
    index_a, index_b = a.corners[[0, 2]], b.corners[[0, 2]]
    gaps = np.hypot(*(index_a[:, None, :] - index_b[None, :, :]).reshape(-1, 2).T)
    return bool(gaps.min() < tol)


def _shrink(quad: Vec, factor: float) -> Vec:
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


def _area(quad: Vec) -> float:
    return float(abs(cv2.contourArea(quad.astype(np.float32))))


def _local_poly(quad: Vec) -> tuple[int, int, int, int, npt.NDArray[np.int32]]:
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


def _shares(masks: Sequence[ByteImage], quad: Vec) -> list[float]:
    """Share of a quadrilateral's pixels set in each of ``masks`` (one polygon drawn for all)."""
    x, y, w, h, poly = _local_poly(quad)
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
    return [float(_count_in(inside, m[y0:y1, x0:x1])) / float(total) for m in masks]


def _quad_shares(mask: ByteImage, quads: Vec) -> list[float]:
    """``_share(mask, quad)`` for each of ``quads`` (n, 4, 2), the same figures with the rounding
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
        out.append(float(_count_in(local[y0 - y : y1 - y, x0 - x : x1 - x], mask[y0:y1, x0:x1])) / float(total))
    return out


def _count_in(drawn: ByteImage, mask: ByteImage) -> int:
    """How many pixels of a polygon drawn with 255 on zeros are set in ``mask``: the same count as
    countNonZero(bitwise_and(drawn, mask)), as the L1 norm of ``drawn`` under ``mask`` (255 per
    pixel, an exact whole number), in one call and no temporary image.
    """
    return round(cv2.norm(drawn, cv2.NORM_L1, mask=mask) / 255.0)


def _share(mask: ByteImage, quad: Vec, *, exclude: ByteImage | None = None) -> float:
    """Share of a quadrilateral's pixels set in ``mask`` and not in ``exclude`` (outside the frame: unset)."""
    x, y, w, h, poly = _local_poly(quad)
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
        return float(_count_in(inside, mask[y0:y1, x0:x1])) / float(total)
    seen = cv2.bitwise_and(inside, mask[y0:y1, x0:x1])
    seen = cv2.bitwise_and(seen, cv2.bitwise_not(exclude[y0:y1, x0:x1]))
    return float(cv2.countNonZero(seen)) / float(total)
