"""The index read skips the grown ink mask where nothing can grow: the same features as before."""

from __future__ import annotations

import dataclasses
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision import index, ink_blobs
from vision.card_raster import IndexBox
from vision.deck import DeckProfile
from vision.index import (
    GROW_SOFTNESS,
    INK_LEVELS,
    IndexFeature,
    _feature,
    _finished,
    _ink,
    index_feature,
)
from vision.index_glyphs import glyph_comps, glyph_comps_seen
from vision.ink_blobs import grown_ink
from vision.pipeline.corners import CORNER_LEAD, _led

Patch = npt.NDArray[np.uint8]


def _old_index_feature(patch_bgr: Any, box: Any, *, cut: bool = False, lead: int = 0, pale: bool = True) -> Any:
    """index_feature as it was (main 3b2ea08, no frame line): the grown mask made for every read
    that gets past the usual level.
    """
    b, g, r = cv2.split(patch_bgr)
    gray = cv2.min(cv2.min(b, g), r)
    flat = gray[lead:, lead:].flatten()
    channels = (b, g, r) if lead <= 0 else (b[lead:, lead:], g[lead:, lead:], r[lead:, lead:])
    k90 = int(0.9 * (flat.size - 1))
    flat.partition(k90)
    paper = float(flat[k90])
    if paper < 40:
        return None
    soft = cv2.GaussianBlur(gray, (5, 5), 1.5)
    crisp = cv2.addWeighted(gray, 1.8, soft, -0.8, 0)
    strong = _ink(crisp, paper * INK_LEVELS[0])

    def found_in(ink: Any) -> Any:
        return _feature(patch_bgr, gray, ink, paper=paper, k90=k90, box=box, channels=channels, cut=cut, lead=lead)

    first = found_in(strong)
    blurred = first is not None and first.softness > GROW_SOFTNESS
    feature = None if first is None or blurred else _finished(first)
    if feature is None:
        weak = _ink(crisp, paper * INK_LEVELS[1])
        grown = grown_ink(strong, weak)
        if cv2.countNonZero(cv2.absdiff(grown, strong)):
            feature = _finished(found_in(grown))
        if feature is None and blurred:
            feature = _finished(first)
        if feature is None and pale and cv2.countNonZero(cv2.absdiff(weak, grown)):
            feature = _finished(found_in(weak))
            if feature is not None:
                feature = dataclasses.replace(feature, pale=True)
    return feature


def _same(a: IndexFeature | None, b: IndexFeature | None) -> bool:
    if a is None or b is None:
        return a is b
    for f in dataclasses.fields(IndexFeature):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            if x.dtype != y.dtype or x.tobytes() != y.tobytes():
                return False
        elif x != y:
            return False
    return True


def _corner_patches(deck: DeckProfile, seed: int) -> list[Patch]:
    """Corner patches as the table's reads cut them (lead felt or a back, a face's corner shifted,
    blurred and noisy), and patches with no index: felt, a back's pattern, a face's middle.
    """
    rng = np.random.default_rng(seed)
    sw, sh = deck.index_box.search_size()
    w, h = sw + CORNER_LEAD, sh + CORNER_LEAD
    out = []
    for _ in range(24):
        face = deck.faces[int(rng.integers(len(deck.faces)))]
        canvas = np.empty((h + 40, w + 40, 3), np.uint8)
        canvas[:] = rng.integers(20, 120, 3)  # felt or the card below
        kind = int(rng.integers(4))
        if kind == 3:
            # A back's stripes (all ink runs on to the border) or its middle.
            for x in range(0, canvas.shape[1], int(rng.integers(6, 14))):
                cv2.line(canvas, (x, 0), (x - 30, canvas.shape[0]), (40, 40, 170), int(rng.integers(2, 5)))
        elif kind == 2:
            y, x = int(rng.integers(40, 120)), int(rng.integers(20, 80))
            canvas[:] = face[y : y + canvas.shape[0], x : x + canvas.shape[1]]
        else:
            dx, dy = int(rng.integers(-3, 4)), int(rng.integers(-3, 4))
            ox, oy = 20 + CORNER_LEAD + dx, 20 + CORNER_LEAD + dy
            canvas[oy:, ox:] = face[: canvas.shape[0] - oy, : canvas.shape[1] - ox]
        sigma = float(rng.uniform(0.3, 2.2))
        canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
        noise = rng.normal(0, rng.uniform(0, 8), canvas.shape)
        canvas = np.clip(canvas + noise, 0, 255).astype(np.uint8)
        out.append(np.ascontiguousarray(canvas[20 : 20 + h, 20 : 20 + w]))
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("pale", [True, False])
def test_reads_are_those_of_the_read_that_always_grew_the_ink(kennard: DeckProfile, seed: int, pale: bool) -> None:
    box = _led(kennard.index_box)
    for patch in _corner_patches(kennard, seed):
        new = index_feature(patch, box, cut=True, lead=CORNER_LEAD, pale=pale)
        old = _old_index_feature(patch, box, cut=True, lead=CORNER_LEAD, pale=pale)
        assert _same(new, old)


def test_the_grown_mask_is_skipped_on_felt_and_backs_and_still_made_where_ink_may_grow(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def counted(strong: Any, weak: Any) -> Any:
        calls.append(1)
        return ink_blobs.grown_ink(strong, weak)

    monkeypatch.setattr(index, "grown_ink", counted)
    monkeypatch.setitem(globals(), "grown_ink", counted)  # the old read's too
    box = _led(kennard.index_box)
    skipped = made = read = 0
    for seed in range(4):
        for patch in _corner_patches(kennard, seed):
            calls.clear()
            read += index.index_feature(patch, box, cut=True, lead=CORNER_LEAD) is not None
            new = len(calls)
            calls.clear()
            _old_index_feature(patch, box, cut=True, lead=CORNER_LEAD)
            skipped += len(calls) > new
            made += new > 0
    # (The patches are not all of one kind: some read, some skip the grown mask, some make it.)
    assert read > 20 and skipped > 5 and made > 5


@st.composite
def _masks(draw: st.DrawFn) -> tuple[Patch, Patch]:
    """A paler-level mask and a usual-level mask inside it (strong ⊆ weak): blobs, bars to the border."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    h, w = 40, 30
    weak = np.zeros((h, w), np.uint8)
    for _ in range(int(rng.integers(1, 8))):
        x, y = int(rng.integers(-4, w)), int(rng.integers(-4, h))
        cv2.rectangle(weak, (x, y), (x + int(rng.integers(1, 12)), y + int(rng.integers(1, 12))), 1, -1)
    if rng.random() < 0.5:
        cv2.line(weak, (int(rng.integers(w)), 0), (int(rng.integers(w)), h - 1), 1, int(rng.integers(1, 3)))
    strong = weak & (rng.random((h, w)) < rng.uniform(0.2, 1.0)).astype(np.uint8)
    return strong, weak


def _clear_of_border(mask: Patch) -> bool:
    """Whether any blob of ``mask`` has no pixel on its outer rows or columns (the plain definition)."""
    count, labels = cv2.connectedComponents(mask, connectivity=8)
    edge = set(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]).tolist())
    return any(k not in edge for k in range(1, count))


@settings(max_examples=300, deadline=None)
@given(_masks())
def test_a_mask_with_no_blob_clear_of_the_border_grows_to_itself(masks: tuple[Patch, Patch]) -> None:
    strong, weak = masks
    comps, clear = glyph_comps_seen(strong, _BOX, lead=CORNER_LEAD, min_area=4)
    assert comps == glyph_comps(strong, _BOX, lead=CORNER_LEAD, min_area=4)
    assert clear == _clear_of_border(strong)
    if not clear:
        assert np.array_equal(grown_ink(strong, weak), strong)


def test_a_blob_of_any_size_clear_of_the_border_is_seen() -> None:
    mask = np.zeros((40, 30), np.uint8)
    mask[:, :3] = 1  # the card's edge, on the border
    mask[10:20, 2:12] = 1  # a glyph joined to it
    assert not glyph_comps_seen(mask, _BOX, lead=CORNER_LEAD, min_area=4)[1]
    mask[30, 20] = 1  # a speck clear of the border: too small for a glyph, still a blob that may grow
    comps, clear = glyph_comps_seen(mask, _BOX, lead=CORNER_LEAD, min_area=4)
    assert clear and comps == glyph_comps(mask, _BOX, lead=CORNER_LEAD, min_area=4)
    weak = mask.copy()
    weak[28:33, 18:23] = 1
    assert not np.array_equal(grown_ink(mask, weak), mask)  # the speck grows to its paler blob


_BOX = IndexBox(x0=0.075, y0=0.058, x1=0.175, y1=0.25)
