"""The radial lens model a table camera is described by: calibration measures it, the simulated camera draws with it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class Lens:
    """A lens' radial distortion about the frame's centre: a seen (distorted) point d is the ideal
    (pinhole) point c + (d - c)(1 + k1 r^2), r the distance from the centre in half diagonals.

    With ``k1`` < 0 (the barrel of a wide lens) a point is seen farther from the centre than a
    pinhole camera would show it, so a card near the frame's edge is drawn several per cent larger
    than a homography says, enough to put its index corner off its index. One coefficient
    describes the lenses of table cameras well.
    """

    k1: float
    width: int
    height: int

    @property
    def centre(self) -> Matrix:
        """The frame's centre (pixels), about which the lens bends."""
        return np.array([(self.width - 1) / 2.0, (self.height - 1) / 2.0])

    @property
    def norm(self) -> float:
        """The half diagonal (pixels): the unit of the radius ``k1`` multiplies."""
        return float(np.hypot(self.width / 2.0, self.height / 2.0))

    def undistort(self, pts_px: npt.ArrayLike) -> Matrix:
        """Seen image points (..., 2) where the pinhole camera would have seen them."""
        pts = np.asarray(pts_px, dtype=np.float64)
        if self.k1 == 0.0:
            return pts
        rel = (pts - self.centre) / self.norm
        r2 = (rel**2).sum(axis=-1, keepdims=True)
        return np.asarray(self.centre + rel * (1.0 + self.k1 * r2) * self.norm, dtype=np.float64)

    def distort(self, pts_px: npt.ArrayLike) -> Matrix:
        """Pinhole image points (..., 2) where this lens shows them (the inverse of
        :meth:`undistort`, by fixed-point steps: a few for the barrels of real lenses).
        """
        ideal = np.asarray(pts_px, dtype=np.float64)
        if self.k1 == 0.0:
            return ideal
        seen = ideal.copy()
        for _ in range(20):
            step = ideal - self.undistort(seen)
            seen += step
            if float(np.abs(step).max(initial=0.0)) < 1e-4:
                break
        return seen
