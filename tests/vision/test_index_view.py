"""The benchmark's ground truth of which index corners a camera sees (vision.index_view)."""

from __future__ import annotations

import numpy as np
import pytest

from drivers.camera.effects import SimChip
from drivers.camera.sim import CARD_H_MM, CARD_W_MM, Scene, SimCard, SimHand, TableRenderer, TableView
from vision.deck import DeckProfile
from vision.index_view import IN_VIEW, SHOWING, card_view_shares, index_boxes_px, index_view_shares

AT = (400.0, 280.0)


@pytest.fixture(scope="module")
def renderer(kennard: DeckProfile) -> TableRenderer:
    return TableRenderer(deck=kennard, view=TableView())


def corner_mm(kennard: DeckProfile, *, twin: bool) -> tuple[float, float]:
    """The middle of the upright card's index box at AT (or of its 180° twin), in table mm."""
    box = kennard.index_box
    u, v = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    if twin:
        u, v = 1 - u, 1 - v
    return AT[0] + (u - 0.5) * CARD_W_MM, AT[1] + (v - 0.5) * CARD_H_MM


def shares(renderer: TableRenderer, kennard: DeckProfile, **scene: object) -> list[float | None]:
    return index_view_shares(renderer, Scene(**scene), kennard.index_box)  # type: ignore[arg-type]


def test_a_lone_card_shows_its_index_and_a_back_has_none(renderer: TableRenderer, kennard: DeckProfile) -> None:
    cards = (
        SimCard(code="As", x_mm=AT[0], y_mm=AT[1], angle_deg=20),
        SimCard(code="Kd", x_mm=600, y_mm=280, face_up=False),
    )
    assert shares(renderer, kennard, cards=cards) == [pytest.approx(1.0), None]


def test_the_boxes_sit_in_opposite_corners_of_the_card(renderer: TableRenderer, kennard: DeckProfile) -> None:
    card = SimCard(code="As", x_mm=AT[0], y_mm=AT[1])
    top, twin = index_boxes_px(renderer, card, kennard.index_box)
    quad = renderer.ideal_quad_px(card)
    centre = quad.mean(axis=0)
    # Point symmetry about the card's centre (a homography keeps it only nearly: a loose bound).
    assert np.allclose(top.mean(axis=0) + twin.mean(axis=0), 2 * centre, atol=3.0)
    assert np.linalg.norm(top.mean(axis=0) - quad[0]) < np.linalg.norm(top.mean(axis=0) - quad[2])


def test_one_corner_in_view_is_enough(renderer: TableRenderer, kennard: DeckProfile) -> None:
    under = SimCard(code="As", x_mm=AT[0], y_mm=AT[1])
    # A card dealt after it, shifted up and left, covers the top-left index only.
    over = SimCard(code="Kd", x_mm=AT[0] - 40, y_mm=AT[1] - 60)
    assert shares(renderer, kennard, cards=(under, over))[0] == pytest.approx(1.0)


def test_a_card_dealt_before_covers_nothing(renderer: TableRenderer, kennard: DeckProfile) -> None:
    below = SimCard(code="Kd", x_mm=AT[0], y_mm=AT[1])
    card = SimCard(code="As", x_mm=AT[0] + 5, y_mm=AT[1] + 5)
    assert shares(renderer, kennard, cards=(below, card))[1] == pytest.approx(1.0)


def test_chips_on_both_corners_hide_the_index(renderer: TableRenderer, kennard: DeckProfile) -> None:
    card = SimCard(code="As", x_mm=AT[0], y_mm=AT[1])
    chips = tuple(SimChip(x_mm=x, y_mm=y) for x, y in (corner_mm(kennard, twin=False), corner_mm(kennard, twin=True)))
    hidden = shares(renderer, kennard, cards=(card,), chips=chips)[0]
    assert hidden is not None and hidden < 0.05
    one = shares(renderer, kennard, cards=(card,), chips=chips[:1])[0]
    assert one == pytest.approx(1.0)


def test_a_chip_stack_rim_covers_below_its_top(renderer: TableRenderer, kennard: DeckProfile) -> None:
    card = SimCard(code="As", x_mm=AT[0], y_mm=AT[1])
    x, y = corner_mm(kennard, twin=False)
    tx, ty = corner_mm(kennard, twin=True)
    # A chip just above each index box, clear of it; stacked high, its rim reaches down over it.
    flat = tuple(SimChip(x_mm=a, y_mm=b - 30) for a, b in ((x, y), (tx, ty)))
    tall = tuple(SimChip(x_mm=a, y_mm=b - 30, stack=8) for a, b in ((x, y), (tx, ty)))
    low = shares(renderer, kennard, cards=(card,), chips=flat)[0]
    high = shares(renderer, kennard, cards=(card,), chips=tall)[0]
    assert low is not None and high is not None
    assert low > high


def test_half_covered_corners_are_not_in_view(renderer: TableRenderer, kennard: DeckProfile) -> None:
    card = SimCard(code="As", x_mm=AT[0], y_mm=AT[1])
    box = kennard.index_box
    width = (box.x1 - box.x0) * CARD_W_MM
    # Two cards dealt after it whose edges run down the middle of each index box.
    left_edge = AT[0] + (box.x0 - 0.5) * CARD_W_MM + width / 2
    right_edge = AT[0] + (0.5 - box.x0) * CARD_W_MM - width / 2
    over = (
        SimCard(code="Kd", x_mm=left_edge - CARD_W_MM / 2, y_mm=AT[1] - 30),
        SimCard(code="Qd", x_mm=right_edge + CARD_W_MM / 2, y_mm=AT[1] + 30),
    )
    half = shares(renderer, kennard, cards=(card, *over))[0]
    assert half is not None and 0.3 < half < 0.7 < IN_VIEW


def test_a_hand_over_the_card_hides_it(renderer: TableRenderer, kennard: DeckProfile) -> None:
    card = SimCard(code="As", x_mm=AT[0], y_mm=AT[1])
    hidden = shares(renderer, kennard, cards=(card,), hands=(SimHand(x_mm=AT[0], y_mm=AT[1]),))[0]
    assert hidden is not None and hidden < 0.05


def test_a_back_shows_what_the_cards_dealt_after_it_leave(renderer: TableRenderer) -> None:
    # Three backs dealt 10 mm apart along the long side: the bottom shows a strip 10 mm of 88 mm
    # long, the middle the same, the top all of it.
    cards = tuple(
        SimCard(code=code, x_mm=AT[0], y_mm=AT[1] + 10 * k, face_up=False) for k, code in enumerate(("As", "Kd", "Qh"))
    )
    bottom, middle, top = card_view_shares(renderer, Scene(cards=cards))
    assert bottom == pytest.approx(10 / CARD_H_MM, abs=0.01)
    assert middle == pytest.approx(10 / CARD_H_MM, abs=0.01)
    assert top == pytest.approx(1.0)


def test_a_back_dealt_back_onto_the_one_under_it_does_not_show(renderer: TableRenderer) -> None:
    # The third card of a stack lands where the first lay (offsets of 12 mm there and back): no
    # camera sees the bottom card, which the benchmark leaves out of its "showing" figure.
    cards = (
        SimCard(code="As", x_mm=AT[0], y_mm=AT[1], face_up=False),
        SimCard(code="Kd", x_mm=AT[0] + 12, y_mm=AT[1], face_up=False),
        SimCard(code="Qh", x_mm=AT[0], y_mm=AT[1], face_up=False),
    )
    bottom, middle, top = card_view_shares(renderer, Scene(cards=cards))
    assert bottom < SHOWING
    assert middle == pytest.approx(12 / CARD_W_MM, abs=0.01)
    assert top == pytest.approx(1.0)
