"""The detection plane: the frame shrunk, and at a calibrated table rectified to a top-down view of the layout.

Outlines, card hypotheses and masks live in the plane, where every card is the same rectangle
(63 x 88 mm at a known size) whatever the camera's tilt; index reads and face checks go back to
the full-resolution frame through :meth:`Plane.to_frame`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import Calibration
from vision.lens import Lens

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
CARD_H_MM: Final = 88.0
# A card's height in the rectified plane: about what the half-size frame gives a 160 px card,
# enough for outlines, cheap to threshold.
PLANE_CARD_PX: Final = 82.0
# The rectified plane is never larger than this many pixels (a camera looking far across the
# table would otherwise ask for a huge one).
_MAX_PLANE_PX: Final = 1.3 * 960 * 540


@dataclass(frozen=True)
class Plane:
    """The detection image and its map back to the frame.

    ``image`` is BGR at detection scale; ``valid`` marks its pixels that come from the frame
    (None: all). ``to_frame_h`` maps plane pixels to frame pixels; ``card_height`` is a card's
    long side in plane pixels when the calibration fixes it (None: measure it from the outlines).
    """

    image: ByteImage
    to_frame_h: npt.NDArray[np.float64]
    scale: float  # plane pixels per frame pixel, nominal (exact when not rectified)
    valid: ByteImage | None = None
    card_height: float | None = None
    rectified: bool = False
    # The camera's lens, which the plane does not undo (None: a pinhole camera): where it bends
    # the picture a card shows larger than ``card_height``, see :meth:`card_height_at`.
    lens: Lens | None = None

    def to_frame(self, pts: Vec) -> Vec:
        """Plane points (..., 2) in frame pixels."""
        pts = np.asarray(pts, dtype=np.float64)
        if not self.rectified:
            return pts / self.scale
        flat = pts.reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(flat, self.to_frame_h).reshape(pts.shape), dtype=np.float64)

    def to_plane(self, pts: Vec) -> Vec:
        """Frame points (..., 2) in plane pixels."""
        pts = np.asarray(pts, dtype=np.float64)
        if not self.rectified:
            return pts * self.scale
        flat = pts.reshape(-1, 1, 2)
        inverse = np.linalg.inv(self.to_frame_h)
        return np.asarray(cv2.perspectiveTransform(flat, inverse).reshape(pts.shape), dtype=np.float64)

    def card_height_at(self, at: Vec) -> float | None:
        """A card's long side (plane pixels) where its picture lies at the plane point ``at``:
        ``card_height`` grown by the lens' local scale there (the root of the area change the lens
        makes of a small square of the table the plane would show card-sized).
        """
        if self.card_height is None or self.lens is None:
            return self.card_height
        # Where the table point this picture shows would be in the plane without the lens, and a
        # plane-pixel square there as the plane shows it through the lens.
        to_plane = np.linalg.inv(self.to_frame_h)
        seen = np.asarray(at, dtype=np.float64).reshape(1, 1, 2)
        ideal = self.lens.undistort(cv2.perspectiveTransform(seen, self.to_frame_h).reshape(1, 2))
        true = cv2.perspectiveTransform(ideal.reshape(1, 1, 2), to_plane).reshape(2)
        square = (true + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])).reshape(-1, 1, 2)
        shown = self.lens.distort(cv2.perspectiveTransform(square, self.to_frame_h).reshape(-1, 2))
        p = cv2.perspectiveTransform(shown.reshape(-1, 1, 2), to_plane).reshape(-1, 2)
        area = abs(float(np.linalg.det(np.stack([p[1] - p[0], p[2] - p[0]], axis=1))))
        return self.card_height * float(np.sqrt(area))


def make_plane(frame: ByteImage, *, calibration: Calibration | None, card_height_px: float | None) -> Plane:
    """The detection plane of one frame.

    The plane is rectified by the calibration's homography alone, not through its lens: plane
    points map back to the frame pixels their picture came from either way, and with the lens the
    stages (developed on this plane) counted fewer stacked backs (about 1.2 of 35 per design on
    12 generated tables, and one more misread), so cards near the frame's edge keep the size a
    wide lens gives them there (up to a tenth more), which :meth:`Plane.card_height_at` says.

    Without a calibration it is the frame at half size (frames wider than 1280 px) and the card
    height is ``card_height_px`` (scaled) or unknown. With one, the frame at half size is warped
    to a top-down view of the table at ``PLANE_CARD_PX`` per card height, over the part of the
    table the frame shows.
    """
    h, w = frame.shape[:2]
    scale = 0.5 if w > 1280 else 1.0
    small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale != 1 else frame
    if calibration is None:
        return Plane(
            image=small,
            to_frame_h=np.diag([1.0 / scale, 1.0 / scale, 1.0]),
            scale=scale,
            card_height=None if card_height_px is None else card_height_px * scale,
        )
    mm_to_frame = np.asarray(calibration.homography, dtype=np.float64)
    frame_to_mm = np.linalg.inv(mm_to_frame)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2)
    seen_mm = cv2.perspectiveTransform(corners, frame_to_mm).reshape(-1, 2)
    ppm = PLANE_CARD_PX / CARD_H_MM
    lo, hi = seen_mm.min(axis=0), seen_mm.max(axis=0)
    size = (hi - lo) * ppm
    if size[0] * size[1] > _MAX_PLANE_PX:
        ppm *= float(np.sqrt(_MAX_PLANE_PX / (size[0] * size[1])))
        size = (hi - lo) * ppm
    pw, ph = int(np.ceil(size[0])), int(np.ceil(size[1]))
    # plane pixel -> table mm -> frame pixel
    plane_to_mm = np.array([[1.0 / ppm, 0.0, lo[0]], [0.0, 1.0 / ppm, lo[1]], [0.0, 0.0, 1.0]])
    to_frame = mm_to_frame @ plane_to_mm
    to_small = np.diag([scale, scale, 1.0]) @ to_frame
    image = _warp_bgr(small, to_small, (pw, ph))
    # The frame's own outline in the plane: outside it is nothing the camera saw.
    outline = cv2.perspectiveTransform(corners, np.linalg.inv(to_frame)).reshape(-1, 2)
    valid = np.zeros((ph, pw), np.uint8)
    cv2.fillConvexPoly(valid, np.round(outline).astype(np.int32), 255)
    return Plane(
        image=np.asarray(image),
        to_frame_h=to_frame,
        scale=ppm / _frame_px_per_mm(mm_to_frame, (lo + hi) / 2),
        valid=cv2.erode(valid, np.ones((5, 5), np.uint8)),
        card_height=CARD_H_MM * ppm,
        rectified=True,
        lens=calibration.lens if calibration.lens is not None and calibration.lens.k1 != 0.0 else None,
    )


def _warp_bgr(image: ByteImage, to_image: npt.NDArray[np.float64], size: tuple[int, int]) -> ByteImage:
    """``image`` (BGR) warped to the plane (bilinear, edges replicated) through a fourth channel:
    OpenCV warps four-channel pixels at about half the cost of three-channel ones, and each
    channel's values are the same (checked pixel for pixel), so the two conversions pay for
    themselves several times over (1.9 ms against 3.3 ms for a 1920x1080 frame's plane).
    """
    four = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    warped = cv2.warpPerspective(
        four, to_image, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
    return cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR)


def _frame_px_per_mm(mm_to_frame: npt.NDArray[np.float64], at_mm: Vec) -> float:
    """The frame's mean scale (pixels per millimetre) at a table point: the root of the map's
    local area change.
    """
    pts = np.array([at_mm, at_mm + np.array([1.0, 0.0]), at_mm + np.array([0.0, 1.0])], np.float64).reshape(-1, 1, 2)
    p = cv2.perspectiveTransform(pts, mm_to_frame).reshape(-1, 2)
    jac = np.stack([p[1] - p[0], p[2] - p[0]], axis=1)
    return float(np.sqrt(abs(np.linalg.det(jac))))
