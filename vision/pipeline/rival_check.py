"""A one-corner read checked against its rivals by the registered indices: twin, runner-up ranks, far corner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from controller.cards import RANKS
from vision.index_match import IndexMatch
from vision.pipeline.corners import CornerRead, index_frame
from vision.pipeline.twin_suit import TWIN_LEAD, TwinSuit, twin_of

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# How many of the classifier's runner-up ranks (in the read suit) a one-corner read is checked
# against, and by how much (normalised correlation, as a whole or where the two looks differ: the
# rank) its own registered index must fit better. Under heavy blur a rank's glyph can pass for
# another's (hershey's Jc read 3c at 0.725: the 3c leads the J by 0.05 in the classifier's rank
# scores, while the Jc's registered index fits the corner 0.005 better as a whole, 0.04 at the
# rank). Unlike a club and a spade (TWIN_LEAD), no rank is known to pass for another one way:
# the rival need only fit as well. Measured on vision_blur's hershey tables 18080-18099: 174 right
# one-corner namings, none refused against any of the 51 other codes at a lead of 0 (2 at 0.005).
RIVALRANKS: Final = 2
RIVAL_LEAD: Final = 0.0
# By how much (normalised correlation, as a whole) another card's registered index must fit a
# corner better than the read card's to show it is another card's (``fits_another``). The fits are
# of the darkest channel, blind to colour: a card and the same rank of the other colour fit alike
# (vision_blur's kennard tables 18500-18599: blurred diamonds named right by SoftLook fit the same
# rank's spade up to 0.006 better); dondorf's table 18547's Ts, steady as an Ac, fits the Ah 0.14
# better.
OTHER_LEAD: Final = 0.05


def runner_up_ranks(match: IndexMatch | None, code: str) -> list[str]:
    """The cards of ``code``'s suit whose ranks the classifier's scores put next after ``code``'s."""
    if match is None or len(match.rank_scores) != len(RANKS):
        return []
    scores = match.rank_scores.tolist()  # (13 values: plain Python sorts them faster than numpy)
    order = sorted(range(len(RANKS)), key=lambda i: -scores[i])
    return [RANKS[i] + code[-1] for i in order if RANKS[i] != code[0]][:RIVALRANKS]


class RivalCheck:
    """Whether a card read by one index corner is not another card's index seen there: the corner
    must fit the read card's registered index better than its twin's (the same rank, the other
    suit of its colour) and than the classifier's runner-up ranks', and the card's other index
    corner, where it shows an index of another card, must not show it more clearly than the read
    corner shows this one (a four-index design's fan: the bottom card's corner under the cards
    above shows a higher card's lower index, its own corner its own index, blurred past reading)."""

    def __init__(self, *, twins: TwinSuit) -> None:
        self.twins = twins

    def holds(
        self,
        image: ByteImage,
        corners: Vec,
        k: int,
        *,
        code: str,
        match: IndexMatch | None,
        far: Callable[[], CornerRead | None],
    ) -> bool:
        """Whether ``code``, read at the card's index corner ``k`` (0 or 2; ``corners`` in frame
        pixels) by ``match``, stands against its rivals; ``far`` gives what the other index corner
        reads, or None where it is not looked at (asked only when the read corner stands)."""
        own = self.near(image, corners, k, code=code, match=match)
        if own is None:
            return False
        other = far()
        return other is None or self.far_agrees(image, corners, k, code=code, own=own, far=other)

    def near(self, image: ByteImage, corners: Vec, k: int, *, code: str, match: IndexMatch | None) -> float | None:
        """How well the read corner ``k`` fits ``code``'s registered index, when it fits it better
        than its twin's and its runner-up ranks' (see ``holds``); None when a rival fits as well."""
        rivals = [(twin_of(code), TWIN_LEAD), *((r, RIVAL_LEAD) for r in runner_up_ranks(match, code))]
        return self.twins.judged(image, *index_frame(corners, k), code=code, rivals=rivals)

    def fits_another(self, image: ByteImage, corners: Vec, k: int, *, code: str) -> bool:
        """Whether the index at corner ``k`` fits another card's registered index better than
        ``code``'s by OTHER_LEAD (TwinSuit.best_other: each card's look, at the blur ``code``'s fits best)."""
        _other, shown, this = self.twins.best_other(image, *index_frame(corners, k), code=code)
        return shown - this > OTHER_LEAD

    def far_agrees(self, image: ByteImage, corners: Vec, k: int, *, code: str, own: float, far: CornerRead) -> bool:
        """Whether the card's other index corner (``far``, as read there) does not show another
        card's index more clearly than the read corner ``k`` shows ``code``'s (fitting it ``own``)."""
        if far.best == code:
            return True
        frame = index_frame(corners, 2 - k)
        if far.best is None:
            # The far corner names no card (its index too blurred for the classifier to cut its
            # rank and suit apart): the card whose registered index fits it best is its best look.
            # A fan's bottom card placed with its read corner on the unread top card's index shows
            # its own index there, which the classifier did not read (vision_blur's dondorf table
            # 18751: an 8d named Kd by the top card's lower index, 0.925; its own corner fits the
            # 8d 0.959, the Kd 0.80).
            _shown_code, shown, this = self.twins.best_other(image, *frame, code=code)
        else:
            # The far corner's best card, fitted there against this one.
            shown, this = self.twins.fits(image, *frame, code=far.best, rival=code)
        # It shows another card's index when that fits it better than this card's does and better
        # than this card fits its own corner.
        return not (shown > this and shown > own)
