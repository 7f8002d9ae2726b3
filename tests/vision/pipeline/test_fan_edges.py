"""Fan edges' paper test: the median of a band's grey ratios, taken without np.median."""

from __future__ import annotations

import numpy as np
import pytest

from vision.pipeline.fan_edges import PAPER_GREY, grey


def _by_median(dark: np.ndarray, bright: np.ndarray) -> bool:
    return bool(np.median(dark.astype(np.float32) / np.maximum(bright, 1)) >= PAPER_GREY)


@pytest.mark.parametrize(
    ("dark", "paper"),
    [
        ([50, 62], True),  # an even count: the mean of the middle two (0.56), not the lower one
        ([40, 68], False),  # ... nor the upper one (0.54)
        ([10, 56, 90], True),  # an odd count: the middle one
        ([10, 54, 90], False),
        ([55, 55, 55, 55], True),  # exactly at the bar, as np.median's float32 value compares
    ],
)
def test_paper_is_judged_by_the_median_grey_ratio(dark: list[int], paper: bool) -> None:
    d = np.array(dark, np.uint8)
    b = np.full(len(dark), 100, np.uint8)
    assert grey(d, b) is paper
    assert _by_median(d, b) is paper


def test_grey_agrees_with_numpys_median_on_any_pixels() -> None:
    rng = np.random.default_rng(7)
    for _ in range(400):
        n = int(rng.integers(1, 80))
        bright = rng.integers(0, 256, n).astype(np.uint8)
        dark = np.minimum(bright, rng.integers(0, 256, n)).astype(np.uint8)
        assert grey(dark, bright) == _by_median(dark, bright)


def test_no_pixels_are_no_paper() -> None:
    assert grey(np.zeros(0, np.uint8), np.zeros(0, np.uint8)) is False
