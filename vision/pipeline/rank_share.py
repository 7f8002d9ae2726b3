"""Where a deck's rank ends and its suit begins, as a share of its index's height: the split of glyphs run together."""

from __future__ import annotations

import numpy as np

from vision.deck import DeckProfile
from vision.deck_memo import DeckMemo
from vision.index import index_feature

# The share of the last few decks read (a recognizer reads one).
_CACHE: DeckMemo[float | None] = DeckMemo()


def rank_share(deck: DeckProfile) -> float | None:
    """The median, over the registered faces, of where the gap between rank and suit lies, as a
    share of the index's height from the rank's top to the suit's foot (dondorf, kennard and
    standard 0.58, nicu 0.48, hershey 0.44; within 0.03 over a deck's 52 faces). None when no
    face's index is found (registering such a deck fails: every face's must be)."""
    return _CACHE.get(deck, lambda: _measured(deck))


def _measured(deck: DeckProfile) -> float | None:
    box = deck.index_box
    sw, sh = box.search_size()
    shares: list[float] = []
    for face in deck.faces:
        feature = index_feature(face[:sh, :sw], box)
        if feature is None or feature.rank_box is None or feature.suit_box is None:
            continue
        rank, suit = feature.rank_box, feature.suit_box
        height = suit[3] - rank[1]
        if height > 0:
            shares.append(((rank[3] + suit[1]) / 2 - rank[1]) / height)
    return float(np.median(shares)) if shares else None
