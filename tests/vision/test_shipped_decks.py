"""The shipped deck profiles: Kennard's design with two or four colours, standard or large index."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.camera.sim import PURPLE_FELT_BGR, Scene, SimCard, TableRenderer, TableView
from vision.deck import CODES, SHIPPED_DECKS, DeckProfile, shipped_deck
from vision.index import index_feature
from vision.index_match import match_index
from vision.recognize import Recognizer
from vision.synth import score_reading

VARIANTS = sorted(SHIPPED_DECKS)


def _suit_colour(deck: DeckProfile, suit: str) -> np.ndarray:
    """Mean colour of the darkest pixels of the ace's face: the ace's one large pip."""
    face = deck.face(f"A{suit}").reshape(-1, 3).astype(np.float32)
    ink = face[face.min(axis=1) < np.percentile(face.min(axis=1), 8)]
    return ink.mean(axis=0)


def test_all_four_variants_are_shipped() -> None:
    assert VARIANTS == ["4color", "4color-large-index", "default", "large-index"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_face_of_each_variant_reads_as_itself(variant: str) -> None:
    deck = shipped_deck(variant)
    w, h = deck.index_box.search_size()
    for code, face in zip(CODES, deck.faces, strict=True):
        feature = index_feature(face[:h, :w], deck.index_box)
        assert feature is not None, code
        assert match_index(deck, feature).code == code


def test_large_index_variants_have_a_taller_index() -> None:
    standard = shipped_deck("default").index_box
    for variant in ("large-index", "4color-large-index"):
        large = shipped_deck(variant).index_box
        assert large.y1 - large.y0 > 1.5 * (standard.y1 - standard.y0)


@pytest.mark.parametrize(("variant", "colours"), [("default", 2), ("large-index", 2), ("4color", 4)])
def test_suit_colours(variant: str, colours: int) -> None:
    deck = shipped_deck(variant)
    # Distinct when their ink differs clearly in some channel.
    distinct: list[np.ndarray] = []
    for suit in "shdc":
        colour = _suit_colour(deck, suit)
        if all(np.abs(colour - seen).max() > 40 for seen in distinct):
            distinct.append(colour)
    assert len(distinct) == colours


@pytest.mark.parametrize("variant", ["large-index", "4color", "4color-large-index"])
def test_cards_of_each_variant_are_read_on_the_table(variant: str) -> None:
    deck = shipped_deck(variant)
    codes = ["As", "Kh", "Td", "7c", "Qs", "2d", "9h", "Jc", "5s", "8d", "3c", "6h"]
    angles = [0, 180, 90, 270, 33, 213, 147, 327, 12, 192, 75, 255]
    cards = tuple(
        SimCard(code=c, x_mm=90 + (i % 6) * 160, y_mm=130 + (i // 6) * 300, angle_deg=a)
        for i, (c, a) in enumerate(zip(codes, angles, strict=True))
    )
    # Four-colour decks need cloth that is neither green (clubs) nor blue (diamonds).
    felt = PURPLE_FELT_BGR if variant.startswith("4color") else TableView().felt_bgr
    renderer = TableRenderer(deck=deck, view=TableView(keystone=0.05, roll_deg=1.5, felt_bgr=felt), seed=3)
    reading = Recognizer(deck=deck).read(renderer.render(Scene(cards=cards), seed=3))
    centres = [renderer.card_quad_px(c).mean(axis=0) for c in cards]
    truth = [(c, (float(x), float(y))) for c, (x, y) in zip(cards, centres, strict=True)]
    tally = score_reading(truth, [(c.code, c.center) for c in reading.cards], tol_px=22)
    assert tally.misread == 0 and tally.missed == 0 and tally.phantoms == 0
    assert tally.correct >= 10  # of 12; the rest "unknown", which the tracker waits out
