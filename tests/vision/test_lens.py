"""The lens model: its two directions agree, and the simulated camera draws with the same model calibration fits."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from drivers.camera.effects import apply_lens
from vision.lens import Lens


def test_a_lens_undistorts_what_it_distorts() -> None:
    lens = Lens(k1=-0.06, width=1920, height=1080)
    pts = np.array([[0.0, 0.0], [1919.0, 1079.0], [960.0, 540.0], [100.0, 900.0]])
    assert np.allclose(lens.undistort(lens.distort(pts)), pts, atol=1e-3)
    # k1 < 0: the frame shows points farther from its centre than a pinhole would; the centre
    # stays put.
    seen = lens.distort(pts)
    assert np.linalg.norm(seen[0] - lens.centre) > np.linalg.norm(pts[0] - lens.centre) + 20
    assert np.allclose(seen[2], pts[2], atol=0.6)


def test_no_distortion_leaves_points_and_frames_alone() -> None:
    lens = Lens(k1=0.0, width=640, height=480)
    pts = np.array([[3.0, 4.0], [600.0, 20.0]])
    assert np.array_equal(lens.distort(pts), pts)
    assert np.array_equal(lens.undistort(pts), pts)
    frame = np.zeros((480, 640, 3), np.uint8)
    assert apply_lens(frame, lens) is frame


@pytest.mark.parametrize("k1", [-0.08, 0.05])
def test_the_simulated_lens_draws_a_point_where_the_model_says(k1: float) -> None:
    # One bright dot drawn for a pinhole camera; after the simulated lens, its centre must be
    # where Lens.distort puts it: calibration and the simulator describe the same glass.
    lens = Lens(k1=k1, width=1280, height=720)
    for ideal in ((100.0, 80.0), (1150.0, 640.0), (640.0, 360.0)):
        frame = np.zeros((720, 1280), np.uint8)
        cv2.circle(frame, (round(ideal[0] * 16), round(ideal[1] * 16)), 3 * 16, 255, -1, cv2.LINE_AA, shift=4)
        seen = apply_lens(frame, lens).astype(np.float64)
        ys, xs = np.nonzero(seen)
        w = seen[ys, xs]
        centre = np.array([(xs * w).sum() / w.sum(), (ys * w).sum() / w.sum()])
        assert np.allclose(centre, lens.distort(np.array(ideal)), atol=0.3)
