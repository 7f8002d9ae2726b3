"""A smeared frame's unread cards looked at again with the smear undone: names added, none changed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN
from vision.pipeline.hypotheses import BACK, Hypothesis, same_card
from vision.pipeline.smear import Smear, measure_smear, unsmeared

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]

# Around each blob the smear is undone this far past its outline (frame pixels): an index read
# takes in a few pixels of cloth past the card's edge.
MARGIN_PX: Final = 12
# A card read with the smear undone names an unread card when it lies within this share of a
# card's width of it, the same way round (``same_card``).
SAME_PLACE: Final = 0.2


def box_around(outline: Vec, margin: int) -> tuple[int, int, int, int]:
    """The bounding box (x0, y0, x1, y1) of ``outline`` (frame pixels) grown by ``margin`` pixels."""
    x0, y0 = np.floor(outline.min(axis=0)).astype(int) - margin
    x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + margin + 1
    return int(x0), int(y0), int(x1), int(y1)


def unsmeared_frame(image: ByteImage, outlines: list[Vec], unsure: list[Vec]) -> tuple[Smear | None, ByteImage | None]:
    """The motion smear its cards' edges (``outlines``, frame pixels) show, and ``image`` with it
    undone around the ``unsure`` outlines, or None when the smear is not worth undoing."""
    smear = measure_smear(image, outlines)
    if smear is None:
        return None, None
    sharp = unsmeared(image, smear, [box_around(o, MARGIN_PX) for o in unsure])
    return smear, None if sharp is image else sharp  # (a smear too short to undo leaves the frame as it is)


def named_again(first: Sequence[Hypothesis], again: Callable[[], list[Hypothesis]], *, card_w: float) -> int:
    """Name the unread cards of ``first`` (one blob's cards as read) from ``again()`` (the same blob
    read with the smear undone); returns how many were named.

    A card takes the name (and the geometry it was read at) of a card read again at the same
    place, the same way round. The reads of ``first`` stand: a second look only adds names where
    the first found a card and could not read it, never a card the first did not find (a fan's
    edge unsmeared rings where no card lies) nor a card the blob already holds.
    """
    unread = [h for h in first if h.code == UNKNOWN]
    if not unread:
        return 0
    held = {h.code for h in first if h.code not in (UNKNOWN, BACK)}
    named = 0
    for hyp in again():
        if hyp.code in (UNKNOWN, BACK) or hyp.code in held:
            continue
        match = next((u for u in unread if same_card(u, hyp, SAME_PLACE * card_w)), None)
        if match is None:
            continue
        match.code, match.confidence = hyp.code, hyp.confidence
        match.corners, match.center = hyp.corners, hyp.center
        unread = [u for u in unread if u is not match]
        held.add(hyp.code)
        named += 1
    return named
