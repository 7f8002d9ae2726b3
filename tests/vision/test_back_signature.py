"""The back signature: backs of every kind (saturated, white-bordered, muted picture) found, faces never."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from drivers.camera.sim import Lighting, Scene, SimCard, TableRenderer, TableView
from vision.back_signature import PATCH_H, PATCH_W, BackSignature, features, learn_back_signature
from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, DeckProfile
from vision.errors import DeckError
from vision.recognize import BACK, Recognizer
from vision.synth import score_reading

VIEW = TableView(keystone=0.06, roll_deg=2.0)


def white_bordered_back() -> np.ndarray:
    """Like KDE's nicu-white back: a wide white border round a blue body, a fan of white cards
    with black edges in the middle (white paper where a face has it too).
    """
    back = np.full((CARD_PX_H, CARD_PX_W, 3), 246, np.uint8)
    cv2.rectangle(back, (10, 10), (CARD_PX_W - 11, CARD_PX_H - 11), (175, 60, 25), -1)
    for k, angle in enumerate((-20.0, 0.0, 20.0)):
        box = cv2.boxPoints(((CARD_PX_W / 2 + (k - 1) * 14, CARD_PX_H / 2), (52, 74), angle))
        cv2.fillConvexPoly(back, np.round(box).astype(np.int32), (250, 250, 250))
        cv2.polylines(back, [np.round(box).astype(np.int32)], True, (20, 20, 20), 2)
    return back


def muted_picture_back() -> np.ndarray:
    """Like KDE's dondorf back: a muted grey-teal ground with olive leaves and pale cream flowers,
    nothing saturated, inside a thin white border.
    """
    rng = np.random.default_rng(3)
    back = np.full((CARD_PX_H, CARD_PX_W, 3), 246, np.uint8)
    cv2.rectangle(back, (5, 5), (CARD_PX_W - 6, CARD_PX_H - 6), (128, 130, 100), -1)
    for _ in range(14):
        centre = (int(rng.integers(15, CARD_PX_W - 15)), int(rng.integers(15, CARD_PX_H - 15)))
        axes = (int(rng.integers(6, 18)), int(rng.integers(12, 30)))
        cv2.ellipse(back, centre, axes, float(rng.uniform(0, 180)), 0, 360, (70, 105, 120), -1)
    for _ in range(9):
        centre = (int(rng.integers(20, CARD_PX_W - 20)), int(rng.integers(20, CARD_PX_H - 20)))
        cv2.circle(back, centre, int(rng.integers(6, 14)), (200, 222, 228), -1)
    return cv2.GaussianBlur(back, (3, 3), 0)


def with_back(deck: DeckProfile, back: np.ndarray, name: str) -> DeckProfile:
    """The deck's faces with another back, its signature learnt as registration learns it."""
    return dataclasses.replace(
        deck, name=name, back=back, back_signature=learn_back_signature(back=back, faces=deck.faces)
    )


@pytest.fixture(scope="module", params=["saturated", "white-bordered", "muted-picture"])
def deck_with_back(request: pytest.FixtureRequest, kennard: DeckProfile) -> DeckProfile:
    if request.param == "saturated":
        return kennard  # the shipped deck's plain red casino back
    back = white_bordered_back() if request.param == "white-bordered" else muted_picture_back()
    return with_back(kennard, back, request.param)


def _table() -> Scene:
    """Four backs alone at various turns (2c-5c), a stack of two (6c, 7c) and one of three (8c-Tc),
    each 14-15 mm and a few degrees off the last, and twelve court cards face up (pictures: the
    faces nearest a picture back).
    """
    backs = [
        SimCard(code="2c", x_mm=90, y_mm=110, angle_deg=0, face_up=False),
        SimCard(code="3c", x_mm=230, y_mm=110, angle_deg=35, face_up=False),
        SimCard(code="4c", x_mm=370, y_mm=110, angle_deg=180, face_up=False),
        SimCard(code="5c", x_mm=510, y_mm=115, angle_deg=100, face_up=False),
        SimCard(code="6c", x_mm=660, y_mm=110, angle_deg=4, face_up=False),
        SimCard(code="7c", x_mm=675, y_mm=113, angle_deg=7, face_up=False),
        SimCard(code="8c", x_mm=820, y_mm=110, angle_deg=-3, face_up=False),
        SimCard(code="9c", x_mm=834, y_mm=112, angle_deg=0, face_up=False),
        SimCard(code="Tc", x_mm=848, y_mm=116, angle_deg=3, face_up=False),
    ]
    courts = [code for code in CODES if code[0] in "JQK"]
    faces = [
        SimCard(code=code, x_mm=75 + (k % 6) * 150, y_mm=290 + (k // 6) * 120, angle_deg=(k * 37) % 360)
        for k, code in enumerate(courts[:12])
    ]
    return Scene(cards=tuple(backs + faces))


@pytest.mark.parametrize(
    "lighting",
    [Lighting(), Lighting(brightness=0.6, tint_bgr=(0.78, 0.96, 1.07))],
    ids=["even-light", "dim-warm-light"],
)
def test_every_kind_of_back_is_counted_and_no_face_is_taken_for_one(
    deck_with_back: DeckProfile, lighting: Lighting
) -> None:
    scene = dataclasses.replace(_table(), lighting=lighting)
    renderer = TableRenderer(deck=deck_with_back, view=VIEW, seed=1)
    reading = Recognizer(deck=deck_with_back).read(renderer.render(scene, seed=1))
    truth = [
        (c, (float(renderer.card_quad_px(c)[:, 0].mean()), float(renderer.card_quad_px(c)[:, 1].mean())))
        for c in scene.cards
    ]
    tally = score_reading(truth, [(c.code, c.center) for c in reading.cards], tol_px=22)
    assert tally.face_down == 9
    assert tally.misread == 0  # a face called a back is a misread
    backs = [c.center for c in reading.cards if c.code == BACK]
    counted = {card.code for card, (x, y) in truth if any(math.hypot(x - bx, y - by) < 22 for bx, by in backs)}
    # Every back lying alone and both of the stack of two, where they lie.
    assert {"2c", "3c", "4c", "5c", "6c", "7c"} <= counted
    # The stack of three: its middle card shows only a strip between two others, its corners
    # along their edges, so the three are not all placed exactly (a limit); but at least two
    # backs are seen there, never more than three, and no back anywhere else.
    sx, sy = truth[7][1]
    in_stack = [b for b in backs if math.hypot(b[0] - sx, b[1] - sy) < 120]
    assert 2 <= len(in_stack) <= 3
    assert len(backs) - len(in_stack) == 6


@pytest.mark.parametrize("kind", ["white-bordered", "muted-picture"])
def test_no_registered_face_is_judged_a_back_under_any_light(kennard: DeckProfile, kind: str) -> None:
    back = white_bordered_back() if kind == "white-bordered" else muted_picture_back()
    signature = with_back(kennard, back, kind).back_signature
    rng = np.random.default_rng(0)
    for face in kennard.faces:
        small = cv2.resize(face, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA).astype(np.float32)
        for level, tint in ((1.0, (1.0, 1.0, 1.0)), (0.5, (1.0, 1.0, 1.0)), (0.8, (0.72, 0.95, 1.1))):
            look = np.clip(small * level * np.array(tint, np.float32) + rng.normal(0, 4, small.shape), 0, 255)
            vector = features(look.astype(np.uint8))
            assert vector is not None
            assert not signature.judge(vector)[0]
    # ... while the back itself, dim and warm, is.
    small = cv2.resize(back, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    dim_warm = np.clip(small * 0.55 * np.array((0.75, 0.95, 1.08), np.float32), 0, 255).astype(np.uint8)
    vector = features(dim_warm)
    assert vector is not None and signature.judge(vector)[0]


def test_signature_survives_its_array_form_and_refuses_a_malformed_one(kennard: DeckProfile) -> None:
    signature = kennard.back_signature
    again = BackSignature.from_array(signature.to_array(), what="deck.npz")
    assert np.array_equal(again.backs, signature.backs) and np.array_equal(again.faces, signature.faces)
    assert again.limit == pytest.approx(signature.limit)
    with pytest.raises(DeckError, match=r"deck\.npz: the back signature in the profile is malformed"):
        BackSignature.from_array(signature.to_array()[:-5], what="deck.npz")
    with pytest.raises(DeckError, match="malformed"):
        BackSignature.from_array(np.zeros(2, np.float32), what="deck.npz")


def test_too_little_of_a_card_in_view_is_not_judged() -> None:
    patch = np.full((PATCH_H, PATCH_W, 3), 200, np.uint8)
    valid = np.zeros((PATCH_H, PATCH_W), np.uint8)
    valid[3:6, :] = 255  # a sliver of the interior
    assert features(patch, valid) is None
    assert features(patch, valid, least=0.05) is not None


def _features_by_the_book(patch: np.ndarray, valid: np.ndarray | None) -> np.ndarray | None:
    """The signature as first written out (two histograms, each over its own total): the
    reference the faster one must match number for number."""
    interior = np.zeros((PATCH_H, PATCH_W), np.uint8)
    mx, my = round(0.08 * PATCH_W), round(0.08 * PATCH_H)
    interior[my : PATCH_H - my, mx : PATCH_W - mx] = 255
    keep = interior if valid is None else cv2.bitwise_and(interior, valid)
    px = patch.reshape(-1, 3)[keep.reshape(-1) > 0].astype(np.float32)
    if len(px) < 0.25 * PATCH_W * PATCH_H:
        return None
    luma = px @ np.array([0.114, 0.587, 0.299], np.float32)
    pos = 0.95 * (len(luma) - 1)
    k = int(pos)
    lo_hi = np.partition(luma, [k, min(k + 1, len(luma) - 1)])
    rel = luma / (float(lo_hi[k] + (lo_hi[min(k + 1, len(luma) - 1)] - lo_hi[k]) * (pos - k)) + 1.0)
    total = px.sum(axis=1) + 1.0
    r, g = px[:, 2] / total, px[:, 1] / total
    scale = 8 / (0.60 - 0.12)
    ri = np.minimum(np.maximum(((r - 0.12) * scale).astype(np.int32), 0), 7)
    gi = np.minimum(np.maximum(((g - 0.12) * scale).astype(np.int32), 0), 7)
    chroma = np.bincount(np.where(rel < 0.25, 64, ri * 8 + gi), minlength=65).astype(np.float32)
    luma_hist = np.bincount(np.minimum((rel * 6).astype(np.int32), 5), minlength=6).astype(np.float32)
    return np.sqrt(np.concatenate([chroma / chroma.sum(), 0.6 * luma_hist / luma_hist.sum()]))


def test_the_signature_is_the_same_numbers_as_by_the_book() -> None:
    rng = np.random.default_rng(7)
    for k in range(400):
        patch = rng.integers(0, 256, (PATCH_H, PATCH_W, 3), dtype=np.uint8)
        if k % 3 == 0:  # a muted, darker patch: many pixels in the dark bin
            patch = (patch // 6 + rng.integers(0, 120)).astype(np.uint8)
        valid = None if k % 2 else np.where(rng.random((PATCH_H, PATCH_W)) < 0.7, 255, 0).astype(np.uint8)
        want, got = _features_by_the_book(patch, valid), features(patch, valid)
        assert (want is None) == (got is None)
        assert want is None or (got is not None and np.array_equal(want, got))
