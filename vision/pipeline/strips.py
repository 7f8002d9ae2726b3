"""Where a back's strip may lie: the back's brightness slid over a stack, what lies on it left out."""

from __future__ import annotations

import functools
import math
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

ByteImage = npt.NDArray[Any]
Quads = npt.NDArray[np.float64]
Scores = npt.NDArray[np.float64]
# Room (template pixels) kept around the patch the turns are made in: a turn of 3 degrees moves
# the corners of a template this small by about one.
_ROOM: Final = 2


def slide_strip(
    templates: list[npt.NDArray[np.float32]],
    *,
    image: ByteImage,
    covered: ByteImage,
    corners: npt.NDArray[np.float64],
    reach: float,
    turns: tuple[float, ...],
    least: float,
) -> tuple[Scores, Quads]:
    """Every card-sized rectangle shifted from ``corners`` by up to ``reach`` plane pixels along its
    sides and turned by each of ``turns`` degrees, with how well what ``covered`` does not hide of
    it correlates with the nearest of the (grey, equally sized) ``templates`` in place: (scores
    (n,), corners (n, 4, 2)); -1 where under ``least`` of the rectangle shows or it shows no
    pattern.

    One warp of the picture and of the mask around the rectangle, one turn of each per turn, then
    the correlation restricted to the pixels that show at every shift at once from sums slid over
    the patch (each a ``cv2.matchTemplate`` or a box sum): the cost of a few place-by-place
    likenesses for hundreds of places. Brightness only, at the templates' (coarse) size: where to
    look, not whether it is the back.
    """
    th, tw = templates[0].shape
    c = corners.astype(np.float32)
    pad = max(1, math.ceil(reach * tw / max(float(np.hypot(*(c[1] - c[0]))), 1.0)))
    room = pad + _ROOM
    own = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    h = cv2.getPerspectiveTransform(c, own + np.float32(room))
    size = (tw + 2 * room, th + 2 * room)
    gray = cv2.cvtColor(cv2.warpPerspective(image, h, size, flags=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    gray = gray.astype(np.float32)
    hidden = cv2.warpPerspective(covered, h, size, flags=cv2.INTER_NEAREST, borderValue=255)
    seen = (hidden == 0).astype(np.float32)
    centre = (size[0] / 2.0, size[1] / 2.0)
    to_plane = np.linalg.inv(h)
    # Where each shift's corners lie in the unturned patch, as (n * n * 4, 1, 2) points.
    at = _shifted(2 * pad + 1, tw, th)
    all_scores, all_quads = [], []
    for turn in turns:
        rot = cv2.getRotationMatrix2D(centre, turn, 1.0)
        if turn == 0.0:
            m, v = seen, gray * seen
        else:
            m = cv2.warpAffine(seen, rot, size, flags=cv2.INTER_NEAREST)
            v = cv2.warpAffine(gray, rot, size, flags=cv2.INTER_LINEAR) * m
        m, v = m[_ROOM:-_ROOM, _ROOM:-_ROOM], v[_ROOM:-_ROOM, _ROOM:-_ROOM]
        # Sums over each shift's window of what shows: its count, the picture's sum and squares.
        count, safe, by_template = _mask_sums(m, templates, least=least)
        s_i = _window(v, th, tw)
        s_ii = _window(v * v, th, tw)
        var_i = s_ii - s_i * s_i / safe
        best = np.full(count.shape, -1.0, np.float64)
        for t, (s_t, var_t, shows) in zip(templates, by_template, strict=True):
            s_it = cv2.matchTemplate(v, t, cv2.TM_CCORR).astype(np.float64)
            cross = s_it - s_i * s_t / safe
            ok = shows & (var_i > 0)
            r = np.where(ok, cross / np.sqrt(np.maximum(var_i * var_t, 1e-6)), -1.0)
            np.maximum(best, r, out=best)
        unturned = cv2.transform(at, cv2.invertAffineTransform(rot))
        quads = cv2.perspectiveTransform(unturned, to_plane).reshape(-1, 4, 2)
        all_scores.append(best.reshape(-1))
        all_quads.append(quads.astype(np.float64))
    return np.concatenate(all_scores), np.concatenate(all_quads)


@functools.lru_cache(maxsize=64)
def _shifted(n: int, tw: int, th: int) -> npt.NDArray[np.float32]:
    """The corners of a ``tw`` x ``th`` template at every one of ``n`` x ``n`` shifts of its top left
    corner from ``_ROOM`` in the unturned patch, as (n * n * 4, 1, 2) points, shifts row by row.

    The same few sizes and reaches recur (a frame's slides have a handful of pads): made once each
    (numpy's grid and broadcasts cost a slide an eighth of its time, for the same numbers).
    """
    own = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    dy, dx = np.mgrid[0:n, 0:n].astype(np.float32)
    at = own[None, None] + np.float32(_ROOM) + np.stack([dx, dy], axis=-1)[:, :, None, :]
    at = np.ascontiguousarray(at.reshape(-1, 1, 2))
    at.flags.writeable = False  # (shared by every slide of this size)
    return at


def _mask_sums(
    m: npt.NDArray[np.float32], templates: list[npt.NDArray[np.float32]], *, least: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], list[tuple[Any, Any, npt.NDArray[np.bool_]]]]:
    """The sums of :func:`slide_strip` that depend on what shows (``m``) alone: each shift's count
    of shown pixels (and that at least 1), and per template its sum and its spread over them, and
    at which shifts at least ``least`` of the rectangle shows where the template has a pattern.

    The same mask recurs (a stack's slide with nothing hidden, turned the same few ways, at the
    same size; the same cards hiding the same part): the last few masks' sums are remembered,
    keyed by the mask and the templates (the same numbers, worked out once).
    """
    key = (m.shape, least, m.tobytes(), *(t.tobytes() for t in templates))
    sums = _MASK_SUMS.get(key)
    if sums is None:
        th, tw = templates[0].shape
        count = _window(m, th, tw)
        safe = np.maximum(count, 1.0)
        by_template = []
        for t in templates:
            s_t = cv2.matchTemplate(m, t, cv2.TM_CCORR).astype(np.float64)
            s_tt = cv2.matchTemplate(m, t * t, cv2.TM_CCORR).astype(np.float64)
            var_t = s_tt - s_t * s_t / safe
            # A plain part of the back (under 12 grey levels' spread) has no pattern to match.
            by_template.append((s_t, var_t, (count >= least * (th * tw)) & (var_t >= count * 12.0**2)))
        if len(_MASK_SUMS) >= _MASK_SUMS_KEPT:
            _MASK_SUMS.clear()  # (one step, safe should two threads slide at once: at worst a miss)
        sums = _MASK_SUMS[key] = (count, safe, by_template)
    return sums


# The last few masks' sums (see _mask_sums): keyed by the mask's and the templates' bytes.
_MASK_SUMS: dict[tuple[object, ...], tuple[Any, Any, Any]] = {}
_MASK_SUMS_KEPT: Final = 64


def _window(values: npt.NDArray[np.float32], th: int, tw: int) -> npt.NDArray[np.float64]:
    """The sum of ``values`` over each ``th`` x ``tw`` window (valid positions only)."""
    total = cv2.integral(values, sdepth=cv2.CV_64F)
    return np.asarray(total[th:, tw:] - total[:-th, tw:] - total[th:, :-tw] + total[:-th, :-tw], np.float64)
