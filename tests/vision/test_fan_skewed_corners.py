"""Fan cards drawn from an outline corner whose short edge is skewed (a rounded corner's few pixels)."""

from __future__ import annotations

from tests.vision.test_fans import _benchmark_table
from vision.deck import DeckProfile


def test_a_fans_card_whose_corner_shows_a_few_skewed_pixels_of_its_side_is_read_square_to_its_top(
    kennard: DeckProfile,
) -> None:
    # The benchmark's table 3008: a fan spread along the short side, Qs at the bottom. Its index
    # corner is an outline corner: its top edge runs on along the cards above, but only 8.6 px of
    # its side show before the Ks covers it, fitted 22 degrees off. Both rectangles drawn from
    # that corner were parallelograms whose index corner read nothing (one anchor, no long side
    # seen, so not even read); the fan scan drew the card turned half round, an unknown phantom.
    # Square to the top edge, its index reads Qs 0.96.
    table, outcomes = _benchmark_table(kennard, seed=3008)
    bottom = [k for k, card in enumerate(table.scene.cards) if card.code == "Qs" and card.face_up]
    assert [table.roles[k] for k in bottom] == ["fan bottom"]
    assert outcomes[bottom[0]] == "correct"
    assert "misread" not in outcomes
