"""Cards among others read by the index corners they show: both on the outline, or one (a fan's card)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader, index_frame
from vision.pipeline.decide import CardDecider
from vision.pipeline.fan_looks import FAN_SEEN_SCORE, IndexLooks
from vision.pipeline.fan_settle import FanSettle
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.one_corner import FAN_EXTRA_SCORE, FAN_INDEX_LEAST, OneCornerReader
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings

ByteImage = npt.NDArray[Any]


class FanReader:
    """Reads the cards of a blob holding several (overlaps and fans) by the index corners they show,
    and settles, once the blob is read, the cards whose two corners showed two different cards.
    A card read by one corner is ``exposed``'s (OneCornerReader); what waits for the whole blob is
    ``pending``'s (FanSettle)."""

    def __init__(self, *, settings: RecognizerSettings, corners: CornerReader, decider: CardDecider) -> None:
        self.settings = settings
        self.corners = corners
        self.decider = decider
        self.looks = IndexLooks(settings=settings, corners=corners)
        self.pending = FanSettle(settings=settings)
        self.exposed = OneCornerReader(
            settings=settings, corners=corners, decider=decider, looks=self.looks, pending=self.pending
        )

    @property
    def outline(self) -> ByteImage | None:
        """The outline (plane pixels) of the blob being read, when known (see OneCornerReader)."""
        return self.exposed.outline

    @outline.setter
    def outline(self, contour: ByteImage | None) -> None:
        self.exposed.outline = contour

    def read_among(self, image: ByteImage, hyp: Hypothesis, plane: Plane) -> None:
        """Read a card among others whose two index corners both lie on the blob's outline.

        That is a card on top (both indices in view) or the bottom card of a fan, whose far
        corner lies on the fan's straight edge under the cards above: there the card is read by
        the one index that matches well while the other shows none (the face, mostly the other
        cards', is no check then). The other corner must show no index at all: one that looks like
        an index, however unsure (the bottom card's own, blurred), is the card's, and the clear
        one is then some other card's.
        """
        c = plane.to_frame(hyp.corners)
        hyp.code, hyp.confidence = self.decider.read_card(image, c, alone=False)
        # Both corners were just read and are remembered: asking again costs nothing.
        first = self.corners.read_index(image, c, 0)
        second = self.corners.read_index(image, c, 2)
        if hyp.code != UNKNOWN:
            hyp.whole = first.best == second.best == hyp.code
            return
        strong = [
            k
            for k, r in ((0, first), (2, second))
            if r.match is not None and r.match.score >= self.settings.accept_score + FAN_EXTRA_SCORE
        ]
        other = first if strong[:1] == [2] else second
        if len(strong) == 1 and (other.match is None or other.match.score < FAN_SEEN_SCORE):
            self.exposed.read_exposed(image, hyp, strong[0], plane, turn=True)
        elif strong:
            # Clear indices that do not settle on one card (two corners disagreeing): a card is
            # there all the same, unread (until one index proves another card's, see settle).
            hyp.seen = True
            if len(strong) == 2:
                self.pending.split.append((hyp, first, second))
            elif other.best is not None and other.match is not None:
                clear = second if other is first else first
                if clear.code not in (UNKNOWN, other.best):
                    self.pending.over.append((hyp, 2 - strong[0], other.best, (clear.code, clear.confidence)))
                self._steady_under(image, hyp, plane, far=strong[0], own=other, clear=clear)
        else:
            self._read_bottom(image, hyp, plane, first=first, second=second)

    def _read_bottom(
        self, image: ByteImage, hyp: Hypothesis, plane: Plane, *, first: CornerRead, second: CornerRead
    ) -> None:
        """A card with both index corners on the outline, neither clear: where one shows an
        index fairly (FAN_SEEN_SCORE) and the other none, it is the bottom card of a fan (its far
        corner on the fan's edge, under the cards above), read by that one index as a card seen
        by one corner is, with its looks a pixel or two off (a weak or blurred index, its corner
        placed a pixel or two off, reads plainly or steadily close by).
        """
        fair = [
            k
            for k, r in ((0, first), (2, second))
            if r.match is not None and r.best is not None and r.match.score >= FAN_SEEN_SCORE
        ]
        if not fair:
            if hyp.anchors >= 2:
                self._read_unseen_bottom(image, hyp, plane, first=first, second=second)
            return
        if len(fair) != 1:
            return
        other = second if fair[0] == 0 else first
        if other.best is not None and other.match is not None and other.match.score >= FAN_INDEX_LEAST:
            return  # the far corner shows something like an index too: not a fan's bottom card's
        self.exposed.read_exposed(image, hyp, fair[0], plane, turn=True)

    def _read_unseen_bottom(
        self, image: ByteImage, hyp: Hypothesis, plane: Plane, *, first: CornerRead, second: CornerRead
    ) -> None:
        """A card with both index corners on the outline where neither shows an index fairly as
        placed: the bottom card of a fan whose own index, placed a pixel or two off, reads nothing
        or garbage (the patch's edge cut through a glyph), is named by the one corner whose look
        a pixel or two off its pose reads a card plainly (``IndexLooks.off_pose``, not turned:
        two reads where the corner shows nothing), while the other corner shows nothing like an
        index. (Looked at only for a card between two outline corners: a hypothesis turned the
        wrong way about one shows no index at either, and its looks are most of their cost.)
        """
        c = plane.to_frame(hyp.corners)
        bar = self.settings.accept_score + FAN_EXTRA_SCORE
        for k, far in ((0, second), (2, first)):
            if far.match is not None and far.match.score >= FAN_INDEX_LEAST:
                continue  # the far corner shows something like an index: which is the card's is unsure
            origin, x_vec, y_vec = index_frame(c, k)
            look = self.looks.off_pose(image, origin, x_vec, y_vec, bar=bar, turn=False)
            if look is None or look.code == UNKNOWN:
                continue
            # As every one-corner read (read_exposed, CardDecider.read_card): against the card's
            # twin, its runner-up ranks and what its other corner shows (dondorf's table 18007: a
            # fan's bottom Qh named Qc by its corner under the top card's lower index). The far
            # corner was read already (the check asks for it at once: the loop's ``far`` is the one).
            if self.decider.rivals.holds(image, c, k, code=look.code, match=look.match, far=lambda: far):  # noqa: B023
                hyp.code, hyp.confidence = look.code, look.confidence
                self.pending.one.append((hyp, k))
                return

    def _steady_under(
        self, image: ByteImage, hyp: Hypothesis, plane: Plane, *, far: int, own: CornerRead, clear: CornerRead
    ) -> None:
        """A card whose index corner ``far`` shows a clear index and whose other corner a fair one
        (``own``, FAN_SEEN_SCORE up) of another card: where that fair index reads its card steadily
        a frame pixel away each way (see ``IndexLooks.steady``), the card is noted to be settled
        with the blob: it is that card when the clear corner lies under a card read as what it
        showed (the bottom card of a fan, whose far corner lies on the fan's edge under the cards
        above, where the top card's index is).
        """
        assert own.best is not None and own.match is not None
        if clear.best is None or clear.best == own.best:
            return
        origin, x_vec, y_vec = index_frame(plane.to_frame(hyp.corners), 2 - far)
        named = self.looks.steady(image, origin, x_vec, y_vec, code=own.best, score=own.match.score)
        if named is not None:
            self.pending.fair.append((hyp, far, named, clear.best))

    def unasked(self, hyp: Hypothesis) -> bool:
        """Whether ``hyp`` is named by one blurred index whose far corner was not asked, its name
        settled with the blob (see FanSettle.soft)."""
        return any(entry[0] is hyp for entry in self.pending.soft)

    def refused(self, hyp: Hypothesis) -> bool:
        """Whether ``hyp``'s index corner named a card its far index corner refused, fitting another
        card's registered index more clearly (see FanSettle.outshown): the index was read, what it
        names is in doubt."""
        return any(entry is hyp for entry in self.pending.outshown)

    def forget(self, hyp: Hypothesis) -> None:
        """Drop what reading ``hyp`` left to settle (its geometry is given up)."""
        self.pending.forget(hyp)

    def settle(self, hyps: Sequence[Hypothesis], *, card_w: float) -> None:
        """Settle, once the blob is read, what its cards' reads left (see FanSettle.settle)."""
        self.pending.settle(hyps, card_w=card_w)

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
        """Read a card among others by the one index corner in view (see OneCornerReader.read_exposed)."""
        return self.exposed.read_exposed(image, hyp, corner, plane, seen_score=seen_score, turn=turn, pale=pale)
