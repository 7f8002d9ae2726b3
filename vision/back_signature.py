"""The registered back's signature: colour and brightness make-up of a card's interior, back against faces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import DeckError

# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]
Floats = npt.NDArray[np.float32]

# A card's interior is compared at this size (width, height): enough pixels for a histogram of
# its colours, few enough that a test costs a few tens of microseconds.
PATCH_W: Final = 20
PATCH_H: Final = 28
# The outer band of a card hypothesis is left out (felt or a neighbour where the outline is a
# pixel or two off); the back's own border stays in, and its share of paper-white with it.
_MARGIN: Final = 0.08
# Chromaticity r = R / (R + G + B), g = G / (R + G + B) in _CHROMA x _CHROMA bins over
# [_LO, _HI]: independent of the light's level, and a tint moves every card alike.
_CHROMA: Final = 8
_LO: Final = 0.12
_HI: Final = 0.60
# Brightness relative to the interior's own brightest part, in _LUMA bins: how much is paper-white
# border or background and how much darker body a card shows, whatever the lamp.
_LUMA: Final = 6
_DARK: Final = 0.25  # below this share of the reference brightness a pixel's hue is noise
FEATURE_LEN: Final = _CHROMA * _CHROMA + 1 + _LUMA
_LUMA_WEIGHT: Final = 0.6
# Looks of the back and the faces learnt at registration: light levels, tints, blur, noise and a
# glare spot as the table's camera sees them (seeded: a profile always reads the same way).
_LOOKS: Final = 24
# A card judged whole (``least`` this or more: not a strip beside a card on top) is judged by
# halves when a glare band may have washed it out (``judge_patch``).
_HALVES_LEAST: Final = 0.25
# ... when its whole lies no farther than 1.2 ``limit`` from the back's looks (likeness 0.4): a
# back under a band lay at 0.81 (standard) and 1.01 (dondorf), the faces at 1.26 and more
# (table 11009, six designs); the halves must then pass ``judge`` themselves.
_HALVES_LIKENESS: Final = 0.4
# ... and only a half whose other half is this many times as bright: a band lies there (table
# 11009's banded backs 1.33-1.84, standard and dondorf). Without it, halves flipped backs seen
# evenly (1.00-1.05: dondorf 11008's stack lost a card, guard 14476 gained a phantom).
_BAND_STEP: Final = 1.2
_SEED: Final = 15


def interior_mask() -> ByteImage:
    """The patch's pixels a signature is taken over (its outer band left out)."""
    mask = np.zeros((PATCH_H, PATCH_W), np.uint8)
    mx, my = round(_MARGIN * PATCH_W), round(_MARGIN * PATCH_H)
    mask[my : PATCH_H - my, mx : PATCH_W - mx] = 255
    return mask


_INTERIOR: Final = interior_mask()
# Its pixels' places in a flattened patch, in order (the interior of a patch with no mask).
_INTERIOR_AT: Final = np.flatnonzero(_INTERIOR.reshape(-1))
_ONES3: Final = np.ones(3, np.float32)
# A pixel's brightness from its B, G, R; chromaticity bins per unit of r or g above ``_LO``.
_LUMA_WEIGHTS: Final = np.array([0.114, 0.587, 0.299], np.float32)
_CHROMA_SCALE: Final = _CHROMA / (_HI - _LO)


def features(patch: ByteImage, valid: ByteImage | None = None, *, least: float = 0.25) -> Floats | None:
    """The signature vector of a card interior (a ``PATCH_H`` x ``PATCH_W`` BGR patch), over the
    interior's ``valid`` pixels (None: all); None when fewer than ``least`` of the patch are valid.
    """
    flat = patch.reshape(-1, 3)
    if valid is None:
        px = np.take(flat, _INTERIOR_AT, axis=0).astype(np.float32)
    else:
        px = flat[cv2.bitwise_and(_INTERIOR, valid).reshape(-1) > 0].astype(np.float32)
    n = len(px)
    if n < least * PATCH_W * PATCH_H:
        return None
    luma = px @ _LUMA_WEIGHTS
    # The 95th percentile, interpolated as np.percentile does (which costs 50 times more).
    pos = 0.95 * (n - 1)
    k = int(pos)
    k1 = min(k + 1, n - 1)
    lo_hi = np.partition(luma, [k, k1])
    ref = float(lo_hi[k] + (lo_hi[k1] - lo_hi[k]) * (pos - k)) + 1.0
    rel = luma / ref
    total = px @ _ONES3 + 1.0  # each pixel's B + G + R (whole numbers: exact however summed)
    # g = G / total and r = R / total as two rows (numpy works a short inner axis a pixel at a time),
    # binned in place: the same numbers as column by column.
    gr = px[:, 1:].T / total
    gr -= _LO
    gr *= _CHROMA_SCALE
    gri = gr.astype(np.int32)
    np.maximum(gri, 0, out=gri)
    np.minimum(gri, _CHROMA - 1, out=gri)
    # Both histograms in one count: each pixel has one chroma bin (dark ones their own) and one
    # brightness bin after them, so each histogram's total is the pixel count (each normalised by
    # its own total).
    bins = np.empty(2 * n, np.intp)
    np.multiply(gri[1], _CHROMA, out=bins[:n])
    bins[:n] += gri[0]
    bins[:n][rel < _DARK] = _CHROMA * _CHROMA
    li = (rel * _LUMA).astype(np.int32)
    np.minimum(li, _LUMA - 1, out=li)
    np.add(li, _CHROMA * _CHROMA + 1, out=bins[n:])
    out = np.bincount(bins, minlength=FEATURE_LEN).astype(np.float32)
    out[_CHROMA * _CHROMA + 1 :] *= _LUMA_WEIGHT
    out /= np.float32(n)
    # Square roots (Hellinger): the distance of two signatures is then a plain Euclidean one.
    return np.sqrt(out)


def distances(vector: Floats, refs: Floats) -> Floats:
    """Hellinger-style distance of one signature to each row of ``refs``."""
    diff = refs - vector[None, :]
    return np.asarray(np.sqrt((diff * diff).sum(axis=1)), np.float32)


def _nearest(vector: Floats, refs: Floats) -> float:
    """The least of ``distances(vector, refs)``: one square root, of the least sum (the root rounds
    monotonically, so the same float)."""
    diff = refs - vector[None, :]
    return float(np.sqrt((diff * diff).sum(axis=1).min()))


@dataclass(frozen=True)
class BackSignature:
    """What a registered back looks like to the camera, against what the deck's faces look like.

    ``backs`` are signatures of the back seen under varied light, ``faces`` those of the 52 faces
    (several looks each); ``limit`` is the farthest a look at the back may lie from the nearest
    back look and still be a back, learnt from the deck itself: three quarters of the way from the
    back's looks' own spread to the nearest face look.
    """

    backs: Floats  # (n, FEATURE_LEN)
    faces: Floats  # (m, FEATURE_LEN)
    limit: float

    def judge(self, vector: Floats) -> tuple[bool, float]:
        """Whether a card interior's signature is this deck's back, and how clearly (0..1): nearer
        the back's looks than any face's, and within the deck's limit.
        """
        d_back = _nearest(vector, self.backs)
        likeness = max(0.0, 1.0 - d_back / (2.0 * self.limit))
        if d_back > self.limit:
            # No back whatever the faces' distance (the dearer half of the test, skipped for
            # most faces and felt).
            return False, likeness
        d_face = _nearest(vector, self.faces)
        return d_back < 0.85 * d_face, likeness

    def judge_patch(
        self, patch: ByteImage, valid: ByteImage | None = None, *, least: float = 0.25
    ) -> tuple[bool, float]:
        """``judge`` of a card interior patch (``features``' ``valid`` and ``least``); not the back
        though near enough to be one (``_HALVES_LIKENESS``), judged again on the darker half of it
        along each side (``_halves``): a glare band across a back washes its colours out and is
        its brightest part, the reference of the brightness make-up, so the whole looks as much
        like a face's paper (table 11009: the back 0.84-0.87 from the back's looks, 0.87-0.93 from
        the faces'); the half the band leaves mostly clear is the back's alone. Registration's
        looks have a glare spot, never a band. A face is no nearer a back by halves: its paper
        and ink are in each half (its whole is beyond ``limit`` and never judged so).
        """
        vector = features(patch, valid, least=least)
        if vector is None:
            return False, 0.0
        back, likeness = self.judge(vector)
        if back or likeness <= _HALVES_LIKENESS or least < _HALVES_LEAST:
            return back, likeness
        for half in _halves(patch, valid):
            part = features(patch, half, least=0.5 * least)
            if part is not None and self.judge(part)[0]:
                return True, likeness
        return back, likeness

    def to_array(self) -> Floats:
        """One flat array for a profile file: counts, limit, then the signatures row by row."""
        head = np.array([len(self.backs), len(self.faces), self.limit], np.float32)
        return np.concatenate([head, self.backs.reshape(-1), self.faces.reshape(-1)])

    @classmethod
    def from_array(cls, flat: Floats, *, what: str) -> BackSignature:
        """The signature a profile file stored with :meth:`to_array`.

        Raises:
            DeckError: the array is not a signature of this format (``what`` names the file).
        """
        if flat.ndim != 1 or len(flat) < 3:
            raise DeckError(f"{what}: the back signature in the profile is malformed")
        n, m, limit = int(flat[0]), int(flat[1]), float(flat[2])
        if n < 1 or m < 1 or len(flat) != 3 + (n + m) * FEATURE_LEN or not limit > 0:
            raise DeckError(f"{what}: the back signature in the profile is malformed")
        rows = flat[3:].reshape(n + m, FEATURE_LEN).astype(np.float32)
        return cls(backs=rows[:n], faces=rows[n:], limit=limit)


def _halves(patch: ByteImage, valid: ByteImage | None) -> list[ByteImage]:
    """Of the top and bottom halves of a patch's interior the darker, and of its left and right
    halves the darker (each within ``valid``): the halves a glare band across the card crosses
    least; only where the other half is ``_BAND_STEP`` times as bright (a band there)."""
    inside = _INTERIOR if valid is None else cv2.bitwise_and(_INTERIOR, valid)
    luma = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    out: list[ByteImage] = []
    for first in ((slice(0, PATCH_H // 2), slice(None)), (slice(None), slice(0, PATCH_W // 2))):
        one = np.zeros_like(inside)
        one[first] = inside[first]
        other = cv2.bitwise_and(inside, cv2.bitwise_not(one))
        a, b = cv2.mean(luma, mask=one)[0], cv2.mean(luma, mask=other)[0]
        if max(a, b) >= _BAND_STEP * min(a, b):
            out.append(one if a <= b else other)
    return out


def _looks(card: ByteImage, rng: np.random.Generator, count: int) -> list[Floats]:
    """Signatures of one canonical card image as the camera may see it."""
    small = cv2.resize(card, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    out: list[Floats] = []
    for k in range(count):
        img: Floats = small.copy()
        if k > 0:  # the first look is the card itself
            level = float(rng.uniform(0.45, 1.15))
            warmth = float(rng.uniform(0.0, 0.2)) if rng.random() < 0.5 else 0.0
            tint = np.array([1.0 - 1.5 * warmth, 1.0 - 0.3 * warmth, 1.0 + 0.5 * warmth], np.float32)
            img = img * level * tint
            if rng.random() < 0.5:
                img = np.asarray(cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.3, 0.8))), np.float32)
            img = img + rng.normal(0.0, float(rng.uniform(0.0, 6.0)), img.shape).astype(np.float32)
            if rng.random() < 0.3:  # a glare spot: a bright patch washing part of the card out
                cx, cy = float(rng.uniform(0, PATCH_W)), float(rng.uniform(0, PATCH_H))
                yy, xx = np.mgrid[0:PATCH_H, 0:PATCH_W]
                spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2.0 * 3.0**2)).astype(np.float32)
                img = img + 140.0 * spot[:, :, None]
        vec = features(np.clip(img, 0, 255).astype(np.uint8))
        if vec is not None:
            out.append(vec)
    return out


def learn_back_signature(*, back: ByteImage, faces: ByteImage) -> BackSignature:
    """Learn the back's signature from the registered back and the 52 faces (canonical BGR)."""
    rng = np.random.default_rng(_SEED)
    backs = np.stack(_looks(back, rng, _LOOKS))
    face_looks = [v for face in faces for v in _looks(face, rng, 4)]
    face_arr = np.stack(face_looks)
    # How far the back's own looks stray from each other, and how near the faces come to them:
    # the limit lies three quarters of the way from the first to the second, so a back seen worse
    # than any look at registration (a wider glare, a deeper shadow, only a strip of it under
    # another card) is still a back; a face is kept out by being nearer the faces' looks (judge).
    spread = np.array([np.sort(distances(v, backs))[1] for v in backs], np.float32)
    nearest_face = float(np.min([distances(v, backs).min() for v in face_arr]))
    own = float(np.percentile(spread, 90))
    limit = own + 0.75 * (nearest_face - own) if nearest_face > own else own
    return BackSignature(backs=backs, faces=face_arr, limit=max(limit, 1e-3))
