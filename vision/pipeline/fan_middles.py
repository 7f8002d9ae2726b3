"""A fan's cards found from two of its cards read: the motion taking one onto the other, part way or once more."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN
from vision.pipeline.fan_looks import FAN_SEEN_SCORE
from vision.pipeline.fan_scan import filled_outline, lies_within
from vision.pipeline.fans import FanReader
from vision.pipeline.geometry import aligned, overlap_area, rotation, turned
from vision.pipeline.hypotheses import BACK, Hypothesis
from vision.pipeline.plane import Plane

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# Two cards read in one blob are cards of one fan when they overlap by at least this share of a
# card ...
_OVERLAP: Final = 0.1
# ... and are turned at most this far from one another (degrees: a hand's fan of three spreads up
# to about 40).
_TURN: Final = 50.0
# Cards fanned one after another lie at least this far apart (card widths, at their index
# corners): a card between two read ones is looked for only where they lie twice that apart ...
_STEP: Final = 0.25
# ... where (shares of the motion from one to the other) it likeliest lies: a hand's fan is
# spread about evenly, never exactly so.
_BETWEEN: Final = (0.5, 0.42, 0.58)
# Beyond two read cards a step apart, the next card of the fan lies the same motion on (or back).
_BEYOND: Final = (-1.0, 2.0)
# An index corner read there lies at least this far (card widths) from every index corner read
# already in the blob: nearer, it is that card's index again.
_OWN: Final = 0.1


def fan_cards_between(
    image: ByteImage,
    plane: Plane,
    *,
    hyps: Sequence[Hypothesis],
    reader: FanReader,
    contour: ByteImage,
    card_w: float,
    card_h: float,
) -> list[Hypothesis]:
    """Cards of a blob's fan whose index the outline's edges did not lead to (a corner over the card
    below, an edge hidden), found from two of its cards read, each read by its one index in view.

    Cards fanned in the hand or spread along a side follow one another by the same motion, a turn
    about one point (a slide, when they are not turned): a card between two of them lies part of
    the way along the motion that takes one onto the other, and the next card beyond them that
    motion on. Each place is read strictly, by one index and the fan's bar
    (``FanReader.read_exposed``), and a card is named only by a code not read in the blob yet.
    ``hyps`` are the blob's cards so far; no index corner of a card read is read again.
    """
    faces = [h for h in hyps if h.code not in (UNKNOWN, BACK)]
    if len(faces) < 2:
        return []
    examined = [h.corners[k] for h in faces for k in (0, 2)]
    codes = {h.code for h in faces}
    # A place past the fan's end is felt, or another card's face: a card lies within the outline.
    inside = filled_outline(contour)
    found: list[Hypothesis] = []
    card_area = card_w * card_h
    for i, a in enumerate(faces):
        for b in faces[i + 1 :]:
            if overlap_area(a.corners, b.corners) < _OVERLAP * card_area:
                continue
            other = aligned(b.corners, a.corners)
            turn = _turn(a.corners, other)
            if abs(turn) > math.radians(_TURN):
                continue
            apart = max(float(np.hypot(*(a.corners[k] - other[k]))) for k in (0, 2))
            if apart < _STEP * card_w:
                continue
            shares = [*(_BETWEEN if apart >= 2 * _STEP * card_w else ()), *_BEYOND]
            for s in shares:
                quad = _part_way(a.corners, other, turn, s)
                if not lies_within(quad, inside):
                    continue
                hyp = _read_at(image, plane, quad, examined=examined, reader=reader, card_w=card_w, codes=codes)
                if hyp is not None:
                    found.append(hyp)
                    codes.add(hyp.code)
                    examined.extend(hyp.corners[k] for k in (0, 2))
                    if s in _BETWEEN:
                        break  # one card between them
    return found


def _read_at(
    image: ByteImage,
    plane: Plane,
    quad: Vec,
    *,
    examined: list[Vec],
    reader: FanReader,
    card_w: float,
    codes: set[str],
) -> Hypothesis | None:
    """The card at ``quad`` read by an index corner of it that no card read has, when it names a
    card not yet in the blob."""
    for k in (0, 2):
        corner = quad[k]
        if any(float(np.hypot(*(corner - e))) < _OWN * card_w for e in examined):
            continue
        # Read as the fan scan reads a start: corner 0 is the index corner asked.
        hyp = Hypothesis(corners=np.roll(quad, -k, axis=0), fill=1.0)
        score = reader.read_exposed(image, hyp, 0, plane, seen_score=FAN_SEEN_SCORE, pale=False)
        if score is not None and hyp.code not in (UNKNOWN, *codes) and not reader.unasked(hyp):
            return hyp
        reader.forget(hyp)
    return None


def _turn(a: Vec, b: Vec) -> float:
    """The angle (radians) that turns ``a``'s first side onto ``b``'s."""
    da, db = a[1] - a[0], b[1] - b[0]
    return math.atan2(float(da[0] * db[1] - da[1] * db[0]), float(da @ db))


def _part_way(a: Vec, b: Vec, turn: float, s: float) -> Vec:
    """``a`` moved the share ``s`` of the way onto ``b`` (beyond it past 1, back past 0) by the one
    rigid motion between them: a turn by ``turn`` about the point it leaves fixed (a slide when
    they are not turned)."""
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    if abs(turn) < 1e-3:
        return np.asarray(a + s * (cb - ca), np.float64)
    r = rotation(turn)
    pivot = np.linalg.solve(np.eye(2) - r, cb - r @ ca)
    return turned(a, math.degrees(s * turn), about=pivot)
