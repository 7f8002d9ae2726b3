"""A fanned card's index read from a corner placed a few pixels or a degree or two off the card's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from drivers.camera.sim import CARD_W_MM, Optics, Scene, SimCard, TableRenderer, TableView
from tests.vision.bench_tables import read_at_true_corner
from vision.deck import DeckProfile
from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.settings import RecognizerSettings

VIEW = TableView(tilt_deg=10.0)
# Three cards spread along their short side, each on top of the last, a third of a width apart:
# the middle card shows its top-left index between the bottom card's edge and the top card's.
STEP = 0.34
FAN = tuple(
    SimCard(
        code=c,
        x_mm=420 + k * STEP * CARD_W_MM * math.cos(math.radians(8)),
        y_mm=300 + k * STEP * CARD_W_MM * math.sin(math.radians(8)),
        angle_deg=8,
    )
    for k, c in zip((-1, 0, 1), ("Kd", "8h", "5c"), strict=True)
)


def _turn(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _fan(deck: DeckProfile) -> tuple[CornerReader, TableRenderer, np.ndarray]:
    renderer = TableRenderer(deck=deck, view=VIEW)
    frame = renderer.render(Scene(cards=FAN, optics=Optics()), seed=11)
    return CornerReader(deck=deck, settings=RecognizerSettings()), renderer, frame


@pytest.mark.parametrize(
    ("along", "down", "deg"),
    [(0, 0, 0), (4, 0, 0), (-4, 0, 0), (0, 4, 0), (0, -4, 0), (0, 0, 2), (0, 0, -2), (3, 3, 2)],
)
def test_a_fanned_index_is_read_from_a_corner_a_few_pixels_or_degrees_off(
    dondorf: DeckProfile, along: float, down: float, deg: float
) -> None:
    # The middle card of a fan: the bottom card's edge runs along its index's left, the top
    # card's to its right. A corner placed a few pixels out or in along either edge, or turned
    # two degrees (as a fan's corner drawn from its outline is), brought the card's own edge line
    # into the patch or cut the glyphs' top or left off at the patch's border: the patch now
    # reaches a few pixels out past the corner and leaves the edge line out.
    corners, renderer, frame = _fan(dondorf)
    q = renderer.card_quad_px(FAN[1])
    x, y = q[1] - q[0], q[3] - q[0]
    origin = q[0] + along * x / np.linalg.norm(x) + down * y / np.linalg.norm(y)
    turned = _turn(deg)
    assert corners.read(frame, origin, turned @ x, turned @ y).code == "8h"


@pytest.mark.parametrize(("along", "down"), [(12, 0), (18, 0), (24, 0), (0, 12), (0, 18), (0, 24)])
def test_an_index_the_patch_cuts_in_two_reads_nothing(dondorf: DeckProfile, along: float, down: float) -> None:
    # A corner put well inside the card (more than the patch reaches out past the corner): the
    # patch's side runs through the index's glyphs, whose cut halves must not pass for another
    # card's (a cut "8" is a "3"), nor the next card's edge and face for an index.
    corners, renderer, frame = _fan(dondorf)
    q = renderer.card_quad_px(FAN[1])
    x, y = q[1] - q[0], q[3] - q[0]
    origin = q[0] + along * x / np.linalg.norm(x) + down * y / np.linalg.norm(y)
    assert corners.read(frame, origin, x, y).code == UNKNOWN


@pytest.mark.parametrize(("seed", "code"), [(509, "9s"), (510, "8s")])
def test_a_fanned_index_beside_its_cards_blurred_edge_reads_at_its_corner(
    dondorf: DeckProfile, seed: int, code: str
) -> None:
    # The benchmark's tables 509 and 510: a fan's middle card read at its true corner. Its edge,
    # against the paper of the card below, is a dark line blurred to 4-5 px: bits of it lying
    # beside the rank (9s), or the card's rounded corner drawn as an arc above it (8s), were
    # joined to the index and the rank's box stretched over them (read Td, 4s, both far under
    # the bar). Every design insets its index: no glyph ends within 3 px of the card's edge, and
    # none is a hollow arc starting at the corner.
    assert read_at_true_corner(dondorf, seed=seed, code=code) == code
