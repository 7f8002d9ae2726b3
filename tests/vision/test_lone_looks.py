"""Lone face-up cards the read used to leave unknown: an index broken on the card's edge, a court
index run into its picture's frame line."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableRenderer, TableView
from vision.calibration import Calibration
from vision.deck import DeckProfile
from vision.index import _stacked
from vision.pipeline.decide import CardDecider
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, view_calibration

WARM = (1.0 - 1.5 * 0.15, 1.0 - 0.3 * 0.15, 1.0 + 0.5 * 0.15)  # the benchmark's warm tint (BGR)

# The benchmark's table 3015 (standard, blur 1.3 px, warm light): a lone Kh as found.
_KH_3015 = np.array([[473.6, 800.9], [588.6, 802.3], [584.9, 963.2], [470.4, 962.7]])


def _table(deck: DeckProfile, seed: int) -> tuple[np.ndarray, CardDecider]:
    table = random_table(np.random.default_rng(seed))
    _, frame = render_table(deck, table, seed=seed)
    return frame, Recognizer(deck=deck, calibration=view_calibration(table.view)).decider


def test_glyph_pieces_in_one_row_are_not_a_rank_over_a_suit() -> None:
    # A blurred K carved off the card's edge: its arm, the whole K, its foot (sorted by top).
    assert not _stacked([(21, 14, 28, 21), (10, 14, 28, 43), (10, 35, 17, 43)])
    assert _stacked([(10, 14, 28, 43), (8, 49, 31, 69)])  # a rank over its suit
    assert _stacked([(21, 14, 28, 21), (10, 14, 28, 43), (8, 49, 31, 69)])


def test_an_index_broken_on_the_cards_edge_is_read(standard: DeckProfile) -> None:
    # Standard prints its index 2 px in from the edge; blurred, the K's arm and its heart join
    # the edge (and the heart the picture's frame line). The K, carved off the edge in pieces,
    # was taken for a rank over a suit by its first piece, and the suit was never cut off the
    # frame line: no index at all. Now the K is a rank alone and its heart is cut free.
    frame, decider = _table(standard, 3015)
    first = decider.corners.read_index(frame, _KH_3015, 0)
    assert first.code == "Kh"
    assert decider.read_alone(frame, _KH_3015)[0] == "Kh"


@pytest.mark.parametrize(("code", "angle"), [("Qh", 0), ("Qh", 17), ("Qd", 0), ("Jh", 17), ("Kh", 0)])
def test_a_blurred_court_index_run_into_its_rank_and_frame_line_is_read(
    code: str, angle: float, standard: DeckProfile
) -> None:
    # A blurred Q's tail runs into its heart, and the heart into the picture's frame line and
    # the card's edge: freed from the line and the edge, rank and suit are still one blob, cut
    # where the least ink crosses. The other court cards, read before, are read as they were.
    view = TableView(tilt_deg=8.0)
    card = SimCard(code=code, x_mm=300, y_mm=250, angle_deg=angle)
    scene = Scene(
        cards=(card,),
        lighting=Lighting(brightness=0.9, tint_bgr=WARM),
        optics=Optics(blur_sigma_px=1.3, noise_sigma=2.0),
    )
    renderer = TableRenderer(deck=standard, view=view, seed=3)
    reading = Recognizer(deck=standard, calibration=Calibration(homography=view.homography(), rms_px=0.0)).read(
        renderer.render(scene, seed=3)
    )
    assert [c.code for c in reading.cards] == [code]
