"""The recognizer's settings: acceptance thresholds, mask shares, the felt's hue and the card size."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from vision.calibration import Calibration
from vision.config import VisionSettings, ZoneConfig


@dataclass(frozen=True, slots=True)
class RecognizerSettings:
    """Tuning of the recognizer; the defaults are the ones the benchmark measures."""

    accept_score: float = 0.72  # least fit of the index to its rank and suit (0..1) for a read
    accept_margin: float = 0.17  # least lead over the best other rank and the best other suit
    min_fill: float = 0.86  # share of a card hypothesis that must be non-felt
    paper_share: float = 0.30  # share of white paper for an unreadable thing to count as a card
    felt_hue: int | None = None  # OpenCV hue (0-179) of the felt; None = the frame's main hue
    card_height_px: float | None = None  # expected card height in the frame; None = measured
    # Fit each blob's cards at the size the calibrated lens gives them there (Plane.card_height_at)
    # rather than the plane's one size: off until the stages tuned on the one size are (docs/vision.md).
    lens_card_size: bool = False

    @classmethod
    def from_config(cls, settings: VisionSettings) -> RecognizerSettings:
        """The recognition part of a table's ``[vision]`` settings."""
        return cls(accept_score=settings.accept_score, accept_margin=settings.accept_margin)

    def sized_by(self, calibration: Calibration, zones: Sequence[ZoneConfig]) -> RecognizerSettings:
        """These settings with the card height a calibrated layout implies over its zones (unless a
        height is set already, or there are no zones): cards are then found even in a frame of
        fans alone, which has no whole card side to measure a card by.
        """
        if self.card_height_px is not None or not zones:
            return self
        return dataclasses.replace(self, card_height_px=calibration.layout_card_height_px(zones))
