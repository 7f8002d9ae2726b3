"""A fan scan's start on a back is not read: the back's own colours, learnt from the registered deck."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.pipeline.canonical import CORNER, deck_named
from vision.deck import DeckProfile
from vision.pipeline.back_colours import back_colours
from vision.pipeline.corners import CornerReader
from vision.pipeline.settings import RecognizerSettings


def _refused_faces(reader: CornerReader, deck: DeckProfile) -> int:
    """How many of the registered faces' index corners are refused, each as registered, moved a few
    pixels either way (a start's corner is a guess) and under a yellow lamp (its paper 0.6 blue,
    0.88 green of its red: a saturation of 0.4, as warm as a fan scan takes paper)."""
    refused = 0
    for face in deck.faces:
        lit = np.clip(face * np.array([0.6, 0.88, 1.0]), 0, 255).astype(np.uint8)
        for image, (dx, dy) in ((face, (0, 0)), (face, (4, 3)), (face, (-3, -2)), (lit, (0, 0))):
            refused += reader.on_back(np.roll(image, (dy, dx), axis=(0, 1)), *CORNER)
    return refused


@pytest.mark.parametrize("name", ["kennard", "standard", "nicu-white"])
def test_a_start_on_the_back_is_refused_and_every_registered_index_kept(
    name: str, request: pytest.FixtureRequest
) -> None:
    # kennard and standard are tuned designs, nicu-white an untuned one: each has a back colour
    # its faces' corners hardly show. Most places on the back are refused (nicu-white's pattern
    # leaves some boxes under BACK_SHARE); no index is.
    deck = deck_named(name, request)
    reader = CornerReader(deck=deck, settings=RecognizerSettings())
    places = [np.ascontiguousarray(deck.back[dy:, dx:]) for dx in (10, 40, 70) for dy in (10, 50, 90)]
    assert sum(reader.on_back(place, *CORNER) for place in places) >= 5
    assert _refused_faces(reader, deck) == 0


def test_an_untuned_design_whose_back_shares_its_faces_colours_keeps_every_index(dondorf: DeckProfile) -> None:
    # dondorf's teal and brown back: its pale colours are a warm-lit paper's (table 3019's 9c was
    # refused when they counted), its court pictures bring its teal into their corners.
    assert back_colours(dondorf) is None
    reader = CornerReader(deck=dondorf, settings=RecognizerSettings())
    assert _refused_faces(reader, dondorf) == 0


def test_a_back_in_the_faces_own_colours_refuses_no_start(kennard: DeckProfile) -> None:
    # A back printed black and red on white (a face's colours) has no colour of its own: no start
    # is refused for colour, not even on the back itself.
    plain = dataclasses.replace(kennard, back=kennard.faces[0].copy())
    assert back_colours(plain) is None
    reader = CornerReader(deck=plain, settings=RecognizerSettings())
    assert not reader.on_back(np.ascontiguousarray(plain.back), *CORNER)
    assert back_colours(kennard) is not None
