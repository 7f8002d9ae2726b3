"""Index corners read against the deck's learnt classifier, and the card decided from both corners and its face."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.camera.sim import Optics, Scene, SimCard, TableRenderer, TableView
from vision.deck import DeckProfile
from vision.pipeline.corners import UNKNOWN, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.settings import RecognizerSettings

VIEW = TableView(tilt_deg=15.0)
CARDS = (
    SimCard(code="Qh", x_mm=200, y_mm=250, angle_deg=20),
    SimCard(code="Tc", x_mm=450, y_mm=250, angle_deg=200),  # upside down
    SimCard(code="8d", x_mm=700, y_mm=250, angle_deg=95),
)


def _stages(deck: DeckProfile) -> tuple[CornerReader, CardDecider]:
    settings = RecognizerSettings()
    corners = CornerReader(deck=deck, settings=settings)
    return corners, CardDecider(deck=deck, settings=settings, corners=corners)


def _frame(deck: DeckProfile, *, optics: Optics | None = None) -> tuple[TableRenderer, np.ndarray]:
    renderer = TableRenderer(deck=deck, view=VIEW)
    scene = Scene(cards=CARDS, optics=optics or Optics())
    return renderer, renderer.render(scene, seed=5)


@pytest.fixture(params=["kennard", "hershey"])
def read_on(request: pytest.FixtureRequest) -> tuple[CornerReader, CardDecider, TableRenderer, np.ndarray]:
    """Both stages for one design, and its frame of CARDS."""
    deck: DeckProfile = request.getfixturevalue(request.param)
    return (*_stages(deck), *_frame(deck))


def test_both_index_corners_of_a_card_read_its_code(
    read_on: tuple[CornerReader, CardDecider, TableRenderer, np.ndarray],
) -> None:
    corners, _decider, renderer, frame = read_on
    for card in CARDS:
        q = renderer.card_quad_px(card)  # clockwise from the printed top-left: an index corner
        assert corners.read(frame, q[0], q[1] - q[0], q[3] - q[0]).code == card.code
        assert corners.read(frame, q[2], q[3] - q[2], q[1] - q[2]).code == card.code
        # A corner with no index (the card's other two) reads nothing with confidence.
        assert corners.read(frame, q[1], q[2] - q[1], q[0] - q[1]).code == UNKNOWN


def test_a_corner_is_read_once_a_frame(kennard: DeckProfile) -> None:
    corners, _decider = _stages(kennard)
    renderer, frame = _frame(kennard)
    q = renderer.card_quad_px(CARDS[0])
    for _ in range(3):
        corners.read(frame, q[0], q[1] - q[0], q[3] - q[0])
    assert corners.count == 1
    corners.new_frame()
    corners.read(frame, q[0], q[1] - q[0], q[3] - q[0])
    assert corners.count == 1


def test_the_decider_names_each_card_and_agrees_with_its_face(
    read_on: tuple[CornerReader, CardDecider, TableRenderer, np.ndarray],
) -> None:
    _corners, decider, renderer, frame = read_on
    for card in CARDS:
        code, confidence = decider.read_alone(frame, renderer.card_quad_px(card))
        assert code == card.code and confidence >= 0.5


def test_a_face_that_is_not_the_index_card_is_refused(kennard: DeckProfile) -> None:
    """The face check: the index says one card, the face shows another: never a read."""
    _corners, decider = _stages(kennard)
    renderer, frame = _frame(kennard)
    q = renderer.card_quad_px(CARDS[0])  # a Qh: its face is no 8d's
    assert decider.face_agrees(frame, q, "Qh", alone=True)
    assert not decider.face_agrees(frame, q, "8d", alone=True)


def test_a_blurred_index_gives_unknown_never_another_card(kennard: DeckProfile) -> None:
    _corners, decider = _stages(kennard)
    renderer, frame = _frame(kennard, optics=Optics(blur_sigma_px=3.0))
    codes = [decider.read_alone(frame, renderer.card_quad_px(card))[0] for card in CARDS]
    assert all(code in (card.code, UNKNOWN) for code, card in zip(codes, CARDS, strict=True))
    assert UNKNOWN in codes  # this blur is past what the deck's classifier learnt from


def test_a_card_placed_from_one_index_is_read_at_its_far_index_only_when_that_shows_it(
    read_on: tuple[CornerReader, CardDecider, TableRenderer, np.ndarray],
) -> None:
    """A fan's top card shows both indices: the far one reads it and the near one leans to the
    same card. A card under it shows the top card's paper and pips at its far corner: no read.
    """
    corners, decider, renderer, _frame_of_cards = read_on
    fan = tuple(
        SimCard(code=code, x_mm=400 + 14 * k, y_mm=260, angle_deg=8) for k, code in enumerate(("5c", "9h", "Kd"))
    )
    frame = TableRenderer(deck=decider.deck, view=VIEW).render(Scene(cards=fan), seed=3)
    assert decider.read_far(frame, renderer.card_quad_px(fan[2])) == (
        "Kd",
        corners.read(frame, *_far(renderer.card_quad_px(fan[2]))).confidence,
    )
    for under in fan[:2]:
        assert decider.read_far(frame, renderer.card_quad_px(under)) is None


def _far(q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return q[2], q[3] - q[2], q[1] - q[2]
