"""A fan's top card far from a tilted camera: read from its rounded corner, drawn the right way round."""

from __future__ import annotations

from tests.vision.test_fans import _benchmark_table
from vision.deck import DeckProfile


def test_a_fans_top_card_at_a_soft_far_corner_is_read_from_the_corner_its_rounding_hides(
    dondorf: DeckProfile,
) -> None:
    # The benchmark's table 3008: the camera 30 degrees off vertical, a fan Qs, Ks, 9h spread along
    # their side at the frame's far edge. The 9h's free corner is rounded into a 9 px edge of its
    # own, so the outline had no corner there (and its other free corner has a notch): the 9h was
    # missed. With the corner, its top edge runs on along the fan's (98.9 px, no short side) and
    # its side 70.8 px (no short side either): the rectangle with the short side along the top.
    table, outcomes = _benchmark_table(dondorf, seed=3008)
    fan = [k for k, card in enumerate(table.scene.cards) if card.code in ("Qs", "Ks", "9h") and card.face_up]
    assert [table.roles[k] for k in fan] == ["fan bottom", "fan middle", "fan top"]
    assert outcomes[fan[2]] == "correct"
    assert outcomes[fan[1]] == "correct"
    assert "misread" not in outcomes
