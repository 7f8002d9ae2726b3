"""The whole face as a second opinion on a card's index: does it agree, settle a dispute, name a rank or a suit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, THUMB_H, THUMB_W, DeckProfile, face_thumb
from vision.index_match import IndexMatch, lead_over, pooled
from vision.pipeline.settings import RecognizerSettings

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# A face thumbnail some registered face fits at least this well is plainly seen (a clear face fits
# its own 0.95 and more; a chip over its middle or glare leaves every fit below 0.8).
FACE_PLAIN: Final = 0.85
# How far below the best-fitting registered face the claimed card's may fit and still agree.
FACE_SLACK: Final = 0.03
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
# The corners of the small face image ``agrees`` warps a card to.
_THUMB_DST: Final = np.array(
    [[0, 0], [CARD_PX_W // 4, 0], [CARD_PX_W // 4, CARD_PX_H // 4], [0, CARD_PX_H // 4]], np.float32
)


class FaceCheck:
    """Compares a card's whole face (frame pixels) with every registered face: the pips or the
    court picture, many times an index's size, confirm, veto or complete what the indices read."""

    def __init__(self, *, deck: DeckProfile, settings: RecognizerSettings) -> None:
        self.settings = settings
        self._face_size = (CARD_PX_W // 2, CARD_PX_H // 2)
        self._faces = np.stack(
            [face_vector(cv2.resize(face, self._face_size, interpolation=cv2.INTER_AREA)) for face in deck.faces]
        )
        self._ramps = _ramps(THUMB_W, THUMB_H)
        self._thumbs = _unramped(deck.thumbs, self._ramps)

    def suit_by_face(self, image: ByteImage, corners: Vec, matches: Sequence[IndexMatch]) -> tuple[str, float] | None:
        """A clear rank whose small index suit is torn between the two suits of one colour (a
        blurred heart and diamond, club and spade), or fits either poorly though its colour is
        plain (warm light and a glare band over a diamond): the card's face, whose pips or court
        picture are many times the index's size, picks between them, and must fit the card it
        picks best of all. Only for a card lying alone: a strip of a card fanned under others
        proved no safe guide (its pips misled in tests).
        """
        if not matches:
            return None
        s = self.settings
        rank_scores = pooled([m.rank_scores for m in matches])
        suit_scores = pooled([m.suit_scores for m in matches])
        r_order = np.argsort(rank_scores)[::-1]
        rank = int(r_order[0])
        if lead_over(rank_scores, int(r_order[1])) < s.accept_margin:
            return None
        # A blurred rank's thin strokes fit the deck's sharp looks poorly (0.4-0.7) while it stays
        # far nearer its own rank than any other: two index corners that each pick it are taken
        # as a rank, for the face must then still pick the whole card best of all 52.
        twice = len(matches) == 2 and all(int(np.argmax(m.rank_scores)) == rank for m in matches)
        if rank_scores[rank] < s.accept_score and not twice:
            return None
        s_order = [int(k) for k in np.argsort(suit_scores)[::-1]]
        pair = s_order[:2]
        # Both candidates of one colour (suits run c d h s: c and s black, d and h red), each
        # well clear of the other two suits.
        if {pair[0], pair[1]} not in ({0, 3}, {1, 2}):
            return None
        # (How well the index fits either red or black suit does not matter: warm light, glare
        # or blur can leave both poor fits, while the colour stays plain.)
        if lead_over(suit_scores[[pair[1], s_order[2]]], 1) < s.accept_margin:
            return None
        faces = self._face_scores(image, corners)
        scores = [float(faces[rank * 4 + k]) for k in pair]
        lead = scores[0] - scores[1]
        if abs(lead) < FACE_SUIT_MARGIN or max(scores) < FACE_SUIT_LEAST:
            return None
        suit = pair[0] if lead > 0 else pair[1]
        # The face must fit the card it picks best of all 52 (a face seen through glare can lean
        # anywhere).
        if int(np.argmax(faces)) != rank * 4 + suit:
            return None
        return CODES[rank * 4 + suit], min(1.0, 0.5 * abs(lead) / FACE_SUIT_MARGIN)

    def rank_by_face(self, image: ByteImage, corners: Vec, matches: Sequence[IndexMatch]) -> tuple[str, float] | None:
        """A clear suit whose index rank is lost to blur (a thin 8, 9, 6 or Q at 150 px): the
        card's face, its pips' count and layout or its court picture, names the rank, but only a
        rank the index itself leans to. A card read at both index corners among others (the top
        card of a fan) shows its face too; one partly covered correlates too little to name any.
        """
        if not matches:
            return None
        s = self.settings
        suit_scores = pooled([m.suit_scores for m in matches])
        suit, other = (int(k) for k in np.argsort(suit_scores)[::-1][:2])
        if suit_scores[suit] < s.accept_score or lead_over(suit_scores, other) < s.accept_margin:
            return None
        rank_scores = pooled([m.rank_scores for m in matches])
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

    def picks(self, image: ByteImage, corners: Vec, code: str) -> bool:
        """Whether the card's whole face at half size fits ``code`` best of all 52 registered
        faces: unlike the thumbnail, it tells a club's pips from a spade's."""
        return int(np.argmax(self._face_scores(image, corners))) == CODES.index(code)

    def _face_scores(self, image: ByteImage, corners: Vec) -> npt.NDArray[np.float32]:
        """The card's whole face at half the canonical size correlated with every registered face
        (either way up: the two index corners look alike).
        """
        w, h = self._face_size
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
        card = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR)
        face = face_vector(np.asarray(card))
        # (A reversed view is multiplied element by element, eight times slower than a copy by BLAS.)
        turned = np.ascontiguousarray(face[::-1])
        return np.asarray(np.maximum(self._faces @ face, self._faces @ turned), dtype=np.float32)

    def settles(self, image: ByteImage, corners: Vec, code: str, named: Sequence[str]) -> bool:
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

    def agrees(self, image: ByteImage, corners: Vec, code: str, *, alone: bool, twice: bool = False) -> bool:
        """Second opinion from the whole face: it must not look more like another card.

        An index blurred past reading can pass for a neighbour's (a K for a 6); the picture or the
        pips in the middle of the card cannot. A card lying alone must match its own face; a card
        partly under others is only refused when its visible face clearly is another card's; a
        lone card both of whose indices read it clearly (``twice``) is refused when its face is
        plainly seen (some registered face fits it closely) and is another card's.
        """
        scores = self.thumb_scores(image, corners)
        claimed = float(scores[CODES.index(code)])
        best = float(scores.max())
        if twice:
            return best < FACE_PLAIN or claimed >= best - FACE_SLACK
        if alone:
            return claimed >= 0.5 and claimed >= best - FACE_SLACK
        return not (best >= 0.45 and best > claimed + 0.2)

    def thumb_scores(self, image: ByteImage, corners: Vec) -> npt.NDArray[np.float32]:
        """The card's face as a small thumbnail, its light's ramp left out, correlated with every
        registered face's (either way up)."""
        m = cv2.getPerspectiveTransform(corners.astype(np.float32), _THUMB_DST)
        card = cv2.warpPerspective(image, m, (CARD_PX_W // 4, CARD_PX_H // 4), flags=cv2.INTER_LINEAR)
        # Light falling off across the card (a lamp to one side, a glare band's edge, a shadow) is
        # a brightness ramp over the whole face that no registered face has: it is left out of the
        # comparison, on both sides.
        thumb = _unramped(face_thumb(card)[None, :], self._ramps)[0]
        turned = np.ascontiguousarray(thumb[::-1])  # the same card half a turn round (a copy: BLAS)
        return np.asarray(np.maximum(self._thumbs @ thumb, self._thumbs @ turned), dtype=np.float32)


def _ramps(width: int, height: int) -> npt.NDArray[np.float32]:
    """Two orthonormal brightness ramps (left to right, top to bottom) over a row-major thumbnail,
    each of zero mean."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    xs, ys = xs.reshape(-1) - xs.mean(), ys.reshape(-1) - ys.mean()
    xs /= np.linalg.norm(xs)
    ys -= (ys @ xs) * xs
    ys /= np.linalg.norm(ys)
    return np.stack([xs, ys]).astype(np.float32)


def _unramped(thumbs: npt.NDArray[np.float32], ramps: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Unit thumbnails (rows) with their part along ``ramps`` taken out, made unit again."""
    flat = thumbs - (thumbs @ ramps.T) @ ramps
    norms = np.maximum(np.linalg.norm(flat, axis=1, keepdims=True), 1e-6)
    return np.ascontiguousarray(flat / norms, dtype=np.float32)


def face_vector(card_bgr: ByteImage) -> npt.NDArray[np.float32]:
    """A card face in the canonical frame at half size as a soft grey unit vector (row-major, so
    the vector reversed is the same face half a turn round).
    """
    gray = cv2.GaussianBlur(cv2.cvtColor(card_bgr, cv2.COLOR_BGR2GRAY), (0, 0), 1.2).astype(np.float32)
    gray -= gray.mean()
    gray /= max(float(np.linalg.norm(gray)), 1e-6)
    return np.asarray(gray.reshape(-1), dtype=np.float32)
