"""Cards among others read by the index corners they show: both on the outline, or one (a fan's card)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader, index_frame
from vision.pipeline.decide import CardDecider
from vision.pipeline.fan_looks import FAN_SEEN_SCORE, IndexLooks
from vision.pipeline.hypotheses import Hypothesis, parallel
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.side_index import read_side, side_shift

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


class FanReader:
    """Reads the cards of a blob holding several (overlaps and fans) by the index corners they show,
    and settles, once the blob is read, the cards whose two corners showed two different cards."""

    def __init__(self, *, settings: RecognizerSettings, corners: CornerReader, decider: CardDecider) -> None:
        self.settings = settings
        self.corners = corners
        self.decider = decider
        self.looks = IndexLooks(settings=settings, corners=corners)
        # Cards of the blob being explained whose two index corners showed two clear, different
        # indices, with those reads (corner 0's, corner 2's): settled once the blob is read.
        self._split: list[tuple[Hypothesis, CornerRead, CornerRead]] = []
        # Cards of the blob being explained with one clear index corner and a fair one that reads
        # steadily (see _steady_under): the card, the clear corner (0 or 2), the fair corner's
        # card and confidence, and the clear corner's card; settled once the blob is read.
        self._fair: list[tuple[Hypothesis, int, tuple[str, float], str]] = []
        # The outline (plane pixels) of the blob being read, when known: see _far_in_view.
        self.outline: ByteImage | None = None
        # Cards of the blob being explained named by one index corner, with that corner (0 or 2):
        # settled once the blob is read (see _named_under).
        self._one: list[tuple[Hypothesis, int]] = []
        # Cards of the blob being explained with one clear index corner read as a card and a fair
        # one showing another: the card, the fair corner (0 or 2), what it showed, and the clear
        # corner's card and confidence; settled once the blob is read (see settle).
        self._over: list[tuple[Hypothesis, int, str, tuple[str, float]]] = []

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
            self.read_exposed(image, hyp, strong[0], plane, turn=True)
        elif strong:
            # Clear indices that do not settle on one card (two corners disagreeing): a card is
            # there all the same, unread (until one index proves another card's, see settle).
            hyp.seen = True
            if len(strong) == 2:
                self._split.append((hyp, first, second))
            elif other.best is not None and other.match is not None:
                clear = second if other is first else first
                if clear.code not in (UNKNOWN, other.best):
                    self._over.append((hyp, 2 - strong[0], other.best, (clear.code, clear.confidence)))
                self._steady_under(image, hyp, plane, far=strong[0], own=other, clear=clear)
        else:
            self._read_bottom(image, hyp, plane, first=first, second=second)

    def forget(self, hyp: Hypothesis) -> None:
        """Drop what reading ``hyp`` left to settle (its geometry is given up)."""
        self._split = [entry for entry in self._split if entry[0] is not hyp]
        self._fair = [entry for entry in self._fair if entry[0] is not hyp]
        self._one = [entry for entry in self._one if entry[0] is not hyp]
        self._over = [entry for entry in self._over if entry[0] is not hyp]

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
        self.read_exposed(image, hyp, fair[0], plane, turn=True)

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
                self._one.append((hyp, k))
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
            self._fair.append((hyp, far, named, clear.best))

    def settle(self, hyps: Sequence[Hypothesis], *, card_w: float) -> None:
        """Read the cards whose two index corners showed two clear, different indices, where one
        corner lies under another card read as what it showed: that is the other card's face (the
        bottom card of a fan, whose far corner lies on the fan's edge under the cards above), and
        the other index, clear, is this card's own.
        """
        split, self._split = self._split, []
        fair, self._fair = self._fair, []
        one, self._one = self._one, []
        over, self._over = self._over, []
        for hyp, k in one:
            if hyp.code != UNKNOWN and _named_under(hyps, hyp, k, card_w=card_w):
                # The index it was named by is that card's (the bottom card of a fan, its far
                # corner on the fan's edge under the top card, whose clear index lies there).
                hyp.code, hyp.confidence = UNKNOWN, 0.0
        for hyp, far, named, clear in fair:
            if hyp.code == UNKNOWN and _under_read(hyps, hyp, far, code=clear, card_w=card_w):
                hyp.code, hyp.confidence = named
        for hyp, k, shown, named in over:
            # The fair index is that of the card read lying over the corner (the bottom card of a
            # fan spread along its side, its far corner on the fan's edge under the top card; a
            # four-index design's top card shows an index there: dondorf's table 13000 8c, its far
            # corner 5c 0.745 under the 5c): the clear one is this card's own.
            if hyp.code == UNKNOWN and _under_read(hyps, hyp, k, code=shown, card_w=card_w):
                hyp.code, hyp.confidence = named
        need = self.settings.accept_score + FAN_EXTRA_SCORE
        for hyp, first, second in split:
            if hyp.code != UNKNOWN:
                continue
            for k, here, other in ((0, first, second), (2, second, first)):
                if other.code == UNKNOWN or other.match is None or other.match.score < need:
                    continue
                if other.code == here.best:
                    continue
                if here.best is not None and _under_read(hyps, hyp, k, code=here.best, card_w=card_w):
                    hyp.code, hyp.confidence = other.code, other.confidence
                    break

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
        own = None if named is None else self.decider.rivals.near(image, c, corner, code=named[0], match=match)
        if own is None:
            named = None  # the index may be its twin's or another rank's (blurred): unread, seen
        if named is not None:
            if not self._far_in_view(hyp, corner):
                hyp.code, hyp.confidence = named
                self._one.append((hyp, corner))
                return match.score
            opposite = self.corners.read_index(image, c, 2 - corner)
            if not self._far_dissents(opposite, named[0]) and self.decider.rivals.far_agrees(
                image, c, corner, code=named[0], own=float(own or 0.0), far=opposite
            ):
                hyp.code, hyp.confidence = named
                self._one.append((hyp, corner))
                return match.score
            # The card's other printed index, diagonally opposite, shows another card: one of the
            # two is another card's index (a four-index design's fan shows a card's lower index
            # where a scan pose turned half round puts this card's corner, and the far corner
            # is then this card's own index). A card is there, unread, unless the far corner
            # lies under a card read as what it showed (a fan held turned about its corner),
            # which settle decides with the whole blob.
            hyp.seen, hyp.confidence = True, named[1]
            near = CornerRead(named[0], named[1], named[0], match)
            self._split.append((hyp, near, opposite) if corner == 0 else (hyp, opposite, near))
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
                self._one.append((hyp, corner))
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


def _named_under(hyps: Sequence[Hypothesis], hyp: Hypothesis, k: int, *, card_w: float) -> bool:
    """Whether ``hyp``'s corner ``k``, which named it, lies under (or within a tenth of a card's
    width of) another card of ``hyps`` read as the same code: not ``hyp`` drawn again (the same
    place and lie, as explain's choice takes one card)."""
    others = [
        o
        for o in hyps
        if not (float(np.hypot(*(o.center - hyp.center))) < 0.2 * card_w and parallel(o.corners, hyp.corners))
    ]
    return _under_read(others, hyp, k, code=hyp.code, card_w=card_w)


def _under_read(hyps: Sequence[Hypothesis], hyp: Hypothesis, k: int, *, code: str, card_w: float) -> bool:
    """Whether ``hyp``'s corner ``k`` lies under (or within a tenth of a card's width of) another
    card of ``hyps`` read as ``code``."""
    corner = (float(hyp.corners[k][0]), float(hyp.corners[k][1]))
    return any(
        o is not hyp
        and o.code == code
        and cv2.pointPolygonTest(o.corners.astype(np.float32), corner, True) > -0.1 * card_w
        for o in hyps
    )
