"""The detection plane: a calibrated frame rectified so every card is the same rectangle, and the map back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from drivers.camera.sim import CARD_W_MM, Scene, SimCard, TableRenderer, TableView
from vision.calibration import Calibration
from vision.deck import DeckProfile
from vision.pipeline.plane import CARD_H_MM, PLANE_CARD_PX, make_plane
from vision.scenes import view_calibration

# A camera 30 degrees off vertical: far cards are visibly smaller and flatter than near ones.
TILTED = TableView(tilt_deg=30.0, roll_deg=3.0)
NEAR_AND_FAR = (
    SimCard(code="As", x_mm=200, y_mm=500, angle_deg=20),  # near the camera (players' side)
    SimCard(code="Kd", x_mm=800, y_mm=70, angle_deg=-35),  # far (dealer's side)
)


def _sides(quad: np.ndarray) -> list[float]:
    return [float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4)]


def test_a_tilted_camera_sees_near_and_far_cards_at_different_sizes(kennard: DeckProfile) -> None:
    """The premise of the plane: without rectification card size depends on where it lies."""
    renderer = TableRenderer(deck=kennard, view=TILTED)
    near, far = (max(_sides(renderer.card_quad_px(card))) for card in NEAR_AND_FAR)
    assert near > 1.25 * far


def test_the_rectified_plane_shows_every_card_as_a_card_sized_rectangle(kennard: DeckProfile) -> None:
    renderer = TableRenderer(deck=kennard, view=TILTED)
    frame = renderer.render(Scene(cards=NEAR_AND_FAR), seed=0)
    plane = make_plane(frame, calibration=Calibration(homography=TILTED.homography(), rms_px=0.0), card_height_px=None)
    # PLANE_CARD_PX per card height, or less when the table in view would make the plane too big.
    assert plane.rectified and plane.card_height is not None and 40 < plane.card_height <= PLANE_CARD_PX
    for card in NEAR_AND_FAR:
        quad = plane.to_plane(renderer.card_quad_px(card))
        sides = sorted(_sides(quad))
        assert sides[2] == pytest.approx(plane.card_height, rel=0.02)
        assert sides[0] == pytest.approx(plane.card_height * CARD_W_MM / CARD_H_MM, rel=0.02)
        edges = [quad[(k + 1) % 4] - quad[k] for k in range(4)]
        for k in range(4):  # right angles
            a, b = edges[k], edges[(k + 1) % 4]
            assert abs(float(np.dot(a, b))) / (np.linalg.norm(a) * np.linalg.norm(b)) < 0.02


def test_the_plane_is_the_half_size_frame_warped_pixel_for_pixel(kennard: DeckProfile) -> None:
    """The plane is warped through a fourth channel for speed; it must hold the very pixels a
    three-channel warp gives (an OpenCV whose four-channel warp rounds differently fails here).
    """
    frame = TableRenderer(deck=kennard, view=TILTED).render(Scene(cards=NEAR_AND_FAR), seed=0)
    plane = make_plane(frame, calibration=Calibration(homography=TILTED.homography(), rms_px=0.0), card_height_px=None)
    small = cv2.resize(frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    h, w = plane.image.shape[:2]
    three = cv2.warpPerspective(
        small,
        np.diag([0.5, 0.5, 1.0]) @ plane.to_frame_h,
        (w, h),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    assert plane.image.shape == three.shape and plane.image.dtype == np.uint8
    assert np.array_equal(plane.image, three)


def test_plane_and_frame_points_map_both_ways(kennard: DeckProfile) -> None:
    frame = TableRenderer(deck=kennard, view=TILTED).render(Scene(), seed=0)
    plane = make_plane(frame, calibration=Calibration(homography=TILTED.homography(), rms_px=0.0), card_height_px=None)
    pts = np.array([[10.0, 20.0], [960.0, 540.0], [1900.0, 1070.0]])
    assert np.allclose(plane.to_frame(plane.to_plane(pts)), pts, atol=1e-6)


def test_what_the_camera_did_not_see_is_not_part_of_the_plane(kennard: DeckProfile) -> None:
    frame = TableRenderer(deck=kennard, view=TILTED).render(Scene(), seed=0)
    plane = make_plane(frame, calibration=Calibration(homography=TILTED.homography(), rms_px=0.0), card_height_px=None)
    assert plane.valid is not None
    # Under a tilted camera the frame is a trapezoid of the table: the plane's far corners (the
    # frame's top edge is the table's far side, seen wide) hold table the frame never showed.
    seen = plane.to_plane(np.array([[0.0, 0.0], [1919.0, 0.0], [1919.0, 1079.0], [0.0, 1079.0]]))
    inside = np.round(seen.mean(axis=0)).astype(int)
    assert plane.valid[inside[1], inside[0]] == 255
    outside = 0 < plane.valid.mean() / 255 < 0.999
    assert outside  # some of the plane's rectangle lies outside the frame and is marked so


def test_without_a_calibration_the_plane_is_the_frame_at_half_size(kennard: DeckProfile) -> None:
    frame = TableRenderer(deck=kennard, view=TILTED).render(Scene(), seed=0)
    plane = make_plane(frame, calibration=None, card_height_px=160.0)
    assert not plane.rectified and plane.image.shape[:2] == (540, 960)
    assert plane.card_height == pytest.approx(80.0)
    assert np.allclose(plane.to_frame(np.array([[100.0, 50.0]])), [[200.0, 100.0]])


def test_under_a_wide_lens_the_plane_still_maps_back_to_the_picture(kennard: DeckProfile) -> None:
    """The plane is the homography's even when the calibration knows the lens: a card near the
    frame's edge is a few per cent off a card's size there, but every plane point maps back to the
    frame pixels its picture came from, so outlines and index corners land on the card.
    """
    view = TableView(tilt_deg=25.0, distortion_k1=-0.06)
    edge = SimCard(code="2d", x_mm=70, y_mm=480, angle_deg=10)  # near a corner of the frame
    renderer = TableRenderer(deck=kennard, view=view)
    frame = renderer.render(Scene(cards=(edge,)), seed=0)
    calibration = view_calibration(view)
    assert calibration.lens is not None
    plane = make_plane(frame, calibration=calibration, card_height_px=None)
    assert plane.card_height is not None
    quad = plane.to_plane(renderer.card_quad_px(edge))
    assert abs(max(_sides(quad)) / plane.card_height - 1.0) > 0.02  # the lens' few per cent
    # Paper just inside the middle of each side and felt just outside: the picture is where the
    # plane's map says.
    centre = quad.mean(axis=0)
    gray = plane.image.min(axis=2)
    for k in range(4):
        mid = (quad[k] + quad[(k + 1) % 4]) / 2.0
        inward = (centre - mid) / np.linalg.norm(centre - mid)
        inside, outside = (np.round(mid + inward * d).astype(int) for d in (2.5, -2.5))
        assert gray[inside[1], inside[0]] > 150 > gray[outside[1], outside[0]]
