"""A four-index design's side indices: which registered decks print them, and a fan card read by one."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.test_fan_unread import _fan_outcomes
from vision.deck import DeckProfile
from vision.pipeline.side_index import side_frame, side_shift


def test_only_a_deck_whose_faces_print_the_index_at_the_top_edges_other_end_has_side_indices(
    dondorf: DeckProfile, standard: DeckProfile, kennard: DeckProfile
) -> None:
    # Judged on the registered faces: dondorf's four indices, upright at the top edge's two ends;
    # standard and kennard show a pip, a picture or paper there.
    box = dondorf.index_box
    assert side_shift(dondorf) == pytest.approx(1.0 - box.x0 - box.x1)
    assert side_shift(standard) is None
    assert side_shift(kennard) is None


def test_the_side_frame_puts_the_index_box_mirrored_along_the_top_edge() -> None:
    card = np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 140.0], [0.0, 140.0]])
    origin, x_vec, y_vec = side_frame(card, 0, 0.8)
    assert np.allclose(origin, [80.0, 0.0]) and np.allclose(x_vec, [100.0, 0.0]) and np.allclose(y_vec, [0.0, 140.0])
    # Corner 2's side index lies beside corner 3, the card turned half round.
    origin, x_vec, y_vec = side_frame(card, 2, 0.8)
    assert np.allclose(origin, [20.0, 140.0]) and np.allclose(x_vec, [-100.0, 0.0])


def test_a_fan_bottom_whose_index_corner_falls_short_is_read_by_its_side_index(dondorf: DeckProfile) -> None:
    # The benchmark's table 11003 (dim light, blur 1.3 px): a fan 3c, Jh, 9c spread along their
    # long sides. The 3c's index corner matches 3c only 0.53; the index printed at the other end
    # of its short side, by its far corner on the outline, reads 3c 0.93 on its own: the 3c (it
    # was an unknown card).
    roles, outcomes, everything = _fan_outcomes(dondorf, 11003, ("3c", "Jh"))
    assert roles == ["fan bottom", "fan middle"]
    assert outcomes == ["correct"] * 2
    assert "misread" not in everything
