"""A fan scan's card lying across a fan at a read card's corner is no card."""

from __future__ import annotations

import math

import numpy as np

from vision.calibration import Calibration
from vision.deck import DeckProfile
from vision.pipeline.explain import _cornered_across
from vision.pipeline.hypotheses import Hypothesis
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


def _card(corner: tuple[float, float], degrees: float, *, code: str) -> Hypothesis:
    """A 58.7 x 82 card whose corner 0 is ``corner``, its top edge turned ``degrees``."""
    t = math.radians(degrees)
    x, y = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
    p = np.array(corner)
    quad = np.array([p, p + 58.7 * x, p + 58.7 * x + 82.0 * y, p + 82.0 * y])
    return Hypothesis(corners=quad, fill=1.0, code=code, confidence=0.6)


def test_only_a_scan_card_lying_across_the_face_whose_corner_it_starts_at_is_no_card() -> None:
    read = _card((100.0, 100.0), 0.0, code="5c")
    corner = (float(read.corners[3][0]), float(read.corners[3][1]))  # the 5c's lower blank corner
    assert _cornered_across(_card(corner, -90.0, code="Tc"), read, 58.7)
    # A fan's cards turned about a shared corner lie a few tens of degrees apart: each one's
    # index corner may be another's corner, and it is a card.
    assert not _cornered_across(_card(corner, -20.0, code="Tc"), read, 58.7)
    # Across, but its index corner away from the face's corners: not this rule's.
    assert not _cornered_across(_card((130.0, 190.0), -90.0, code="Tc"), read, 58.7)
