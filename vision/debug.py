"""The technician's picture of one read: what each stage found, drawn over the frame."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import ZoneMap
from vision.pipeline.smear import MIN_SMEAR_PX
from vision.recognize import BACK, UNKNOWN, FrameReading, Trace

ByteImage = npt.NDArray[Any]
_READ = (60, 220, 60)  # green: a card read
_UNKNOWN = (0, 200, 255)  # amber: a face-up card not read
_BACK = (255, 160, 60)  # blue: a back counted
_ZONE = (230, 230, 230)
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_SCALE = 0.7


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
    colours = [_BACK if c.code == BACK else _UNKNOWN if c.code == UNKNOWN else _READ for c in reading.cards]
    for card, colour in zip(reading.cards, colours, strict=True):
        quad = np.round(np.array(card.corners)).astype(np.int32)
        cv2.polylines(out, [quad], True, colour, 2 * thick, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in quad[0]), 4 * thick, colour, -1)  # the index corner read from
    labels = [f"{card.code} {card.confidence:.2f}" for card in reading.cards]
    boxes = [_text_box(label, thick=thick) for label in labels]
    spots = label_spots(
        [card.center for card in reading.cards], sizes=[(bw, bh) for bw, bh, _ in boxes], frame_wh=(w, h)
    )
    for card, colour, label, (bw, bh, base), (x, y) in zip(reading.cards, colours, labels, boxes, spots, strict=True):
        cx, cy = (int(v) for v in card.center)
        if not (x <= cx <= x + bw and y <= cy <= y + bh):  # moved off its card's centre: a line leads back
            cv2.line(out, (cx, cy), (min(max(cx, x), x + bw), min(max(cy, y), y + bh)), colour, thick, cv2.LINE_AA)
        origin = (x, y + bh - base)
        cv2.putText(out, label, origin, _FONT, _SCALE, (0, 0, 0), 4 * thick, cv2.LINE_AA)
        cv2.putText(out, label, origin, _FONT, _SCALE, colour, thick, cv2.LINE_AA)
    counts = {
        "read": sum(c.code not in (BACK, UNKNOWN) for c in reading.cards),
        "unknown": sum(c.code == UNKNOWN for c in reading.cards),
        "backs": sum(c.code == BACK for c in reading.cards),
    }
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    if trace.smear is not None and trace.smear.length >= MIN_SMEAR_PX:
        # (Unread cards were read again with it undone: a camera or table moving at the exposure.)
        summary += f", motion smear {trace.smear.length:.1f} px at {math.degrees(trace.smear.angle):.0f} deg"
    cv2.putText(out, summary, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 5, cv2.LINE_AA)
    cv2.putText(out, summary, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2, cv2.LINE_AA)
    panels = _stage_panels(trace, height=h // 2)
    if panels is None:
        return out
    return np.hstack([out, panels])


def _text_box(label: str, *, thick: int) -> tuple[int, int, int]:
    """A label's width and height in pixels, its dark outline and descenders included, and the
    depth of its baseline above the box's bottom."""
    (tw, th), base = cv2.getTextSize(label, _FONT, _SCALE, 4 * thick)
    return tw, th + base, base


def label_spots(
    centres: list[tuple[float, float]], *, sizes: list[tuple[int, int]], frame_wh: tuple[int, int]
) -> list[tuple[int, int]]:
    """Where each card's label box (``sizes``: width, height) is written, its top-left corner: on the
    card's centre where that is free, else the nearest free place around it, so that no two labels
    cover each other. A fan's three cards have centres 20-40 px apart and a stack's backs closer
    still: written at their centres, the labels of a tight fan were unreadable. Labels stay inside
    the frame; one that finds no free place within reach is written where it overlaps least.
    """
    fw, fh = frame_wh
    placed: list[tuple[int, int, int, int]] = []
    spots: list[tuple[int, int]] = []
    # Candidate places from the centre outwards: rows above and below, then shifted sideways.
    steps = [(0, 0)] + [(dx, dy) for r in range(1, 7) for dy in (-r, r) for dx in (0, -1, 1)]
    for (cx, cy), (tw, th) in zip(centres, sizes, strict=True):
        best: tuple[int, tuple[int, int, int, int]] | None = None
        for dx, dy in steps:
            x0 = int(min(max(cx - tw / 2 + dx * tw * 0.6, 0), fw - tw))
            y0 = int(min(max(cy - th / 2 + dy * (th + 2), 0), fh - th))
            box = (x0, y0, x0 + tw, y0 + th)
            cover = sum(_overlap(box, other) for other in placed)
            if best is None or cover < best[0]:
                best = (cover, box)
            if cover == 0:
                break
        assert best is not None
        placed.append(best[1])
        spots.append((best[1][0], best[1][1]))
    return spots


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


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
