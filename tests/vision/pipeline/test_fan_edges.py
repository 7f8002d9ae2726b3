"""Fan edges: the outline's straight edges, the paper test (a median grey ratio, without np.median), a side followed."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.pipeline.fan_edges import PAPER_GREY, Walk, band_starts, follow_side, grey, outline_edges
from vision.pipeline.plane import Plane


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


def _fanned_edge(*, shadow: bool) -> tuple[np.ndarray, Plane, np.ndarray, np.ndarray]:
    """A frame (2 frame pixels per plane pixel) where a card's top edge, turned -10 degrees, runs
    from its index corner over a card below and then past it over the felt; with ``shadow`` the
    edge casts a thin shadow on the card below, as a card's edge does. Returns the frame, its
    plane, where the edge leaves the card below and the edge's direction (plane pixels).
    """
    frame = np.full((320, 420, 3), (40, 90, 40), np.uint8)
    cv2.rectangle(frame, (60, 100), (190, 360), (226, 226, 226), cv2.FILLED)
    a = math.radians(-10.0)
    d, n = np.array((math.cos(a), math.sin(a))), np.array((-math.sin(a), math.cos(a)))
    corner = np.array((100.0, 150.0))
    quad = np.array([corner, corner + 120 * d, corner + 120 * d + 170 * n, corner + 170 * n])
    if shadow:
        ends = np.round([corner - 1.5 * n, corner + 120 * d - 1.5 * n]).astype(int).tolist()
        cv2.line(frame, tuple(ends[0]), tuple(ends[1]), (150, 150, 150), 2)
    cv2.fillConvexPoly(frame, np.round(quad).astype(np.int32), (234, 234, 234))
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    plane = Plane(image=cv2.resize(frame, None, fx=0.5, fy=0.5), to_frame_h=np.diag([2.0, 2.0, 1.0]), scale=0.5)
    leaves = corner + (190 - corner[0]) / d[0] * d  # where the edge leaves the card below (frame)
    return frame, plane, leaves * 0.5, d


def _walk_off(start: np.ndarray, d: np.ndarray, turn_deg: float) -> Walk:
    """The edge's 16 plane pixels past ``start`` as the outline fits them: through their middle,
    turned ``turn_deg``."""
    t = math.radians(turn_deg)
    along = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]]) @ d
    middle = start + 8.0 * d
    return Walk(middle - 8.0 * along, along, np.array((-along[1], along[0])), 16.0, True, True, False)


@pytest.mark.parametrize("turn", [-5.0, 4.0])
def test_a_short_edges_line_is_followed_over_the_card_below(turn: float) -> None:
    # A fan's card turned about a corner shows a short piece of its top edge between its
    # neighbours: a line fitted to that piece can be a few degrees off, and the index corner a
    # card's width back along it then lies several pixels off its index.
    frame, plane, start, d = _fanned_edge(shadow=True)
    walk = _walk_off(start, d, turn)
    followed = follow_side(frame, plane, walk, reach=54.0)
    error = math.degrees(math.acos(min(1.0, float(followed.along @ d))))
    assert error < 1.0
    # The index corner, 54 plane pixels back, lies on the followed line within a pixel.
    corner = np.array((50.0, 75.0))
    assert abs(float((corner - followed.origin) @ followed.inward)) < 1.0
    assert abs(float((corner - walk.origin) @ walk.inward)) > 3.0


def test_an_edge_that_shows_nothing_over_the_card_below_keeps_its_line() -> None:
    # Paper on paper without a shadow (or a blurred one): nothing to follow, the walk is kept.
    frame, plane, start, d = _fanned_edge(shadow=False)
    walk = _walk_off(start, d, -5.0)
    assert follow_side(frame, plane, walk, reach=54.0) is walk


def _band_frame(*, line: bool) -> tuple[np.ndarray, Plane]:
    """White paper (a fan's card) with a red index-like glyph at frame x 150-165 and, with ``line``,
    a thin dark line running along the whole band (the frame round the picture of a court card
    below, as dondorf prints it)."""
    frame = np.full((200, 400, 3), 225, np.uint8)
    if line:
        cv2.line(frame, (0, 60), (399, 60), (40, 40, 40), 2)
    cv2.rectangle(frame, (150, 50), (165, 70), (70, 70, 210), cv2.FILLED)  # a red glyph
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    return frame, Plane(image=cv2.resize(frame, None, fx=0.5, fy=0.5), to_frame_h=np.diag([2.0, 2.0, 1.0]), scale=0.5)


def _starts(frame: np.ndarray, plane: Plane) -> list[int]:
    """Every index start, plain and faint, along the band of ``_band_frame``'s frames (frame x = 10 + start / 2)."""
    plain, faint = band_starts(
        frame,
        plane,
        origin=np.array((10.0, 20.0)),
        step=np.array((0.5, 0.0)),
        across=np.array((0.0, 20.0)),
        rows=(0.0, 1.0),
        length=300,
        gap=3,
        lead=0,
    )
    return [*plain, *faint]


@pytest.mark.parametrize("line", [False, True])
def test_an_index_start_is_found_past_a_line_running_along_the_band(line: bool) -> None:
    # A line across every column of the band is no paper: judged with it, the paper would be as
    # dark as the line and no ink would show (dondorf's table 3008: the 9h's index beside the Ks's
    # picture frame, no start found). Without its rows the glyph starts where it does.
    frame, plane = _band_frame(line=line)
    starts = _starts(frame, plane)
    assert starts and all(abs(s - 130) <= 2 for s in starts)


def test_a_faint_grey_index_after_the_card_belows_dark_pip_starts_where_its_faint_ink_begins() -> None:
    # Table 19707's middle 3s: its grey, blurred 3 (darker than 0.8 of the paper, not 0.6) shows
    # after the big pip of the Th below; only the pip's start was found, not the index's.
    frame = np.full((200, 400, 3), 225, np.uint8)
    cv2.rectangle(frame, (100, 50), (130, 70), (40, 40, 200), cv2.FILLED)  # the card below's pip
    cv2.rectangle(frame, (150, 50), (165, 70), (160, 160, 160), cv2.FILLED)  # a faint grey glyph
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)
    plane = Plane(image=cv2.resize(frame, None, fx=0.5, fy=0.5), to_frame_h=np.diag([2.0, 2.0, 1.0]), scale=0.5)
    starts = _starts(frame, plane)
    assert any(abs(s - 130) <= 2 for s in starts)
    assert any(abs(s - 80) <= 2 for s in starts)


def _outline(points: list[tuple[int, int]]) -> np.ndarray:
    """The outer contour of the filled polygon ``points`` (as the fan scan gets a blob's)."""
    mask = np.zeros((300, 600), np.uint8)
    cv2.fillPoly(mask, [np.array(points, np.int32)], 255)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=cv2.contourArea)


def _top_edges(points: list[tuple[int, int]]) -> list[tuple[float, float, float]]:
    """The outline's edges along the top (y under 115): their two ends' x and their length."""
    edges = outline_edges(_outline(points), least=11.4)
    tops = []
    for e in edges:
        end = e.start + e.direction * e.length
        if max(e.start[1], end[1]) < 115:
            tops.append((float(min(e.start[0], end[0])), float(max(e.start[0], end[0])), float(e.length)))
    return tops


@pytest.mark.parametrize(
    ("points", "one_line"),
    [
        # dondorf's table 19501 (plane pixels): a fan whose tops lie in line, the middle card's
        # rounded corner a notch 4 px deep in the top edge, 20 px from the bottom card's corner.
        ([(354, 106), (355, 185), (458, 183), (456, 104), (384, 105), (383, 109), (374, 105)], True),
        # The same notch between two tops 6 px apart: two cards' edges, not one line.
        ([(354, 112), (355, 185), (458, 183), (456, 104), (384, 105), (383, 113), (374, 111)], False),
    ],
)
def test_a_notch_between_two_pieces_of_one_line_does_not_break_the_edge(
    points: list[tuple[int, int]], one_line: bool
) -> None:
    tops = _top_edges(points)
    whole = [t for t in tops if t[0] < 360 and t[1] > 450]
    assert bool(whole) is one_line
    if one_line:
        assert whole[0][2] == pytest.approx(102, abs=2)
