"""Card shapes drawn as detection-plane masks, for the outline and hypothesis stages' tests."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.pipeline.outline import CARD_ASPECT

H = 82.0  # a card's long side, detection pixels
W = H / CARD_ASPECT


def card_quad(cx: float, cy: float, angle_deg: float, *, w: float = W, h: float = H) -> np.ndarray:
    a = math.radians(angle_deg)
    ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    c = np.array([cx, cy])
    return np.array(
        [
            c - ux * w / 2 - uy * h / 2,
            c + ux * w / 2 - uy * h / 2,
            c + ux * w / 2 + uy * h / 2,
            c - ux * w / 2 + uy * h / 2,
        ]
    )


def mask_of(*quads: np.ndarray, size: tuple[int, int] = (320, 480), radius: int = 0) -> np.ndarray:
    """Quads drawn at 4x and shrunk (anti-aliased edges, as a camera's), thresholded; ``radius``
    rounds the corners as a card's are (3.5 mm of 88: 3 px at the plane's scale).
    """
    big = np.zeros((size[0] * 4, size[1] * 4), np.uint8)
    for quad in quads:
        pts = np.round(quad * 4).astype(np.int32)
        cv2.fillConvexPoly(big, pts, 255)
    if radius:  # an opening by a disc rounds every convex corner to its radius
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (8 * radius + 1, 8 * radius + 1))
        big = cv2.morphologyEx(big, cv2.MORPH_OPEN, disc)
    small = cv2.resize(big, (size[1], size[0]), interpolation=cv2.INTER_AREA)
    return cv2.threshold(small, 127, 255, cv2.THRESH_BINARY)[1]
