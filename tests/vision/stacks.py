"""Stacks of backs in tests: a small generated scene read, and whether each back lies on its card."""

from __future__ import annotations

import math
from collections.abc import Sequence

from drivers.camera.sim import Scene, TableRenderer, TableView
from vision.deck import DeckProfile
from vision.pipeline.settings import RecognizerSettings
from vision.recognize import BACK, Recognizer
from vision.scenes import view_calibration

Point = tuple[float, float]

# A back is on a card when its centre lies this near the card's (the benchmark's match distance).
ON_CARD_PX = 22


def backs_read(
    deck: DeckProfile, view: TableView, scene: Scene, *, seed: int = 1, settings: RecognizerSettings | None = None
) -> tuple[list[Point], list[Point]]:
    """Each card's true centre and the centres of the backs counted (frame pixels), the scene
    rendered with ``seed`` and read with the view's own calibration."""
    renderer = TableRenderer(deck=deck, view=view, seed=seed)
    recognizer = Recognizer(deck=deck, settings=settings, calibration=view_calibration(view))
    reading = recognizer.read(renderer.render(scene, seed=seed))
    truth = [(float(x), float(y)) for x, y in (renderer.card_quad_px(card).mean(axis=0) for card in scene.cards)]
    return truth, [c.center for c in reading.cards if c.code == BACK]


def each_counted_once(truth: Sequence[Point], found: Sequence[Point]) -> bool:
    """As many backs as cards, and a back on every card."""
    return len(found) == len(truth) and all(min(math.dist(t, b) for b in found) < ON_CARD_PX for t in truth)


def no_back_where_no_card_lies(truth: Sequence[Point], found: Sequence[Point]) -> bool:
    """Each back counted lies on a card of its own (no two backs on one card)."""
    free = list(truth)
    for back in found:
        near = [t for t in free if math.dist(t, back) < ON_CARD_PX]
        if not near:
            return False
        free.remove(min(near, key=lambda t: math.dist(t, back)))
    return True
