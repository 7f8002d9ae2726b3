"""Cards where a wide lens stretches them: fitted at the size the calibrated lens gives them there."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from drivers.camera.sim import Marker, Scene, SimCard, TableRenderer, TableView
from tests.vision.stacks import TWO_IN_A_CORNER, each_counted_once
from vision.calibration import Calibration, calibrate_markers
from vision.config import MarkerConfig
from vision.deck import DeckProfile
from vision.pipeline.plane import make_plane
from vision.pipeline.settings import RecognizerSettings
from vision.recognize import BACK, Recognizer
from vision.scenes import view_calibration

# A strongly barrelled camera (dev table 3012's) and two backs stacked in a corner of its frame,
# where the plane (the homography's) shows a card about a tenth longer than its card size:
# rectangles of the plane's card size fitted to that stack land at both of its ends, neither on a
# card (a miss and a phantom).
_VIEW, _SCENE, _ = TWO_IN_A_CORNER
_TWO_IN_A_CORNER = _SCENE.cards


def _area(quad: Any) -> float:
    x, y = np.asarray(quad, dtype=np.float64).T
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def test_the_planes_card_size_in_a_barrelled_corner_is_the_size_the_lens_gives_it_there(
    kennard: DeckProfile,
) -> None:
    renderer = TableRenderer(deck=kennard, view=_VIEW)
    frame = renderer.render(Scene(cards=_TWO_IN_A_CORNER[:1]), seed=0)
    plane = make_plane(frame, calibration=view_calibration(_VIEW), card_height_px=None)
    assert plane.card_height is not None
    quad = plane.to_plane(renderer.card_quad_px(_TWO_IN_A_CORNER[0]))
    local = plane.card_height_at(quad.mean(axis=0))
    assert local is not None
    aspect = 88.0 / 63.0
    # The card's picture is larger than the plane's card by a tenth and more of its area, and as
    # large as the lens makes a card there.
    assert _area(quad) > 1.1 * plane.card_height**2 / aspect
    assert _area(quad) == pytest.approx(local**2 / aspect, rel=0.015)
    # At the frame's centre the lens bends nothing: the plane's card size.
    centre = plane.to_plane(np.array([[(_VIEW.width_px - 1) / 2.0, (_VIEW.height_px - 1) / 2.0]]))[0]
    assert plane.card_height_at(centre) == pytest.approx(plane.card_height, rel=1e-4)
    # A pinhole camera's plane is card-sized everywhere.
    pinhole = make_plane(frame, calibration=Calibration(homography=_VIEW.homography(), rms_px=0.0), card_height_px=None)
    assert pinhole.card_height_at(quad.mean(axis=0)) == pinhole.card_height


def _read(deck: DeckProfile, cards: tuple[SimCard, ...], seed: int, *, lens_size: bool) -> tuple[list[Any], Any]:
    renderer = TableRenderer(deck=deck, view=_VIEW, seed=seed)
    frame = renderer.render(dataclasses.replace(_SCENE, cards=cards), seed=seed)
    settings = RecognizerSettings(lens_card_size=lens_size)
    reading = Recognizer(deck=deck, settings=settings, calibration=view_calibration(_VIEW)).read(frame)
    return [renderer.card_quad_px(card) for card in cards], reading


@pytest.mark.parametrize("lens_size", [True, False], ids=["lens size", "plane size"])
def test_a_two_stack_in_a_barrelled_corner_is_counted_where_its_cards_are(
    hershey: DeckProfile, lens_size: bool
) -> None:
    # Fitted at the plane's card size the two rectangles chosen first lie turned a quarter from
    # the cards, at the stack's two ends, some 30 px from either; the card on top fitted to the
    # back then takes their place, spanned over both its ends (``backs._turned_tops``). At the
    # size the lens gives a card there each rectangle lies on its card from the start.
    truth, reading = _read(hershey, _TWO_IN_A_CORNER, seed=3012, lens_size=lens_size)
    centres = [tuple(quad.mean(axis=0).tolist()) for quad in truth]
    found = [c.center for c in reading.cards if c.code == BACK]
    assert each_counted_once(centres, found), (centres, found)


def test_a_card_at_the_frame_centre_is_read_as_before(kennard: DeckProfile) -> None:
    # Where the lens bends nothing the card is fitted and read exactly as at the plane's card size.
    x, y = view_calibration(_VIEW).to_mm([[(_VIEW.width_px - 1) / 2.0, (_VIEW.height_px - 1) / 2.0]])[0]
    card = SimCard(code="7c", x_mm=float(x), y_mm=float(y), angle_deg=20)
    _truth, with_lens = _read(kennard, (card,), seed=1, lens_size=True)
    _truth, plane_size = _read(kennard, (card,), seed=1, lens_size=False)
    assert [c.code for c in with_lens.cards] == ["7c"]
    assert [(c.code, c.corners) for c in with_lens.cards] == [(c.code, c.corners) for c in plane_size.cards]


def test_a_calibration_from_the_layouts_markers_gives_the_card_size_the_lens_makes(kennard: DeckProfile) -> None:
    # What a technician's calibration gives (the lens measured from the markers, not the camera's
    # known one) sizes a card in the frame's corner as the camera shows it.
    markers = [
        MarkerConfig(id=i, x_mm=x, y_mm=y)
        for i, (x, y) in enumerate(
            [(40, 40), (960, 40), (960, 520), (40, 520), (500, 40), (960, 280), (500, 520), (40, 280)]
        )
    ]
    view = TableView(tilt_deg=20.0, distortion_k1=-0.06)
    sim = [Marker(id=m.id, x_mm=m.x_mm, y_mm=m.y_mm, size_mm=m.size_mm) for m in markers]
    renderer = TableRenderer(deck=kennard, view=view, markers=sim)
    corner = SimCard(code="2d", x_mm=110, y_mm=470, angle_deg=35)
    frame = renderer.render(Scene(cards=(corner,)))
    calibration = calibrate_markers(frame, markers)
    assert calibration.lens is not None  # measured
    plane = make_plane(frame, calibration=calibration, card_height_px=None)
    assert plane.card_height is not None
    quad = plane.to_plane(renderer.card_quad_px(corner))
    local = plane.card_height_at(quad.mean(axis=0))
    assert local is not None
    aspect = 88.0 / 63.0
    assert _area(quad) > 1.08 * plane.card_height**2 / aspect
    assert _area(quad) == pytest.approx(local**2 / aspect, rel=0.03)
