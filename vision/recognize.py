"""Find the cards in one frame: face-up cards read from their corner index, face-down cards counted.

The recognizer is a pipeline of stages, each its own module in :mod:`vision.pipeline`:

1. ``plane``: the frame shrunk (rectified top-down at a calibrated table) for detection;
2. ``masks``: felt, white paper, ink;
3. ``outline``: the blobs of not-felt and their right-angled outline corners;
4. ``hypotheses``: the card rectangles those corners propose, fitted to the outline;
5. ``corners``, ``decide``, ``face_check`` and ``lone_card``: index reads against the deck's own
   learnt classifier, and the decision with its confidence (whole-face checks; a lone card's
   second looks);
6. ``fans`` (with ``fan_looks`` and ``fan_scan``) and ``backs``: cards among others (fans, overlaps)
   and face-down cards (by the deck's back signature), stacks included;
7. ``explain``: which hypotheses are the blob's cards.

``Recognizer.read(frame, trace=Trace())`` keeps every stage's output for
:func:`vision.debug.draw_debug`, the technician's picture.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import Calibration
from vision.deck import DeckProfile
from vision.errors import ImageError
from vision.pipeline.back_tester import BackTester
from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.explain import Explainer
from vision.pipeline.fan_scan import FanScanner
from vision.pipeline.fans import FanReader
from vision.pipeline.hypotheses import BACK, Hypothesis
from vision.pipeline.lone_card import LoneCardReader
from vision.pipeline.masks import MaskMaker, Masks
from vision.pipeline.outline import CARD_ASPECT, Blob, find_blobs, vote_height, vote_height_few
from vision.pipeline.plane import Plane, make_plane
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.smear import Smear
from vision.pipeline.smear_reads import named_again, unsmeared_frame

__all__ = ["BACK", "UNKNOWN", "CardRead", "FrameReading", "Recognizer", "RecognizerSettings", "Trace"]

ByteImage = npt.NDArray[Any]
Point = tuple[float, float]
STAGES: Final = ("plane", "masks", "outlines", "cards")


@dataclass(frozen=True, slots=True)
class CardRead:
    """One card found in a frame.

    ``code`` is a card code such as ``"As"``, ``"back"`` for a face-down card or ``"unknown"``
    for a face-up card whose index could not be read with enough confidence. ``corners`` are the
    card's four corners in image pixels, clockwise, starting at an index corner.
    """

    code: str
    confidence: float
    corners: tuple[Point, Point, Point, Point]

    @property
    def center(self) -> Point:
        """The card's centre in image pixels."""
        xs = [p[0] for p in self.corners]
        ys = [p[1] for p in self.corners]
        return sum(xs) / 4.0, sum(ys) / 4.0

    @property
    def face_up(self) -> bool:
        """True for face-up cards, read or not."""
        return self.code != BACK


@dataclass(frozen=True)
class FrameReading:
    """Everything found in one frame.

    ``clutter`` marks (at ``mask_scale`` of the frame) the non-felt pixels that no card explains:
    a hand, a chip, a cloth; the tracker uses it to ignore covered zones.
    """

    cards: tuple[CardRead, ...]
    clutter: ByteImage = field(repr=False)
    mask_scale: float
    card_height_px: float | None
    # Frame pixels -> clutter pixels when the detection plane was rectified (None: mask_scale).
    to_clutter: npt.NDArray[np.float64] | None = field(default=None, repr=False)
    stage_ms: dict[str, float] = field(default_factory=dict, repr=False)  # CPU per stage, when timed

    def clutter_share(self, polygon_px: npt.NDArray[np.float64]) -> float:
        """Share of a polygon (image pixels) covered by unexplained non-felt pixels."""
        pts = np.asarray(polygon_px, dtype=np.float64)
        if self.to_clutter is not None:
            pts = np.asarray(
                cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.to_clutter).reshape(-1, 2), np.float64
            )
        else:
            pts = pts * self.mask_scale
        poly = np.round(pts).astype(np.int32)
        mask = np.zeros_like(self.clutter)
        cv2.fillPoly(mask, [poly], 255)
        area = cv2.countNonZero(mask)
        if area == 0:
            return 0.0
        return float(cv2.countNonZero(cv2.bitwise_and(mask, self.clutter))) / float(area)


@dataclass
class Trace:
    """What each stage of one read produced, for the debug picture and the stages' tests."""

    plane: Plane | None = None
    masks: Masks | None = None
    blobs: list[Blob] = field(default_factory=list)
    card_height: float | None = None  # plane pixels
    hypotheses: list[Hypothesis] = field(default_factory=list)  # every blob's, before the choice
    chosen: list[Hypothesis] = field(default_factory=list)
    smear: Smear | None = None  # the motion smear measured, where a card was seen but unread


class Recognizer:
    """Reads frames against one registered deck; cheap to call once per frame (30 fps on one core).

    With a ``calibration`` (the table's homography) the frame is rectified to a top-down view
    before outlines are found, so an oblique camera's cards are rectangles of a known size.
    """

    def __init__(
        self, *, deck: DeckProfile, settings: RecognizerSettings | None = None, calibration: Calibration | None = None
    ) -> None:
        self.deck = deck
        self.settings = settings or RecognizerSettings()
        self.calibration = calibration
        self._masks = MaskMaker(felt_hue=self.settings.felt_hue, back=deck.back, faces=deck.faces)
        self.corners = CornerReader(deck=deck, settings=self.settings)
        self.decider = decider = CardDecider(deck=deck, settings=self.settings, corners=self.corners)
        self.lone = LoneCardReader(decider=decider)
        self.fans = FanReader(settings=self.settings, corners=self.corners, decider=decider)
        self._explainer = Explainer(
            settings=self.settings,
            corners=self.corners,
            lone=self.lone,
            fans=self.fans,
            fan_scan=FanScanner(corners=self.corners, reader=self.fans),
            backs=BackTester(signature=deck.back_signature, back=deck.back),
        )

    def read(self, image: ByteImage, *, timed: bool = False, trace: Trace | None = None) -> FrameReading:
        """Find and read every card in a BGR frame (``timed``: note each stage's CPU time;
        ``trace``: keep each stage's output there).

        Raises:
            ImageError: the frame is not an 8-bit BGR image.
        """
        if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise ImageError("a frame must be an 8-bit BGR image (height x width x 3)")
        h, w = image.shape[:2]
        if h < 32 or w < 32:
            raise ImageError(f"frame of {w}x{h} is too small")
        clock = _Clock(timed)
        self.corners.new_frame()
        self._explainer.backs.new_frame()
        plane = make_plane(image, calibration=self.calibration, card_height_px=self.settings.card_height_px)
        clock.lap("plane")
        card_area = None if plane.card_height is None else plane.card_height**2 / CARD_ASPECT
        masks = self._masks.make(plane.image, plane.valid, card_area=card_area)
        clock.lap("masks")
        scale = plane.scale
        min_area = (
            0.25 * (60.0 * scale) ** 2 * CARD_ASPECT
            if plane.card_height is None
            else (0.3 * plane.card_height**2 / CARD_ASPECT)
        )
        blobs = find_blobs(masks.fg, min_area=min_area)
        card_h = self._card_height(plane, blobs)  # frame pixels
        clock.lap("outlines")
        found: list[Hypothesis] = []
        covered = np.zeros_like(masks.fg)
        unsure: list[tuple[Blob, float, list[Hypothesis]]] = []  # blobs with a card seen but unread
        if card_h is not None:
            for blob in blobs:
                blob_h = card_h if plane.rectified else _local_height(blob, card_h, scale)
                if self.settings.lens_card_size and plane.lens is not None:  # larger off the centre
                    blob_h = (plane.card_height_at(blob.contour.reshape(-1, 2).mean(axis=0)) or blob_h * scale) / scale
                hyps = self._explainer.explain(
                    image=image, plane=plane, blob=blob, card_h=blob_h * scale, masks=masks, covered=covered
                )
                if any(hyp.code == UNKNOWN for hyp in hyps):
                    unsure.append((blob, blob_h * scale, hyps))
                found.extend(hyps)
        clock.lap("cards")
        smear = None
        if unsure:
            smear = self._read_unsmeared(image, plane=plane, masks=masks, blobs=blobs, unsure=unsure, covered=covered)
        clock.lap("smear")
        clutter = cv2.bitwise_and(masks.fg, cv2.bitwise_not(cv2.dilate(covered, np.ones((5, 5), np.uint8))))
        frame_corners = [plane.to_frame(hyp.corners) for hyp in found]
        reads = tuple(
            CardRead(
                code=hyp.code,
                confidence=round(hyp.confidence, 4),
                corners=tuple((float(p[0]), float(p[1])) for p in quad),  # type: ignore[arg-type]
            )
            for hyp, quad in zip(found, frame_corners, strict=True)
        )
        if trace is not None:
            trace.plane, trace.masks, trace.blobs, trace.chosen = plane, masks, blobs, found
            trace.smear = smear
            trace.card_height = None if card_h is None else card_h * scale
        return FrameReading(
            cards=reads,
            clutter=clutter,
            mask_scale=scale,
            card_height_px=card_h,
            to_clutter=np.asarray(np.linalg.inv(plane.to_frame_h), np.float64) if plane.rectified else None,
            stage_ms=clock.spent,
        )

    def _read_unsmeared(
        self,
        image: ByteImage,
        *,
        plane: Plane,
        masks: Masks,
        blobs: list[Blob],
        unsure: list[tuple[Blob, float, list[Hypothesis]]],
        covered: ByteImage,
    ) -> Smear | None:
        """Where the frame is smeared by motion (measured on its cards' edges), the blobs with a
        card seen but unread are read again with the smear undone, and those cards named where
        that reads them (see ``smear_reads.named_again``). Returns the smear measured.
        """
        outlines = {id(blob): plane.to_frame(blob.contour.reshape(-1, 2)) for blob in blobs}
        smear, sharp = unsmeared_frame(image, list(outlines.values()), [outlines[id(b)] for b, _h, _c in unsure])
        if sharp is None:
            return smear
        for blob, blob_h, hyps in unsure:
            # (Read on a copy of the covered mask: what it chose is not drawn in a second time.)
            named_again(
                hyps,
                partial(
                    self._explainer.explain,
                    image=sharp,
                    plane=plane,
                    blob=blob,
                    card_h=blob_h,
                    masks=masks,
                    covered=covered.copy(),
                ),
                card_w=blob_h / CARD_ASPECT,
            )
        return smear

    def _card_height(self, plane: Plane, blobs: list[Blob]) -> float | None:
        """Card height in frame pixels: the plane's (calibrated), or a vote of the complete card
        sides. Every whole side votes for the height it implies as a long side and as a short one;
        the height most sides agree with wins, so the width of a fan (not a card side) is outvoted.
        """
        if plane.card_height is not None:
            return plane.card_height / plane.scale
        sides = [side for blob in blobs for side in blob.sides]
        if not sides:
            return None
        most = [_tallest_card(blob) for blob in blobs for _side in blob.sides]
        return vote_height(np.array(sides) / plane.scale, most=np.array(most) / plane.scale)


def _local_height(blob: Blob, card_h: float, scale: float) -> float:
    """Under a tilted camera near cards look bigger than far ones: a blob's own whole sides, when
    they agree with the frame's height, give its local size (frame pixels).
    """
    most = _tallest_card(blob) / scale
    if len(blob.sides) > 8:
        local = vote_height(np.array(blob.sides) / scale, most=np.full(len(blob.sides), most))
    elif len(blob.sides) > 1:  # the few sides of one blob in plain Python, as vote_height itself does
        local = vote_height_few([v / scale for v in blob.sides], 0.08, most=[most] * len(blob.sides))
    else:
        local = None
    return local if local is not None and abs(local - card_h) < 0.15 * card_h else card_h


# A blob's area falls short of its card's by the rounded corners and the mask's edge (2-3 % on
# the generated tables); 1.3 times it still rules out the card 1.4 times as tall (twice the area)
# that a card's long side would imply as a short side.
_AREA_MARGIN: Final = 1.3


def _tallest_card(blob: Blob) -> float:
    """The tallest card (long side, detection pixels) the blob's area can hold."""
    return math.sqrt(_AREA_MARGIN * CARD_ASPECT * cv2.contourArea(blob.contour))


class _Clock:
    """Process CPU time per stage, when asked for (the benchmark's split of a frame)."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.spent: dict[str, float] = {}
        self._last = time.process_time() if on else 0.0

    def lap(self, stage: str) -> None:
        if self.on:
            now = time.process_time()
            self.spent[stage] = self.spent.get(stage, 0.0) + 1000.0 * (now - self._last)
            self._last = now
