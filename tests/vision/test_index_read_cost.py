"""The index read's cheaper steps give the very values of the ones they replaced (kept here as the
reference): the k-th value counted from a histogram, the blur made on the transposed patch, the
suit's ink colour summed by OpenCV over its core mask."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from vision.index import _blurred, _ink, _kth, _rastered

RNG_SEED = 15


def _old_kth(values: Any, k: int) -> int:
    flat = values.flatten()
    flat.partition(k)
    return int(flat[k])


def _old_rastered(patch_bgr: Any, gray: Any, ink: Any, suit_box: Any, *, paper: float, k90: int) -> Any:
    """The ink colour as main c275a48 worked it out: numpy's boolean gather and partitions."""
    sx0, sy0, sx1, sy1 = suit_box
    region = patch_bgr[sy0:sy1, sx0:sx1][gray[sy0:sy1, sx0:sx1] < paper * 0.45]
    if not len(region):
        region = patch_bgr[sy0:sy1, sx0:sx1][ink[sy0:sy1, sx0:sx1].astype(bool)]
    paper_bgr = np.array([_old_kth(c, k90) for c in cv2.split(patch_bgr)], np.float32) + 1.0
    if len(region):
        mean = (np.add.reduce(region, axis=0, dtype=np.int64) / len(region)).astype(np.float32)
        rel = (mean + 1.0) / paper_bgr
    else:
        rel = np.ones(3, np.float32)
    return np.asarray(rel / float(np.add.reduce(rel)), dtype=np.float32)


def test_the_kth_value_counted_from_a_histogram_is_the_partitioned_one() -> None:
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(300):
        h, w = rng.integers(1, 120, 2)
        plane = rng.integers(0, 256, (h + 6, w + 6), dtype=np.uint8)
        if rng.random() < 0.5:  # paper: most pixels a few values, as a corner patch's are
            plane = np.clip(200 + rng.integers(-3, 4, plane.shape), 0, 255).astype(np.uint8)
            plane[: h // 3] = rng.integers(0, 90)
        view = plane[6:, 6:]  # a view, as the patch's part past the lead
        for k in {0, int(0.9 * (view.size - 1)), view.size - 1, int(rng.integers(0, view.size))}:
            assert _kth(view, k) == _old_kth(view, k)


@pytest.mark.parametrize("shape", [(115, 56), (67, 36), (36, 67), (95, 46), (5, 5), (7, 200), (200, 7)])
def test_the_blur_of_the_transposed_patch_is_the_same_bytes(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(20):
        gray = rng.integers(0, 256, shape, dtype=np.uint8)
        if rng.random() < 0.5:  # smooth edges and flat paper, where rounding halves are common
            gray = cv2.resize(gray[::4, ::4], (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
        expected = cv2.GaussianBlur(gray, (5, 5), 1.5)
        got = _blurred(gray)
        assert got.shape == expected.shape
        assert got.tobytes() == expected.tobytes()


def _index_patch(rng: np.random.Generator, *, ink_level: float) -> tuple[Any, tuple[int, int, int, int]]:
    """A corner patch: tinted paper, a rank bar and a suit blob of ``ink_level`` of the paper's
    brightness (pale ones leave no dark core), blurred and noisy."""
    h, w = 67, 36
    tint = rng.uniform(0.8, 1.0, 3)
    paper = (215 * tint).astype(np.float64)
    patch = np.ones((h, w, 3)) * paper
    colour = paper * ink_level * (rng.uniform(0.6, 1.0, 3) if ink_level < 0.4 else 1.0)  # pale: grey
    patch[10:24, 10:14] = colour
    cx, cy = int(rng.integers(12, 20)), int(rng.integers(34, 40))
    cv2.circle(patch, (cx, cy), int(rng.integers(4, 7)), colour.tolist(), -1)
    patch = cv2.GaussianBlur(patch, (0, 0), float(rng.uniform(0.3, 1.6)))
    patch += rng.normal(0, 3, patch.shape)
    return np.clip(patch, 0, 255).astype(np.uint8), (cx - 8, cy - 8, cx + 8, cy + 8)


def test_the_ink_colour_summed_over_the_core_mask_is_the_gathered_mean() -> None:
    rng = np.random.default_rng(RNG_SEED)
    paths = {"core": 0, "ink": 0}
    for i in range(200):
        patch, suit_box = _index_patch(rng, ink_level=[0.2, 0.5, 0.58][i % 3])
        b, g, r = cv2.split(patch)
        gray = cv2.min(cv2.min(b, g), r)
        k90 = int(0.9 * (gray.size - 1))
        paper = float(_old_kth(gray, k90))
        ink = _ink(gray, paper * 0.62)
        sx0, sy0, sx1, sy1 = suit_box
        paths["core" if np.any(gray[sy0:sy1, sx0:sx1] < paper * 0.45) else "ink"] += 1
        feature = _rastered(
            patch, gray, ink, (10, 10, 14, 24), suit_box, paper=paper, k90=k90, channels=(b, g, r), softness=0.0
        )
        assert feature is not None
        assert feature.chroma.tobytes() == _old_rastered(patch, gray, ink, suit_box, paper=paper, k90=k90).tobytes()
        assert feature.softness == 0.0
    # Both ways the colour is taken occur: from the dark core, and from the whole ink where none is.
    assert min(paths.values()) >= 30
