"""Whether a card's far index corner on a blob's outline is in view or under the cards above it."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]
# How far (card widths) past a card's corner the outline is looked at, along each of the card's
# two edges through it and along its diagonal. A corner in view is a corner of the blob: past it
# the blob ends (the rounded corner's few pixels aside). A corner on the outline yet under the
# cards above it lies where one of their edges runs on, collinear (a fan's straight edge) or
# crossing: past it there is card.
PAST: Final = 0.15
# A point past the corner this share of PAST outside the outline is cloth: a corner in view leaves
# its three points about PAST out (its rounded corner nearer, the diagonal's point further); a
# collinear edge leaves one on the outline.
CLEAR_SHARE: Final = 0.5


def far_covered(outline: ByteImage, corners: Vec, *, corner: int) -> bool:
    """Whether ``corners``' corner ``corner`` (plane pixels, clockwise, as a Hypothesis's) has card past
    it on the blob ``outline`` along one of its two edges or its diagonal (see PAST): a corner
    there is under another card, its index none of this card's to show."""
    here = corners[corner]
    width = float(np.hypot(*(corners[1] - corners[0])))
    along = [corners[(corner + 1) % 4] - here, corners[(corner + 3) % 4] - here]
    units = [v / max(float(np.hypot(*v)), 1e-9) for v in along]
    past = PAST * width
    looks = [here - past * units[0], here - past * units[1], here - past * (units[0] + units[1]) / np.sqrt(2.0)]
    return any(cv2.pointPolygonTest(outline, (float(p[0]), float(p[1])), True) > -CLEAR_SHARE * past for p in looks)
