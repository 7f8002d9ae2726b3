"""Deciding a card from its two index corners, one read or both pooled, with its face as a second opinion."""

from __future__ import annotations

import dataclasses
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from vision.deck import CODES, DeckProfile
from vision.index_match import IndexMatch, lead_over, match_scores, pooled
from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader, clears, confidence, index_frame
from vision.pipeline.face_check import FaceCheck
from vision.pipeline.rival_check import RivalCheck
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.twin_suit import TwinSuit

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# The margin two agreeing index corners need together, as a share of one corner's margin.
COMBINED_MARGIN: Final = 0.75
# The least score each of the two corners needs then, as a share of the accepting score.
COMBINED_FLOOR: Final = 1.0
# How far below the accepting score a corner's best rank or suit may fit and still speak against
# the other corner's read.
DISSENT_SLACK: Final = 0.22
# What each of a lone card's two index corners must add to the accepting score for its face to
# be only a veto (the bar of a fan's card read by one index and no face, fans.FAN_EXTRA_SCORE).
TWICE_EXTRA_SCORE: Final = 0.04
# The share of corners' blur discount (corners.SOFT_EXTRA_SCORE) a lone card's index corners keep.
# The discount keeps a blurred club or spade that one corner alone names (a fan's card, no face to
# judge it) from being read; a lone card's reads are all judged by its face (FaceCheck.agrees), so
# it weighs its blurred corners nearer their fits (gated: see LoneCorners.eased). Measured on the
# six development seeds (+2 lone cards, 11009) and 14 new blurred tables 14000-14048 (+2), all six
# designs: no card lost, no misread.
LONE_SOFT_SHARE: Final = 0.5


class LoneCorners:
    """A lone card's index corners: the corner reader's reads, a blurred one weighed at
    LONE_SOFT_SHARE of its blur discount (its score raised by the rest)."""

    def __init__(self, *, corners: CornerReader, face: FaceCheck, settings: RecognizerSettings) -> None:
        self.corners = corners
        self.face = face
        self.settings = settings

    def read_index(self, image: ByteImage, corners: Vec, k: int) -> CornerRead:
        """Read the index at a lone card's corner ``k`` (0 or 2), as ``CornerReader.read_index``,
        a blurred index weighed as ``eased``."""
        return self.eased(image, corners, self.corners.read_index(image, corners, k), k=k)

    def eased(self, image: ByteImage, corners: Vec, read: CornerRead, *, k: int) -> CornerRead:
        """One blurred index corner of a lone card, its score raised by the part of its blur
        discount it no longer keeps, read when that clears corners' own bars. Where only the
        eased score makes it a read, the ``other`` index corner's best match must be the same card
        (two looks at two printed indices agreeing) and the whole face must fit that card best of
        all 52 (``FaceCheck.picks``): a blurred club reads as a spade at both corners alike, and a
        face thumbnail (``FaceCheck.agrees``) does not tell a club from a spade of one rank.

        A blurred index refused for a suit cut from ink running on past it (``CornerReader.trimmed``)
        is weighed so too: on a lone card that ink is its own pip, and the other corner and the
        whole face judge the read as any eased one's (dondorf's table 13011: a 6c whose club pips
        touch both indices' suits, each corner 6c at its own fits 0.77 and 0.82, leads 0.36 and
        0.56, the face 6c best of all 52).
        """
        match = read.match
        trimmed = match is None and read.best is None
        if trimmed:
            match = self.corners.trimmed(image, corners, k)
        if match is None or match.soft <= 0.0:
            return read
        kept = match.soft * LONE_SOFT_SHARE
        match = dataclasses.replace(match, score=match.score + match.soft - kept, soft=kept)
        reads = clears(match, settings=self.settings, pale=match.pale)
        if reads and read.code == UNKNOWN:
            # (The other corner is read only then: a lone card's first corner is often read alone.)
            reads = self._named(image, corners, 2 - k) == match.code and self.face.picks(image, corners, match.code)
        if trimmed and not reads:
            return read  # (no evidence either way: as the corner reader left it)
        conf = confidence(match, settings=self.settings)
        return CornerRead(match.code if reads else UNKNOWN, conf, match.code, match)

    def _named(self, image: ByteImage, corners: Vec, k: int) -> str | None:
        """The card index corner ``k`` looks most like, a trimmed suit's blurred read included."""
        read = self.corners.read_index(image, corners, k)
        if read.best is not None:
            return read.best
        trimmed = self.corners.trimmed(image, corners, k)
        return None if trimmed is None else trimmed.code


class CardDecider:
    """Names a card from its two index corners (frame pixels), with its face as a second opinion."""

    def __init__(self, *, deck: DeckProfile, settings: RecognizerSettings, corners: CornerReader) -> None:
        self.deck = deck
        self.settings = settings
        self.corners = corners
        self.face = FaceCheck(deck=deck, settings=settings)
        self.lone_corners = LoneCorners(corners=corners, face=self.face, settings=settings)
        self.twins = TwinSuit(deck=deck)
        self.rivals = RivalCheck(twins=self.twins)

    def read_card(self, image: ByteImage, corners: Vec, *, alone: bool) -> tuple[str, float]:
        """The card both index corners name (one read, or both pooled; ``alone``: the card lies
        alone, both corners in view), when its face does not refuse it; else unknown."""
        sharp = (self.corners.read_index(image, corners, 0), self.corners.read_index(image, corners, 2))
        first, second = sharp
        if alone:
            lone = self.lone_corners
            first, second = (
                lone.eased(image, corners, first, k=0),
                lone.eased(image, corners, second, k=2),
            )
        reads = [r for r in (first, second) if r.code != UNKNOWN]
        if len({r.code for r in reads}) > 1:
            # The two corners of one card disagree: that is never a read.
            return UNKNOWN, 0.0
        both = self._combined(first, second)
        if (
            alone
            and both is not None
            and self._combined(*sharp) is None
            and not self.face.picks(image, corners, both[0])
        ):
            # Only the eased scores pool to a card: as for one corner's eased read (LoneCorners.eased).
            both = None
        if reads:
            code, conf = reads[0].code, max(r.confidence for r in reads)
            k = 0 if reads[0] is first else 2
            if len(reads) == 1 and not self.rivals.holds(
                image, corners, k, code=code, match=reads[0].match, far=lambda: sharp[1 - k // 2]
            ):
                # One corner reads the card, and its index fits the same rank's twin suit or another
                # rank as well (a blurred club passes for a spade), or the other corner shows
                # another card's index more clearly: the other corner did not confirm the card.
                return UNKNOWN, 0.0
            if (
                len(reads) == 2
                and any(r.match is not None and r.match.soft > 0.0 for r in reads)
                and not any(
                    self.rivals.near(image, corners, k, code=code, match=r.match) is not None
                    for k, r in ((0, first), (2, second))
                )
            ):
                # Both corners read the card, one blurred (past corners.SOFT_KNEE): blur errs alike at
                # both (a club read as a spade at each, kennard blur table 18749's 4c), so, as pooled
                # reads below, one corner at least must fit the card's index better than its rivals'.
                return UNKNOWN, 0.0
            # Alone, both corners are in view: a corner that saw an index must not tell another
            # card from this one as clearly as a read would, or the two corners' scores together
            # must still pick this card. (A badly seen corner leaning vaguely elsewhere is no
            # evidence against a clear read.)
            leans_away = any(
                r.best not in (None, code) and (r.match is None or self.dissents(r.match, code))
                for r in (first, second)
            )
            if (
                alone
                and leans_away
                and (both is None or both[0] != code)
                and not self.face.settles(image, corners, code, [r.best for r in (first, second) if r.best])
            ):
                return UNKNOWN, 0.0
        elif both is not None:
            # Neither corner alone is sure enough, but both saw the same card: two looks at one
            # index halve the noise, so their mean scores decide, provided one corner at least fits
            # that card's registered index better than its twin's and its runner-up ranks'. Blur
            # errs the same way at both corners (a blurred club passes for a spade at each), which
            # pooling does not average out (blur seed 18692, kennard: an Ac read As at 0.80 and 0.82,
            # the club a close second at both).
            code, conf = both
            if not any(
                self.rivals.near(image, corners, k, code=code, match=r.match) is not None
                for k, r in ((0, first), (2, second))
            ):
                return UNKNOWN, 0.0
        else:
            matches = [r.match for r in (first, second) if r.match is not None]
            by_face = self.face.suit_by_face(image, corners, matches) if alone else None
            if by_face is None:
                by_face = self.face.rank_by_face(image, corners, matches)
            if by_face is None:
                return UNKNOWN, max(first.confidence, second.confidence)
            code, conf = by_face
        if not self.face.agrees(image, corners, code, alone=alone, twice=alone and self._twice(*sharp, code)):
            return UNKNOWN, 0.0
        return code, conf

    def _twice(self, first: CornerRead, second: CornerRead, code: str) -> bool:
        """Whether both index corners read ``code`` on their own, each clearing the bar of a fan's
        card read by one index with no face at all: then the face is only a veto where it is
        plainly seen (see ``FaceCheck.agrees``), not a needed confirmation. A chip or a hand over the
        middle, or a face with little ink (a court card drawn as a thin frame round a big letter)
        under blur and noise, fits no face well and confirms nothing, where two printed indices
        agreeing do.
        """
        need = self.settings.accept_score + TWICE_EXTRA_SCORE
        return all(r.code == code and r.match is not None and r.match.score >= need for r in (first, second))

    def read_far(self, image: ByteImage, corners: Vec) -> tuple[str, float] | None:
        """A card found by one index corner that fell short of a read (a fan's card placed from
        its index): its other index corner, diagonally opposite, is a second look at the same
        card. When it reads a card on its own and the first corner's best match is that same card
        (two looks at two printed indices agreeing on rank and suit), and the visible face is not
        clearly another card's, that is the card; else None. The far corner of a card under
        others shows another card's paper or pips, which reads nothing, or another card, which
        the first corner does not lean to.
        """
        near = self.corners.read_index(image, corners, 0)
        if near.best is None or near.match is None:
            return None
        far = self.corners.read_index(image, corners, 2)
        if far.code == UNKNOWN or far.code != near.best:
            return None
        if not self.face.agrees(image, corners, far.code, alone=False):
            return None
        if not all(self.twins.holds(image, *index_frame(corners, k), code=far.code) for k in (0, 2)):
            # Both indices of a smeared club can read as the spade (kennard seeds 18014, 18063:
            # a fan's top card): each must fit its own registered index better than the twin's.
            return None
        return far.code, far.confidence

    def _combined(self, first: CornerRead, second: CornerRead) -> tuple[str, float] | None:
        """The card both index corners' mean scores pick, when they pick one clearly enough."""
        if first.match is None or second.match is None:
            return None
        a, b = first.match, second.match
        both = match_scores(pooled([a.rank_scores, b.rank_scores]), pooled([a.suit_scores, b.suit_scores]))
        s = self.settings
        need = s.accept_margin * COMBINED_MARGIN
        if both.score < s.accept_score or both.margin < need:
            return None
        # Each corner must lean to that card on its own, and neither may be a poor match.
        if a.code != both.code or b.code != both.code or min(a.score, b.score) < COMBINED_FLOOR * s.accept_score:
            return None
        return both.code, max(0.0, min(1.0, 0.5 * min(both.score / s.accept_score, both.margin / need, 2.0)))

    def dissents(self, match: IndexMatch, code: str) -> bool:
        """Whether one corner's scores set its own best rank or suit clearly apart from ``code``'s,
        with a best that is a plausible look at all (a suit cut out wrongly fits nothing well).
        """
        at = CODES.index(code)
        s = self.settings
        return any(
            float(fits.max()) >= s.accept_score - DISSENT_SLACK and lead_over(fits, own) >= s.accept_margin
            for fits, own in ((match.rank_scores, at // 4), (match.suit_scores, at % 4))
        )
