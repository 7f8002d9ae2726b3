"""Table calibration: the homography from table millimetres to image pixels, and the bumped-camera check."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.config import MarkerConfig, PointConfig, ZoneConfig
from vision.errors import CalibrationError

MARKER_DICT: Final = "DICT_4X4_50"
CARD_W_MM: Final = 63.0
CARD_H_MM: Final = 88.0

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Calibration:
    """A table-to-image homography and how well it fits the points it was made from.

    ``markers_px`` keeps where each marker's centre was seen, so a later frame can tell whether
    the camera has moved.
    """

    homography: Matrix = field(repr=False)
    rms_px: float
    markers_px: dict[int, tuple[float, float]] = field(default_factory=dict)

    def to_px(self, pts_mm: npt.ArrayLike) -> Matrix:
        """Table millimetres (N, 2) to image pixels."""
        pts = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2), dtype=np.float64)

    def to_mm(self, pts_px: npt.ArrayLike) -> Matrix:
        """Image pixels (N, 2) to table millimetres."""
        pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 1, 2)
        inv = np.linalg.inv(self.homography)
        return np.asarray(cv2.perspectiveTransform(pts, inv).reshape(-1, 2), dtype=np.float64)

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


def calibrate_points(points: Sequence[PointConfig]) -> Calibration:
    """Homography from hand-measured points (four or more, not all on one line).

    Raises:
        CalibrationError: too few or degenerate points.
    """
    mm = np.array([[p.x_mm, p.y_mm] for p in points], dtype=np.float64).reshape(-1, 2)
    px = np.array([[p.u_px, p.v_px] for p in points], dtype=np.float64).reshape(-1, 2)
    h, rms = _fit(mm, px)
    return Calibration(homography=h, rms_px=rms)


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


def calibrate_markers(image: npt.NDArray[Any], markers: Sequence[MarkerConfig]) -> Calibration:
    """Homography from the layout's ArUco markers as seen in ``image`` (at least one, better four).

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
    h, rms = _fit(np.concatenate(mm_pts), np.concatenate(px_pts))
    return Calibration(homography=h, rms_px=rms, markers_px=centres)


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
