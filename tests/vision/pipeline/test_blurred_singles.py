"""Blurred lone cards: their index corners weigh the blur discount less than a fan card's corner read alone."""

from __future__ import annotations

import numpy as np

from drivers.camera.sim import Optics, Scene, SimCard, TableRenderer, TableView
from vision.deck import DeckProfile
from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.lone_card import LoneCardReader
from vision.pipeline.settings import RecognizerSettings

VIEW = TableView(tilt_deg=15.0)


def _blurred(
    deck: DeckProfile, card: SimCard, optics: Optics, *, seed: int
) -> tuple[LoneCardReader, np.ndarray, np.ndarray]:
    """A fresh lone-card reader, a frame of ``card`` lying alone seen through ``optics``, and its corners."""
    renderer = TableRenderer(deck=deck, view=VIEW)
    frame = renderer.render(Scene(cards=(card,), optics=optics), seed=seed)
    settings = RecognizerSettings()
    corners = CornerReader(deck=deck, settings=settings)
    lone = LoneCardReader(decider=CardDecider(deck=deck, settings=settings, corners=corners))
    return lone, frame, renderer.card_quad_px(card)


def _soft_2h(kennard: DeckProfile) -> tuple[LoneCardReader, np.ndarray, np.ndarray]:
    """A 2h under focus blur and a 3 px smear: both index corners soft, neither read at the full discount."""
    card = SimCard(code="2h", x_mm=400, y_mm=260, angle_deg=52)
    return _blurred(kennard, card, Optics(blur_sigma_px=1.4, motion_px=3.0, motion_angle_deg=90), seed=1)


def test_a_blurred_lone_card_is_read_at_the_lone_card_s_lesser_discount(kennard: DeckProfile) -> None:
    lone, frame, q = _soft_2h(kennard)
    corners = lone.decider.corners
    # Neither corner reads on its own at the full discount, though both saw the card's index.
    for k in (0, 2):
        read = corners.read_index(frame, q, k)
        assert read.code == UNKNOWN and read.match is not None and read.match.soft > 0.0
    # Lying alone, its face judging the read, the card is read.
    assert lone.read_alone(frame, q)[0] == "2h"


def test_the_same_blurred_index_read_by_one_corner_or_among_cards_stays_unknown(kennard: DeckProfile) -> None:
    # A fan's card read at one corner alone (the fan scan) or among others has no face to judge a
    # blurred read: the full discount stands there.
    lone, frame, q = _soft_2h(kennard)
    corners = lone.decider.corners
    assert corners.read(frame, q[0], q[1] - q[0], q[3] - q[0]).code == UNKNOWN
    assert corners.read(frame, q[2], q[3] - q[2], q[1] - q[2]).code == UNKNOWN
    # Among cards, two corners that saw the same card pool their scores (CardDecider.read_card),
    # the discount taken at each: split at the deck's own gap between rank and suit, the 2's blurred
    # glyphs pool to the card; never to another card.
    assert lone.decider.read_card(frame, q, alone=False)[0] in (UNKNOWN, "2h")


def test_a_blurred_club_whose_corners_both_ease_to_a_spade_is_not_read_as_the_spade(kennard: DeckProfile) -> None:
    # Smeared, a 5c's small index clubs fit a spade at both corners; eased, both would read 5s,
    # and a face thumbnail does not tell a 5c from a 5s: the whole face at half size must pick it.
    card = SimCard(code="5c", x_mm=400, y_mm=260, angle_deg=12)
    lone, frame, q = _blurred(kennard, card, Optics(blur_sigma_px=1.3, motion_px=4.0, motion_angle_deg=30), seed=3)
    settings = lone.settings
    for k in (0, 2):
        match = lone.decider.lone_corners.read_index(frame, q, k).match
        assert match is not None and match.code == "5s"
        assert match.score >= settings.accept_score and match.margin >= settings.accept_margin
        assert lone.decider.lone_corners.read_index(frame, q, k).code == UNKNOWN
    assert lone.read_alone(frame, q)[0] in ("5c", UNKNOWN)
