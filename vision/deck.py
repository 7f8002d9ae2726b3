"""Deck profiles: register a deck design from its 52 faces and back, save and load it."""

from __future__ import annotations

import functools
import io
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from controller.cards import DECK
from vision.back_signature import BackSignature, learn_back_signature
from vision.card_raster import CARD_PX_H, CARD_PX_W, IndexBox
from vision.errors import DeckError, ImageError
from vision.frame_line import FRAME_RUN, FRAME_WIDE, FrameLine, frame_columns
from vision.index import INK_LEVELS, IndexFeature, index_feature
from vision.index_glyphs import glyph_bounds
from vision.index_match import match_index
from vision.ink_blobs import hairlines_cut

# Version 2 adds the back's signature learnt at registration; version 1 files (no signature) are
# still read, the signature then learnt from the back and faces they hold.
PROFILE_VERSION: Final = 2
_READABLE_VERSIONS: Final = (1, 2)
CODES: Final[tuple[str, ...]] = tuple(c.code for c in DECK)
_IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
_JPEG_QUALITY: Final = 92
# A face whose index bounds reach past this many times the faces' median (right or bottom edge)
# has its index joined to its picture: left out of the registered index box.
_INDEX_OUTLIER: Final = 1.25
# At least this many faces (one rank's four suits) must share a frame line in the corner for the
# design to have one: a single face's artwork running down there is no design's frame.
_FRAME_FACES: Final = 4

# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]


@dataclass(frozen=True)
class DeckProfile:
    """A registered deck design: faces and back at the canonical size plus the learnt index classifier.

    ``faces[i]`` is the card ``CODES[i]``; the index classifier is learnt on load from the faces,
    so the file holds only images and the index box.
    """

    name: str
    faces: ByteImage  # (52, CARD_PX_H, CARD_PX_W, 3) BGR
    back: ByteImage  # (CARD_PX_H, CARD_PX_W, 3) BGR
    index_box: IndexBox
    # The index classifier, learnt on load from rendered looks at the faces (see ``_train``).
    rank_model: Discriminant = field(repr=False)
    suit_model: Discriminant = field(repr=False)
    # Whole-face thumbnails (52, THUMB_W * THUMB_H), unit vectors: a second opinion on a read.
    thumbs: npt.NDArray[np.float32] = field(repr=False)
    # What the back looks like against the faces, learnt at registration (``vision.back_signature``).
    back_signature: BackSignature = field(repr=False)
    # Where the design's court faces run a picture's frame line down the corner, and which faces
    # have it there (``frame_line``); measured on load from the faces.
    frame: FrameLine | None = field(default=None, repr=False)
    framed: frozenset[str] = field(default=frozenset(), repr=False)

    def face(self, code: str) -> ByteImage:
        """The face image of one card.

        Raises:
            DeckError: the code is not one of the 52 canonical codes (e.g. ``"As"``).
        """
        try:
            face: ByteImage = self.faces[CODES.index(code)]
        except ValueError:
            raise DeckError(f"no card {code!r} in deck {self.name!r}") from None
        return face


def read_image(path: Path) -> ByteImage:
    """Read an image as BGR, flattening transparency onto white (rendered SVGs have clear corners).

    Raises:
        ImageError: missing, unreadable or not an image.
    """
    if not path.is_file():
        raise ImageError(f"{path}: no such image file")
    data = np.fromfile(str(path), dtype=np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED) if data.size else None
    if img is None:
        raise ImageError(f"{path}: cannot decode as an image")
    if img.dtype != np.uint8:
        img = cv2.convertScaleAbs(img, alpha=255.0 / 65535.0)  # 16-bit PNG
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        alpha = img[:, :, 3:4].astype(np.float32) / 255.0
        img = (img[:, :, :3].astype(np.float32) * alpha + 255.0 * (1.0 - alpha)).astype(np.uint8)
    return np.ascontiguousarray(img)


def _canonical(img: ByteImage, *, what: str) -> ByteImage:
    """Resize a card image to the canonical raster, turning landscape scans upright."""
    h, w = img.shape[:2]
    if w > h:
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        h, w = w, h
    aspect = h / w
    if not 1.2 <= aspect <= 1.65:
        raise DeckError(f"{what}: a card image must be about 63x88 in shape, this one is {w}x{h}")
    return cv2.resize(img, (CARD_PX_W, CARD_PX_H), interpolation=cv2.INTER_AREA)


def _find_index_box(faces: ByteImage) -> IndexBox:
    """The union of the ink blobs that sit wholly inside the top-left corner, over the 52 faces
    whose index stands clear of the face's picture.

    A court card's index can touch its picture at the ink level (a jack's collar under its
    suit): its blobs then run on down and across into the picture, and taken into the union
    they would double the box, and with it every read's patch (and its cost), for all 52 cards.
    A face whose bounds reach past ``_INDEX_OUTLIER`` times the faces' median extent is such a
    one and is left out; the index itself is as big on every face of a design.

    Raises:
        DeckError: no index found in the top-left corner of some face.
    """
    lim_x, lim_y = int(0.30 * CARD_PX_W), int(0.46 * CARD_PX_H)
    found: list[tuple[int, int, int, int]] = []
    for code, face in zip(CODES, faces, strict=True):
        gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        corner = gray[:lim_y, :lim_x]
        paper = float(np.percentile(gray, 90))
        ink = (corner < paper * 0.62).astype(np.uint8)
        count, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8)
        stats = hairlines_cut(ink, labels, stats[:count], min_area=4)
        count = len(stats)
        # Blobs running into the limit are artwork frames; the card border sits at the edge.
        comps = [
            (int(st[0]), int(st[1]), int(st[0] + st[2]), int(st[1] + st[3]))
            for st in stats[1:count]
            if st[4] >= 4 and st[0] > 1 and st[1] > 1 and st[0] + st[2] < lim_x and st[1] + st[3] < lim_y
        ]
        left = [c for c in comps if c[0] < 0.12 * CARD_PX_W]
        bounds: tuple[tuple[int, int, int, int], list[tuple[int, int, int, int]]] | None = None
        if left:
            top = min(left, key=lambda c: c[1])
            bounds = glyph_bounds(comps, seed=(top[0], top[1]), limit=(lim_x, lim_y), max_width=lim_x)
        if bounds is None:
            raise DeckError(f"{code}: no rank and suit found in the top-left corner of the face")
        found.append(bounds[0])
    far_x = _INDEX_OUTLIER * float(np.median([b[2] for b in found]))
    far_y = _INDEX_OUTLIER * float(np.median([b[3] for b in found]))
    clear = [b for b in found if b[2] <= far_x and b[3] <= far_y]
    x0, y0 = min(b[0] for b in clear), min(b[1] for b in clear)
    x1, y1 = max(b[2] for b in clear), max(b[3] for b in clear)
    return IndexBox(
        x0=max(0.0, (x0 - 1) / CARD_PX_W),
        y0=max(0.0, (y0 - 1) / CARD_PX_H),
        x1=min(0.4, (x1 + 1) / CARD_PX_W),
        y1=min(0.45, (y1 + 1) / CARD_PX_H),
    )


def frame_line(faces: ByteImage, box: IndexBox) -> tuple[FrameLine | None, frozenset[str]]:
    """Where the faces have a picture's frame line in the index corner, and which faces have it.

    A frame line is a thin column of ink from beside the index running on past the search patch
    (``frame_line.frame_columns``), at the same place on at least ``_FRAME_FACES`` faces (a court
    picture's frame is drawn alike on every court card of a design). Ink is the darkest channel
    under the table's usual ink level, as a read at the table sees it. None and no faces when the
    design has none.
    """
    sw, sh = box.search_size()
    run = FRAME_RUN * (box.y1 - box.y0) * CARD_PX_H
    x_from = int(box.x0 * CARD_PX_W)
    found: dict[str, tuple[int, int, int]] = {}
    for code, face in zip(CODES, faces, strict=True):
        gray = face.min(axis=2)
        paper = float(np.percentile(gray, 90))
        ink = (gray[:sh, :sw] < paper * INK_LEVELS[0]).astype(np.uint8)
        line = frame_columns(ink, x_from=x_from, run=run)
        if line is not None and line[1] - line[0] <= FRAME_WIDE * CARD_PX_W:
            found[code] = line
    if not found:
        return None, frozenset()
    (x0, x1), count = Counter((line[0], line[1]) for line in found.values()).most_common(1)[0]
    if count < _FRAME_FACES:
        return None, frozenset()
    framed = {c: line for c, line in found.items() if abs(line[0] - x0) <= 1 and abs(line[1] - x1) <= 1}
    top = int(np.median([line[2] for line in framed.values()]))
    return FrameLine(x0=x0, x1=x1, y0=top), frozenset(framed)


def _search_patch(face: ByteImage, box: IndexBox) -> ByteImage:
    w, h = box.search_size()
    return face[:h, :w]


# -- the index classifier ----------------------------------------------------------------------
#
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


THUMB_W: Final = 20
THUMB_H: Final = 28


def face_thumb(card_bgr: ByteImage) -> npt.NDArray[np.float32]:
    """A card image in the canonical frame reduced to a soft grey thumbnail, as a unit vector."""
    gray = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    small = cv2.resize(gray, (THUMB_W, THUMB_H), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0).reshape(-1)
    # small.mean() and np.linalg.norm(small), spelt out: the same arithmetic (a float32 sum divided
    # in float64, a float32 square root of the dot product) without their per-call overhead.
    np.subtract(small, np.float32(float(np.add.reduce(small)) / small.size), out=small)
    norm = float(np.sqrt(small.dot(small)))
    return np.asarray(small / norm if norm > 1e-6 else small, dtype=np.float32)


def _train(faces: ByteImage, box: IndexBox, sharp: list[IndexFeature]) -> tuple[Discriminant, Discriminant]:
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
    missing = sorted(set(range(len(CODES))) - set(cards.tolist()))
    if missing:
        raise DeckError(f"{CODES[missing[0]]}: its corner index is lost when seen at table size and blur")
    ranks = np.stack([f.rank for _c, f in looks])
    suits = np.stack([f.suit_vector() for _c, f in looks])
    # CODES run rank-major (2c 2d 2h 2s 3c ...): card i has rank i // 4 and suit i % 4.
    # A court card's index often sits against its picture's frame, so each suit is learnt as two
    # modes, beside a court picture (J Q K: ranks 9-11) and beside plain paper.
    court = ((cards // 4 >= 9) & (cards // 4 <= 11)).astype(np.int64)
    return (
        _fit_discriminant(ranks, cards // 4, 13),
        _fit_discriminant(suits, cards % 4 + 4 * court, 4, modes=2),
    )


def _derive(
    name: str, faces: ByteImage, back: ByteImage, box: IndexBox, signature: BackSignature | None = None
) -> DeckProfile:
    sharp: list[IndexFeature] = []
    for code, face in zip(CODES, faces, strict=True):
        feature = index_feature(_search_patch(face, box), box)
        if feature is None:
            raise DeckError(f"{code}: the corner index cannot be read from the registered face")
        sharp.append(feature)
    rank_model, suit_model = _train(faces, box, sharp)
    frame, framed = frame_line(faces, box)
    profile = DeckProfile(
        name=name,
        faces=faces,
        back=back,
        index_box=box,
        rank_model=rank_model,
        suit_model=suit_model,
        thumbs=np.stack([face_thumb(f) for f in faces]),
        back_signature=signature or learn_back_signature(back=back, faces=faces),
        frame=frame,
        framed=framed,
    )
    # Every registered face must read back as itself, clearly: otherwise the design's indices
    # cannot be told apart and the deck is refused rather than misread at the table.
    for code, feature in zip(CODES, sharp, strict=True):
        match = match_index(profile, feature)
        if match.code != code or match.margin < 0.15:
            raise DeckError(
                f"{code}: its corner index is too close to {match.code}'s in this design "
                f"(margin {match.margin:.2f}); the deck cannot be registered"
            )
    return profile


def register_deck(*, faces_dir: Path, back_path: Path, name: str | None = None) -> DeckProfile:
    """Build a profile from ``faces_dir`` (52 images named by code, e.g. ``As.png``) and a back.

    Raises:
        DeckError: a card image is missing or duplicated, the shapes are wrong, or an index
            cannot be found.
        ImageError: an image cannot be read.
    """
    if not faces_dir.is_dir():
        raise DeckError(f"{faces_dir}: not a directory of card faces")
    found: dict[str, Path] = {}
    for path in sorted(faces_dir.iterdir()):
        if path.suffix.lower() not in _IMAGE_SUFFIXES:
            continue
        stem = path.stem
        code = stem[:-1].upper().replace("10", "T") + stem[-1:].lower() if len(stem) >= 2 else stem
        if code not in CODES:
            continue
        if code in found:
            raise DeckError(f"two images for {code}: {found[code].name} and {path.name}")
        found[code] = path
    missing = [c for c in CODES if c not in found]
    if missing:
        raise DeckError(f"{faces_dir}: no face image for {', '.join(missing)} (expected e.g. As.png)")
    faces = np.stack([_canonical(read_image(found[c]), what=found[c].name) for c in CODES])
    back = _canonical(read_image(back_path), what=back_path.name)
    return _derive(name or faces_dir.name, faces, back, _find_index_box(faces))


def _encode(img: ByteImage) -> npt.NDArray[np.uint8]:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, _JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
        raise DeckError("cannot encode a card image")
    return np.asarray(buf, dtype=np.uint8).reshape(-1)


def save_deck(profile: DeckProfile, path: Path) -> None:
    """Write the profile as a compact ``.npz`` (JPEG-coded faces, no pickled objects).

    Raises:
        DeckError: the file cannot be written.
    """
    blobs = [_encode(f) for f in profile.faces] + [_encode(profile.back)]
    offsets = np.cumsum([0] + [len(b) for b in blobs]).astype(np.int64)
    box = profile.index_box
    try:
        with path.open("wb") as fh:
            np.savez(
                fh,
                version=np.array(PROFILE_VERSION),
                name=np.array(profile.name),
                codes=np.array(CODES),
                index_box=np.array([box.x0, box.y0, box.x1, box.y1], dtype=np.float64),
                images=np.concatenate(blobs),
                offsets=offsets,
                back_signature=profile.back_signature.to_array(),
            )
    except OSError as exc:
        raise DeckError(f"{path}: cannot write deck profile: {exc.strerror or exc}") from exc


def _decode(buf: npt.NDArray[np.uint8], what: str) -> ByteImage:
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if img is None or img.shape != (CARD_PX_H, CARD_PX_W, 3):
        raise DeckError(f"{what}: corrupt card image in the profile")
    return np.asarray(img, dtype=np.uint8)


def load_deck(source: Path | bytes) -> DeckProfile:
    """Load a profile written by :func:`save_deck` (a path, or the file's bytes).

    Raises:
        DeckError: missing file, not a deck profile, wrong version or corrupt content.
    """
    what = str(source) if isinstance(source, Path) else "deck profile"
    try:
        raw = source.read_bytes() if isinstance(source, Path) else source
    except OSError as exc:
        raise DeckError(f"{what}: cannot read deck profile: {exc.strerror or exc}") from exc
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            version = int(data["version"])
            if version not in _READABLE_VERSIONS:
                raise DeckError(f"{what}: deck profile version {version}, expected {PROFILE_VERSION} or older")
            codes = tuple(str(c) for c in data["codes"])
            if codes != CODES:
                raise DeckError(f"{what}: the profile's cards are not the 52 in canonical order")
            name = str(data["name"])
            bx = [float(v) for v in data["index_box"]]
            images = np.asarray(data["images"], dtype=np.uint8)
            offsets = np.asarray(data["offsets"], dtype=np.int64)
            signature = (
                BackSignature.from_array(np.asarray(data["back_signature"], np.float32), what=what)
                if version >= 2
                else None
            )
    except DeckError:
        raise
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise DeckError(f"{what}: not a deck profile ({type(exc).__name__})") from exc
    if len(offsets) != 54 or len(bx) != 4 or offsets[-1] != len(images) or np.any(np.diff(offsets) <= 0):
        raise DeckError(f"{what}: deck profile is truncated or inconsistent")
    if not (0 <= bx[0] < bx[2] <= 0.5 and 0 <= bx[1] < bx[3] <= 0.5):
        raise DeckError(f"{what}: index box {bx} is not in the top-left corner")
    decoded = [_decode(images[offsets[i] : offsets[i + 1]], what) for i in range(53)]
    box = IndexBox(x0=bx[0], y0=bx[1], x1=bx[2], y1=bx[3])
    return _derive(name, np.stack(decoded[:52]), decoded[52], box, signature)


# Kennard's design in the package's four variants: two or four suit colours, standard or large index.
SHIPPED_DECKS: Final = {
    "default": "default_deck.npz",
    "large-index": "default_deck_large.npz",
    "4color": "default_deck_4color.npz",
    "4color-large-index": "default_deck_4color_large.npz",
}


def default_deck() -> DeckProfile:
    """The shipped default profile (Adrian Kennard's CC0 two-colour cards, plain casino back).

    Raises:
        DeckError: the package data is missing or corrupt (a broken install).
    """
    return shipped_deck("default")


@functools.cache
def shipped_deck(variant: str) -> DeckProfile:
    """A profile shipped with the package: ``"default"``, ``"large-index"``, ``"4color"`` (clubs green,
    diamonds blue) or ``"4color-large-index"``.

    Raises:
        DeckError: no such variant, or the package data is missing or corrupt.
    """
    if variant not in SHIPPED_DECKS:
        raise DeckError(f"no shipped deck {variant!r} (have: {', '.join(SHIPPED_DECKS)})")
    data = resources.files("vision").joinpath(f"data/{SHIPPED_DECKS[variant]}")
    try:
        raw = data.read_bytes()
    except OSError as exc:
        raise DeckError(f"the default deck profile is missing from the install: {exc}") from exc
    return load_deck(raw)
