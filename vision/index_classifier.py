"""The index classifier of a deck profile: rank and suit discriminants learnt from rendered looks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from controller.cards import DECK
from vision.card_raster import CARD_PX_H, CARD_PX_W, IndexBox
from vision.errors import DeckError
from vision.index import IndexFeature, index_feature

# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]

# Learnt per deck at load from the profile's own faces: each face's index (both corners) is
# rendered as a camera at the table would see it, many times over, and read back through the
# very same normalisation as a live read. Rank and suit each get a regularised linear
# discriminant: the looks are whitened by their within-class scatter and projected onto the
# directions that separate the classes, where a read's distance to each class centre measures
# how far it lies from every way that class was seen.

_LOOK_SEED: Final = 20261122
# Rounds of looks at each blur: the classifier settles with about 30 looks per card.
# Card heights at the table the looks are rendered at (canonical 224 px card): 120-260 px.
_LOOK_HEIGHTS: Final = (120.0, 260.0)
# Frame-scale blur of each round of looks, in pixels (one look per card corner and round, so
# 16 per card); noise and JPEG are drawn per round.
_LOOK_BLURS: Final = (0.0, 0.0, 0.4, 0.7, 0.9, 1.1, 1.3, 1.6)
_ROUNDS_PER_BLUR: Final = 2
# Shrinkage of the within-class scatter towards its mean variance: the scatter of a few hundred
# looks per class is noisy in 320 dimensions, and the shrunk one generalises to unseen looks.
_SHRINK: Final = 0.1
_CELL: Final = 128  # mosaic cell (pixels) holding one rendered corner
_COLS: Final = 16  # mosaic cells per row


@dataclass(frozen=True, slots=True)
class Discriminant:
    """One learnt part of the index (rank or suit): a projection and the class centres in it."""

    projection: npt.NDArray[np.float32]  # (D, M - 1) whitening and discriminant directions, M modes
    centres: npt.NDArray[np.float32]  # (M, M - 1)
    spread: float  # mean squared in-mode distance of the training looks
    # Modes per class: a class may look more than one way (a suit beside a court card's artwork).
    # Mode m belongs to class m % classes.
    modes: int = 1

    def distances(self, vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Squared distance to every class (its nearest mode), in units of the training spread."""
        z = vector @ self.projection
        # In place on one fresh array, the arithmetic of ((centres - z) ** 2).sum(axis=1) / spread
        # (a square is a product with itself): the same float32 values without the temporaries.
        diff = self.centres - z
        d = np.multiply(diff, diff, out=diff).sum(axis=1)
        d *= 1.0 / self.spread
        if self.modes > 1:
            d = d.reshape(self.modes, -1).min(axis=0)
        return np.asarray(d, dtype=np.float32)


def _fit_discriminant(
    x: npt.NDArray[np.float32], y: npt.NDArray[np.int64], classes: int, *, modes: int = 1
) -> Discriminant:
    """Regularised LDA of ``x`` over the labels ``y``: ``classes * modes`` modes, mode m of class
    m % classes.
    """
    count = classes * modes
    x64 = x.astype(np.float64)
    means = np.stack([x64[y == c].mean(axis=0) for c in range(count)])
    centred = x64 - means[y]
    scatter = centred.T @ centred / len(x64)
    dim = x64.shape[1]
    scatter = (1.0 - _SHRINK) * scatter + _SHRINK * float(np.trace(scatter)) / dim * np.eye(dim)
    # Any W with W^T S W = I whitens; the Cholesky factor's inverse is one, and ten times cheaper
    # to find than the eigenvectors.
    whiten = np.linalg.inv(np.linalg.cholesky(scatter)).T
    between = (means - means.mean(axis=0)) @ whiten
    _u, _s, vt = np.linalg.svd(between, full_matrices=False)
    projection = whiten @ vt[: count - 1].T
    centres = means @ projection
    z = x64 @ projection
    spread = float(((z - centres[y]) ** 2).sum(axis=1).mean())
    return Discriminant(
        projection=projection.astype(np.float32),
        centres=centres.astype(np.float32),
        spread=max(spread, 1e-6),
        modes=modes,
    )


def _corner_looks(
    corners: ByteImage, box: IndexBox, rng: np.random.Generator, *, blur: float, noise: npt.NDArray[np.float32]
) -> list[tuple[int, IndexFeature]]:
    """One round of looks: every index corner (faces, then the faces turned) drawn into one mosaic
    at a random size, angle, slant and light, the round's blur, sensor noise (``noise``, unit
    Gaussian of the mosaic's size) and JPEG applied to it as a camera would, and each read back from a
    slightly misplaced card outline (the detector's error). Returns (card index, feature) pairs.
    """
    sw, sh = box.search_size()
    n = len(corners)
    cols = _COLS
    rows = -(-n // cols)
    felt = rng.uniform(20, 140, 3)
    mosaic: ByteImage = np.empty((rows * _CELL, cols * _CELL, 3), np.uint8)
    mosaic[:] = felt.astype(np.uint8)
    blank = np.ascontiguousarray(mosaic[:_CELL, :_CELL])
    pad = 10.0
    region = np.array([[-pad, -pad], [sw + pad, -pad], [sw + pad, sh + pad], [-pad, sh + pad]])
    placed: list[tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
    for k in range(n):
        # Only the corner matters (the rest of the cell is felt, never read back): a crop a little
        # larger than the region drawn keeps the smoothing below cheap.
        face = corners[k][: sh + 2 * int(pad), : sw + 2 * int(pad)]
        scale = rng.uniform(*_LOOK_HEIGHTS) / CARD_PX_H
        angle = rng.uniform(-np.pi, np.pi)
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        # A tilted camera slants and stretches a card a little; the corner is affine at this size.
        a = scale * rot @ (np.eye(2) + rng.normal(0.0, 0.025, (2, 2)))
        mapped = region @ a.T
        lo, hi = mapped.min(axis=0), mapped.max(axis=0)
        cell = np.array([(k % cols) * _CELL, (k // cols) * _CELL], np.float64)
        offset = cell + (_CELL - (hi - lo)) / 2 - lo + rng.uniform(0, 1, 2)
        m = np.hstack([a, offset[:, None]])
        x0, y0 = int(cell[0]), int(cell[1])
        local = m.copy()
        local[:, 2] -= cell
        if rng.random() < 0.5:
            # A sensor integrates over its pixels: half the looks shrink the face smoothly.
            face = cv2.GaussianBlur(face, (0, 0), 0.45 / scale)
        view = blank.copy()
        cv2.warpAffine(face, local, (_CELL, _CELL), dst=view, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
        # Room light: a dimmer or brighter lamp of a slightly warm or cold tint, sometimes glare.
        gain = rng.uniform(0.6, 1.15) * (1.0 + rng.normal(0.0, 0.05, 3))
        lift = 255.0 * rng.uniform(0.15, 0.45) if rng.random() < 0.25 else 0.0
        gain *= 1.0 - lift / 255.0
        light = np.hstack([np.diag(gain), np.full((3, 1), lift)])
        mosaic[y0 : y0 + _CELL, x0 : x0 + _CELL] = cv2.transform(view, light)
        placed.append((k, a, offset))
    if blur > 0:
        mosaic = cv2.GaussianBlur(mosaic, (0, 0), blur)
    # One field of sensor noise serves every round, turned a different way and of its own strength
    # (the looks land in different cells each round, so no look sees the same noise twice).
    flips = int(rng.integers(0, 4))
    window = np.ascontiguousarray(noise[:: 1 - 2 * (flips & 1), :: 1 - (flips & 2)])
    mosaic = cv2.scaleAdd(window, float(rng.uniform(0.0, 7.0)), mosaic.astype(np.float32))
    mosaic = cv2.convertScaleAbs(mosaic)
    if rng.random() < 0.75:
        ok, buf = cv2.imencode(".jpg", mosaic, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 96))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            mosaic = decoded
    looks: list[tuple[int, IndexFeature]] = []
    for k, a, offset in placed:
        # The outline the detector finds is off by a pixel or two and a fraction of a degree.
        err = rng.normal(0.0, 0.012, 2) * (CARD_PX_W, CARD_PX_H)
        turn = rng.normal(0.0, np.radians(0.8))
        skew = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        b = a @ skew @ np.diag(1.0 + rng.normal(0.0, 0.025, 2))
        m = np.hstack([b, (a @ err + offset)[:, None]])
        patch = cv2.warpAffine(
            mosaic, m, (sw, sh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
        )
        feature = index_feature(np.asarray(patch, np.uint8), box)
        if feature is not None:
            looks.append((k % (n // 2), feature))
    return looks


def learn_index_classifier(
    faces: ByteImage, box: IndexBox, sharp: list[IndexFeature]
) -> tuple[Discriminant, Discriminant]:
    """The rank and suit discriminants, learnt from rendered looks at the registered faces and the
    faces' own indices (``sharp``, one per card).

    Raises:
        DeckError: some card's index is lost in every look (the design cannot be read at a table).
    """
    rng = np.random.default_rng(_LOOK_SEED)
    looks: list[tuple[int, IndexFeature]] = list(enumerate(sharp))
    # Both index corners of every card, each turned upright as a read sees it.
    corners = np.concatenate([faces, np.ascontiguousarray(faces[:, ::-1, ::-1])])
    noise = rng.standard_normal((_CELL * -(-len(corners) // _COLS), _COLS * _CELL, 3), dtype=np.float32)
    for blur in _LOOK_BLURS * _ROUNDS_PER_BLUR:
        looks.extend(_corner_looks(corners, box, rng, blur=blur, noise=noise))
    cards = np.array([card for card, _f in looks], dtype=np.int64)
    missing = sorted(set(range(len(DECK))) - set(cards.tolist()))
    if missing:
        raise DeckError(f"{DECK[missing[0]].code}: its corner index is lost when seen at table size and blur")
    ranks = np.stack([f.rank for _c, f in looks])
    suits = np.stack([f.suit_vector() for _c, f in looks])
    # The deck runs rank-major (2c 2d 2h 2s 3c ...): card i has rank i // 4 and suit i % 4.
    # A court card's index often sits against its picture's frame, so each suit is learnt as two
    # modes, beside a court picture (J Q K: ranks 9-11) and beside plain paper.
    court = ((cards // 4 >= 9) & (cards // 4 <= 11)).astype(np.int64)
    return (
        _fit_discriminant(ranks, cards // 4, 13),
        _fit_discriminant(suits, cards % 4 + 4 * court, 4, modes=2),
    )
