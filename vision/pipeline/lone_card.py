"""Reading a card lying alone: its first index corner when sure, else every rule, then second looks."""

from __future__ import annotations

from collections import Counter
from typing import Final

import numpy as np

from vision.deck import CODES
from vision.index_match import lead_over
from vision.pipeline.corners import UNKNOWN
from vision.pipeline.decide import DISSENT_SLACK, ByteImage, CardDecider, Vec
from vision.pipeline.face_check import FACE_PLAIN, FACE_SLACK
from vision.pipeline.twin_suit import twin_of

# A card lying alone whose first index corner clears the accepting score by this much, and the
# margin by this factor, is not read at its second corner (its whole face still has to agree).
# Nearer the bar its second corner, in plain view too, is read as well (the two must not name two
# cards): a rank stretched over ink beside it (hershey's frame corner) read an Ah as a 4h at 0.79,
# lead 0.27, on a face too plain to tell the two, where its second corner read Ah at 0.96. On
# development tables 3.7 % of lone cards' sure reads lie in the band between 0.76 / 0.255 and these
# bars (59 of 1574, all right: 50 confirmed by the second corner, none contradicted), so about one
# lone card in 27 costs a second corner read.
SURE_EXTRA_SCORE: Final = 0.08
SURE_MARGIN_FACTOR: Final = 1.75
# A lone card none of whose rules read it, with a corner whose best fit is within NEAR_SLACK of
# the accepting score (and clear of the rest), is read again with its outline moved NUDGE_PX
# pixels each way.
NEAR_SLACK: Final = 0.1
NUDGE_PX: Final = 2.0
NUDGE_AGREE: Final = 2
# ... and one with no corner that close, but one whose index was seen at all (a pose whose patch
# edge cuts through a glyph, or takes in the card's blurred edge, reads garbage where the same
# index read 2 px away is plain), is read again so too: it is named only when most poses read it
# (NUDGE_MOST of the 8, each with an index corner reading it on its own), none reads another card,
# and nothing where it was found speaks against it.
NUDGE_MOST: Final = 6
# A lone card still unread is looked at once more with its outline grown by this factor about its
# centre (see ``LoneCardReader._grown``).
GROWN: Final = 1.04
# ... and then, its index seen, at every pose of a wider grid (see ``LoneCardReader._searched``):
# shifted SEARCH_STEP px up to SEARCH_STEPS steps each way, at its size as found and grown
# SEARCH_GROWN (blur draws the outline a little inside the card's edge, as for GROWN). A motion
# smear of 3-4 px moves an index's glyphs' cut by a pixel or two with the pose, and a read's score
# by up to 0.4 (kennard's table 11009: the lone 5c's second corner fits 0.32-0.76, 5c at 99 of 100
# poses, read at 8); the card is named when SEARCH_AGREE poses read it and none reads another.
SEARCH_STEP: Final = 1.5
SEARCH_STEPS: Final = 2
SEARCH_GROWN: Final = 1.03
SEARCH_AGREE: Final = 3
_NUDGES: Final = [
    np.array([dx, dy]) for dx in (-NUDGE_PX, 0.0, NUDGE_PX) for dy in (-NUDGE_PX, 0.0, NUDGE_PX) if dx or dy
]


class LoneCardReader:
    """Reads a card lying alone (frame pixels), both index corners in view: a sure first corner,
    else the card decider's rules, then the card looked at again a little moved or grown."""

    def __init__(self, *, decider: CardDecider) -> None:
        self.decider = decider
        self.settings = decider.settings
        self.corners = decider.lone_corners  # its face judges its reads: blurred indices weigh less
        self.face = decider.face

    def read_alone(self, image: ByteImage, corners: Vec) -> tuple[str, float]:
        """Read a card lying alone: one index corner when it is sure, else both (reads are most of
        a frame's cost, and most cards are plain to read at the first corner).
        """
        first = self.corners.read_index(image, corners, 0)
        s = self.settings
        match = first.match
        if (
            first.code != UNKNOWN
            and match is not None
            and match.score >= s.accept_score + SURE_EXTRA_SCORE
            and match.margin >= s.accept_margin * SURE_MARGIN_FACTOR
            and self.face.agrees(image, corners, first.code, alone=True)
        ):
            return first.code, first.confidence
        # (A face that does not confirm the first corner may still be read at both: see CardDecider._twice.)
        code, conf = self.decider.read_card(image, corners, alone=True)
        if code == UNKNOWN:
            lean = self.near(image, corners)
            seen = lean is not None or self._seen_index(image, corners)
            if seen:
                code, conf = self._nudged(image, corners, lean)
            if code == UNKNOWN and seen:
                code, conf = self._grown(image, corners)
            if code == UNKNOWN and seen:
                code, conf = self._searched(image, corners)
        return code, conf

    def _searched(self, image: ByteImage, corners: Vec) -> tuple[str, float]:
        """A lone card whose index was seen, read again at every pose of the search grid (see
        SEARCH_STEP) by all of read_card's rules: the card when SEARCH_AGREE poses read it, each
        with an index corner whose best match is that card (its printed index leans to it, not
        only its face), no pose reads another card or has an index corner reading one on its own,
        and the card as found may be it (``_may_be``: neither corner there reads or clearly leans
        to another card, and its face agrees), its whole face fits it best of all 52
        (``FaceCheck.picks``) and its thumbnail best of its rank's suits (``_face_leans``); else
        unknown.
        """
        ctr = corners.mean(axis=0)
        reach = SEARCH_STEP * np.arange(-SEARCH_STEPS, SEARCH_STEPS + 1)
        poses = [
            ctr + grown * (corners - ctr) + np.array([dx, dy])
            for grown in (1.0, SEARCH_GROWN)
            for dx in reach
            for dy in reach
            if grown != 1.0 or dx or dy  # (the pose as found: read already)
        ]
        # The index corners at every pose first (a read_card is some ten of them): a card can only
        # be named by SEARCH_AGREE poses whose corners lean to it, nor when two corners name two
        # cards, nor unless the face backs it; a card no pose's corners lean to often enough, or
        # whose face does not back it, is unknown without a read_card (a lone card that stays
        # unreadable, a blurred one, would otherwise cost 49 of them a frame).
        reads = [[self.decider.corners.read_index(image, pose, k) for k in (0, 2)] for pose in poses]
        if len({r.code for pair in reads for r in pair} - {UNKNOWN}) > 1:
            return UNKNOWN, 0.0
        leaning = Counter(best for pair in reads for best in {r.best for r in pair} if best is not None)
        hopes = [
            code
            for code, n in leaning.items()
            if n >= SEARCH_AGREE
            and self._may_be(image, corners, code)
            and self.face.picks(image, corners, code)
            and self._face_leans(image, corners, code)
        ]
        if not hopes:
            return UNKNOWN, 0.0
        lean: str | None = None
        confs: list[float] = []
        for pose, pair in zip(poses, reads, strict=True):
            code, conf = self.decider.read_card(image, pose, alone=True)
            named = {r.code for r in pair if r.code != UNKNOWN} | ({code} - {UNKNOWN})
            if not named:
                continue
            lean = lean or min(named)
            if named != {lean}:
                return UNKNOWN, 0.0  # two cards named: no pose is to be trusted
            if code == lean and any(r.best == lean for r in pair):
                confs.append(conf)
        if lean is None or len(confs) < SEARCH_AGREE or lean not in hopes:
            return UNKNOWN, 0.0
        return lean, min(confs)

    def _face_leans(self, image: ByteImage, corners: Vec, code: str) -> bool:
        """Whether the face thumbnail where the card was found fits ``code`` best of its rank's
        four suits. Poses other than the one found are read only on the face's word: at a pose
        where both indices read a card clearly the face is only a veto (``FaceCheck.agrees``'s
        ``twice``), and a face that fits nothing well (another card's middle over it: a 5c's on a
        Qh, which fits Qs 0.637 and Qh 0.622) vetoes nothing. (The five cards the search reads on
        the development seeds fit their own suit best of their rank's, 0.72-0.97.)
        """
        scores = self.face.thumb_scores(image, corners)
        at = CODES.index(code)
        rank = scores[at - at % 4 : at - at % 4 + 4]
        return bool(float(scores[at]) >= float(rank.max()))

    def _grown(self, image: ByteImage, corners: Vec) -> tuple[str, float]:
        """A lone card read again at its outline grown GROWN about its centre, by all of
        read_card's rules: the card when that look reads it, neither index corner where the card
        was found reads or clearly leans to another card nor leaves its suit torn with the other
        suit of its colour, and the face there is not plainly another card's; else unknown.

        An index of the cloth's colour printed against the card's edge (a red index on red
        cloth) is cloth to the felt test, and the mask's opening takes the thin paper rim beside
        it: the outline then runs inside the card's edge at each index, the card is drawn a few
        per cent small, and its index corners and face are looked at a few pixels off.
        """
        ctr = corners.mean(axis=0)
        code, conf = self.decider.read_card(image, ctr + GROWN * (corners - ctr), alone=True)
        if code == UNKNOWN:
            return UNKNOWN, 0.0
        at = CODES.index(code)
        suit, twin = at % 4, CODES.index(twin_of(code)) % 4
        for k in (0, 2):
            r = self.corners.read_index(image, corners, k)
            if r.code not in (UNKNOWN, code) or (
                r.best not in (None, code) and (r.match is None or self.decider.dissents(r.match, code))
            ):
                return UNKNOWN, 0.0
            # Grown, each index patch takes in a few more pixels of the card's edge, which can tip
            # a close call between the two suits of one colour (a blurred club and spade) either
            # way: it must not settle one that a corner as found left torn (a plausible look at
            # either, as ``dissents`` has it, neither clearly ahead).
            pair = None if r.match is None else r.match.suit_scores[[suit, twin]]
            if (
                pair is not None
                and float(pair.max()) >= self.settings.accept_score - DISSENT_SLACK
                and lead_over(pair, 1) < self.settings.accept_margin
            ):
                return UNKNOWN, 0.0
        # Grown, a face fits every registered face less plainly: where the card was found, a face
        # plainly another card's still refuses it (another card's face under its indices); not
        # the same rank of the other suit of its colour, which at thumbnail size is the same face
        # (the index tells those apart), and which a card drawn a few pixels off may fit better.
        # A grown look reads an index the card as found hid (its outline inside the card's edge).
        # Where both index corners as found read this card already, and the face there refused it
        # and took the other suit of its colour, growing only makes the face fit every card less
        # plainly (held-out dondorf table 20113: a 3h smeared, both indices reading 3d at 0.76-0.79,
        # its face the 3h's as found, 3d grown). A face as found that takes neither suit is only a
        # look a few pixels off, which growing may put right (table 1003's Th).
        if (
            all(self.corners.read_index(image, corners, k).code == code for k in (0, 2))
            and not self.face.agrees(image, corners, code, alone=True)
            and self.face.agrees(image, corners, twin_of(code), alone=True)
        ):
            return UNKNOWN, 0.0
        scores = self.face.thumb_scores(image, corners)
        best = int(np.argmax(scores))
        if (
            scores[best] >= FACE_PLAIN
            and float(scores[CODES.index(code)]) < scores[best] - FACE_SLACK
            and not _one_face(CODES[best], code)
        ):
            return UNKNOWN, 0.0
        return code, conf

    def printed_index(self, image: ByteImage, corners: Vec) -> bool:
        """Whether an index corner of a card reads a card on its own (at the accepting score and
        margin), whatever the rest of the card says: a printed index is plainly there, so the
        card is a face, though the read as a whole refused it (a chip over its middle leaves a
        face no registered face fits). A rectangle that has the back's colours (cream paper and
        a red chip under a red back pictured with cream cards) but contradicts the back's
        picture in place is then an unread face, not a back.
        """
        return any(self.decider.corners.read_index(image, corners, k).code != UNKNOWN for k in (0, 2))

    def _seen_index(self, image: ByteImage, corners: Vec) -> bool:
        """Whether either index corner of a card saw an index at all (ink matched to some card,
        however poorly): a corner with none is no index a pose a little off would read. An index
        blurred past corners.SOFT_LIMIT keeps no match, only the card it looked like, but was
        seen: its blur is measured at that pose, and one a pixel or two off can fall under the
        limit and read (nicu-white's table 1003: a Th at 2.50, 2.47-2.49 moved)."""
        return any(self.corners.read_index(image, corners, k).best is not None for k in (0, 2))

    def near(self, image: ByteImage, corners: Vec) -> str | None:
        """The card a lone card's index corners came close to reading, or None: one corner's best
        card fits within NEAR_SLACK of the accepting score, clearly ahead of every other, and
        neither corner reads or clearly leans to another card (two corners naming two cards are
        never a read, however the card is nudged), and its whole face, where it was found, agrees
        with that card. A pose a pixel or two off the index costs such a read its last few
        hundredths.
        """
        s = self.settings
        reads = (self.corners.read_index(image, corners, 0), self.corners.read_index(image, corners, 2))
        lean = next(
            (
                r.best
                for r in reads
                if r.best is not None
                and r.match is not None
                and r.match.score >= s.accept_score - NEAR_SLACK
                and r.match.margin >= s.accept_margin
            ),
            None,
        )
        if lean is None or not self._may_be(image, corners, lean):
            return None
        return lean

    def _may_be(self, image: ByteImage, corners: Vec, lean: str) -> bool:
        """Whether a lone card found at ``corners`` may be ``lean``: neither index corner reads or
        clearly leans to another card (two corners naming two cards are never a read, however the
        card is nudged), and its whole face, where it was found, agrees with that card."""
        reads = (self.corners.read_index(image, corners, 0), self.corners.read_index(image, corners, 2))
        for r in reads:
            if r.code not in (UNKNOWN, lean) or (
                r.best not in (None, lean) and (r.match is None or self.decider.dissents(r.match, lean))
            ):
                return False
        # The face is judged where the card was found, as for any lone card read at one corner:
        # a nudge moves the index patches, and must not soften the face's veto (a face seen 2 px
        # off fits every registered face less plainly).
        return self.face.agrees(image, corners, lean, alone=True)

    def _nudged(self, image: ByteImage, corners: Vec, lean: str | None) -> tuple[str, float]:
        """A lone card read again with its whole outline moved NUDGE_PX each way, by all of
        read_card's rules (both corners, dissent, the whole face): ``lean`` when at least
        NUDGE_AGREE poses read it and no pose reads another card, else unknown. With no ``lean``
        (no corner came close), the card the poses read, when NUDGE_MOST of them do, none reads
        another and the card as found may be it (see ``_may_be``).
        """
        need = NUDGE_AGREE if lean is not None else NUDGE_MOST
        confs: list[float] = []
        misses = 0
        for step in _NUDGES:
            moved = corners + step
            if need == NUDGE_MOST and all(self.corners.read_index(image, moved, k).code == UNKNOWN for k in (0, 2)):
                # Without a lean, a pose counts only where an index corner reads the card on its own
                # (the face's own reads of a blurred rank or suit cost a frame most of all).
                code, conf = UNKNOWN, 0.0
            else:
                code, conf = self.decider.read_card(image, moved, alone=True)
            if code != UNKNOWN and lean is None:
                lean = code
            if code not in (UNKNOWN, lean):
                return UNKNOWN, 0.0
            if code == lean:
                confs.append(conf)
                continue
            misses += 1
            if misses > len(_NUDGES) - need:
                return UNKNOWN, 0.0  # too few poses left to agree (one lucky pose is no read)
        if lean is None or (need == NUDGE_MOST and not self._may_be(image, corners, lean)):
            return UNKNOWN, 0.0
        return lean, min(confs)


def _one_face(a: str, b: str) -> bool:
    """Whether two codes are one rank in the two suits of one colour (clubs and spades, diamonds
    and hearts): at a face thumbnail's size their faces are the same."""
    return b in (a, twin_of(a))
