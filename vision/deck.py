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
from vision.index_classifier import Discriminant, learn_index_classifier
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
    # The index classifier, learnt on load from rendered looks at the faces (``vision.index_classifier``).
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
    # Where the gap between rank and suit lies, a share of the index's height (``_rank_share``);
    # measured on load from the faces' indices, as registration reads them.
    rank_share: float | None = field(default=None, repr=False)

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


def _rank_share(sharp: list[IndexFeature]) -> float | None:
    """The median, over the registered faces' indices, of where the gap between rank and suit lies,
    as a share of the index's height from the rank's top to the suit's foot (dondorf, kennard and
    standard 0.58, nicu 0.48, hershey 0.44; within 0.03 over a deck's 52 faces): where glyphs run
    together at the table are split (``index_glyphs.split_rank_suit``)."""
    shares: list[float] = []
    for feature in sharp:
        rank, suit = feature.rank_box, feature.suit_box
        if rank is None or suit is None or suit[3] <= rank[1]:
            continue
        shares.append(((rank[3] + suit[1]) / 2 - rank[1]) / (suit[3] - rank[1]))
    return float(np.median(shares)) if shares else None


def _derive(
    name: str, faces: ByteImage, back: ByteImage, box: IndexBox, signature: BackSignature | None = None
) -> DeckProfile:
    sharp: list[IndexFeature] = []
    for code, face in zip(CODES, faces, strict=True):
        feature = index_feature(_search_patch(face, box), box)
        if feature is None:
            raise DeckError(f"{code}: the corner index cannot be read from the registered face")
        sharp.append(feature)
    rank_model, suit_model = learn_index_classifier(faces, box, sharp)
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
        rank_share=_rank_share(sharp),
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
