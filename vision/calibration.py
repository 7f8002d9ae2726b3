"""Table calibration: table millimetres to image pixels (homography and lens), and the bumped-camera check."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.config import MarkerConfig, PointConfig, ZoneConfig
from vision.errors import CalibrationError
from vision.lens import Lens

MARKER_DICT: Final = "DICT_4X4_50"
CARD_W_MM: Final = 63.0
CARD_H_MM: Final = 88.0

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Calibration:
    """Table millimetres to image pixels: a homography, then the lens (None: a pinhole camera), and
    how well they fit the points they were made from.

    ``markers_px`` keeps where each marker's centre was seen, so a later frame can tell whether
    the camera has moved.
    """

    homography: Matrix = field(repr=False)
    rms_px: float
    markers_px: dict[int, tuple[float, float]] = field(default_factory=dict)
    lens: Lens | None = None

    def to_px(self, pts_mm: npt.ArrayLike) -> Matrix:
        """Table millimetres (N, 2) to image pixels."""
        pts = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 1, 2)
        ideal = np.asarray(cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2), dtype=np.float64)
        return ideal if self.lens is None else self.lens.distort(ideal)

    def to_mm(self, pts_px: npt.ArrayLike) -> Matrix:
        """Image pixels (N, 2) to table millimetres."""
        pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        if self.lens is not None:
            pts = self.lens.undistort(pts)
        inv = np.linalg.inv(self.homography)
        return np.asarray(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inv).reshape(-1, 2), dtype=np.float64)

    def card_height_px(self, at_mm: tuple[float, float]) -> float:
        """How tall a card lying at ``at_mm`` appears, in pixels."""
        x, y = at_mm
        top, bottom = self.to_px([[x, y - CARD_H_MM / 2], [x, y + CARD_H_MM / 2]])
        return float(np.hypot(*(bottom - top)))

    def layout_card_height_px(self, zones: Sequence[ZoneConfig]) -> float:
        """How tall a card appears over the layout: the median over the zones' centres.

        Recognition sizes cards by this rather than by a vote of the frame's card sides, which a
        frame holding only fanned cards cannot give.

        Raises:
            ValueError: no zones.
        """
        if not zones:
            raise ValueError("no zones to measure the card height over")
        centres = [np.asarray(zone.polygon_mm, dtype=np.float64).mean(axis=0) for zone in zones]
        return float(np.median([self.card_height_px((float(c[0]), float(c[1]))) for c in centres]))


def _fit(mm: Matrix, px: Matrix) -> tuple[Matrix, float]:
    if len(mm) < 4:
        raise CalibrationError(f"calibration needs at least 4 points, got {len(mm)}")
    # Three points on one line (or all on two) give no homography: refuse rather than guess.
    hull = cv2.convexHull(mm.astype(np.float32))
    if cv2.contourArea(hull) < 1.0 or np.linalg.matrix_rank(np.c_[mm, np.ones(len(mm))]) < 3:
        raise CalibrationError("calibration points are collinear: spread them over the table")
    homography, _mask = cv2.findHomography(mm, px, 0)
    if homography is None or not np.isfinite(homography).all() or abs(np.linalg.det(homography)) < 1e-12:
        raise CalibrationError("calibration points give no usable homography")
    h = np.asarray(homography, dtype=np.float64)
    fitted = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), h).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((fitted - px) ** 2, axis=1))))
    return h, rms


def calibrate_points(points: Sequence[PointConfig], *, lens: Lens | None = None) -> Calibration:
    """Homography from hand-measured points (four or more, not all on one line), seen through
    ``lens`` when the camera's is known (a handful of points cannot measure it).

    Raises:
        CalibrationError: too few or degenerate points.
    """
    mm = np.array([[p.x_mm, p.y_mm] for p in points], dtype=np.float64).reshape(-1, 2)
    px = np.array([[p.u_px, p.v_px] for p in points], dtype=np.float64).reshape(-1, 2)
    h, rms = _fit(mm, px if lens is None else lens.undistort(px))
    return Calibration(homography=h, rms_px=rms, lens=lens)


def detect_markers(image: npt.NDArray[Any]) -> dict[int, Matrix]:
    """Every 4x4_50 ArUco marker in the frame: id -> its four corners (px, clockwise from top-left)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICT))
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _rejected = detector.detectMarkers(gray)
    found: dict[int, Matrix] = {}
    id_list: list[int] = [] if ids is None else [int(i) for i in np.asarray(ids).reshape(-1)]
    for quad, marker_id in zip(corners, id_list, strict=True):
        found[int(marker_id)] = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    return found


def _marker_corners_mm(m: MarkerConfig) -> Matrix:
    h = m.size_mm / 2
    return np.array(
        [
            [m.x_mm - h, m.y_mm - h],
            [m.x_mm + h, m.y_mm - h],
            [m.x_mm + h, m.y_mm + h],
            [m.x_mm - h, m.y_mm + h],
        ]
    )


def calibrate_markers(
    image: npt.NDArray[Any], markers: Sequence[MarkerConfig], *, lens_k1: float | None = None
) -> Calibration:
    """Homography from the layout's ArUco markers as seen in ``image`` (at least one, better four),
    through a lens of distortion ``lens_k1`` (None: measured from the markers when enough of them
    spread over the frame, see :func:`measure_lens`; else a pinhole camera).

    Raises:
        CalibrationError: no configured marker is visible.
    """
    seen = detect_markers(image)
    mm_pts, px_pts, centres = [], [], {}
    for m in markers:
        if m.id in seen:
            mm_pts.append(_marker_corners_mm(m))
            px_pts.append(seen[m.id])
            centres[m.id] = (float(seen[m.id][:, 0].mean()), float(seen[m.id][:, 1].mean()))
    if not mm_pts:
        wanted = ", ".join(str(m.id) for m in markers) or "none configured"
        raise CalibrationError(f"no calibration marker found in the frame (looking for ids {wanted})")
    mm, px = np.concatenate(mm_pts), np.concatenate(px_pts)
    height, width = image.shape[:2]
    if lens_k1 is None:
        lens = measure_lens(mm, px, width=width, height=height)
    else:
        lens = Lens(k1=lens_k1, width=width, height=height)
    h, rms = _fit(mm, px if lens is None else lens.undistort(px))
    return Calibration(homography=h, rms_px=rms, markers_px=centres, lens=lens)


# Measuring a lens: markers enough to tell a barrel from a homography's own freedom (their corners
# far from the frame's centre, where the barrel shows), the range of k1 searched, and how much
# better than a pinhole the fit must be to be believed.
_LENS_LEAST_POINTS: Final = 16
_LENS_LEAST_REACH: Final = 0.55  # of the half diagonal: the farthest point from the centre
_LENS_K1_RANGE: Final = (-0.3, 0.15)
_LENS_LEAST_GAIN: Final = 0.7  # the lens' RMS at most this share of the pinhole's


def measure_lens(mm: Matrix, px: Matrix, *, width: int, height: int) -> Lens | None:
    """The lens a set of marker corners (table mm, seen px) shows: the ``k1`` whose undistorted
    points a homography fits best, found by golden-section search; None when the points are too
    few or too central to tell, or a pinhole fits about as well.
    """
    if len(mm) < _LENS_LEAST_POINTS:
        return None
    probe = Lens(k1=0.0, width=width, height=height)
    reach = float(np.hypot(*((px - probe.centre) / probe.norm).T).max())
    if reach < _LENS_LEAST_REACH:
        return None

    def rms(k1: float) -> float:
        try:
            return _fit(mm, Lens(k1=k1, width=width, height=height).undistort(px))[1]
        except CalibrationError:
            return float("inf")

    lo, hi = _LENS_K1_RANGE
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = rms(a), rms(b)
    while hi - lo > 1e-4:
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = rms(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = rms(b)
    k1 = (lo + hi) / 2.0
    pinhole = rms(0.0)
    if rms(k1) > _LENS_LEAST_GAIN * pinhole or abs(k1) < 0.003:
        return None
    return Lens(k1=round(k1, 5), width=width, height=height)


@dataclass(frozen=True, slots=True)
class CameraCheck:
    """Result of :func:`check_camera`: did the markers stay where calibration saw them?"""

    moved: bool
    shift_px: float  # largest marker displacement seen
    markers_seen: int


def check_camera(calibration: Calibration, image: npt.NDArray[Any], *, tolerance_px: float) -> CameraCheck:
    """Re-find the calibration markers; a shift beyond ``tolerance_px`` means the camera was bumped.

    Markers hidden by a hand or a chip are skipped; if none is visible the check says so
    (``markers_seen == 0``) instead of claiming the camera is fine.

    Raises:
        CalibrationError: the calibration was made from points, not markers (nothing to re-find).
    """
    if not calibration.markers_px:
        raise CalibrationError("this calibration has no markers to check the camera against")
    seen = detect_markers(image)
    shifts = [
        float(np.hypot(seen[i][:, 0].mean() - x, seen[i][:, 1].mean() - y))
        for i, (x, y) in calibration.markers_px.items()
        if i in seen
    ]
    worst = max(shifts, default=0.0)
    return CameraCheck(moved=worst > tolerance_px, shift_px=worst, markers_seen=len(shifts))


@dataclass(frozen=True)
class ZoneMap:
    """The configured zones mapped into the image."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    polygons_px: tuple[Matrix, ...] = field(repr=False)

    @classmethod
    def build(cls, zones: Sequence[ZoneConfig], calibration: Calibration) -> ZoneMap:
        """Project every zone polygon from table mm into the image."""
        return cls(
            names=tuple(z.name for z in zones),
            kinds=tuple(z.kind for z in zones),
            polygons_px=tuple(calibration.to_px(z.polygon_mm) for z in zones),
        )

    def zone_of(self, point_px: tuple[float, float]) -> str | None:
        """The zone whose polygon holds the point (the first, if zones overlap), or None."""
        pt = (float(point_px[0]), float(point_px[1]))
        for name, poly in zip(self.names, self.polygons_px, strict=True):
            if cv2.pointPolygonTest(poly.astype(np.float32), pt, False) >= 0:
                return name
        return None
