"""Stacks of backs in tests: a small generated scene read, and whether each back lies on its card."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableRenderer, TableView
from vision.deck import DeckProfile
from vision.pipeline.settings import RecognizerSettings
from vision.recognize import BACK, Recognizer
from vision.scenes import random_table, view_calibration

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


def table_stack(deck: DeckProfile, *, seed: int, codes: Sequence[str]) -> tuple[list[Point], list[Point]]:
    """The true centres of the stack of ``codes`` on the benchmark's table ``seed``, and the backs
    counted within twice ON_CARD_PX of one of them, the table read as the benchmark reads it (the
    card size the plane's, not the lens')."""
    table = random_table(np.random.default_rng(seed))
    settings = RecognizerSettings(lens_card_size=False)
    truth, found = backs_read(deck, table.view, table.scene, seed=seed, settings=settings)
    stack = [p for card, p in zip(table.scene.cards, truth, strict=True) if card.code in codes]
    return stack, [b for b in found if min(math.dist(b, p) for p in stack) < 2 * ON_CARD_PX]


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


# Two backs in a corner of a strongly barrelled view (dev table 3012, figures as drawn): there the
# plane shows the card on top about a tenth longer than the plane's card, so a card's rectangle
# fitted to its near end leaves its far end showing, and a rectangle there looks like a lower card.
TWO_IN_A_CORNER = (
    TableView(
        table_w_mm=1000.0,
        table_h_mm=560.0,
        roll_deg=-1.8704465571537625,
        tilt_deg=6.489342374593884,
        distortion_k1=-0.059613365323489244,
        felt_bgr=(70, 95, 60),
        felt_texture="weave",
    ),
    Scene(
        cards=(
            SimCard(
                code="Td", x_mm=914.6715952471701, y_mm=85.96672415871456, angle_deg=253.97274006406894, face_up=False
            ),
            SimCard(
                code="7h", x_mm=924.6083733285379, y_mm=103.00538148284514, angle_deg=251.19249301243093, face_up=False
            ),
        ),
        lighting=Lighting(
            brightness=0.819864298312285,
            falloff=0.1154586042393234,
            falloff_angle_deg=27.657201366613755,
            tint_bgr=(0.7369576889253151, 0.947391537785063, 1.0876807703582283),
        ),
        optics=Optics(noise_sigma=3.0, motion_angle_deg=155.66954415583504),
    ),
    3012,
)
