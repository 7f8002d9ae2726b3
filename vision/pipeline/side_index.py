"""A four-index design's second index along a card's top edge: which decks print one, and a look at it."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import DeckProfile
from vision.deck_memo import DeckMemo
from vision.pipeline.corners import UNKNOWN, index_frame
from vision.pipeline.decide import CardDecider

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# A face prints its index again at the top edge's other end, upright, when the index box's mirror
# place there differs from the box by under this share of the box's own spread (grey levels):
# measured on the registered faces, dondorf 0.004 (four indices), standard 0.66, nicu-white 0.78,
# nicu-ornamental 0.90 (a pip, a picture or paper there).
SIDE_SAME: Final = 0.1
# The share of the registered faces that must print it so: the design's, not a few faces'.
SIDE_FACES: Final = 0.9

_SHIFTS: DeckMemo[float | None] = DeckMemo()


def side_shift(deck: DeckProfile) -> float | None:
    """How far along the top edge (a share of the card's width) the deck's faces print their index
    again, upright, at the edge's other end (a four-index design): None when they do not."""
    return _SHIFTS.get(deck, lambda: _measured_shift(deck))


def _measured_shift(deck: DeckProfile) -> float | None:
    """The side index's shift, judged on the registered faces themselves (not the design's name)."""
    box = deck.index_box
    x0, x1 = round(box.x0 * CARD_PX_W), round(box.x1 * CARD_PX_W)
    y0, y1 = round(box.y0 * CARD_PX_H), round(box.y1 * CARD_PX_H)
    printed = 0
    for face in deck.faces:
        grey = cv2.cvtColor(np.ascontiguousarray(face), cv2.COLOR_BGR2GRAY).astype(np.float64)
        w = grey.shape[1]
        own, side = grey[y0:y1, x0:x1], grey[y0:y1, w - x1 : w - x0]
        spread = float(own.std())
        if spread > 0.0 and float(np.abs(own - side).mean()) < SIDE_SAME * spread:
            printed += 1
    if printed < SIDE_FACES * len(deck.faces):
        return None
    return 1.0 - box.x0 - box.x1


def side_frame(corners: Vec, k: int, shift: float) -> tuple[Vec, Vec, Vec]:
    """Where the side index beside index corner ``k`` (0 or 2) is read from: ``index_frame``'s,
    moved ``shift`` of the card's width along its top edge, so the side index lands in the box."""
    origin, x_vec, y_vec = index_frame(corners, k)
    return origin + shift * x_vec, x_vec, y_vec


def read_side(
    image: ByteImage,
    corners: Vec,
    corner: int,
    *,
    best: str,
    decider: CardDecider,
    shift: float,
    near: list[int],
    bar: float,
) -> tuple[str, float] | None:
    """A card whose index corner ``corner`` fell short of a read, its best match ``best``: a
    four-index design prints two more indices on the card (beside corner 0 at corner 1, and
    beside corner 2 at corner 3), a second look at the same card. When one of those in view
    (``near``: 0 for the one beside corner 0, 2 for the one beside corner 2) reads ``best`` on its
    own, as closely as one index must (``bar``), the face is not clearly another card's and neither
    index is its twin's, that is the card (as ``CardDecider.read_far`` for the far index corner);
    else None. A side index under the next card shows its rank alone, which reads nothing or some
    other card, never this one.
    """
    for k in near:
        origin, x_vec, y_vec = side_frame(corners, k, shift)
        side = decider.corners.read(image, origin, x_vec, y_vec)
        if side.code == UNKNOWN or side.code != best or side.match is None or side.match.score < bar:
            continue
        turned = corners if corner == 0 else np.roll(corners, 2, axis=0)
        if not decider.face.agrees(image, turned, best, alone=False):
            continue
        held = decider.twins.holds(image, origin, x_vec, y_vec, code=best)
        if held and decider.twins.holds(image, *index_frame(corners, corner), code=best):
            return side.code, side.confidence
    return None
