"""A fan's top card whose index lies beside the picture frame of a court card below: found by the fan scan."""

from __future__ import annotations

import numpy as np
import pytest

from vision.deck import DeckProfile
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, view_calibration

# The benchmark's table 3008 (dondorf, tilt 30 degrees, glare band, JPEG, sharp): a fan of Qs, Ks and
# 9h on top, spread along their short sides, where its cards lie in the frame.
_FAN = {"Qs": (1566.2, 246.6), "Ks": (1619.6, 272.3), "9h": (1674.1, 298.4)}


@pytest.mark.slow  # a whole benchmark table on KDE's Dondorf-like design
def test_a_top_card_beside_a_court_cards_frame_is_read_and_settles_the_bottom_card(dondorf: DeckProfile) -> None:
    # The Ks's picture frame runs along the whole band where the 9h's index starts: judged with it,
    # the band's paper was as dark as the line and no start was found, so the 9h went missed and
    # the Qs, whose far corner shows the 9h's lower index, stayed unknown.
    table = random_table(np.random.default_rng(3008))
    _, frame = render_table(dondorf, table, seed=3008)
    reading = Recognizer(deck=dondorf, calibration=view_calibration(table.view)).read(frame)
    reads = [(c.code, np.mean(np.array(c.corners), axis=0)) for c in reading.cards]
    for code, at in _FAN.items():
        near = [read for read, centre in reads if float(np.hypot(*(centre - np.array(at)))) < 22]
        assert near == [code]
