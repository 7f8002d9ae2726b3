"""What reading a blob's cards left to settle once the whole blob is read: cards whose corners disagree."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerRead
from vision.pipeline.hypotheses import BACK, Hypothesis, across, parallel
from vision.pipeline.one_corner import FAN_EXTRA_SCORE
from vision.pipeline.settings import RecognizerSettings

# A rectangle turned across a card with a corner this near (card widths) to the card's index
# corner is the same outline corner's, drawn the other way round (see _covered): every outline
# corner proposes both, and a card named by one soft index is placed by its look, a few pixels
# off the outline corner (kennard's table 11009: the fan's middle 3s, 0.075 w from it). No fan's
# card lies across its neighbours (``across``: over 60 degrees), so a nearer one is no card there.
SAME_CORNER: Final = 0.1
# A card's index (any of its corners': a four-index design prints four) lies within this share of
# its width of its corner (the index box reaches about 0.2): a corner read further from every
# corner of a card it lies under is no index of that card's (a fan's middle card's corner over
# the bottom card's face, standard's table 11009 3c 0.38 w from the 6h's nearest corner).
OWN_INDEX: Final = 0.25
# A corner this near a card's edge (card widths, outside it) lies on it, for a card lying across
# (see ``_covered``): two plane pixels, a rectangle's own imprecision.
ON_EDGE: Final = 0.03


class FanSettle:
    """Cards of the blob being explained whose reads hang on the cards around them (a fan's bottom
    card, its far corner on the fan's edge under the cards above), noted while the blob is read and
    settled once it is: the index that lies under a card read as what it showed is that card's."""

    def __init__(self, *, settings: RecognizerSettings) -> None:
        self.settings = settings
        # Cards whose two index corners showed two clear, different indices, with those reads
        # (corner 0's, corner 2's).
        self.split: list[tuple[Hypothesis, CornerRead, CornerRead]] = []
        # Cards with one clear index corner and a fair one that reads steadily (see
        # FanReader._steady_under): the card, the clear corner (0 or 2), the fair corner's card and
        # confidence, and the clear corner's card.
        self.fair: list[tuple[Hypothesis, int, tuple[str, float], str]] = []
        # Cards named by one index corner, with that corner (0 or 2) (see _named_under).
        self.one: list[tuple[Hypothesis, int]] = []
        # Cards with one clear index corner read as a card and a fair one showing another: the
        # card, the fair corner (0 or 2), what it showed, and the clear corner's card and confidence.
        self.over: list[tuple[Hypothesis, int, str, tuple[str, float]]] = []
        # Cards named by one blurred index at its own fits (soft_read.SoftLook) whose far corner,
        # under the cards above, was not asked (far_cover), with the corner read (0 or 2).
        self.soft: list[tuple[Hypothesis, int]] = []
        # Cards whose one clear index was refused by their far corner, which fits another card's
        # registered index more clearly than the read corner fits this card's (RivalCheck.far_agrees):
        # not read again a few pixels off (see FanScanner._read_fanned).
        self.outshown: list[Hypothesis] = []

    def forget(self, hyp: Hypothesis) -> None:
        """Drop what reading ``hyp`` left to settle (its geometry is given up)."""
        self.split = [entry for entry in self.split if entry[0] is not hyp]
        self.fair = [entry for entry in self.fair if entry[0] is not hyp]
        self.one = [entry for entry in self.one if entry[0] is not hyp]
        self.over = [entry for entry in self.over if entry[0] is not hyp]
        self.soft = [entry for entry in self.soft if entry[0] is not hyp]
        self.outshown = [entry for entry in self.outshown if entry is not hyp]

    def settle(self, hyps: Sequence[Hypothesis], *, card_w: float) -> None:
        """Read the cards whose two index corners showed two clear, different indices, where one
        corner lies under another card read as what it showed: that is the other card's face (the
        bottom card of a fan, whose far corner lies on the fan's edge under the cards above), and
        the other index, clear, is this card's own.
        """
        split, self.split = self.split, []
        fair, self.fair = self.fair, []
        one, self.one = self.one, []
        over, self.over = self.over, []
        soft, self.soft = self.soft, []
        self.outshown = []
        # Judged all against the names as read, then un-named together: two cards named alike,
        # each by a corner near the other, are both unsure, whichever was read first (a
        # four-index design's fan: a rectangle drawn round a lower card takes the top card's lower
        # index for its own, dondorf's table 3008 Qs under the 9h, both corners at one point).
        under = [hyp for hyp, k in one if hyp.code != UNKNOWN and _named_under(hyps, hyp, k, card_w=card_w)]
        # A card named by one blurred index whose far corner was not asked (it lies under the cards
        # above) must be named by a corner clear of every other card of the blob, read or not: a
        # steady, clear index at a corner under another card is that card's (vision_blur's dondorf
        # table 18608: a fan's bottom 3d, its corner under the unread top 8h's, read that card's
        # lower index).
        under += [hyp for hyp, k in soft if hyp.code != UNKNOWN and _covered(hyps, hyp, k, card_w=card_w)]
        # Nor is a card named by one index corner that lies under a card read that it lies across, near a
        # corner of that card: no fan's card lies across its neighbours (``across``), and an index
        # read there is that card's own read turned (a four-index design prints one at every
        # corner: dondorf's table 19919, a fan's top Kc, its corner-1 index read turned as a 4c
        # whose rectangle covered the unfound middle 2s).
        under += [hyp for hyp, k in one if hyp.code != UNKNOWN and _covered(hyps, hyp, k, card_w=card_w, turned=True)]
        for hyp in under:
            # The index it was named by is that card's (the bottom card of a fan, its far
            # corner on the fan's edge under the top card, whose clear index lies there).
            hyp.code, hyp.confidence = UNKNOWN, 0.0
        for hyp, _ in soft:
            if hyp.code == UNKNOWN:
                hyp.seen = True  # an index seen steadily: a card is there, unread
        for hyp, far, named, clear in fair:
            if hyp.code == UNKNOWN and _under_read(hyps, hyp, far, code=clear, card_w=card_w):
                hyp.code, hyp.confidence = named
        for hyp, k, shown, clear_read in over:
            # The fair index is that of the card read lying over the corner (the bottom card of a
            # fan spread along its side, its far corner on the fan's edge under the top card; a
            # four-index design's top card shows an index there: dondorf's table 13000 8c, its far
            # corner 5c 0.745 under the 5c): the clear one is this card's own.
            if hyp.code == UNKNOWN and _under_read(hyps, hyp, k, code=shown, card_w=card_w):
                hyp.code, hyp.confidence = clear_read
        need = self.settings.accept_score + FAN_EXTRA_SCORE
        for hyp, first, second in split:
            if hyp.code != UNKNOWN:
                continue
            # Not under itself drawn again: a corner of the card's own that shows its index (vision_blur's
            # dondorf table 18734: a fan's top 7h, corner 0 7h and corner 2 the blurred 7d) named it 7d.
            others = [o for o in hyps if not _drawn_again(o, hyp, card_w=card_w)]
            for k, here, other in ((0, first, second), (2, second, first)):
                if other.code == UNKNOWN or other.match is None or other.match.score < need:
                    continue
                if other.code == here.best:
                    continue
                if here.best is not None and _under_read(others, hyp, k, code=here.best, card_w=card_w):
                    hyp.code, hyp.confidence = other.code, other.confidence
                    break


def _named_under(hyps: Sequence[Hypothesis], hyp: Hypothesis, k: int, *, card_w: float) -> bool:
    """Whether ``hyp``'s corner ``k``, which named it, lies under (or within a tenth of a card's
    width of) another card of ``hyps`` read as the same code: not ``hyp`` drawn again (the same
    place and lie, as explain's choice takes one card)."""
    others = [o for o in hyps if not _drawn_again(o, hyp, card_w=card_w)]
    return _under_read(others, hyp, k, code=hyp.code, card_w=card_w)


def _covered(hyps: Sequence[Hypothesis], hyp: Hypothesis, k: int, *, card_w: float, turned: bool = False) -> bool:
    """Whether ``hyp``'s corner ``k`` lies under (or within a tenth of a card's width of) another
    card of ``hyps``, whatever it was read as, near a corner of that card (within OWN_INDEX), where
    an index of that card may lie: not ``hyp`` drawn again (as in ``_named_under``), nor a
    rectangle drawn from the same outline corner the other way round (turned across it, that
    corner its own: every outline corner proposes both). With ``turned``, only a card ``hyp``
    lies across counts."""
    here = hyp.corners[k]
    for o in hyps:
        if o is hyp or _drawn_again(o, hyp, card_w=card_w):
            continue
        if turned and (o.code in (UNKNOWN, BACK) or not across(o.corners, hyp.corners)):
            continue
        nearest = float(np.hypot(*(o.corners - here).T).min())
        if nearest >= OWN_INDEX * card_w or _stray_across(o, hyp, nearest=nearest, card_w=card_w):
            continue
        # A card lying across is another card's index turned only where the corner lies on it (within
        # ``ON_EDGE``, a rectangle's own imprecision): a little beside it is a card of its own touching
        # the fan (kennard table 19707: the fan's bottom Th, its index corner 0.06 w outside a single
        # Tc, 0.13 w from its corner, was unnamed).
        if _lies_under(here, o, card_w=card_w, margin=ON_EDGE if turned else 0.1):
            return True
    return False


def _stray_across(o: Hypothesis, hyp: Hypothesis, *, nearest: float, card_w: float) -> bool:
    """Whether ``o``, turned across ``hyp`` (``across``: no fan's card lies so), is no card whose
    index the corner read could be: drawn from the same outline corner the other way round (a
    corner within SAME_CORNER), or shown by nothing (neither read nor seen: an index of its own
    at the corner read would have shown it). An outline corner where a fan's middle card's top
    edge meets the card below proposes such a rectangle 0.14-0.16 w along the middle card's edge
    from the index corner the fan scan placed (standard's table 2: the middle Jd; nicu-white's
    table 13018: the middle Th)."""
    if not across(o.corners, hyp.corners):
        return False
    return nearest < SAME_CORNER * card_w or (o.code == UNKNOWN and not o.seen)


def _under_read(hyps: Sequence[Hypothesis], hyp: Hypothesis, k: int, *, code: str, card_w: float) -> bool:
    """Whether ``hyp``'s corner ``k`` lies under (or within a tenth of a card's width of) another
    card of ``hyps`` read as ``code``."""
    return any(o is not hyp and o.code == code and _lies_under(hyp.corners[k], o, card_w=card_w) for o in hyps)


def _drawn_again(o: Hypothesis, hyp: Hypothesis, *, card_w: float) -> bool:
    """Whether ``o`` is ``hyp`` drawn again: the same place and lie (explain's choice takes one card)."""
    return float(np.hypot(*(o.center - hyp.center))) < 0.2 * card_w and parallel(o.corners, hyp.corners)


def _lies_under(point: npt.NDArray[np.float64], o: Hypothesis, *, card_w: float, margin: float = 0.1) -> bool:
    """Whether ``point`` lies under card ``o`` or within ``margin`` of a card's width of it."""
    where = (float(point[0]), float(point[1]))
    return cv2.pointPolygonTest(o.corners.astype(np.float32), where, True) > -margin * card_w
