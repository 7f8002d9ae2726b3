"""A card among others read by the one index corner it shows (a fan's card), checked against its far corner."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader, index_frame
from vision.pipeline.decide import CardDecider
from vision.pipeline.fan_looks import FAN_SEEN_SCORE, IndexLooks
from vision.pipeline.far_cover import far_covered
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.side_index import read_side, side_shift
from vision.pipeline.soft_read import SoftLook

if TYPE_CHECKING:
    from vision.pipeline.fan_settle import FanSettle

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# What a card found only by scanning a fan (one index in view, no face to check) adds to it.
FAN_EXTRA_SCORE: Final = 0.04
# An index that matches no card even this well is no index at all (FAN_SEEN_SCORE: one that is).
FAN_INDEX_LEAST: Final = 0.3
# A card among others whose index matches at least this well but not enough is read again: turned a
# little about its corner (read_exposed), or placed by the fan scan, nudged (see fan_scan.FAN_NUDGE).
FAN_RETRY_SCORE: Final = 0.55
# A card named by one index has its far index corner read (see read_exposed) only when that
# corner lies within this share of a card's width inside the blob's outline.
FAR_IN_VIEW: Final = 0.1


class OneCornerReader:
    """Reads a card among others by the one index corner in view, its far corner (where in view)
    a check; what hangs on the cards around it is noted in ``pending``, settled with the blob."""

    def __init__(
        self,
        *,
        settings: RecognizerSettings,
        corners: CornerReader,
        decider: CardDecider,
        looks: IndexLooks,
        pending: FanSettle,
    ) -> None:
        self.settings = settings
        self.corners = corners
        self.decider = decider
        self.looks = looks
        self.pending = pending
        self.soft = SoftLook(settings=settings, corners=corners, bar=settings.accept_score + FAN_EXTRA_SCORE)
        # The outline (plane pixels) of the blob being read, when known: see _far_in_view.
        self.outline: ByteImage | None = None

    def read_exposed(
        self,
        image: ByteImage,
        hyp: Hypothesis,
        corner: int,
        plane: Plane,
        *,
        seen_score: float | None = None,
        turn: bool = False,
        pale: bool = True,
    ) -> float | None:
        """Read a card among others by the one index corner in view (0 or 2 of its corners);
        returns the index's match score, None when no index was seen there.

        With a single index and no face to check it against, a read must match more closely; an
        index that matches some card at least ``seen_score`` (by default as closely as a read) but
        not one card clearly still proves a card is there. Without ``pale`` the corner is not read
        at the paler ink level alone (a fan scan's start: see ``CornerReader.read``).
        """
        c = plane.to_frame(hyp.corners)
        origin, x_vec, y_vec = index_frame(c, corner)
        code, conf, best, match = self.corners.read(image, origin, x_vec, y_vec, pale=pale)
        s = self.settings
        bar = s.accept_score + FAN_EXTRA_SCORE
        if turn and (match is None or match.score < FAN_SEEN_SCORE):
            around = self.looks.around(image, origin, x_vec, y_vec, bar=bar)
            if around is not None:
                code, conf, best, match = around
        if match is None:
            return None
        if turn and code == UNKNOWN and match.score >= FAN_RETRY_SCORE:
            # A corner drawn from the outline's edges is a degree or two off the card where an
            # edge is short (a fan's corner, cut by the next card): a fair match is read again
            # turned a little either way about the corner.
            again = self.looks.turned(image, origin, x_vec, y_vec)
            if again is not None and again.match is not None:
                code, conf, best, match = again.code, again.confidence, again.best, again.match
        named: tuple[str, float] | None = None
        if code != UNKNOWN and match.score >= bar:
            named = code, conf
        elif best is not None and match.score >= FAN_SEEN_SCORE:
            named = self.looks.steady(image, origin, x_vec, y_vec, code=best, score=match.score)
        if named is None:
            look = self.looks.off_pose(image, origin, x_vec, y_vec, bar=bar, turn=turn)
            if look is not None and look.match is not None:
                named, match = (look.code, look.confidence), look.match
        unasked = soft_named = False
        if named is None and best is not None:
            # A blurred index short of the bar by its blur discount alone, read steadily (SoftLook),
            # where its far index corner, if it shows, leans to the same card: a steady clear index
            # can be another card's where the corner is misplaced onto it (vision_blur's dondorf
            # table 18608: a fan's bottom 3d read the unread top 8h's lower index, its own index at
            # the far corner showing nothing under the blur), which the discount alone kept unread.
            # A far corner on the outline with card past it (far_cover) lies under the cards above:
            # it is not asked, and the corner read must then lie clear of every other card of the
            # blob (FanSettle.soft, settled with the blob).
            named = self.soft.named(image, origin, x_vec, y_vec, pale=pale)
            soft_named = named is not None
            if named is not None and self._far_in_view(hyp, corner):
                unasked = self.outline is not None and far_covered(self.outline, hyp.corners, corner=2 - corner)
                if not unasked and self.corners.read_index(image, c, 2 - corner).best != named[0]:
                    named = None
        own = None if named is None else self.decider.rivals.near(image, c, corner, code=named[0], match=match)
        if (
            soft_named
            and named is not None
            and own is not None
            and self.decider.rivals.fits_another(image, c, corner, code=named[0])
        ):
            # Named below the bar by its steadiness, the corner must fit its card's registered
            # index best of all 52, not only of its twin and runner-up ranks (vision_blur's
            # dondorf table 18547: a fan's blurred Ts, steady as an Ac, fits the Ac 0.54 and the Ah
            # 0.68; the classifier's runner-up clubs had not been the Ah).
            own = None
        if own is None:
            named = None  # the index may be its twin's or another rank's (blurred): unread, seen
        if named is not None:
            if not self._far_in_view(hyp, corner):
                hyp.code, hyp.confidence = named
                self.pending.one.append((hyp, corner))
                return match.score
            opposite = self.corners.read_index(image, c, 2 - corner)
            dissents = self._far_dissents(opposite, named[0])
            if not dissents and self.decider.rivals.far_agrees(
                image, c, corner, code=named[0], own=float(own or 0.0), far=opposite
            ):
                hyp.code, hyp.confidence = named
                self.pending.one.append((hyp, corner))
                if unasked:
                    self.pending.soft.append((hyp, corner))
                return match.score
            if not dissents and match.score >= bar:
                # Refused by the far corner's fits to the registered indices: it shows another
                # card's index more clearly than this corner shows this card's (see
                # FanSettle.outshown). Only an index read at the fan's bar: one short of it may
                # read better a few pixels off and then be settled (dondorf's guard table 14976:
                # a fan's bottom 4c, 0.72 where the scan put it, 0.81 nudged, its far corner on
                # the read top Kd's index).
                self.pending.outshown.append(hyp)
            # The card's other printed index, diagonally opposite, shows another card: one of the
            # two is another card's index (a four-index design's fan shows a card's lower index
            # where a scan pose turned half round puts this card's corner, and the far corner
            # is then this card's own index). A card is there, unread, unless the far corner
            # lies under a card read as what it showed (a fan held turned about its corner),
            # which settle decides with the whole blob.
            hyp.seen, hyp.confidence = True, named[1]
            near = CornerRead(named[0], named[1], named[0], match)
            self.pending.split.append((hyp, near, opposite) if corner == 0 else (hyp, opposite, near))
            return match.score
        if match.score >= (bar if seen_score is None else seen_score):
            hyp.seen, hyp.confidence = True, conf
            # An index that falls short of a read: the card's other index, where it shows, is a
            # second look (a fan's top card shows both, off the blob's outline though they are).
            far = self.decider.read_far(image, c if corner == 0 else np.roll(c, 2, axis=0))
            if far is None and best is not None:
                far = self._read_side(image, hyp, c, corner, best=best)
            if far is not None:
                hyp.code, hyp.confidence = far
        elif turn and best is not None and match.score >= FAN_INDEX_LEAST:
            # Too weak to prove a card by itself, the index is still some card's: a four-index
            # design's side index reading that card on its own names it. (Not at a fan scan's
            # start, a guessed place: there such looks cost 2.2 reads a frame, dondorf's speed
            # frames, and dondorf's blur tables 18000-18099 read 778 fan cards with or without.)
            side = self._read_side(image, hyp, c, corner, best=best)
            if side is not None:
                hyp.code, hyp.confidence = side
                self.pending.one.append((hyp, corner))
        return match.score

    def _read_side(
        self, image: ByteImage, hyp: Hypothesis, c: Vec, corner: int, *, best: str
    ) -> tuple[str, float] | None:
        """A third look, on a four-index design only (``side_shift``): the indices printed beside
        the index corners, those in view (dondorf table 11003's 3c, a fan's bottom card spread along
        its long side: its index corner weak, 0.53, the index at its far short side's end 0.93)."""
        shift = side_shift(self.corners.deck)
        if shift is None:
            return None
        near = [k for k in (0, 2) if self._in_view(hyp, (k + 1) % 4)]
        bar = self.settings.accept_score + FAN_EXTRA_SCORE
        return read_side(image, c, corner, best=best, decider=self.decider, shift=shift, near=near, bar=bar)

    def _far_in_view(self, hyp: Hypothesis, corner: int) -> bool:
        """Whether the index corner diagonally opposite ``corner`` may show an index of its own: it
        lies on the blob's outline (``outline``, within FAR_IN_VIEW of a card's width) or nothing
        is known of the blob. A corner deep inside the blob lies under other cards (a card's
        corner in view is the outline's), and it is not read: reads are most of a frame's cost.
        """
        return self._in_view(hyp, 2 - corner)

    def _in_view(self, hyp: Hypothesis, k: int) -> bool:
        """Whether ``hyp``'s corner ``k`` lies on the blob's outline (within FAR_IN_VIEW of a card's
        width) or nothing is known of the blob."""
        if self.outline is None:
            return True
        far = hyp.corners[k]
        inside = cv2.pointPolygonTest(self.outline, (float(far[0]), float(far[1])), True)
        return bool(inside < FAR_IN_VIEW * float(np.hypot(*(hyp.corners[1] - hyp.corners[0]))))

    def _far_dissents(self, far: CornerRead, code: str) -> bool:
        """Whether a card's far index corner shows another card than ``code``: an index (fitting
        some card at least FAN_SEEN_SCORE, as a blurred index does and a pip or a picture's edge
        does not) whose best card is another, its rank or suit set clearly apart from ``code``'s.
        (A pose a pixel off can leave a clear index just short of a read: it is no less another
        card's.)
        """
        if far.code != UNKNOWN:
            return far.code != code
        m = far.match
        if m is None or far.best in (None, code) or m.score < FAN_SEEN_SCORE:
            return False
        return self.decider.dissents(m, code)
