"""Cards among others: read where an index corner lies on the outline, and along a fan's edge where cards have none."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.geometry import unit
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


class FanReader:
    """Reads the cards of a blob holding several: overlaps and fans."""

    def __init__(self, *, settings: RecognizerSettings, corners: CornerReader, decider: CardDecider) -> None:
        self.settings = settings
        self.corners = corners
        self.decider = decider
        self.bands = 0  # fan edges scanned since the reader was made

    def read_among(self, image: ByteImage, hyp: Hypothesis, plane: Plane) -> None:
        """Read a card among others whose two index corners both lie on the blob's outline.

        That is a card on top (both indices in view) or the bottom card of a fan, whose far
        corner lies on the fan's straight edge under the cards above: there the card is read by
        the one index that matches well while the other shows none (the face, mostly the other
        cards', is no check then).
        """
        c = plane.to_frame(hyp.corners)
        hyp.code, hyp.confidence = self.decider.read_card(image, c, alone=False)
        # Both corners were just read and are remembered: asking again costs nothing.
        first = self.corners.read(image, c[0], c[1] - c[0], c[3] - c[0])
        second = self.corners.read(image, c[2], c[3] - c[2], c[1] - c[2])
        if hyp.code != UNKNOWN:
            hyp.whole = first.best == second.best == hyp.code
            return
        strong = [
            k
            for k, r in ((0, first), (2, second))
            if r.match is not None and r.match.score >= self.settings.accept_score + FAN_EXTRA_SCORE
        ]
        if len(strong) == 1 and (first if strong[0] == 2 else second).code == UNKNOWN:
            self.read_exposed(image, hyp, strong[0], plane)
        elif strong:
            # Clear indices that do not settle on one card (two corners disagreeing): a card is
            # there all the same, unread.
            hyp.seen = True

    def read_exposed(
        self, image: ByteImage, hyp: Hypothesis, corner: int, plane: Plane, *, seen_score: float | None = None
    ) -> float | None:
        """Read a card among others by the one index corner in view (0 or 2 of its corners);
        returns the index's match score, None when no index was seen there.

        With a single index and no face to check it against, a read must match more closely; an
        index that matches some card at least ``seen_score`` (by default as closely as a read) but
        not one card clearly still proves a card is there.
        """
        c = plane.to_frame(hyp.corners)
        origin, x_vec, y_vec = (c[0], c[1] - c[0], c[3] - c[0]) if corner == 0 else (c[2], c[3] - c[2], c[1] - c[2])
        code, conf, _best, match = self.corners.read(image, origin, x_vec, y_vec)
        if match is None:
            return None
        s = self.settings
        if match.score >= s.accept_score + FAN_EXTRA_SCORE and code != UNKNOWN:
            hyp.code, hyp.confidence = code, conf
        elif match.score >= (s.accept_score + FAN_EXTRA_SCORE if seen_score is None else seen_score):
            hyp.seen, hyp.confidence = True, conf
        return match.score

    def scan_fan(
        self, image: ByteImage, hyp: Hypothesis, plane: Plane, *, examined: Sequence[Vec] = ()
    ) -> list[Hypothesis]:
        """Cards fanned over the card at a corner: read an index wherever one starts along the edge.

        Where a fan's top edges run in one line, the cards on top have no outline corner of
        their own; their indices (and the shadows their edges cast) show in the band under the
        edge where the indices sit.
        """
        # Lengths along the edge in frame pixels (plane pixels / scale): the band is read from the
        # frame at its own resolution.
        scale = plane.scale
        p0, p1, _p2, p3 = hyp.corners
        x_unit = unit(p1 - p0)
        card_w = float(np.hypot(*(p1 - p0))) / scale
        length = int(min(hyp.run_x / scale, 3.0 * card_w))
        if length < card_w * 1.15:
            return []
        # A card starting further along than a card's width before the run's end would stick out
        # past it: what lies there is the top card's face.
        lo, hi = int(0.15 * card_w), int(length - 0.88 * card_w)
        found: list[Hypothesis] = []
        taken: list[int] = []
        reach = (self.corners.deck.index_box.x1 + 0.03) * card_w
        for t in self._fan_index_starts(image, plane, p0, x_unit * scale, p3 - p0, length=length, card_w=card_w):
            # A start within an index already found is that index's own glyph (its suit, the
            # "0" of a ten): the next card's index begins past this one's width.
            if not lo <= t < hi or any(abs(t - u) < reach for u in taken):
                continue
            corners = hyp.corners + x_unit * float(t) * scale
            # An index corner already read (a card's own, or a card read) is not read again.
            if any(float(np.hypot(*(corners[0] - e))) < 0.1 * card_w * scale for e in examined):
                taken.append(t)
                continue
            fanned = Hypothesis(corners=corners, fill=1.0)
            score = self.read_exposed(image, fanned, 0, plane, seen_score=FAN_SEEN_SCORE)
            if score is None or score < FAN_INDEX_LEAST:
                # No index here (or ink that fits no card at all: the edge of the card below
                # cut into the patch); a start a little further on may still find one.
                continue
            # An index was there: another start close by is the same index.
            taken.append(t)
            if fanned.code == UNKNOWN and score >= FAN_RETRY_SCORE:
                # A fair match that falls short: the start is a few pixels off (a shadow, a
                # glyph that begins further in); the index is read again either side.
                for nudge in (-FAN_NUDGE, FAN_NUDGE):
                    nudged = Hypothesis(corners=corners + x_unit * nudge * card_w * scale, fill=1.0)
                    self.read_exposed(image, nudged, 0, plane, seen_score=FAN_SEEN_SCORE)
                    if nudged.code != UNKNOWN or (nudged.seen and not fanned.seen):
                        fanned = nudged
                    if fanned.code != UNKNOWN:
                        break
            if fanned.code != UNKNOWN or fanned.seen:
                found.append(fanned)
        return found

    def _fan_index_starts(
        self, image: ByteImage, plane: Plane, p0: Vec, x_step: Vec, y_vec: Vec, *, length: int, card_w: float
    ) -> list[int]:
        """Where the indices of cards fanned along an edge start: ink in the band the index
        occupies, below the edge; a card's edge on white paper can be too faint to show as a step.
        """
        box = self.corners.deck.index_box
        band_h = 16
        top, bottom = 0.7 * box.y0, box.y1
        # Band pixel (t, row) -> plane point p0 + x_step t + y_vec (top + row (bottom - top) / band_h)
        # -> frame, as one 3x3 map.
        to_plane = np.array(
            [
                [x_step[0], y_vec[0] * (bottom - top) / band_h, p0[0] + top * y_vec[0]],
                [x_step[1], y_vec[1] * (bottom - top) / band_h, p0[1] + top * y_vec[1]],
                [0.0, 0.0, 1.0],
            ]
        )
        self.bands += 1
        if plane.rectified:
            m = plane.to_frame_h @ to_plane
            band = cv2.warpPerspective(image, m, (length, band_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        else:
            m = to_plane[:2] / plane.scale
            band = cv2.warpAffine(image, m, (length, band_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        b, g, r = cv2.split(band)
        dark = cv2.min(cv2.min(b, g), r)
        paper = float(np.percentile(dark.min(axis=0), 90))
        # The shadow a card's edge casts on the card below: a column a little dark in almost every
        # row, where glyphs leave a gap between rank and suit. The card starts where it ends.
        shade = ((dark < 0.85 * paper).mean(axis=0) >= 0.8).tolist()
        edges = [t for t in range(1, length) if shade[t - 1] and not shade[t]]
        # Ink (in two rows at least: one dark pixel is noise) after a clear gap: an index's left
        # edge (or a pip's: its read fails).
        ink = ((dark < 0.6 * paper).sum(axis=0) >= 2).tolist()
        gap = max(2, int(0.03 * card_w))
        starts = []
        clear = 0
        for t, is_ink in enumerate(ink):
            if is_ink and clear >= gap:
                starts.append(max(0, t - round(box.x0 * card_w)))
            clear = 0 if is_ink else clear + 1
        return edges + starts
