"""The canonical card raster every stored face and every read works in, and where a deck's index lies on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Canonical card raster: every stored face and every read works in this frame (short side x).
CARD_PX_W: Final = 160
CARD_PX_H: Final = 224
# How far past the registered index box the search patch reaches, as a fraction of the card.
SEARCH_MARGIN: Final = 0.05

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)


@dataclass(frozen=True, slots=True)
class IndexBox:
    """Where the rank and suit sit in the top-left corner, as fractions of card width and height."""

    x0: float
    y0: float
    x1: float
    y1: float

    def search_size(self) -> tuple[int, int]:
        """Pixel size (w, h) of the search patch in the canonical card raster."""
        w = round((self.x1 + SEARCH_MARGIN) * CARD_PX_W)
        h = round((self.y1 + SEARCH_MARGIN) * CARD_PX_H)
        return max(w, 8), max(h, 8)
