"""The technician's debug picture: each zone's name inside its own zone, card labels that never cover each other."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.debug import label_spots, zone_label_at


@pytest.mark.parametrize("turn_deg", [-2.0, -0.2, 0.0, 0.2, 2.0])
def test_a_zones_name_stands_inside_it_near_its_top_left_however_the_camera_is_turned(turn_deg: float) -> None:
    # A box zone 180 x 170 px as a camera turned a little sees it; its neighbour begins 8 px to
    # its right. Written at the highest corner, a zone turned clockwise had its name in the next.
    a = math.radians(turn_deg)
    turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    box = np.array([[0.0, 0.0], [180.0, 0.0], [180.0, 170.0], [0.0, 170.0]]) @ turn.T + (300.0, 700.0)
    x, y = zone_label_at(box)
    assert cv2.pointPolygonTest(box.astype(np.float32), (float(x), float(y)), True) > 3
    assert math.dist((x, y), box[0]) < 25


def _boxes(spots: list[tuple[int, int]], sizes: list[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    return [(x, y, x + w, y + h) for (x, y), (w, h) in zip(spots, sizes, strict=True)]


def _overlaps(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_a_lone_cards_label_is_centred_on_the_card() -> None:
    ((x, y),) = label_spots([(500.0, 400.0)], sizes=[(120, 24)], frame_wh=(1920, 1080))
    assert (x, y) == (440, 388)


@pytest.mark.parametrize("gap", [0.0, 6.0, 20.0, 35.0])
def test_the_labels_of_a_tight_fan_or_stack_never_cover_each_other(gap: float) -> None:
    # A fan's three cards and a stack's three backs have centres 0-40 px apart; their labels
    # (120 x 24 px), written at the centres, covered each other and none could be read.
    centres = [(800.0 + gap * k, 500.0 + gap * k / 2) for k in range(3)] + [(830.0, 505.0), (790.0, 520.0)]
    sizes = [(120, 24), (150, 24), (96, 24), (120, 24), (110, 24)]
    boxes = _boxes(label_spots(centres, sizes=sizes, frame_wh=(1920, 1080)), sizes)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not _overlaps(a, b), (a, b)
    for (cx, cy), box in zip(centres, boxes, strict=True):  # each stays near its own card
        assert abs((box[1] + box[3]) / 2 - cy) < 6 * 26 and abs((box[0] + box[2]) / 2 - cx) < 150


def test_labels_stay_inside_the_frame_at_its_edges_and_corners() -> None:
    centres = [(2.0, 3.0), (1915.0, 1078.0), (1919.0, 1079.0), (0.0, 1079.0)]
    sizes = [(120, 24)] * 4
    for x0, y0, x1, y1 in _boxes(label_spots(centres, sizes=sizes, frame_wh=(1920, 1080)), sizes):
        assert x0 >= 0 and y0 >= 0 and x1 <= 1920 and y1 <= 1080
