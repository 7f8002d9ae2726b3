"""Second looks at an index corner that fell short: its patch a pixel or two off, turned or scaled about it."""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader
from vision.pipeline.settings import RecognizerSettings

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# An index found by scanning a fan's edge that matches some card at least this well is one (a
# card is there, unknown), though far from well enough to name it: a blurred index is still an
# index, where a pip or a picture's edge fits no rank and suit at all.
FAN_SEEN_SCORE: Final = 0.5
# A card drawn from the outline's corner (a fanned card's) is read again turned this much either way.
FAN_TURN_DEG: Final = 2.0
_TURNS: Final = {
    d: np.array(
        [
            [math.cos(math.radians(d)), -math.sin(math.radians(d))],
            [math.sin(math.radians(d)), math.cos(math.radians(d))],
        ]
    )
    for d in (-FAN_TURN_DEG, FAN_TURN_DEG)
}
# A one-index read that falls short of the fan's bar is looked at again from the frame pixel
# beside its corner each way (8 poses): where at least FAN_STEADY_AGREE of them show the same
# card as the corner itself, and the middle of the nine scores reaches the ordinary read bar, the
# card is read. A true index holds its code and score when the patch moves a pixel (the pose is
# only known to a pixel or two, and a single pose can land where a glyph's edge just breaks);
# a pip, a picture's edge or a glyph torn between two ranks changes code or falls away, so
# steadiness stands in for the fan's extra score. Looked at only from FAN_SEEN_SCORE up.
FAN_STEADY_AGREE: Final = 7
# A card drawn from the outline's corner whose index reads nothing there (under FAN_SEEN_SCORE: the
# patch's edge cut through a glyph, a blurred card edge joined to it) is looked at this many frame
# pixels away each way (8 poses): it is read when at least FAN_STEADY_AGREE of them show one card,
# none reads another card outright, and the middle of their scores reaches the fan's bar. A pose
# is only known to a pixel or two; a true index a little off its corner reads clearly all round,
# where the patch's ink at a glyph-less place changes card from pose to pose.
FAN_LOOK_STEP: Final = 2.0
# An index corner none of the above names is read again 1 and 2 frame pixels away each way (16
# poses, see _pose_look): where its patch's edge cut through a glyph, or took in a blurred card
# edge, the index reads garbage at one pose and plainly at others. It is named when at least
# FAN_POSE_READS poses read one card at the fan's bar and no pose shows another card; the look
# stops when none of the first FAN_POSE_FIRST poses sees any card at FAN_SEEN_SCORE (reads are
# most of a frame's cost). For a card drawn from the outline's corner that shows no card fairly,
# the look is made again turned FAN_TURN_DEG either way about the corner when the turned corner
# reads a card outright (nicu-ornamental's fan-bottom 7h: under 0.3 as placed and at every
# pose 1-2 px away, 0.83-0.95 turned 1-3 degrees).
FAN_POSE_READS: Final = 3
FAN_POSE_FIRST: Final = 2
# A card that the look above sees fairly (FAN_SEEN_SCORE) but never plainly is looked at again
# with the card drawn this much larger, then smaller, about its corner, when that corner reads the
# same card outright: a card's size is taken from the frame's cards and its own visible sides, and
# an outline a few per cent short (a fan's card whose sides show only in part) shrinks the patch
# against the index (nicu-ornamental's fan-bottom 6d: 0.55-0.72 all round as placed, its card 3.5 %
# small; 0.87 at its true size).
FAN_SCALE: Final = 0.04
FAN_SCALES: Final = (1.0 + FAN_SCALE, 1.0 - FAN_SCALE)
_STEPS: Final = np.array([(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)], dtype=np.float64)
_POSES: Final = np.concatenate([np.zeros((1, 2)), _STEPS, _STEPS * 2.0])


class IndexLooks:
    """Reads an index corner again around its pose (a pixel or two off, turned, scaled) to name
    a card whose index, read where it was placed, fell short of the fan's bar."""

    def __init__(self, *, settings: RecognizerSettings, corners: CornerReader) -> None:
        self.settings = settings
        self.corners = corners

    def turned(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec) -> CornerRead | None:
        """The index read turned FAN_TURN_DEG one way, else the other, about ``origin`` where that
        names a card outright; None when neither turn does.
        """
        for deg in (-FAN_TURN_DEG, FAN_TURN_DEG):
            turned = _TURNS[deg]
            again = self.corners.read(image, origin, turned @ x_vec, turned @ y_vec)
            if again.match is not None and again.code != UNKNOWN:
                return again
        return None

    def steady(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, code: str, score: float
    ) -> tuple[str, float] | None:
        """The card and confidence of an index read at ``origin`` whose best match ``code``
        (``score``) fell short, when the reads a frame pixel away each way hold that code steadily
        (see FAN_STEADY_AGREE); None when they do not.
        """
        scores, misses = [score], 0
        for step in _STEPS:
            again = self.corners.read(image, origin + step, x_vec, y_vec)
            if again.code not in (UNKNOWN, code):
                # A pixel away another card reads outright: the corner shows that card's index
                # as much as this one (hershey's 5h reads 8h at 0.75 seven ways, 5h at 0.86 the eighth).
                return None
            if again.match is not None and again.best == code:
                scores.append(again.match.score)
            else:
                misses += 1
                if misses > len(_STEPS) - FAN_STEADY_AGREE:
                    return None
        middle = float(np.median(scores))
        if middle < self.settings.accept_score:
            return None
        return code, 0.5 * min(middle / self.settings.accept_score, 2.0)

    def around(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, bar: float) -> CornerRead | None:
        """The index read FAN_LOOK_STEP frame pixels each way from ``origin`` where it reads one
        card steadily (see FAN_LOOK_STEP), as read outright at the middle score of those poses;
        None when it does not. Stops after the second pose that does not agree.
        """
        code: str | None = None
        reads: list[CornerRead] = []
        misses = 0
        for step in _STEPS * FAN_LOOK_STEP:
            again = self.corners.read(image, origin + step, x_vec, y_vec)
            if again.code != UNKNOWN and code is not None and again.code != code:
                return None  # another card reads outright a step away: its index is there too
            if again.match is not None and again.best is not None and again.match.score >= FAN_SEEN_SCORE:
                if code is None:
                    code = again.best
                if again.best == code:
                    reads.append(again)
                    continue
            misses += 1
            if misses > len(_STEPS) - FAN_STEADY_AGREE:
                return None
        if code is None:
            return None
        reads.sort(key=lambda r: r.match.score if r.match is not None else 0.0)
        middle = reads[len(reads) // 2]
        if middle.match is None or middle.match.score < bar:
            return None
        return CornerRead(code, 0.5 * min(middle.match.score / self.settings.accept_score, 2.0), code, middle.match)

    def off_pose(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, bar: float, turn: bool
    ) -> CornerRead | None:
        """The card an unnamed index corner reads a little off its pose (see _pose_look): as placed,
        or else, for a card drawn from the outline's corner (``turn``) that shows no card fairly as
        placed, turned FAN_TURN_DEG either way about the corner where the turned corner itself
        reads a card outright (a corner's edges fitted a degree or two off); None when neither.
        A look that sees another card refuses outright.
        """
        look, seen, other = self._pose_look(image, origin, x_vec, y_vec, bar=bar)
        if look is not None or other:
            return look
        if seen is not None:
            return self._scaled_look(image, origin, x_vec, y_vec, bar=bar, seen=seen)
        if not turn:
            return None
        for deg in (-FAN_TURN_DEG, FAN_TURN_DEG):
            turned = _TURNS[deg]
            if self.corners.read(image, origin, turned @ x_vec, turned @ y_vec).code != UNKNOWN:
                look, also, other = self._pose_look(image, origin, turned @ x_vec, turned @ y_vec, bar=bar)
                if other or seen not in (None, also):
                    return None  # turned or not, the corner shows two cards
                if look is not None:
                    return look
                seen = seen or also
        return None

    def _scaled_look(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, bar: float, seen: str
    ) -> CornerRead | None:
        """The card ``seen`` (fairly, never plainly, at and around its pose) where the index read
        with the card FAN_SCALE larger or smaller about its corner reads it outright and a pose
        look there (see _pose_look) names it; None when neither scale does, or one shows another card.
        """
        for scale in FAN_SCALES:
            again = self.corners.read(image, origin, x_vec * scale, y_vec * scale)
            if again.code == UNKNOWN:
                continue
            if again.code != seen:
                return None  # bigger or smaller, the corner shows another card
            look, also, other = self._pose_look(image, origin, x_vec * scale, y_vec * scale, bar=bar)
            if other or also not in (None, seen):
                return None
            if look is not None:
                return look
        return None

    def _pose_look(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, bar: float
    ) -> tuple[CornerRead | None, str | None, bool]:
        """The card an index corner left unnamed reads clearly a pixel or two away, or None: the
        index is read again 1 and then 2 frame pixels away each way (16 poses), and it is that card
        when at least FAN_POSE_READS poses read it outright at the fan's ``bar`` while no pose
        shows another card (read, or its best at FAN_SEEN_SCORE or more), nor does the read at the
        corner itself; as read at the middle of its clear reads. Stops when none of the first
        FAN_POSE_FIRST poses sees any card fairly, and after the 1 px ring unless it holds
        some clear reads but too few. Also gives the card seen first (at
        FAN_SEEN_SCORE or read; None if none) and whether another card showed too.
        """
        code: str | None = None
        clear: list[CornerRead] = []
        for k, step in enumerate(_POSES):
            again = self.corners.read(image, origin + step, x_vec, y_vec)
            seen = again.match is not None and again.best is not None and again.match.score >= FAN_SEEN_SCORE
            if seen and code is None:
                code = again.best
            if (again.code != UNKNOWN or seen) and again.best != code:
                return None, code, True  # another card shows a step away: its index is there as much as this one
            if again.code != UNKNOWN and again.match is not None and again.match.score >= bar:
                clear.append(again)
            if code is None and k >= FAN_POSE_FIRST:
                return None, None, False  # nothing near a card's index here
            if k == len(_STEPS) and len(clear) != 1 and len(clear) != 2:
                break  # plain enough and nothing else a pixel away, or nothing plain there at all
        if code is None or len(clear) < FAN_POSE_READS:
            return None, code, False
        clear.sort(key=lambda r: r.match.score if r.match is not None else 0.0)
        middle = clear[len(clear) // 2]
        assert middle.match is not None
        return CornerRead(code, middle.confidence, code, middle.match), code, False
