"""Registration's index box: the index's own extent, not a court picture an index runs into."""

from __future__ import annotations

import pytest

from vision.deck import _find_index_box, shipped_deck


def test_a_jack_whose_index_touches_its_picture_does_not_widen_the_box() -> None:
    # Kennard's jack of clubs and jack of diamonds: at the ink level their suit touches the
    # collar, and the index's blobs run on down into the picture (bounds to about 0.44 of the
    # card's height, where every other face's index ends at about 0.22).
    deck = shipped_deck("default")
    box = _find_index_box(deck.faces)
    assert box.y1 < 0.25
    assert box.x1 < 0.15
    # The same box the shipped profile holds (registered when that design was made).
    assert (box.x0, box.y0, box.x1, box.y1) == pytest.approx(
        (deck.index_box.x0, deck.index_box.y0, deck.index_box.x1, deck.index_box.y1)
    )


def test_a_design_whose_indices_are_all_tall_keeps_its_tall_box() -> None:
    # The large-index variant: every face's index is tall, none of them is an outlier.
    deck = shipped_deck("large-index")
    box = _find_index_box(deck.faces)
    assert box.y1 > 0.4
    assert (box.x0, box.y0, box.x1, box.y1) == pytest.approx(
        (deck.index_box.x0, deck.index_box.y0, deck.index_box.x1, deck.index_box.y1)
    )
