"""Face-down cards: telling a back from a face by the registered deck's own back signature."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.back_signature import PATCH_H, PATCH_W, BackSignature, features
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.masks import Masks

BACK: Final = "back"
ByteImage = npt.NDArray[Any]
_PATCH_CORNERS: Final = np.array([[0, 0], [PATCH_W, 0], [PATCH_W, PATCH_H], [0, PATCH_H]], np.float32)


class BackTester:
    """Whether a card hypothesis shows the deck's back: its interior's colours and brightness make-up
    compared with the back's and the faces' looks learnt at registration, so any design's back
    (saturated, white-bordered, a muted picture) is judged against itself, not against constants.
    """

    def __init__(self, *, signature: BackSignature) -> None:
        self.signature = signature

    def is_back(self, hyp: Hypothesis, image: ByteImage, masks: Masks) -> bool:
        """Judged once per hypothesis (remembered on it, with how clearly in ``back_score``)."""
        if hyp.back is None:
            hyp.back, hyp.back_score = self._judge(hyp, image, masks.fg)
        return hyp.back

    def visible_back(self, hyp: Hypothesis, image: ByteImage, masks: Masks, covered: ByteImage) -> bool:
        """Whether the part of ``hyp`` that no chosen card ``covers`` is the back: a back under
        another shows only a strip, and the card on top (its border across the middle) would
        make the whole quad look like neither. Not remembered: ``covered`` grows as cards are chosen.
        """
        visible = cv2.bitwise_and(masks.fg, cv2.bitwise_not(covered))
        back, score = self._judge(hyp, image, visible, least=0.08)
        if back:
            hyp.back_score = score
        return back

    def _judge(self, hyp: Hypothesis, image: ByteImage, fg: ByteImage, least: float = 0.25) -> tuple[bool, float]:
        h = cv2.getPerspectiveTransform(hyp.corners.astype(np.float32), _PATCH_CORNERS)
        patch = cv2.warpPerspective(image, h, (PATCH_W, PATCH_H), flags=cv2.INTER_AREA)
        # Felt inside the quad (a stacked card's strip beside the card on top, an outline a
        # little off) is no part of the card; off the plane is felt too.
        valid = cv2.warpPerspective(fg, h, (PATCH_W, PATCH_H), flags=cv2.INTER_NEAREST)
        vector = features(patch, valid, least=least)
        return (False, 0.0) if vector is None else self.signature.judge(vector)
