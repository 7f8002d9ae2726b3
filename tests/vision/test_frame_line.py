"""A court picture's frame line: found in a read's ink only where the registered faces have it."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.frame_line import FrameLine, frame_columns

_LINE = FrameLine(x0=20, x1=22, y0=10)


def _ink(*, x0: int, x1: int, top: int, lead: int = 0) -> npt.NDArray[np.uint8]:
    ink = np.zeros((60, 40), np.uint8)
    ink[top + lead :, x0 + lead : x1 + lead] = 255  # a column of ink running on to the bottom
    return ink


def test_the_line_is_found_at_its_registered_place_with_the_reads_lead() -> None:
    assert _LINE.seen_in(_ink(x0=20, x1=22, top=10), lead=0, index_h=40) == (20, 22, 10)
    assert _LINE.seen_in(_ink(x0=20, x1=22, top=10, lead=4), lead=4, index_h=40) == (24, 26, 14)


def test_a_column_off_the_place_or_starting_lower_is_no_frame_line() -> None:
    assert _LINE.seen_in(_ink(x0=27, x1=29, top=10), lead=0, index_h=40) is None  # 7 px right
    assert _LINE.seen_in(_ink(x0=20, x1=22, top=17), lead=0, index_h=40) is None  # starts 7 px lower
    assert _LINE.seen_in(_ink(x0=20, x1=22, top=40), lead=0, index_h=40) is None  # runs too short


def test_frame_columns_gives_the_leftmost_tall_run_and_where_it_starts() -> None:
    ink = _ink(x0=12, x1=14, top=30)
    ink[5:, 25:27] = 255
    assert frame_columns(ink, x_from=0, run=20) == (12, 14, 30)
    assert frame_columns(ink, x_from=15, run=20) == (25, 27, 5)
    assert frame_columns(ink, x_from=0, run=40) == (25, 27, 5)
