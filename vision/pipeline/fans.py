"""Cards among others: read where an index corner lies on the outline, and along a fan's edge where cards have none."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader, index_frame
from vision.pipeline.decide import CardDecider
from vision.pipeline.fan_edges import EDGE_BEYOND, Walk, follow_side, index_starts, outline_edges, paper_along, walks
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# What a card found only by scanning a fan (one index in view, no face to check) adds to it.
FAN_EXTRA_SCORE: Final = 0.04
# An index found by scanning a fan's edge that matches some card at least this well is one (a
# card is there, unknown), though far from well enough to name it: a blurred index is still an
# index, where a pip or a picture's edge fits no rank and suit at all.
FAN_SEEN_SCORE: Final = 0.5
# ... and below this it is no index at all.
FAN_INDEX_LEAST: Final = 0.3
# A scanned fan card whose index matches at least this well but not enough is read again this
# share of a card's width either side (where an index starts is only known to a few pixels).
FAN_RETRY_SCORE: Final = 0.55
FAN_NUDGE: Final = 0.03
# A card placed from where its index's ink starts is placed this share of its side early: a glyph
# starts at or after the deck's leftmost index ink (a narrow rank further in), and a patch that
# cuts into a glyph reads nothing where one a little wide reads it.
FAN_EARLY: Final = 0.015
# Outline edges scanned for fanned cards are at least this share of a card's width long.
EDGE_LEAST: Final = 0.2
# ... and one shorter than this share of its side is followed on over the card below (follow_side).
FOLLOW_SHORT: Final = 0.5
# The least share of a fanned card within the blob's outline, judged at a grid of points (shares
# of its width and height) over it.
FAN_FILL: Final = 0.9
# ... and one drawn from the outline's corner is read again turned this much either way.
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
# A card named by one index has its far index corner read (see read_exposed) only when that
# corner lies within this share of a card's width inside the blob's outline.
FAR_IN_VIEW: Final = 0.1
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
_GRID: Final = np.array([(x, y) for x in np.linspace(0.05, 0.95, 5) for y in np.linspace(0.04, 0.96, 7)])


class FanReader:
    """Reads the cards of a blob holding several: overlaps and fans."""

    def __init__(self, *, settings: RecognizerSettings, corners: CornerReader, decider: CardDecider) -> None:
        self.settings = settings
        self.corners = corners
        self.decider = decider
        self.bands = 0  # fan edges scanned since the reader was made
        # Cards of the blob being explained whose two index corners showed two clear, different
        # indices, with those reads (corner 0's, corner 2's): settled once the blob is read.
        self._split: list[tuple[Hypothesis, CornerRead, CornerRead]] = []
        # The outline (plane pixels) of the blob being read, when known: see _far_in_view.
        self.outline: ByteImage | None = None

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
        else:
            self._read_bottom(image, hyp, plane, first=first, second=second)

    def forget(self, hyp: Hypothesis) -> None:
        """Drop what reading ``hyp`` left to settle (its geometry is given up)."""
        self._split = [entry for entry in self._split if entry[0] is not hyp]

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
        if len(fair) != 1:
            return
        other = second if fair[0] == 0 else first
        if other.best is not None and other.match is not None and other.match.score >= FAN_INDEX_LEAST:
            return  # the far corner shows something like an index too: not a fan's bottom card's
        self.read_exposed(image, hyp, fair[0], plane, turn=True)

    def settle(self, hyps: Sequence[Hypothesis], *, card_w: float) -> None:
        """Read the cards whose two index corners showed two clear, different indices, where one
        corner lies under another card read as what it showed: that is the other card's face (the
        bottom card of a fan, whose far corner lies on the fan's edge under the cards above), and
        the other index, clear, is this card's own.
        """
        split, self._split = self._split, []
        need = self.settings.accept_score + FAN_EXTRA_SCORE
        for hyp, first, second in split:
            if hyp.code != UNKNOWN:
                continue
            for k, here, other in ((0, first, second), (2, second, first)):
                if other.code == UNKNOWN or other.match is None or other.match.score < need:
                    continue
                if other.code == here.best:
                    continue
                corner = (float(hyp.corners[k][0]), float(hyp.corners[k][1]))
                if any(
                    o is not hyp
                    and o.code == here.best
                    and cv2.pointPolygonTest(o.corners.astype(np.float32), corner, True) > -0.1 * card_w
                    for o in hyps
                ):
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
            around = self._look_around(image, origin, x_vec, y_vec, bar=bar)
            if around is not None:
                code, conf, best, match = around
        if match is None:
            return None
        if turn and code == UNKNOWN and match.score >= FAN_RETRY_SCORE:
            # A corner drawn from the outline's edges is a degree or two off the card where an
            # edge is short (a fan's corner, cut by the next card): a fair match is read again
            # turned a little either way about the corner.
            for deg in (-FAN_TURN_DEG, FAN_TURN_DEG):
                turned = _TURNS[deg]
                again = self.corners.read(image, origin, turned @ x_vec, turned @ y_vec)
                if again.match is not None and again.code != UNKNOWN:
                    code, conf, best, match = again.code, again.confidence, again.best, again.match
                    break
        named: tuple[str, float] | None = None
        if code != UNKNOWN and match.score >= bar:
            named = code, conf
        elif best is not None and match.score >= FAN_SEEN_SCORE:
            named = self._steady(image, origin, x_vec, y_vec, code=best, score=match.score)
        if named is None:
            look = self._looked(image, origin, x_vec, y_vec, bar=bar, turn=turn)
            if look is not None and look.match is not None:
                named, match = (look.code, look.confidence), look.match
        if named is not None:
            if not self._far_in_view(hyp, corner):
                hyp.code, hyp.confidence = named
                return match.score
            opposite = self.corners.read_index(image, c, 2 - corner)
            if not self._far_dissents(opposite, named[0]):
                hyp.code, hyp.confidence = named
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
            if far is not None:
                hyp.code, hyp.confidence = far
        return match.score

    def _far_in_view(self, hyp: Hypothesis, corner: int) -> bool:
        """Whether the index corner diagonally opposite ``corner`` may show an index of its own: it
        lies on the blob's outline (``outline``, within FAR_IN_VIEW of a card's width) or nothing
        is known of the blob. A corner deep inside the blob lies under other cards (a card's
        corner in view is the outline's), and it is not read: reads are most of a frame's cost.
        """
        if self.outline is None:
            return True
        far = hyp.corners[2 - corner]
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

    def _steady(
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

    def _look_around(self, image: ByteImage, origin: Vec, x_vec: Vec, y_vec: Vec, *, bar: float) -> CornerRead | None:
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

    def _looked(
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

    def scan_blob(
        self,
        image: ByteImage,
        plane: Plane,
        *,
        contour: ByteImage,
        hyps: Sequence[Hypothesis],
        card_w: float,
        card_h: float,
    ) -> list[Hypothesis]:
        """Cards of a blob of several whose index corner is in view but no outline corner (plane
        pixels): a fan's middle card, whose top edge runs in line with its neighbours' (cards
        spread along their side) or shows only between them, its index corner over the card
        below (cards turned about a corner, as held in the hand).

        Every straight outline edge is part of some card's side, its card on the blob's side of
        it; walked one way it is a short side, the other way a long one. Along its line, and on
        past an end where the line runs on into the blob, an index is looked for where one starts
        in the band the indices occupy; each place is read as that card's index corner, strictly
        (one index, no face to check it by). ``hyps`` are the blob's cards read already: their
        index corners are not read again. (A card read at both its indices need not lie on top:
        the bottom card of a fan spread the other way shows both, and the top card's index lies
        over it.)
        """
        box = self.corners.deck.index_box
        scale = plane.scale
        known = [h for h in hyps if h.code != UNKNOWN or h.seen]
        examined = [h.corners[k] for h in hyps for k in h.examined]
        examined += [h.corners[k] for h in known for k in (0, 2)]
        found: list[Hypothesis] = []
        x0, y0, bw, bh = cv2.boundingRect(contour)
        filled = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(filled, [contour], -1, 255, cv2.FILLED, offset=(-x0, -y0))
        inside = (filled, x0, y0)
        for edge in outline_edges(contour, least=EDGE_LEAST * card_w):
            for walk in walks(edge, contour, probe=0.08 * card_w):
                side = card_w if walk.short else card_h
                rows, lead, across = walk.band(box, card_w=card_w, card_h=card_h)
                lo, hi = walk.span(side)
                if hi < lo:
                    continue  # one card's side from corner to corner: no other card starts there
                if not paper_along(plane.image, walk, across=across, rows=rows):
                    continue  # no face along this edge (a back, a chip): no index to find
                if walk.short and walk.open_start and walk.length < FOLLOW_SHORT * side:
                    # The side runs on over the card below from a short visible piece, and a line
                    # fitted to a few pixels of edge is a few degrees off: it is taken from all of it.
                    walk = follow_side(image, plane, walk, reach=EDGE_BEYOND * side)  # noqa: PLW2901
                    rows, lead, across = walk.band(box, card_w=card_w, card_h=card_h)
                length = int((hi - lo + lead) / scale)
                if length < 4:
                    continue
                starts = index_starts(
                    image,
                    plane,
                    origin=walk.origin + walk.along * lo,
                    step=walk.along * scale,
                    across=across,
                    rows=rows,
                    length=length,
                    # (A deck printing its index closer to the card's edge than that shows less
                    # paper between the card below's ink and the index: standard's 2 px.)
                    gap=max(2, int(min(0.03 * card_w, lead) / scale)),
                    lead=round((lead + FAN_EARLY * side) / scale),
                )
                self.bands += 1
                reach = ((box.x1 if walk.short else box.y1) + 0.03) * (card_w if walk.short else card_h)
                taken: list[float] = []
                # Cards seen here but not read: the ink of the card below beside an index (a pip,
                # a glyph) fits some card fairly too, and the index beside it may still read.
                unsure: list[tuple[float, Hypothesis]] = []
                for start in starts:
                    t = lo + start * scale
                    # A start within an index already found is that index's own glyph (its suit,
                    # the "0" of a ten): the next card's index begins past this one's width.
                    if not lo <= t <= hi or any(abs(t - u) < reach for u in taken):
                        continue
                    near = [u for u in unsure if abs(t - u[0]) < reach]
                    quad = walk.card(t, card_w=card_w, card_h=card_h)
                    # An index corner already read (a card's own, or a card read) is not read again.
                    if examined and float(np.hypot(*(np.array(examined) - quad[0]).T).min()) < 0.1 * card_w:
                        taken.append(t)
                        continue
                    if not self._may_lie(quad, inside):
                        continue
                    fanned = self._read_fanned(image, plane, walk, t, card_w=card_w, card_h=card_h)
                    if fanned is None or not _found(fanned):
                        # No index here (or ink that fits no card at all: the edge of the card
                        # below cut into the patch), or only part of one (the patch reaches a
                        # little past its corner, onto the next card's index): a start a little
                        # further on may still find it whole.
                        continue
                    if fanned.code == UNKNOWN:
                        if not near:
                            unsure.append((t, fanned))
                        continue
                    # An index read there: another start close by is the same index, and one
                    # seen but not read beside it was ink beside it.
                    for u in near:
                        unsure.remove(u)
                    taken.append(t)
                    found.append(fanned)
                    examined.append(fanned.corners[0])
                for _, card in unsure:
                    found.append(card)
                    examined.append(card.corners[0])
        return found

    def _may_lie(self, quad: Vec, inside: tuple[ByteImage, int, int]) -> bool:
        """Whether a card may lie at ``quad``: it lies within the blob's outline (a card sticking
        out past the blob is the face of the card whose edge this is), judged at a grid of points
        over it. (The outline filled, not the felt mask: a red card's pips on a red cloth are
        felt-coloured.) ``inside`` is the filled outline and its box's top-left corner.
        """
        filled, x0, y0 = inside
        pts = quad[0] + _GRID @ np.stack([quad[1] - quad[0], quad[3] - quad[0]])
        xy = np.round(pts).astype(np.int64) - (x0, y0)
        h, w = filled.shape
        ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
        hits = int(np.count_nonzero(filled[xy[ok, 1], xy[ok, 0]]))
        return bool(hits >= FAN_FILL * len(pts))

    def _read_fanned(
        self, image: ByteImage, plane: Plane, walk: Walk, t: float, *, card_w: float, card_h: float
    ) -> Hypothesis | None:
        """The card whose index corner lies ``t`` along ``walk``, read by that index; None when
        no index is there (ink fitting no card at all).
        """
        fanned = Hypothesis(corners=walk.card(t, card_w=card_w, card_h=card_h), fill=1.0)
        score = self.read_exposed(image, fanned, 0, plane, seen_score=FAN_SEEN_SCORE, pale=False)
        if score is None or score < FAN_INDEX_LEAST:
            return None
        if fanned.code == UNKNOWN:
            # An index that falls short: its start is a few pixels off (a shadow, a glyph that
            # begins further in than the deck's leftmost ink, so the corner was put late); it is
            # read again a little earlier, and a fair match later too.
            side = card_w if walk.short else card_h
            nudges = (-FAN_NUDGE, FAN_NUDGE) if score >= FAN_RETRY_SCORE else (-FAN_NUDGE,)
            base = walk.card(t, card_w=card_w, card_h=card_h)
            shifts = [walk.along * nudge * side for nudge in nudges]
            if score >= FAN_RETRY_SCORE:
                shifts += [walk.inward * s * card_w for s in (-FAN_NUDGE, FAN_NUDGE)]
            for shift in shifts:
                nudged = Hypothesis(corners=base + shift, fill=1.0)
                self.read_exposed(image, nudged, 0, plane, seen_score=FAN_SEEN_SCORE, pale=False)
                if nudged.code != UNKNOWN or (nudged.seen and not fanned.seen):
                    fanned = nudged
                if fanned.code != UNKNOWN:
                    break
        return fanned


def _found(card: Hypothesis) -> bool:
    """Whether a card placed by the fan scan was read or seen (an index matching some card fairly)."""
    return card.code != UNKNOWN or card.seen
