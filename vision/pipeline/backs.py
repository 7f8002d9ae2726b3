"""Face-down cards: telling a back from a face by the registered back's colours."""

from __future__ import annotations

from typing import Final

from vision.pipeline.geometry import shares, shrink
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.masks import Masks
from vision.pipeline.settings import RecognizerSettings

BACK: Final = "back"


class BackTester:
    """Whether a card hypothesis shows the deck's back."""

    def __init__(self, *, settings: RecognizerSettings) -> None:
        self.settings = settings

    def is_back(self, hyp: Hypothesis, masks: Masks) -> bool:
        """The middle of a back is mostly the back's colour and hardly any white paper; the red
        pips of a ten of hearts can be the one but never the other (remembered on the hypothesis).
        """
        if hyp.back is None:
            inner = shrink(hyp.corners, 0.6)
            back_share, paper_share = shares((masks.back, masks.paper), inner)
            hyp.back = back_share >= self.settings.back_share and paper_share < 0.25
        return hyp.back
