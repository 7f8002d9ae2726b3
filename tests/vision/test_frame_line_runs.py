"""frame_columns' shortcut for a mask with no ink on its bottom row: what a plain column-by-column count gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vision.frame_line import frame_columns

RNG_SEED = 36


def _scanned(ink: Any, *, x_from: int, run: float) -> tuple[int, int, int] | None:
    """frame_columns' answer worked out column by column, pixel by pixel: each column's unbroken
    ink up from the bottom row, then the leftmost group of adjacent columns whose ink runs ``run``."""
    h, w = ink.shape
    runs = []
    for x in range(x_from, w):
        n = 0
        while n < h and ink[h - 1 - n, x]:
            n += 1
        runs.append(n)
    group = []
    for i, n in enumerate(runs):
        if n >= run:
            group.append(i)
        elif group:
            break
    if not group:
        return None
    return x_from + group[0], x_from + group[-1] + 1, h - max(runs[i] for i in group)


def test_a_mask_whose_bottom_row_is_paper_has_no_frame_line() -> None:
    ink = np.zeros((60, 40), np.uint8)
    ink[5:59, 20:22] = 1  # a tall column stopping a row short of the bottom
    assert frame_columns(ink, x_from=0, run=20) is None
    ink[59, 21] = 1
    assert frame_columns(ink, x_from=0, run=20) == (21, 22, 5)


@pytest.mark.parametrize("x_from", [0, 7, 30])
def test_random_masks_give_what_the_column_scans_give(x_from: int) -> None:
    rng = np.random.default_rng(RNG_SEED + x_from)
    found = 0
    for _ in range(300):
        ink = np.zeros((67, 36), np.uint8)
        for _blob in range(int(rng.integers(0, 6))):
            x, y = int(rng.integers(0, 36)), int(rng.integers(0, 67))
            ink[y:, x : x + int(rng.integers(1, 4))] = 1  # columns running on to the bottom
        if rng.random() < 0.5:
            ink[-int(rng.integers(1, 3)) :, :] = 0  # a bottom row (or two) of paper
        ink &= (rng.random(ink.shape) > rng.uniform(0, 0.05)).astype(np.uint8)
        run = float(rng.uniform(5, 50))
        want = _scanned(ink, x_from=x_from, run=run)
        assert frame_columns(ink, x_from=x_from, run=run) == want
        found += want is not None
    assert found > 10  # the masks do hold lines
