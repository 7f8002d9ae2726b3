"""The technician's picture of one read: what each stage found, drawn over the frame."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import ZoneMap
from vision.recognize import BACK, UNKNOWN, FrameReading, Trace

ByteImage = npt.NDArray[Any]
_READ = (60, 220, 60)  # green: a card read
_UNKNOWN = (0, 200, 255)  # amber: a face-up card not read
_BACK = (255, 160, 60)  # blue: a back counted
_ZONE = (230, 230, 230)


def draw_debug(frame: ByteImage, reading: FrameReading, trace: Trace, *, zones: ZoneMap | None = None) -> ByteImage:
    """The frame with every card's outline, code and confidence and the zones, beside the stages'
    own pictures: the detection plane's masks (felt/not felt, the back's colours, ink) with the
    blobs' outline corners and every card hypothesis considered.
    """
    out = frame.copy()
    h, w = out.shape[:2]
    thick = max(1, round(w / 960))
    if zones is not None:
        for name, poly in zip(zones.names, zones.polygons_px, strict=True):
            cv2.polylines(out, [np.round(poly).astype(np.int32)], True, _ZONE, thick, cv2.LINE_AA)
            cv2.putText(out, name, zone_label_at(poly), cv2.FONT_HERSHEY_SIMPLEX, 0.6, _ZONE, thick)
    for card in reading.cards:
        colour = _BACK if card.code == BACK else _UNKNOWN if card.code == UNKNOWN else _READ
        quad = np.round(np.array(card.corners)).astype(np.int32)
        cv2.polylines(out, [quad], True, colour, 2 * thick, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in quad[0]), 4 * thick, colour, -1)  # the index corner read from
        label = f"{card.code} {card.confidence:.2f}"
        cx, cy = (int(v) for v in card.center)
        cv2.putText(out, label, (cx - 40, cy), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4 * thick, cv2.LINE_AA)
        cv2.putText(out, label, (cx - 40, cy), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, thick, cv2.LINE_AA)
    counts = {
        "read": sum(c.code not in (BACK, UNKNOWN) for c in reading.cards),
        "unknown": sum(c.code == UNKNOWN for c in reading.cards),
        "backs": sum(c.code == BACK for c in reading.cards),
    }
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    cv2.putText(out, summary, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 5, cv2.LINE_AA)
    cv2.putText(out, summary, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2, cv2.LINE_AA)
    panels = _stage_panels(trace, height=h // 2)
    if panels is None:
        return out
    return np.hstack([out, panels])


def _stage_panels(trace: Trace, *, height: int) -> ByteImage | None:
    """Two stacked pictures of the detection plane: masks, and outline corners with hypotheses."""
    if trace.plane is None or trace.masks is None:
        return None
    m = trace.masks
    masks = np.zeros((*m.fg.shape, 3), np.uint8)
    masks[m.fg > 0] = (90, 90, 90)
    masks[m.ink > 0] = (200, 200, 200)
    for hyp in trace.chosen:  # the cards judged backs (by the deck's back signature, not a mask)
        if hyp.code == BACK:
            back = np.zeros(m.fg.shape, np.uint8)
            cv2.fillConvexPoly(back, np.round(hyp.corners).astype(np.int32), 255)
            masks[(back > 0) & (m.fg > 0)] = _BACK
    shapes = trace.plane.image.copy() // 2
    for blob in trace.blobs:
        cv2.drawContours(shapes, [blob.contour], -1, (255, 255, 255), 1)
        for c in blob.corners:
            p = (int(c.point[0]), int(c.point[1]))
            cv2.circle(shapes, p, 3, (0, 0, 255), -1)
            q = (int(c.point[0] + 12 * c.x_dir[0]), int(c.point[1] + 12 * c.x_dir[1]))
            cv2.line(shapes, p, q, (0, 0, 255), 1)
    for hyp in trace.chosen:
        colour = _BACK if hyp.code == BACK else _UNKNOWN if hyp.code == UNKNOWN else _READ
        cv2.polylines(shapes, [np.round(hyp.corners).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
    ph, pw = masks.shape[:2]
    width = max(1, round(pw * height / ph))
    stacked = np.vstack([cv2.resize(masks, (width, height)), cv2.resize(shapes, (width, height))])
    for k, title in enumerate(("plane: not felt / ink / backs", "outline corners, cards chosen")):
        cv2.putText(stacked, title, (8, 22 + k * height), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1)
    return stacked


def zone_label_at(poly: npt.NDArray[Any]) -> tuple[int, int]:
    """Where a zone's name is written: just inside its top-left corner (the vertex nearest the
    frame's top left). The highest vertex would do for a level zone, but under a camera turned a
    fraction of a degree it is the top right one, and the name then stood in the next zone.
    """
    corner = poly[np.argmin(poly[:, 0] + poly[:, 1])]
    return int(corner[0]) + 4, int(corner[1]) + 18
