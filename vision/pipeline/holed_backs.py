"""Holed rectangles that are backs of the cloth's colour after all, and the strips of backs under them."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.pipeline.back_tester import BackTester
from vision.pipeline.hypotheses import Hypothesis, parallel

ByteImage = npt.NDArray[Any]


def holed_backs(
    holed: list[Hypothesis],
    hyps: list[Hypothesis],
    *,
    image: ByteImage,
    fg: ByteImage,
    card_w: float,
    tester: BackTester,
) -> ByteImage:
    """Holed rectangles that are the back after all, added to ``hyps``; returns ``fg`` with them
    drawn in (a copy: the frame's mask stays as it was) so their area counts as card below.

    A back with the cloth's colour (a blue picture on blue felt, a red back under a warm lamp
    on red cloth) is felt to the hue test but for its border and lighter marks, and no hole
    filling closes it; only the back's own colours and pattern in place tell it (``pattern_back``).
    A back dealt under such a one shows a strip beside it: that strip is judged once the
    backs found whole are drawn over it.
    """
    kept = {id(hyp) for hyp in hyps}
    rest = sorted((h for h in holed if id(h) not in kept), key=lambda hh: (hh.anchors, hh.support), reverse=True)
    found: list[Hypothesis] = []
    for hyp in rest:  # one rectangle per card: the best-anchored
        far = not any(float(np.hypot(*(hyp.center - o.center))) < 0.25 * card_w for o in found)
        if far and tester.pattern_back(hyp, image):
            found.append(hyp)
    if not found:
        return fg
    # Strips of backs under those: what the cards found so far leave of a rectangle lying
    # on one of them, parallel and at least a stack's least offset away (nearer, it is the
    # same card from another corner), is judged; each one found covers the next.
    on_top = np.zeros_like(fg)
    for hyp in found:
        cv2.fillConvexPoly(on_top, np.round(hyp.corners).astype(np.int32), 255)
    for hyp in rest:
        if hyp.back:
            continue
        gaps = [float(np.hypot(*(hyp.center - o.center))) for o in found]
        if min(gaps) < 0.08 * card_w or not any(
            gap < card_w and parallel(hyp.corners, o.corners) for gap, o in zip(gaps, found, strict=True)
        ):
            continue
        if tester.pattern_back(hyp, image, on_top):
            found.append(hyp)
            cv2.fillConvexPoly(on_top, np.round(hyp.corners).astype(np.int32), 255)
    fg = fg.copy()
    for hyp in found:
        cv2.fillConvexPoly(fg, np.round(hyp.corners).astype(np.int32), 255)
        hyp.fill = 1.0
        hyps.append(hyp)
    return fg
