"""Lower backs whose strip's edges place no card: found by the back slid over the stack, judged in place."""

from __future__ import annotations

import math

import numpy as np

from tests.vision.stacks import ON_CARD_PX, backs_read, no_back_where_no_card_lies
from vision.deck import DeckProfile
from vision.pipeline.settings import RecognizerSettings
from vision.scenes import random_table

# (As the benchmark reads its tables: the card size is the plane's, not the lens'.)
_SETTINGS = RecognizerSettings(lens_card_size=False)


def test_the_two_cards_under_a_top_whose_strips_run_into_one_are_counted(dondorf: DeckProfile) -> None:
    # Dev table 503 as generated (dondorf): Js on 9s on As, each 0.2-0.3 of a card's width from the
    # last, a chip on the top's corner. Only the top was chosen; the two lower cards' strips show as
    # one region no card explains, reaching 0.6 of a card's width beyond the top: farther than one
    # card's offset, so its edges placed no card and the stack counted one back.
    table = random_table(np.random.default_rng(503))
    truth, found = backs_read(dondorf, table.view, table.scene, seed=503, settings=_SETTINGS)
    stack = [p for card, p in zip(table.scene.cards, truth, strict=True) if card.code in ("Js", "9s", "As")]
    near = [b for b in found if min(math.dist(b, p) for p in stack) < 2 * ON_CARD_PX]
    assert len(near) == 3 and no_back_where_no_card_lies(stack, near), (stack, near)
