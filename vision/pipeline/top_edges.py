"""The card on top of a stack drawn to its real outline: each side moved to the edge the picture shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.geometry import Vec, unit

ByteImage = npt.NDArray[Any]

# How far (card widths) a side is looked for either way of where it is drawn: outlines and the fit
# to the back leave a top 1-3 plane pixels off (0.02-0.05 of a card), and the back's own border
# runs a little farther in (its inner edge would be found instead).
_REACH: Final = 0.04
# Profiles across a side are sampled this far apart (plane pixels) ...
_STEP: Final = 0.25
# ... at this many places along each half of it, between its corners' rounding (the middle 70 %).
_ALONG: Final = 12
_ENDS: Final = 0.15
# The sides found must still make a card's rectangle: opposite sides as long as each other within
# this much of a card's width (true tops so moved differ by up to 0.047 on dev tables 500-511 and
# 13000-13003, six designs; a half side taking the card under it or the pattern for the edge
# tilts its side, and the sides then differ by 0.06-0.09: nicu-ornamental table 1004, 4.3 px,
# counted a middle card that is not there; kennard table 13009, 3.7 px, hid a lower card's strip).
_SHAPE: Final = 0.05


def refined_top(quad: Vec, *, image: ByteImage, card_w: float) -> Vec:
    """``quad`` with each side's two halves moved to where the picture falls off most steeply outward
    of the back's bright border within reach (the card's edge), the corners where the moved sides
    meet. A side whose edge does not show (the card under it shows a border as bright beyond it, no
    fall within reach) stays where it was drawn."""
    reach = _REACH * card_w
    # Only the picture around the card is looked at (made gray once, the profiles read from it).
    pad = 3 * reach + 2
    x0, y0 = max(int(quad[:, 0].min() - pad), 0), max(int(quad[:, 1].min() - pad), 0)
    x1, y1 = int(quad[:, 0].max() + pad) + 1, int(quad[:, 1].max() + pad) + 1
    near = image[y0:y1, x0:x1]
    gray = cv2.cvtColor(near, cv2.COLOR_BGR2GRAY) if near.ndim == 3 else near
    origin = np.array([x0, y0], np.float64)
    offsets = np.arange(-2 * reach, reach + 1e-9, _STEP)
    inner = round(reach / _STEP)  # the crest lies inward of the reach's outer end
    centre = quad.mean(axis=0)
    halves = [np.linspace(lo, hi, _ALONG) for lo, hi in ((_ENDS, 0.5), (0.5, 1 - _ENDS))]
    # Each side's outward normal and the points along each of its halves (all eight halves' profiles
    # read in one warp: the same samples as one by one, without the per-call cost).
    normals: list[Vec] = []
    bases: list[Vec] = []
    ats: list[Vec] = []
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        along = unit(q - p)
        normal = np.array([along[1], -along[0]])
        if float(np.dot(normal, (p + q) / 2 - centre)) < 0:
            normal = -normal
        normals.append(normal)
        for ts in halves:
            base = p[None, :] + ts[:, None] * (q - p)[None, :]
            bases.append(base)
            at = base[:, None, :] + offsets[None, :, None] * normal[None, None, :] - origin
            ats.append(at)
    maps = np.concatenate(ats)
    profs = (
        cv2.remap(
            gray,
            maps[..., 0].astype(np.float32),
            maps[..., 1].astype(np.float32),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        .astype(np.float64)
        .reshape(8, _ALONG, len(offsets))
    )
    # The back's border is the bright ridge along its edge: the side is where the picture falls off
    # most steeply outward of the ridge's crest (the border's inner edge, the pattern's own lines,
    # lie inward of it).
    means = profs.mean(axis=1)
    lines: list[tuple[Vec, Vec]] = []
    for i in range(4):
        p, q, normal = quad[i], quad[(i + 1) % 4], normals[i]
        along = unit(q - p)
        points: list[Vec | None] = []
        for h in (2 * i, 2 * i + 1):
            mean = means[h]
            crest = int(np.argmax(mean[: len(mean) - inner]))
            fall = -np.diff(mean)
            fall[:crest] = -np.inf
            k = int(np.argmax(fall))
            if k <= crest or k >= len(fall) - 1 or fall[k] <= 0:
                points.append(None)
                continue
            a, b, c = fall[k - 1], fall[k], fall[k + 1]
            den = a - 2 * b + c
            frac = 0.5 * (a - c) / den if den < 0 and np.isfinite(a) else 0.0
            off = offsets[0] + (k + 0.5 + frac) * _STEP
            points.append(bases[h].mean(axis=0) + off * normal)
        a0, a1 = points
        lines.append((p, along) if a0 is None or a1 is None else (a0, unit(a1 - a0)))
    out = np.empty((4, 2))
    for i in range(4):
        (p0, d0), (p1, d1) = lines[i - 1], lines[i]
        m = np.array([d0, -d1]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        s = np.linalg.solve(m, p1 - p0)
        out[i] = p0 + s[0] * d0
    return out


def precise_top(
    quad: Vec, *, image: ByteImage, card_w: float, whole: Callable[[Vec], float], drawn_at: float | None = None
) -> tuple[Vec, float]:
    """``quad`` (a card showing whole) moved to the edges the picture shows (``refined_top``) when it
    then matches the back as a whole card (``whole``) better, and that likeness; else as drawn.
    (Moving sides to where the likeness alone is best overshoots: it peaks a pixel or so off the
    true outline, above the true outline's own likeness: dev table 508's 3h, kennard, 0.98 a pixel
    off against 0.93 in place.)"""
    if drawn_at is None:
        drawn_at = whole(quad)
    edged = refined_top(quad, image=image, card_w=card_w)
    if float(np.abs(edged - quad).max()) > 2 * _REACH * card_w or not _card_shaped(edged, card_w=card_w):
        return quad, drawn_at
    score = whole(edged)
    return (edged, score) if score > drawn_at else (quad, drawn_at)


def _card_shaped(quad: Vec, *, card_w: float) -> bool:
    """Whether ``quad``'s opposite sides are as long as each other (within ``_SHAPE`` of a card's width)."""
    sides = [float(np.hypot(*(quad[(i + 1) % 4] - quad[i]))) for i in range(4)]
    return max(abs(sides[0] - sides[2]), abs(sides[1] - sides[3])) <= _SHAPE * card_w
