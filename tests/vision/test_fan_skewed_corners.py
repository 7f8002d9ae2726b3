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


def test_a_fans_card_whose_side_ends_at_a_rounded_corner_under_glare_is_read_at_its_full_size(
    dondorf: DeckProfile,
) -> None:
    # The benchmark's table 2: a fan spread along the short side under a glare band, 7d at the
    # bottom. Its left side runs between two outline corners, but the top one is its rounded
    # corner cut into by the glare, 3.4 px down the side: the side measured 0.94 of a card's
    # height, the rectangle fitted to it put the index corner down the side, and it read
    # nothing (an unknown card). Drawn from the bottom corner at the card's height, it reads 7d.
    table, outcomes = _benchmark_table(dondorf, seed=2)
    bottom = [k for k, card in enumerate(table.scene.cards) if card.code == "7d" and card.face_up]
    assert [table.roles[k] for k in bottom] == ["fan bottom"]
    assert outcomes[bottom[0]] == "correct"
    assert "misread" not in outcomes
