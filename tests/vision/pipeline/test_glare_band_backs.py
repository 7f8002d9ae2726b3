"""A back under a glare band: washed out across its middle, judged on the half the band leaves clear."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from vision.back_signature import PATCH_H, PATCH_W, features
from vision.deck import DeckProfile
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, view_calibration


def _banded(card: npt.NDArray[np.uint8], *, strength: float) -> npt.NDArray[np.uint8]:
    """A card's interior patch in dim warm light, a glare band of ``strength`` across its upper middle."""
    small = cv2.resize(card, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    small *= 0.5 * np.array((0.8, 0.95, 1.1), np.float32)
    rows = np.arange(PATCH_H, dtype=np.float32)
    band = np.exp(-((rows - 9.0) ** 2) / (2 * 3.0**2))
    return np.clip(small + strength * band[:, None, None], 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("name", "strength"), [("standard", 140.0), ("dondorf", 60.0)])
def test_a_banded_back_is_the_back_and_no_banded_face_is(
    name: str, strength: float, request: pytest.FixtureRequest
) -> None:
    deck: DeckProfile = request.getfixturevalue(name)
    signature = deck.back_signature
    back = _banded(deck.back, strength=strength)
    whole = features(back)
    assert whole is not None and not signature.judge(whole)[0]  # the whole looks like neither
    assert signature.judge_patch(back)[0]
    assert not any(signature.judge_patch(_banded(face, strength=strength))[0] for face in deck.faces)


# The benchmark's table 11009 (dim warm light, a glare band across the middle of the frame):
# standard's two lone backs under the band, and the lower back of a pair beside it.
_BANDED_BACKS_AT = (np.array([803.1, 530.6]), np.array([1116.5, 524.1]), np.array([1720.1, 479.1]))


def test_backs_under_a_glare_band_are_counted(standard: DeckProfile) -> None:
    table = random_table(np.random.default_rng(11009))
    _, frame = render_table(standard, table, seed=11009)
    reading = Recognizer(deck=standard, calibration=view_calibration(table.view)).read(frame)
    backs = [np.mean(np.array(c.corners), axis=0) for c in reading.cards if c.code == "back"]
    for at in _BANDED_BACKS_AT:
        assert any(float(np.hypot(*(centre - at))) < 22 for centre in backs)
