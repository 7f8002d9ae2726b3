"""The index read's cheaper border cut finds the same glyph blobs, in the same order, as the numpy
one it replaced (kept here as the reference), on crafted corner patches: felt along the sides,
glyphs tied to the border by hairlines and by lines thick enough for the wider opening."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import ink_blobs
from vision.card_raster import CARD_PX_H, CARD_PX_W, Box, IndexBox
from vision.index_classifier import Discriminant
from vision.index_glyphs import SLIVER_HEIGHT, SLIVER_WIDTH, glyph_comps
from vision.ink_blobs import (
    SQUARE_3,
    SQUARE_5,
    _all_on_border,
    _border_flags,
    _chosen,
    edge_piece,
    grown_ink,
    hairlines_cut,
)

BOX = IndexBox(0.05, 0.04, 0.17, 0.22)


def _old_opened_pieces(joined: Any, shape: tuple[int, ...], min_area: int) -> list[npt.NDArray[Any]]:
    """The border cut's openings as they were (main 20afe86): numpy rows, every piece kept."""
    kept = []
    for square in (SQUARE_3, SQUARE_5):
        opened = cv2.morphologyEx(joined, cv2.MORPH_OPEN, square)
        count, labels, more, _c = cv2.connectedComponentsWithStats(opened, connectivity=8, ltype=cv2.CV_16U)
        more = more[:count]
        flags = _border_flags(more.tolist(), shape, min_area)
        still = np.array(flags)
        kept.append(more[1:][~still[1:]])
        if not any(flags):
            break
        joined = _chosen(flags, labels)
    else:
        kept.append(more[1:][still[1:]])
    return kept


def _old_hairlines_cut(ink: Any, labels: Any, stats: Any, min_area: int) -> tuple[npt.NDArray[Any], int]:
    border = _border_flags(stats.tolist(), ink.shape, min_area)
    carved = len(border) - sum(border)
    if not any(border):
        return stats, carved
    pieces = _old_opened_pieces(_chosen(border, labels), ink.shape, min_area)
    return np.concatenate([stats[~np.array(border)], *pieces]), carved


def _old_glyph_comps(ink: Any, box: IndexBox, *, lead: int, min_area: int) -> list[Box]:
    h, w = ink.shape
    count, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8, ltype=cv2.CV_16U)
    stats, carved = _old_hairlines_cut(ink, labels, stats[:count], min_area)
    sliver_w, sliver_h = SLIVER_WIDTH * CARD_PX_W, SLIVER_HEIGHT * (box.y1 - box.y0) * CARD_PX_H
    sliver_x = (box.x0 + 0.75 * (box.x1 - box.x0)) * CARD_PX_W
    return [
        (s[0], s[1], s[0] + s[2], s[1] + s[3])
        for i, s in enumerate(stats[1:].tolist(), 1)
        if s[4] >= min_area
        and s[0] > 0
        and s[1] > 0
        and s[0] + s[2] < w
        and s[1] + s[3] < h
        and not (s[2] <= sliver_w and s[3] < sliver_h and s[0] >= sliver_x)
        and not edge_piece(s, carved=i >= carved, lead=lead, thin=sliver_w, short=sliver_h)
    ]


def _patch(seed: int) -> tuple[npt.NDArray[np.uint8], int]:
    """A 0/1 corner patch's ink (67 x 36, kennard's size) and its lead: felt along the left and top
    sides (sometimes), glyph-sized blobs, some tied to a side by a line 1-4 pixels thick, specks.
    """
    rng = np.random.default_rng(seed)
    h, w = 67, 36
    ink = np.zeros((h, w), np.uint8)
    lead = int(rng.integers(0, 5))
    if lead and rng.random() < 0.8:
        ink[:lead, :] = 1
        ink[:, :lead] = 1
    for _ in range(int(rng.integers(1, 6))):
        x, y = int(rng.integers(1, w - 4)), int(rng.integers(1, h - 4))
        bw, bh = int(rng.integers(2, 12)), int(rng.integers(2, 14))
        ink[y : y + bh, x : x + bw] = 1
        if rng.random() < 0.3:  # hollow: a ring, thin enough for the openings to cut
            ink[y + 1 : y + bh - 1, x + 1 : x + bw - 1] = 0
        if rng.random() < 0.6:  # tied to the left or top side by a line
            t = int(rng.integers(1, 5))
            if rng.random() < 0.5:
                ink[y : y + t, : x + 1] = 1
            else:
                ink[: y + 1, x : x + t] = 1
    specks = rng.random((h, w)) < 0.01
    ink[specks] = 1
    return ink, lead


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), min_area=st.sampled_from([3, 6, 12]))
def test_glyph_comps_match_the_numpy_border_cut(seed: int, min_area: int) -> None:
    ink, lead = _patch(seed)
    assert glyph_comps(ink, BOX, lead=lead, min_area=min_area) == _old_glyph_comps(
        ink, BOX, lead=lead, min_area=min_area
    )


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), min_area=st.sampled_from([3, 4, 12]))
def test_hairlines_cut_keeps_every_row_of_the_numpy_one(seed: int, min_area: int) -> None:
    ink, _lead = _patch(seed)
    count, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8, ltype=cv2.CV_16U)
    got = hairlines_cut(ink, labels, stats[:count], min_area=min_area)
    want, _carved = _old_hairlines_cut(ink, labels, stats[:count], min_area)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)


def test_crafted_patches_take_every_path_of_the_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """The patches above are no easy case: some openings cut pieces free of the border and some
    do not, and pieces at least ``min_area`` come out of both openings (else the tests above
    could not fail)."""
    seen: list[bool] = []
    real = ink_blobs._all_on_border

    def spy(mask: Any) -> bool:
        seen.append(real(mask))
        return seen[-1]

    monkeypatch.setattr(ink_blobs, "_all_on_border", spy)
    freed = [0, 0]
    for seed in range(200):
        ink, lead = _patch(seed)
        assert glyph_comps(ink, BOX, lead=lead, min_area=6) == _old_glyph_comps(ink, BOX, lead=lead, min_area=6)
        count, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8, ltype=cv2.CV_16U)
        border = _border_flags(stats[:count].tolist(), ink.shape, 6)
        if any(border):
            pieces = _old_opened_pieces(_chosen(border, labels), ink.shape, 6)
            for stage, rows in enumerate(pieces[:2]):
                freed[stage] += any(
                    r[4] >= 6 and min(r[0], r[1]) > 0 and r[0] + r[2] < 36 and r[1] + r[3] < 67 for r in rows.tolist()
                )
    assert any(seen) and not all(seen)
    assert min(freed) > 0, freed


def test_all_on_border_is_every_blob_touching_the_border() -> None:
    rng = np.random.default_rng(5)
    answers = []
    for _ in range(300):
        mask = (rng.random((20, 14)) < rng.uniform(0.02, 0.5)).astype(np.uint8) * 255
        count, _labels, stats, _c = cv2.connectedComponentsWithStats(mask, connectivity=8)
        h, w = mask.shape
        want = all(x == 0 or y == 0 or x + bw >= w or y + bh >= h for x, y, bw, bh, _a in stats[1:count].tolist())
        assert _all_on_border(mask) == want
        answers.append(want)
    assert any(answers) and not all(answers)


def _old_grown_ink(strong: Any, weak: Any) -> Any:
    """grown_ink as it was (main 20afe86): border blobs found from the labels on the patch's sides."""
    count, labels = cv2.connectedComponents(weak, connectivity=8, ltype=cv2.CV_16U)
    keep = np.bincount(labels[strong.view(bool)], minlength=count) > 0
    keep[np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])] = False
    keep[0] = False
    return cv2.bitwise_or(strong, keep.astype(np.uint8)[labels])


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dots=st.booleans())
def test_grown_ink_matches_the_labels_on_the_sides(seed: int, dots: bool) -> None:
    weak, _lead = _patch(seed)
    rng = np.random.default_rng(seed)
    if dots:  # lone dots on every third pixel, felt on the left: over 256 blobs, numpy's path
        weak = np.zeros((114, 62), np.uint8)
        weak[::3, ::3] = rng.random((38, 21)) < 0.8
        weak[:, :2] = 1
        assert cv2.connectedComponents(weak, connectivity=8)[0] > 256
    strong = weak & (rng.random(weak.shape) < 0.3).astype(np.uint8)
    got = grown_ink(strong, weak)
    want = _old_grown_ink(strong, weak)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), modes=st.sampled_from([1, 2, 3]))
def test_distances_are_the_plain_formulas(seed: int, modes: int) -> None:
    rng = np.random.default_rng(seed)
    dim, classes = 40, 13
    model = Discriminant(
        projection=rng.normal(size=(dim, classes * modes - 1)).astype(np.float32),
        centres=rng.normal(size=(classes * modes, classes * modes - 1)).astype(np.float32),
        spread=float(rng.uniform(0.1, 30.0)),
        modes=modes,
    )
    vector = rng.normal(size=dim).astype(np.float32)
    z = vector @ model.projection
    want = ((model.centres - z) ** 2).sum(axis=1) * (1.0 / model.spread)
    if modes > 1:
        want = want.reshape(modes, -1).min(axis=0)
    got = model.distances(vector)
    assert got.dtype == np.float32 and got.tobytes() == want.astype(np.float32).tobytes()
