"""Index reads at one corner of a card: the patch warped from the frame, normalised and matched to the deck."""

from __future__ import annotations

import dataclasses
from typing import Any, Final, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import CARD_PX_H, CARD_PX_W, SEARCH_MARGIN, IndexBox
from vision.covered_suit import covered_match
from vision.deck import DeckProfile
from vision.index import index_feature
from vision.index_match import IndexMatch, match_index
from vision.pipeline.back_colours import back_colours, on_back
from vision.pipeline.geometry import local_poly, share
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.start_ink import index_ink_range, ink_share

UNKNOWN: Final = "unknown"
ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# What an index seen only at the paler ink level (a soft image) adds to the accepting score.
PALE_EXTRA_SCORE: Final = 0.08
# Blur of an index's edges (sigma in canonical card pixels, see ``IndexFeature.softness``) past
# which its reads need more score, how much more per pixel, and past which it is not read at all:
# beyond the blur the deck's classifier learnt from, its scores can no longer be trusted (a
# half-seen suit is as near a heart as a diamond). A 1.3 px frame blur on a 150 px card is ~2.1.
SOFT_KNEE: Final = 1.9
SOFT_EXTRA_SCORE: Final = 0.3
SOFT_LIMIT: Final = 2.5
# The least share of an index box (detection scale) that must be ink before it is read.
INDEX_INK_SHARE: Final = 0.02
# Ink told from paper by its darkest colour channel: below this share of the paper's (the box's
# brightest tenth); and the box judged so starts this share of the card in from its edges.
INK_STEP: Final = 0.6
INK_INSET: Final = 0.01
# How far (canonical card pixels) the read patch reaches out past the corner along both edges: a
# corner placed a few pixels inside the card (a fan's corner found from a neighbour's edge, a
# hypothesis a degree off) would otherwise cut the index's top or left glyph at the patch's
# border, where it is dropped with the felt. Beyond the card's edge lies felt or another card's
# edge, which runs on to the patch border and is dropped likewise; the glyphs are then found by
# their own ink around the registered index's place, wherever the corner put them.
CORNER_LEAD: Final = 6


def confidence(match: IndexMatch, *, settings: RecognizerSettings) -> float:
    """How far a match clears both accepting bars (score and margin), on 0..1; 0.5 is the bar."""
    s = settings
    return max(0.0, min(1.0, 0.5 * min(match.score / s.accept_score, match.margin / s.accept_margin, 2.0)))


def clears(match: IndexMatch, *, settings: RecognizerSettings, pale: bool) -> bool:
    """Whether a match reads its card at one index corner: its score and margin clear the accepting
    bars (an index found only at the paler ink level, ``pale``, is a soft one: it must match more
    closely, PALE_EXTRA_SCORE)."""
    need = settings.accept_score + (PALE_EXTRA_SCORE if pale else 0.0)
    return match.score >= need and match.margin >= settings.accept_margin


def index_frame(corners: Vec, k: int) -> tuple[Vec, Vec, Vec]:
    """Where a card's index corner ``k`` (0 or 2: the two index corners, diagonally opposite) is
    read from: the corner and the card's two edges leaving it, along the top and down the side
    as the index is printed there (:meth:`CornerReader.read`'s ``origin``, ``x_vec``, ``y_vec``)."""
    origin = corners[k]
    return origin, corners[(k + 1) % 4] - origin, corners[(k + 3) % 4] - origin


class CornerRead(NamedTuple):
    """What one index corner read as."""

    code: str  # the accepted code, or UNKNOWN
    confidence: float
    best: str | None  # the best match even when too weak to accept; None if no index was seen
    match: IndexMatch | None = None  # the scores behind it; None when the index is too soft to trust


class CornerReader:
    """Reads index corners against one deck, each corner once a frame (:meth:`new_frame` forgets)."""

    def __init__(self, *, deck: DeckProfile, settings: RecognizerSettings) -> None:
        self.deck = deck
        self.settings = settings
        sw, sh = deck.index_box.search_size()
        self._search = (sw + CORNER_LEAD, sh + CORNER_LEAD)
        self._box = _led(deck.index_box)
        self._back_colours = back_colours(deck)
        self._ink_range = index_ink_range(deck)
        self._split = deck.rank_share
        self._reads: dict[tuple[int, bytes], CornerRead] = {}
        # Reads made without the paler ink level that found no index: read again when it is asked for.
        self._unpaled: set[tuple[int, bytes]] = set()
        # The blurred matches of reads refused for a trimmed suit (see ``trimmed``), by patch.
        self._trimmed: dict[tuple[int, bytes], IndexMatch] = {}
        # The pictures read this frame, held: a key names its picture by id, which a picture made
        # after this one was freed could take over (until new_frame, that cannot happen).
        self._pictures: dict[int, ByteImage] = {}
        self.count = 0  # corner patches read since the last new_frame

    def new_frame(self) -> None:
        """Forget the last frame's reads."""
        self._reads = {}
        self._unpaled = set()
        self._trimmed = {}
        self._pictures = {}
        self.count = 0

    def read(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, pale: bool = True) -> CornerRead:
        """Read the index at one corner (full-resolution vectors spanning the whole card), once a frame.

        Reads are most of a frame's cost and a corner can be asked for twice (a lone card's first
        corner alone, then again by CardDecider.read_card when it was unsure; 22 of a 20-card
        frame's 80 asks), so each is remembered, keyed by the picture and the exact pose: a pose
        any bit off may warp a different patch, and is read for itself (none of those asks is).

        Without ``pale`` an index is not looked for at the paler ink level alone (see
        ``index_feature``): at a place that is only a guess (a fan scan's start), where such ink
        is a pip's, a picture's or a back's pale side far more often than an index.
        """
        key = _key(image, origin, x_vec, y_vec)
        self._pictures.setdefault(key[0], image)
        found = self._reads.get(key)
        if found is None or (pale and key in self._unpaled):
            self._unpaled.discard(key)
            found = self._reads[key] = self._read_once(image, origin, x_vec, y_vec, pale=pale, key=key)
        return found

    def on_back(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> bool:
        """Whether the index box at one corner (as :meth:`read`'s) shows largely the deck's back's
        own colours (``back_colours``): a place only guessed at (a fan scan's start) that lies on
        a back holds no index, and is not worth a read.
        """
        if self._back_colours is None:
            return False
        return on_back(self._box_pixels(image, origin, x_vec, y_vec), self._back_colours)

    def holds_none(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> bool:
        """Whether the index box at one corner (as :meth:`read`'s), a place only guessed at (a fan
        scan's start), plainly holds no index, and is not worth a read: it lies on the deck's back
        (see :meth:`on_back`), or is ink over far less or far more of it than any registered
        face's index box is (``index_ink_range``: the card below's paper, a court picture).
        """
        pixels = self._box_pixels(image, origin, x_vec, y_vec)
        if self._back_colours is not None and on_back(pixels, self._back_colours):
            return True
        fewest, most = self._ink_range
        return not fewest <= ink_share(pixels) <= most

    def _box_pixels(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> ByteImage:
        """The index box at one corner (as :meth:`read`'s) warped from the frame, canonical size."""
        box = self.deck.index_box
        x0, y0 = round(box.x0 * CARD_PX_W), round(box.y0 * CARD_PX_H)
        w, h = round(box.x1 * CARD_PX_W) - x0, round(box.y1 * CARD_PX_H) - y0
        dx, dy = x_vec / CARD_PX_W, y_vec / CARD_PX_H
        start = origin + x0 * dx + y0 * dy
        m = np.array([[dx[0], dy[0], start[0]], [dx[1], dy[1], start[1]]], dtype=np.float64)
        return cv2.warpAffine(
            image,
            m,
            (max(w, 1), max(h, 1)),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )

    def read_index(self, image: ByteImage, corners: Vec, k: int) -> CornerRead:
        """Read the index at a card's corner ``k`` (0 or 2; ``corners`` in frame pixels), once a frame."""
        return self.read(image, *index_frame(corners, k))

    def trimmed(self, image: ByteImage, corners: Vec, k: int) -> IndexMatch | None:
        """The match (blur discount taken) of a card's blurred index at corner ``k`` that
        ``read_index`` refused because its suit was cut from ink running on past the index, or
        None. On a lone card that ink is its own pip (a 6c's club pips touch its index suit under
        blur), so its face and other index corner can still judge the read (decide.LoneCorners).
        """
        origin, x_vec, y_vec = index_frame(corners, k)
        read = self.read(image, origin, x_vec, y_vec)
        if read.best is not None:
            return None
        return self._trimmed.get(_key(image, origin, x_vec, y_vec))

    def _read_once(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, pale: bool, key: tuple[int, bytes]
    ) -> CornerRead:
        """Read the index at one corner: warp its patch, normalise the glyphs, match the deck."""
        self.count += 1
        sw, sh = self._search
        dx, dy = x_vec / CARD_PX_W, y_vec / CARD_PX_H
        # The patch's top left lies CORNER_LEAD pixels out past the corner along both edges.
        start = origin - CORNER_LEAD * (dx + dy)
        m = np.array([[dx[0], dy[0], start[0]], [dx[1], dy[1], start[1]]], dtype=np.float64)
        patch = cv2.warpAffine(
            image, m, (sw, sh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
        feat = index_feature(
            np.asarray(patch, dtype=np.uint8),
            self._box,
            cut=True,
            lead=CORNER_LEAD,
            frame=self.deck.frame,
            pale=pale,
            split=self._split,
        )
        if feat is None:
            if not pale:
                self._unpaled.add(key)
            return CornerRead(UNKNOWN, 0.0, None, None)
        match = match_index(self.deck, feat)
        if feat.softness > SOFT_LIMIT:
            return CornerRead(UNKNOWN, 0.0, None if feat.trimmed else match.code, None)
        # A blurred index's score is discounted, so every use of it (one corner, two pooled, a
        # fan's scan) asks more of a soft read; the match keeps the discount, for a lone card
        # (whose face judges its reads) weighs it again (decide.LONE_SOFT_SHARE).
        soft = SOFT_EXTRA_SCORE * max(feat.softness - SOFT_KNEE, 0.0)
        if soft > 0.0:
            match = dataclasses.replace(match, score=match.score - soft, soft=soft, pale=feat.pale)
        s = self.settings
        conf = confidence(match, settings=s)
        if clears(match, settings=s, pale=feat.pale):
            return CornerRead(match.code, conf, match.code, match)
        if feat.trimmed:
            # A suit cut from ink that ran on past the index reads a card or proves nothing: in a
            # fan such ink is as often another card's edge or pips, which make no index. (A
            # blurred one's match is kept aside for a lone card: see ``trimmed``.)
            if soft > 0.0:
                self._trimmed[key] = match
            return CornerRead(UNKNOWN, 0.0, None, None)
        if not feat.pale and soft == 0.0 and match.score < s.accept_score:
            # A plain rank over a suit that fits nothing: the suit may lie partly under the next
            # card (a fan's), and is then judged on its uncovered part alone.
            covered = covered_match(self.deck, patch, feat, match, lead=CORNER_LEAD, least=s.accept_margin)
            if covered is not None and clears(covered, settings=s, pale=feat.pale):
                return CornerRead(covered.code, confidence(covered, settings=s), covered.code, covered)
        return CornerRead(UNKNOWN, conf, match.code, match)

    def inked(self, ink: ByteImage, corners: Vec, corner: int, *, image: ByteImage | None = None) -> bool:
        """Whether the index box at one corner (0 or 2) of a hypothesis (detection scale) holds
        any ink: a blank corner of a card, where a hypothesis turned the wrong way puts its
        index, is not worth an index read.

        With the detection plane's ``image``, an index the ink mask misses still counts: ink
        darker than the box's paper by a clear step (a small black index blurred to grey at
        detection scale passes for paper, and under a warm lamp on red cloth its darkest pixels
        for cloth).
        """
        box = self.deck.index_box
        o, a, b = (corners[0], corners[1], corners[3]) if corner == 0 else (corners[2], corners[3], corners[1])
        x_vec, y_vec = a - o, b - o
        x0, y0 = box.x0 - SEARCH_MARGIN, box.y0 - SEARCH_MARGIN
        x1, y1 = box.x1 + SEARCH_MARGIN, box.y1 + SEARCH_MARGIN
        quad = np.array([o + x_vec * fx + y_vec * fy for fx, fy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))])
        if share(ink, quad) >= INDEX_INK_SHARE:
            return True
        if image is None:
            return False
        # Within the card only (the margin reaches past its edge, onto the cloth).
        x0, y0 = max(x0, INK_INSET), max(y0, INK_INSET)
        quad = np.array([o + x_vec * fx + y_vec * fy for fx, fy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))])
        x, y, w, h, poly = local_poly(quad)
        ih, iw = image.shape[:2]
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > iw or y + h > ih:
            return False
        drawn = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(drawn, poly, 255)
        dark = image[y : y + h, x : x + w].min(axis=2)[drawn > 0]
        if dark.size == 0:
            return False
        paper = float(np.percentile(dark, 90))
        return bool(np.count_nonzero(dark < INK_STEP * paper) >= INDEX_INK_SHARE * dark.size)


def _key(image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> tuple[int, bytes]:
    """A corner read's key: the picture (held by the reader for the frame) and the exact pose."""
    return (id(image), np.concatenate([origin, x_vec, y_vec]).astype(np.float64).tobytes())


def _led(box: IndexBox) -> IndexBox:
    """The registered index box in a patch that starts CORNER_LEAD pixels out past the corner."""
    lx, ly = CORNER_LEAD / CARD_PX_W, CORNER_LEAD / CARD_PX_H
    return IndexBox(x0=box.x0 + lx, y0=box.y0 + ly, x1=box.x1 + lx, y1=box.y1 + ly)
