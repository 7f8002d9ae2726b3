"""The technician's debug picture: each zone's name written inside its own zone."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.debug import zone_label_at


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
