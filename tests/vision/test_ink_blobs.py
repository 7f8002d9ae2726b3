"""The ink mask's label helpers: OpenCV's byte-sized fast paths give numpy's own answers exactly."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.ink_blobs import _label_counts, _label_mask, _on_border, grown_ink


def _blobs(rng: np.random.Generator, *, density: float, shape: tuple[int, int] = (114, 62)) -> npt.NDArray[np.uint8]:
    """A random 0/1 mask the size of a corner patch: scattered ink, lightly smoothed into blobs."""
    noise = rng.random(shape, dtype=np.float32)
    smooth = cv2.GaussianBlur(noise, (3, 3), 0.8)
    return (smooth < density).astype(np.uint8)


def _labelled(
    mask: npt.NDArray[np.uint8], ltype: int
) -> tuple[int, npt.NDArray[np.int64] | npt.NDArray[np.uint16], npt.NDArray[np.int32]]:
    count, labels, stats, _c = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=ltype)
    return count, labels, stats[:count]


@pytest.mark.parametrize("ltype", [cv2.CV_16U, cv2.CV_32S])
def test_label_mask_and_counts_match_numpy_with_few_and_many_labels(ltype: int) -> None:
    rng = np.random.default_rng(7)
    counts_seen = []
    # Lone dots on a grid of every third pixel: far more than 256 blobs.
    dots = np.zeros((114, 62), np.uint8)
    dots[::3, ::3] = rng.random((38, 21)) < 0.8
    for mask in [_blobs(rng, density=d) for d in (0.2, 0.35, 0.45)] + [dots]:
        count, labels, _stats = _labelled(mask, ltype)
        counts_seen.append(count)
        chosen = rng.random(count) < 0.5
        chosen[0] = False
        assert np.array_equal(_label_mask(chosen, labels), chosen.astype(np.uint8)[labels])
        under = (rng.random(mask.shape) < 0.3).astype(np.uint8) & mask
        assert np.array_equal(
            _label_counts(labels, count, under), np.bincount(labels[under.view(bool)], minlength=count)
        )
    # Both the byte path (up to 256 labels) and numpy's (more) were taken.
    assert min(counts_seen) <= 256 < max(counts_seen)


def test_on_border_matches_the_column_formula() -> None:
    rng = np.random.default_rng(11)
    judged = []
    for density in (0.2, 0.4, 0.5):
        mask = _blobs(rng, density=density)
        h, w = mask.shape
        _count, _labels, stats = _labelled(mask, cv2.CV_16U)
        for min_area in (1, 3, 17):
            x, y, bw, bh, area = (stats[:, i] for i in range(5))
            want = (area >= min_area) & ((x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h))
            want[0] = False
            got = _on_border(stats, mask.shape, min_area)
            assert got.dtype == np.bool_
            assert np.array_equal(got, want)
            judged += want[1:].tolist()
    assert any(judged) and not all(judged)  # blobs on the border and off it were both judged


def _grown_by_definition(strong: npt.NDArray[np.uint8], weak: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The usual-level ink with every paler blob clear of the border that holds some of it added."""
    count, labels = cv2.connectedComponents(weak, connectivity=8)
    out = strong.copy()
    edge = set(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]).tolist())
    for k in range(1, count):
        blob = labels == k
        if k not in edge and strong[blob].any():
            out[blob] = 1
    return out


def test_the_grown_mask_is_the_usual_one_itself_when_nothing_grows() -> None:
    rng = np.random.default_rng(17)
    same = grew = 0
    for k in range(120):
        weak = _blobs(rng, density=(0.25, 0.4, 0.5)[k % 3])
        strong = ((rng.random(weak.shape) < (0.02, 0.3)[k % 2]).astype(np.uint8)) & weak
        if k % 4 == 0:  # the usual level only where the paler blobs touch the border (felt, a card's edge)
            _count, labels = cv2.connectedComponents(weak, connectivity=8)
            edge = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
            strong &= np.isin(labels, edge[edge > 0]).astype(np.uint8)
        got = grown_ink(strong, weak)
        assert np.array_equal(got, _grown_by_definition(strong, weak))
        _count, labels = cv2.connectedComponents(weak, connectivity=8)
        edge = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
        if not (strong.astype(bool) & ~np.isin(labels, edge) & (labels > 0)).any():
            # No piece lies in a paler blob clear of the border: the very same mask, so the read
            # knows nothing grew without comparing the two.
            assert got is strong
            same += 1
        else:
            grew += 1
    assert same > 10 and grew > 10
