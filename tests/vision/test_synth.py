"""Scoring generated scenes: reads matched to true cards."""

from __future__ import annotations

from drivers.camera.sim import SimCard
from vision.synth import score_reading


def test_reads_go_to_the_nearest_card_not_the_first_listed() -> None:
    # Two cards of a fan turned about a corner, their centres 20 px apart (within the 22 px
    # tolerance): the one read, exactly at the second card, is the second card's.
    truth = [(SimCard(code="6d", x_mm=0, y_mm=0), (800.0, 532.0)), (SimCard(code="Jc", x_mm=0, y_mm=0), (780.0, 526.0))]
    outcomes: list[str] = []
    tally = score_reading(truth, [("Jc", (780.5, 526.0))], tol_px=22, outcomes=outcomes)
    assert outcomes == ["missed", "correct"]
    assert tally.misread == 0 and tally.correct == 1 and tally.phantoms == 0


def test_a_read_far_from_every_card_is_a_phantom() -> None:
    truth = [(SimCard(code="6d", x_mm=0, y_mm=0), (800.0, 532.0))]
    outcomes: list[str] = []
    tally = score_reading(truth, [("6d", (830.0, 532.0))], tol_px=22, outcomes=outcomes)
    assert outcomes == ["missed"] and tally.phantoms == 1
