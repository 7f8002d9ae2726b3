"""A stack's rectangles squared: the card's rectangle a nearly rectangular quad stands for."""

from __future__ import annotations

import numpy as np

from vision.pipeline.backs import squared
from vision.pipeline.geometry import unit


def _squared_by_the_book(c: np.ndarray, card_w: float, card_h: float) -> np.ndarray | None:
    """The rectangle as first written out on numpy arrays: the reference the plain-float one must match."""
    across = unit(c[1] - c[0]) + unit(c[2] - c[3])
    down = unit(c[3] - c[0]) + unit(c[2] - c[1])
    a = unit(unit(across) + np.array([down[1], -down[0]]) / max(float(np.hypot(*down)), 1e-9))
    b = np.array([-a[1], a[0]])
    w = 0.5 * (float(np.hypot(*(c[1] - c[0]))) + float(np.hypot(*(c[2] - c[3]))))
    h = 0.5 * (float(np.hypot(*(c[3] - c[0]))) + float(np.hypot(*(c[2] - c[1]))))
    if not (0.88 <= w / card_w <= 1.12 and 0.88 <= h / card_h <= 1.12):
        return None
    mid = c.mean(axis=0)
    rect = np.array([mid - a * w / 2 - b * h / 2, mid + a * w / 2 - b * h / 2, mid + a * w / 2 + b * h / 2])
    rect = np.vstack([rect, mid - a * w / 2 + b * h / 2])
    return None if float(np.hypot(*(rect - c).T).max()) > 0.1 * card_w else rect


def test_a_quad_is_squared_to_the_same_floats_as_by_the_book() -> None:
    rng = np.random.default_rng(11)
    card_w, card_h = 60.0, 84.0
    kept = 0
    for k in range(3000):
        turn = rng.uniform(0.0, 2.0 * np.pi)
        a = np.array([np.cos(turn), np.sin(turn)])
        b = np.array([-a[1], a[0]])
        at = rng.uniform(0.0, 900.0, 2)
        quad = np.array([at, at + a * card_w * rng.uniform(0.85, 1.15), at + a * card_w + b * card_h, at + b * card_h])
        quad = quad + rng.normal(0.0, (0.5, 3.0, 8.0)[k % 3], (4, 2))
        want, got = _squared_by_the_book(quad, card_w, card_h), squared(quad, card_w=card_w, card_h=card_h)
        assert (want is None) == (got is None)
        if want is not None:
            assert got is not None and np.array_equal(want, got)
            kept += 1
    assert kept > 1000  # most are squared: the comparison is of rectangles, not of refusals
