"""Ground truth for generated tables: how much of each card, and of its index corners, the camera sees.

A face-up card can only be read where one of its two printed index corners (the registered deck's
index box and its 180° twin) is in view, and a back counted only where some of it shows (three
backs dealt 6-25 mm apart in any direction may leave the bottom one wholly under the other two).
On a generated table a corner can lie under a card dealt after it, a chip or a hand; the benchmark
uses these shares to say which misses no camera could avoid and which are the recognizer's.
Everything is drawn in the renderer's undistorted space, where the renderer itself paints cards,
chips and hands in that order, so the share is exact up to the lens (which bends a corner and what
covers it alike).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.effects import chip_rim_px
from drivers.camera.sim import Scene, SimCard, TableRenderer
from vision.card_raster import IndexBox

# Sub-pixel rasterisation: an index box is only some 15 x 40 px on a 150 px card.
_SCALE: Final = 4
# A corner counts as "in view" when at least this share of its index box shows: the rank and the
# suit are both whole (the registered box is drawn tight round them) but for a sliver of margin.
IN_VIEW: Final = 0.9
# A card "shows" when at least this share of it is in view: a strip 3 mm wide along a long side
# (some 7 px on a 150 px card), the least of a back under others that a camera could count.
SHOWING: Final = 0.05


Quad = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class _Covers:
    """What the renderer paints over a scene's cards, in its undistorted pixels, worked out once:
    each card's quad (in dealing order), each chip's top disc (centre, radius) and how far its rim
    shows below it, and the hands' polygons."""

    quads: list[Quad]
    chips: list[tuple[Quad, float, float]]
    hands: list[npt.NDArray[np.int32]]

    @classmethod
    def of(cls, renderer: TableRenderer, scene: Scene) -> _Covers:
        chips = []
        for chip in scene.chips:
            centre, radius = renderer.chip_disc_px(chip)
            chips.append((centre, max(radius, 3.0), chip_rim_px(radius, chip)))
        hands = [poly for hand in scene.hands for poly in renderer.hand_polys_px(hand)]
        return cls(quads=[renderer.ideal_quad_px(card) for card in scene.cards], chips=chips, hands=hands)


def card_view_shares(renderer: TableRenderer, scene: Scene) -> list[float]:
    """For every card of ``scene``, the share of it that nothing painted after it covers (0..1)."""
    covers = _Covers.of(renderer, scene)
    return [_shown(covers, k, quad) for k, quad in enumerate(covers.quads)]


def index_boxes_px(renderer: TableRenderer, card: SimCard, box: IndexBox) -> list[Quad]:
    """A card's two index boxes (its printed top-left one and the 180° twin) as pixel quads before the lens."""
    return _boxes(renderer.ideal_quad_px(card), box)


def _boxes(card_quad: Quad, box: IndexBox) -> list[Quad]:
    tl, tr, _br, bl = card_quad
    across, down = tr - tl, bl - tl
    quads = []
    for x0, y0, x1, y1 in ((box.x0, box.y0, box.x1, box.y1), (1 - box.x1, 1 - box.y1, 1 - box.x0, 1 - box.y0)):
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        quads.append(np.array([tl + u * across + v * down for u, v in corners], np.float64))
    return quads


def _shown(covers: _Covers, above: int, quad: Quad) -> float:
    """The share of ``quad`` that nothing painted after card ``above`` covers."""
    origin = np.floor(quad.min(axis=0)) - 1
    size = np.ceil(quad.max(axis=0) - origin).astype(int) + 2
    mask = np.zeros((int(size[1]) * _SCALE, int(size[0]) * _SCALE), np.uint8)

    def pts(points: Quad) -> npt.NDArray[np.int32]:
        scaled: npt.NDArray[np.int32] = np.round((np.asarray(points, np.float64) - origin) * _SCALE).astype(np.int32)
        return scaled

    cv2.fillConvexPoly(mask, pts(quad), 255)
    whole = cv2.countNonZero(mask)
    if whole == 0:
        return 0.0
    for later in covers.quads[above + 1 :]:
        cv2.fillConvexPoly(mask, pts(later), 0)
    for centre, r, rim in covers.chips:
        c = pts(centre[None, :])[0]
        cv2.circle(mask, (int(c[0]), int(c[1])), round(r * _SCALE), 0, -1)
        if rim > 0:
            low = pts(np.array([[centre[0], centre[1] + rim]]))[0]
            cv2.circle(mask, (int(low[0]), int(low[1])), round(r * _SCALE), 0, -1)
            corner = pts(np.array([[centre[0] - r, centre[1]], [centre[0] + r, centre[1] + rim]]))
            cv2.rectangle(mask, tuple(int(v) for v in corner[0]), tuple(int(v) for v in corner[1]), 0, -1)
    for poly in covers.hands:
        cv2.fillPoly(mask, [pts(poly.astype(np.float64))], 0)
    return cv2.countNonZero(mask) / whole


def index_view_shares(renderer: TableRenderer, scene: Scene, box: IndexBox) -> list[float | None]:
    """For every card of ``scene``, the share of its better index corner in view (0..1), or None
    for a face-down card (it has no index to show).
    """
    covers = _Covers.of(renderer, scene)
    return [
        max(_shown(covers, k, quad) for quad in _boxes(covers.quads[k], box)) if card.face_up else None
        for k, card in enumerate(scene.cards)
    ]
