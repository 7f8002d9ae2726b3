"""A fan's top card drawn from two outline corners, its corner in view unread, read by its index inside."""

from __future__ import annotations

from tests.vision.test_fan_unread import _fan_outcomes
from vision.deck import DeckProfile


def test_a_two_cornered_fan_top_whose_corner_in_view_shows_no_index_is_read_inside(standard: DeckProfile) -> None:
    # The benchmark's table 3015: a fan 3s, 8s, Ks turned about a corner. The Ks's rectangle is
    # drawn from two outline corners along its free long side (77.7 px of 82 straight); its index
    # corner on the outline shows none, the other lies over the 8s and reads Ks (0.83 at its true
    # place). It was missed.
    roles, outcomes, everything = _fan_outcomes(standard, 3015, ("3s", "8s", "Ks"))
    assert roles == ["fan bottom", "fan middle", "fan top"]
    assert outcomes == ["correct"] * 3
    assert "misread" not in everything
