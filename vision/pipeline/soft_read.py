"""A blurred fan index read at its own fits, when it reads one card clearly and steadily a pixel off each way."""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.fan_looks import FAN_SEEN_SCORE, FAN_STEADY_AGREE
from vision.pipeline.settings import RecognizerSettings

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# A blurred index (corners.SOFT_KNEE up, SOFT_LIMIT at most) has its score discounted, so that one
# corner alone never names a soft card on a bare fit: a club smeared into a spade fits the spade
# about as well as a sharp one fits its own card, only by less over the club. A soft index that the
# discount alone leaves short of the fan's bar is read at its own fits when the reads a frame pixel
# away each way (8 poses) hold its card (FAN_STEADY_AGREE of them, none reading another card), and
# the middle of the nine looks leads the runner-up rank and the runner-up suit each by SOFT_MARGIN,
# twice the accepting margin: the blurred 3c that once read 3s (kennard's table 11009, when the
# bar itself was lowered) leads the club by 0.25, the soft reads this names lead theirs by
# 0.46-1.00. Its twin and runner-up ranks are judged afterwards as every one-corner read's are
# (RivalCheck.near: against their registered indices, not the classifier's scores).
SOFT_MARGIN_SHARE: Final = 2.0
# A soft index whose fits fall short of the fan's bar even undiscounted (a dim, blurred frame's
# small index: kennard's table 11009, the top fan's 3d and 3s at 0.59-0.72 all round) is still
# named where it is unanimous: all nine looks read its card, their middle fit reaches this floor
# (FAN_RETRY_SCORE's: an index fair enough to be read again), and every look, not the middle one,
# leads the runner-up rank and suit by SOFT_MARGIN_SHARE margins. A smeared club passing for a
# spade flips suit or sinks under that lead a pixel off (kennard 11009's 3c: leads 0.01-0.23,
# two looks reading 3c); the true 3s there leads by 0.36-0.61 at every look.
SOFT_STEADY_FLOOR: Final = 0.55


class SoftLook:
    """Names a blurred index corner by its fits, not its discounted score, where it is steady (see
    SOFT_MARGIN_SHARE)."""

    def __init__(self, *, settings: RecognizerSettings, corners: CornerReader, bar: float) -> None:
        self.settings = settings
        self.corners = corners
        self.bar = bar

    def named(
        self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, pale: bool = True
    ) -> tuple[str, float] | None:
        """The card and confidence the soft index at ``origin`` reads at its own fits, steadily;
        None where it is not soft, falls short without its discount or is not steady (``pale``:
        as ``CornerReader.read``'s)."""
        read = self.corners.read(image, origin, x_vec, y_vec, pale=pale)
        match = read.match
        if match is None or read.best is None or match.soft <= 0.0 or match.score + match.soft < SOFT_STEADY_FLOOR:
            return None
        need = SOFT_MARGIN_SHARE * self.settings.accept_margin
        if match.score + match.soft < self.bar and match.margin < need:
            return None  # short of the bar, it is named only when every look leads clearly
        code = read.best
        scores, margins, misses = [match.score + match.soft], [match.margin], 0
        for step in _STEPS:
            again = self.corners.read(image, origin + step, x_vec, y_vec, pale=pale)
            m = again.match
            if again.code not in (UNKNOWN, code) or (
                m is not None and again.best not in (None, code) and m.score >= FAN_SEEN_SCORE
            ):
                return None  # a pixel away the corner shows another card
            if m is not None and again.best == code:
                scores.append(m.score + m.soft)
                margins.append(m.margin)
                continue
            misses += 1
            if misses > len(_STEPS) - FAN_STEADY_AGREE:
                return None
        score, margin = float(np.median(scores)), float(np.median(margins))
        plain = score >= self.bar and margin >= need
        unanimous = not misses and score >= SOFT_STEADY_FLOOR and min(margins) >= need
        if not (plain or unanimous):
            return None
        return code, 0.5 * min(score / self.settings.accept_score, margin / self.settings.accept_margin, 2.0)


_STEPS: Final = np.array([(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)], dtype=np.float64)
