"""Reading a registered face as a frame in the corner reader's tests: the corner, and a design by name."""

from __future__ import annotations

import numpy as np
import pytest

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import DeckProfile
from vision.tools.kde_decks import kde_deck

# A canonical card image read as a frame: its corner at the origin, the card's own size.
CORNER = (np.array([0.0, 0.0]), np.array([float(CARD_PX_W), 0.0]), np.array([0.0, float(CARD_PX_H)]))


def deck_named(name: str, request: pytest.FixtureRequest) -> DeckProfile:
    """The design ``name``: one of tests/vision/conftest.py's fixtures, or KDE's ``nicu-white`` (no
    fixture: registered once per machine, then cached)."""
    if name == "nicu-white":
        return kde_deck(name)
    deck: DeckProfile = request.getfixturevalue(name)
    return deck
