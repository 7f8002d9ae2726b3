"""The index read's cheaper steps of stop 34 give the very answers of the ones they replaced (kept
here as the reference, as main bb4c54f had them): the cut at the index's edge labelled without
stats, the run-together split by OpenCV's sums and boxes, the k-th value three ways, the softness'
quantiles, the glyph bounds' plain loops; and a read of crafted corner patches is the same feature
with the old steps put back."""

from __future__ import annotations

import math
import pickle
from typing import Any

import cv2
import numpy as np
import pytest

from vision import index
from vision.card_raster import CARD_PX_W, IndexBox
from vision.index import _kth, _softness, index_feature
from vision.index_glyphs import (
    _SEED_DX,
    _SEED_DY,
    _SIDE_SLACK,
    FRAME_TALL,
    STACK_GAP,
    cut_at_index,
    glyph_bounds,
    split_rank_suit,
)
from vision.ink_blobs import SQUARE_3

RNG_SEED = 34
# kennard's registered index box (as tests/vision/test_index_empty_reads.py has it): a 36x67 patch.
_BOX = IndexBox(x0=0.075, y0=0.058, x1=0.175, y1=0.25)
_SHAPE = (67, 36)


def _old_cut_at_index(ink: Any, box: IndexBox, min_area: int) -> list[Any]:
    h, w = ink.shape
    edge = min(w - 1, math.ceil(box.x1 * CARD_PX_W) + 1)
    part = cv2.morphologyEx(np.ascontiguousarray(ink[:, :edge]), cv2.MORPH_OPEN, SQUARE_3)
    count, _labels, stats, _c = cv2.connectedComponentsWithStats(part, connectivity=8, ltype=cv2.CV_16U)
    return [
        (s[0], s[1], s[0] + s[2], s[1] + s[3])
        for s in stats[1:count].tolist()
        if s[4] >= min_area and s[0] > 0 and s[1] > 0 and s[1] + s[3] < h and s[0] + s[2] == edge
    ]


def _old_split_rank_suit(ink: Any, box: Any, *, share: Any = None) -> Any:
    assert share is None  # (these reads pass no deck's gap: the middle is searched as it was)
    x0, y0, x1, y1 = box
    h = y1 - y0
    if h < 6:
        return None
    profile = ink[y0:y1, x0:x1].sum(axis=1).astype(np.float32)
    lo, hi = int(0.35 * h), int(0.7 * h)
    if hi <= lo:
        return None
    cut = y0 + lo + int(np.argmin(profile[lo:hi]))
    parts = []
    for top, bottom in ((y0, cut), (cut + 1, y1)):
        sub = ink[top:bottom, x0:x1]
        ys, xs = np.nonzero(sub)
        if len(ys) < 3:
            return None
        parts.append((x0 + int(xs.min()), top + int(ys.min()), x0 + int(xs.max()) + 1, top + int(ys.max()) + 1))
    return parts[0], parts[1]


def _old_kth(values: Any, k: int) -> int:
    flat = values.flatten()
    flat.partition(k)
    return int(flat[k])


def _old_quantile(values: Any, q: float) -> float:
    flat = values.flatten()
    k = int(q * (flat.size - 1))
    flat.partition(k)
    return float(flat[k])


def _old_softness(gray: Any, box: Any, paper: float) -> float:
    h, w = gray.shape
    x0, y0, x1, y1 = max(box[0] - 2, 0), max(box[1] - 2, 0), min(box[2] + 2, w), min(box[3] + 2, h)
    region = gray[y0:y1, x0:x1]
    if region.shape[0] < 3 or region.shape[1] < 3:
        return 0.0
    gx, gy = cv2.spatialGradient(region)
    gx32, gy32 = gx.astype(np.int32), gy.astype(np.int32)
    slope = math.sqrt(_old_quantile(gx32 * gx32 + gy32 * gy32, 0.99)) / 8.0
    contrast = paper - _old_quantile(region, 0.03)
    return contrast / (math.sqrt(2.0 * math.pi) * max(slope, 1e-3))


def _old_glyph_bounds(
    comps: list[Any],
    *,
    seed: tuple[float, float],
    limit: tuple[int, int],
    max_width: float,
    stacked_overlap: bool = False,
    frame_lines: bool = False,
) -> Any:
    sx, sy = seed
    near = [c for c in comps if abs(c[0] - sx) < _SEED_DX and abs(c[1] - sy) < _SEED_DY]
    if not near:
        return None
    start = min(near, key=lambda c: abs(c[0] - sx) + abs(c[1] - sy))
    x0, y0, x1, y1 = start
    joined = {start}
    grew = True
    while grew:
        grew = False
        for c in comps:
            if c in joined:
                continue
            gap = max(c[1] - y1, y0 - c[3], 0)
            slack = 0.0 if stacked_overlap and (c[1] >= y1 or c[3] <= y0) else _SIDE_SLACK
            shares_columns = c[0] < x1 + slack and c[2] > x0 - slack
            if frame_lines and c[0] >= x1 and c[3] - c[1] >= FRAME_TALL * (c[2] - c[0]):
                continue
            if shares_columns and gap <= STACK_GAP and c[2] - x0 < max_width:
                joined.add(c)
                x0, y0, x1, y1 = min(x0, c[0]), min(y0, c[1]), max(x1, c[2]), max(y1, c[3])
                grew = True
    if x1 > limit[0] or y1 > limit[1]:
        return None
    return (x0, y0, x1, y1), sorted(joined, key=lambda c: c[1])


def _edge() -> int:
    return min(_SHAPE[1] - 1, math.ceil(_BOX.x1 * CARD_PX_W) + 1)


def _crafted_cut_masks() -> dict[str, Any]:
    """0/1 masks of a corner patch whose ink crosses the registered index's right edge (column 29)."""
    h, w = _SHAPE
    masks: dict[str, Any] = {"empty": np.zeros(_SHAPE, np.uint8)}
    m = np.zeros(_SHAPE, np.uint8)
    m[12:26, 12:16] = 1  # the rank
    m[34:44, 14:w] = 1  # a suit run on into a pip beside the index, to the right border
    masks["suit run on"] = m
    m = masks["suit run on"].copy()
    m[20:30, 24:w] = 1  # and a second blob reaching the cut above it, touching the rank's
    masks["two touching glyphs"] = m
    m = np.zeros(_SHAPE, np.uint8)
    m[0:20, 20:w] = 1  # a glyph touching the patch's top border across the cut
    m[40:50, 10:w] = 1
    m[60:h, 22:w] = 1  # and one its bottom border
    masks["glyphs on the border"] = m
    m = np.zeros(_SHAPE, np.uint8)
    for y, x in ((10, 18), (11, 24), (30, 20), (31, 16), (50, 26)):  # first rows 2x2 blocks apart
        m[y : y + 6, x:w] = 1
        m[y + 6, x:w] = 0
    masks["blobs in one block row"] = m
    m = np.zeros(_SHAPE, np.uint8)
    m[30:32, 27:w] = 1  # thinner than the opening: gone before the cut
    m[40:43, 26:w] = 1  # a sliver that survives
    masks["slivers"] = m
    return masks


@pytest.mark.parametrize("name", list(_crafted_cut_masks()))
@pytest.mark.parametrize("min_area", [3, 6, 40])
def test_the_cut_at_the_index_edge_is_the_one_of_every_blobs_stats(name: str, min_area: int) -> None:
    mask = _crafted_cut_masks()[name]
    assert cut_at_index(mask, _BOX, min_area) == _old_cut_at_index(mask, _BOX, min_area)


def test_the_cut_on_random_masks_finds_the_same_pieces_in_the_same_order() -> None:
    rng = np.random.default_rng(RNG_SEED)
    found = 0
    for _ in range(400):
        mask = np.zeros(_SHAPE, np.uint8)
        for _blob in range(int(rng.integers(1, 12))):
            x, y = int(rng.integers(0, _SHAPE[1])), int(rng.integers(0, _SHAPE[0]))
            bw, bh = int(rng.integers(1, 30)), int(rng.integers(1, 14))
            mask[y : y + bh, x : x + bw] = 1
        mask &= (rng.random(_SHAPE) > rng.uniform(0, 0.2)).astype(np.uint8)  # holes and breaks
        want = _old_cut_at_index(mask, _BOX, 4)
        assert cut_at_index(mask, _BOX, 4) == want
        found += len(want) >= 2
    assert found > 20  # (several pieces at once, where their order shows)
    assert _edge() == 29


def test_the_run_together_split_is_numpys() -> None:
    rng = np.random.default_rng(RNG_SEED)
    answered = 0
    for i in range(300):
        mask = np.zeros(_SHAPE, np.uint8)
        x0, y0 = int(rng.integers(0, 10)), int(rng.integers(0, 20))
        bw, bh = int(rng.integers(1, 20)), int(rng.integers(1, 45))
        holes = rng.random((min(bh, _SHAPE[0] - y0), bw)) > [0.1, 0.5, 0.9][i % 3]
        mask[y0 : y0 + bh, x0 : x0 + bw] = holes.astype(np.uint8)
        if i % 4 == 0:
            mask *= 255  # a 0/255 mask, as the frame cut's copy may be
        box = (x0, y0, x0 + bw, min(y0 + bh, _SHAPE[0]))
        want = _old_split_rank_suit(mask, box)
        assert split_rank_suit(mask, box) == want
        answered += want is not None
    assert 30 < answered < 270  # both answers occur


def test_the_kth_value_is_the_partitioned_one_at_every_size() -> None:
    rng = np.random.default_rng(RNG_SEED)
    sizes = set()
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(1, 90, 2))
        plane = np.clip(200 + rng.integers(-40, 10, (h + 6, w + 6)), 0, 255).astype(np.uint8)
        plane[: h // 2, : w // 2] = rng.integers(0, 255)
        view = plane[6:, 6:]
        sizes.add("partition" if view.size <= 1000 else "bincount" if view.size <= 2400 else "calcHist")
        for k in {0, int(0.03 * (view.size - 1)), int(0.9 * (view.size - 1)), view.size - 1}:
            assert _kth(view, k) == _old_kth(view, k)
    assert sizes == {"partition", "bincount", "calcHist"}


def test_the_softness_is_the_quantiles_one() -> None:
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(200):
        h, w = int(rng.integers(20, 120)), int(rng.integers(20, 60))
        gray = np.full((h, w), int(rng.integers(150, 240)), np.uint8)
        x0, y0 = int(rng.integers(-2, w - 3)), int(rng.integers(-2, h - 3))
        x1, y1 = x0 + int(rng.integers(1, 45)), y0 + int(rng.integers(1, 45))
        cv2.circle(gray, ((x0 + x1) // 2, (y0 + y1) // 2), int(rng.integers(2, 20)), int(rng.integers(0, 120)), -1)
        gray = cv2.GaussianBlur(gray, (0, 0), float(rng.uniform(0.5, 2.5)))
        paper = float(rng.uniform(150, 240))
        box = (max(x0, 0), max(y0, 0), x1, y1)
        assert _softness(gray, box, paper) == _old_softness(gray, box, paper)


def test_the_glyph_bounds_join_the_same_boxes() -> None:
    rng = np.random.default_rng(RNG_SEED)
    for i in range(3000):
        comps = []
        for _ in range(int(rng.integers(0, 9))):
            x, y = int(rng.integers(0, 40)), int(rng.integers(0, 60))
            comps.append((x, y, x + int(rng.integers(1, 20)), y + int(rng.integers(1, 30))))
        if comps and i % 5 == 0:
            comps.append(comps[int(rng.integers(0, len(comps)))])  # a box listed twice
        kw: dict[str, Any] = {
            "seed": (float(rng.uniform(0, 30)), float(rng.uniform(0, 40))),
            "limit": (int(rng.integers(30, 60)), int(rng.integers(40, 90))),
            "max_width": float(rng.uniform(10, 40)),
            "stacked_overlap": bool(i % 2),
            "frame_lines": bool(i % 3),
        }
        assert repr(glyph_bounds(comps, **kw)) == repr(_old_glyph_bounds(comps, **kw))


def _corner(rng: np.random.Generator, kind: str) -> Any:
    """A kennard-sized corner patch (BGR, paper tinted) with a crafted index, blurred and noisy."""
    h, w = _SHAPE
    paper = 215 * rng.uniform(0.85, 1.0, 3)
    patch = np.ones((h, w, 3)) * paper
    dark, pale = (paper * 0.2).tolist(), (paper * 0.72).tolist()
    if kind == "two touching glyphs":  # rank and suit run together
        cv2.rectangle(patch, (13, 14), (17, 30), dark, -1)
        cv2.circle(patch, (16, 36), 6, dark, -1)
    elif kind == "glyph on the border":  # the suit runs on to the patch's right border
        cv2.rectangle(patch, (13, 14), (17, 28), dark, -1)
        cv2.rectangle(patch, (12, 35), (w, 45), dark, -1)
    elif kind == "paler blob in a strong one":  # a rank's pale stroke off its dark core
        cv2.rectangle(patch, (13, 14), (17, 28), dark, -1)
        cv2.rectangle(patch, (17, 14), (24, 17), pale, -1)
        cv2.circle(patch, (16, 38), 6, pale, -1)
        cv2.circle(patch, (16, 38), 3, dark, -1)
    elif kind == "plain index":
        cv2.rectangle(patch, (13, 14), (17, 28), dark, -1)
        cv2.circle(patch, (16, 38), 6, dark, -1)
    patch[: int(rng.integers(0, 7)), :] = (40, 90, 40)  # felt in the lead, or none
    patch = cv2.GaussianBlur(patch, (0, 0), float(rng.uniform(0.4, 2.2)))
    patch += rng.normal(0, 3, patch.shape)
    return np.clip(patch, 0, 255).astype(np.uint8)


def _same(a: Any, b: Any) -> bool:
    return pickle.dumps(a) == pickle.dumps(b)


_KINDS = ["two touching glyphs", "glyph on the border", "paler blob in a strong one", "plain index", "empty"]


@pytest.mark.parametrize("kind", _KINDS)
def test_a_read_of_a_crafted_corner_is_the_read_with_the_old_steps(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(RNG_SEED)
    patches = [_corner(rng, kind) for _ in range(12)]
    flags = (False, True)
    args = [{"cut": cut, "lead": lead, "pale": pale} for cut in flags for lead in (0, 6) for pale in flags]
    new = [index_feature(p, _BOX, **kw) for p in patches for kw in args]
    monkeypatch.setattr(index, "cut_at_index", _old_cut_at_index)
    monkeypatch.setattr(index, "split_rank_suit", _old_split_rank_suit)
    monkeypatch.setattr(index, "glyph_bounds", _old_glyph_bounds)
    monkeypatch.setattr(index, "_softness", _old_softness)
    monkeypatch.setattr(index, "_kth", _old_kth)
    old = [index_feature(p, _BOX, **kw) for p in patches for kw in args]
    assert all(_same(a, b) for a, b in zip(new, old, strict=True))
    found = sum(f is not None for f in new)
    assert (found == 0) if kind == "empty" else found > 0
