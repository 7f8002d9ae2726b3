"""A fan scan's card lying across a fan at a read card's corner is no card."""

from __future__ import annotations

import numpy as np

from vision.calibration import Calibration
from vision.deck import DeckProfile
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, truth_centres
from vision.synth import score_reading


def test_a_scan_card_whose_index_corner_is_a_read_cards_corner_across_it_is_no_card(dondorf: DeckProfile) -> None:
    # The benchmark's table 14029: a fan Kc, 5c, Js spread along their side. The fan scan, walking
    # the fan's bottom edge where it turns at the 5c's corner, placed a card turned 90 degrees
    # across the fan, its index corner on the 5c's corner, and read it as a Tc (0.53, where true
    # fan-scan reads go down to 0.50): a card where none lies, named as another card.
    table = random_table(np.random.default_rng(14029))
    renderer, frame = render_table(dondorf, table, seed=14029)
    reading = Recognizer(deck=dondorf, calibration=Calibration(homography=table.view.homography(), rms_px=0.0)).read(
        frame
    )
    outcomes: list[str] = []
    truth = truth_centres(renderer, table.scene)
    tally = score_reading(truth, [(c.code, c.center) for c in reading.cards], tol_px=22, outcomes=outcomes)
    fan = [k for k, card in enumerate(table.scene.cards) if card.code in ("Kc", "5c", "Js") and card.face_up]
    assert [table.roles[k] for k in fan] == ["fan bottom", "fan middle", "fan top"]
    assert [outcomes[k] for k in fan] == ["correct"] * 3
    assert tally.phantoms == 0, [c.code for c in reading.cards]
    assert "misread" not in outcomes
