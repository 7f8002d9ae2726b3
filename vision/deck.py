"""Deck profiles: register a deck design from its 52 faces and back, save, load, and match indices."""

from __future__ import annotations

import functools
import io
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from controller.cards import DECK
from vision.errors import DeckError, ImageError
from vision.index import CARD_PX_H, CARD_PX_W, IndexBox, IndexFeature, glyph_bounds, index_feature

PROFILE_VERSION: Final = 1
CODES: Final[tuple[str, ...]] = tuple(c.code for c in DECK)
_IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
_JPEG_QUALITY: Final = 92

# 8-bit images (BGR or single channel); OpenCV's stubs type its results loosely.
ByteImage = npt.NDArray[Any]


@dataclass(frozen=True)
class DeckProfile:
    """A registered deck design: faces and back at the canonical size plus the index templates.

    ``faces[i]`` is the card ``CODES[i]``; the templates are derived on load (each rank averaged
    over its four suits, each suit over its thirteen ranks), so the file holds only images and
    the index box.
    """

    name: str
    faces: ByteImage  # (52, CARD_PX_H, CARD_PX_W, 3) BGR
    back: ByteImage  # (CARD_PX_H, CARD_PX_W, 3) BGR
    index_box: IndexBox
    # Templates are stored as unit residuals from the mean glyph (``rank_mean``/``suit_mean``):
    # what tells a club from a spade is the difference between them, not the shared blob.
    rank_templates: npt.NDArray[np.float32] = field(repr=False)  # (variants, 13, 4, RANK_W * RANK_H)
    suit_templates: npt.NDArray[np.float32] = field(repr=False)  # (variants, 4, 13, SUIT_W * SUIT_H)
    rank_mean: npt.NDArray[np.float32] = field(repr=False)  # (variants, RANK_W * RANK_H)
    suit_mean: npt.NDArray[np.float32] = field(repr=False)
    # Whole-face thumbnails (52, THUMB_W * THUMB_H), unit vectors: a second opinion on a read.
    thumbs: npt.NDArray[np.float32] = field(repr=False)
    suit_chromas: npt.NDArray[np.float32] = field(repr=False)  # (4, 3) ink colour of each suit
    back_palette: npt.NDArray[np.float32] = field(repr=False)  # (k, 3) BGR of the back's body

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
    """The union of the ink blobs that sit wholly inside the top-left corner, over all 52 faces.

    Raises:
        DeckError: no index found in the top-left corner of some face.
    """
    lim_x, lim_y = int(0.30 * CARD_PX_W), int(0.46 * CARD_PX_H)
    x0, y0, x1, y1 = CARD_PX_W, CARD_PX_H, 0, 0
    for code, face in zip(CODES, faces, strict=True):
        gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        corner = gray[:lim_y, :lim_x]
        paper = float(np.percentile(gray, 90))
        ink = (corner < paper * 0.62).astype(np.uint8)
        count, _l, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8)
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
            bounds = glyph_bounds(comps, seed=(top[0], top[1]), limit=(lim_x, lim_y))
        found = bounds is not None
        if bounds is not None:
            bx0, by0, bx1, by1 = bounds[0]
            x0, y0, x1, y1 = min(x0, bx0), min(y0, by0), max(x1, bx1), max(y1, by1)
        if not found:
            raise DeckError(f"{code}: no rank and suit found in the top-left corner of the face")
    return IndexBox(
        x0=max(0.0, (x0 - 1) / CARD_PX_W),
        y0=max(0.0, (y0 - 1) / CARD_PX_H),
        x1=min(0.4, (x1 + 1) / CARD_PX_W),
        y1=min(0.45, (y1 + 1) / CARD_PX_H),
    )


def _search_patch(face: ByteImage, box: IndexBox) -> ByteImage:
    w, h = box.search_size()
    return face[:h, :w]


def _back_palette(back: ByteImage) -> npt.NDArray[np.float32]:
    """The main colours of the back's body (the inner part, away from any white border)."""
    h, w = back.shape[:2]
    blurred = cv2.GaussianBlur(back, (9, 9), 0)[h // 6 : h - h // 6, w // 6 : w - w // 6]
    body = blurred.reshape(-1, 3).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    labels0 = np.zeros((len(body), 1), np.int32)
    _c, labels, centers = cv2.kmeans(body, 3, labels0, criteria, 3, cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.reshape(-1), minlength=3) / len(labels)
    keep = centers[share >= 0.12]
    return np.asarray(keep, dtype=np.float32)


# The acquisitions a template is learnt at: a face shrunk to these widths and scaled back, so a
# card seen small and soft at the table meets a template of its own softness.
# (scale, blur sigma in canonical pixels)
_TEMPLATE_SCALES: Final = (
    (1.0, 0.0),
    (0.7, 0.0),
    (0.5, 0.0),
    (0.7, 1.6),
    (0.5, 1.2),
    (0.7, 2.4),
    (0.55, 2.2),
)


def _degraded(face: ByteImage, how: tuple[float, float]) -> ByteImage:
    scale, blur = how
    if scale == 1.0 and blur == 0.0:
        return face
    small = cv2.resize(face, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    if blur:
        small = cv2.GaussianBlur(small, (0, 0), blur * scale)
    return np.asarray(cv2.resize(small, (CARD_PX_W, CARD_PX_H), interpolation=cv2.INTER_LINEAR), np.uint8)


THUMB_W: Final = 20
THUMB_H: Final = 28


def face_thumb(card_bgr: ByteImage) -> npt.NDArray[np.float32]:
    """A card image in the canonical frame reduced to a soft grey thumbnail, as a unit vector."""
    gray = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    small = cv2.resize(gray, (THUMB_W, THUMB_H), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0).reshape(-1)
    small -= small.mean()
    norm = float(np.linalg.norm(small))
    return np.asarray(small / norm if norm > 1e-6 else small, dtype=np.float32)


def _residuals(vectors: npt.NDArray[np.float32], mean: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    res = vectors - mean[:, None, None, :]
    return np.asarray(res / np.linalg.norm(res, axis=-1, keepdims=True), dtype=np.float32)


def _derive(name: str, faces: ByteImage, back: ByteImage, box: IndexBox) -> DeckProfile:
    features: list[IndexFeature] = []  # card-major: 52 x len(_TEMPLATE_SCALES)
    for code, face in zip(CODES, faces, strict=True):
        sharp = index_feature(_search_patch(face, box), box)
        if sharp is None:
            raise DeckError(f"{code}: the corner index cannot be read from the registered face")
        for scale in _TEMPLATE_SCALES:
            # A softened copy whose glyphs run together adds nothing: the sharp one stands in.
            feat = index_feature(_search_patch(_degraded(face, scale), box), box)
            features.append(feat if feat is not None else sharp)
    k = len(_TEMPLATE_SCALES)
    # CODES run rank-major (2c 2d 2h 2s 3c ...): card i has rank i // 4 and suit i % 4.
    # Arranged variant-major: (k, 13, 4, D) for ranks, (k, 4, 13, D) for suits.
    by_card = np.stack([f.rank for f in features]).reshape(13, 4, k, -1)
    ranks = by_card.transpose(2, 0, 1, 3)
    suits = np.stack([f.suit for f in features]).reshape(13, 4, k, -1).transpose(2, 1, 0, 3)
    chromas = np.stack([f.chroma for f in features]).reshape(13, 4, k, 3).mean(axis=(0, 2))
    # One mean glyph per acquisition variant: a residual from a mean of sharp and soft glyphs
    # would mostly say "soft", and match whichever soft template is nearest.
    rank_mean = ranks.mean(axis=(1, 2)).astype(np.float32)  # (k, D)
    suit_mean = suits.mean(axis=(1, 2)).astype(np.float32)
    profile = DeckProfile(
        name=name,
        faces=faces,
        back=back,
        index_box=box,
        rank_templates=_residuals(ranks, rank_mean),
        suit_templates=_residuals(suits, suit_mean),
        rank_mean=rank_mean,
        suit_mean=suit_mean,
        thumbs=np.stack([face_thumb(f) for f in faces]),
        suit_chromas=np.asarray(chromas, dtype=np.float32),
        back_palette=_back_palette(back),
    )
    # Every registered face must read back as itself, clearly: otherwise the design's indices
    # cannot be told apart and the deck is refused rather than misread at the table.
    for code, feat in zip(CODES, features[::k], strict=True):
        match = match_index(profile, feat)
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
            if version != PROFILE_VERSION:
                raise DeckError(f"{what}: deck profile version {version}, expected {PROFILE_VERSION}")
            codes = tuple(str(c) for c in data["codes"])
            if codes != CODES:
                raise DeckError(f"{what}: the profile's cards are not the 52 in canonical order")
            name = str(data["name"])
            bx = [float(v) for v in data["index_box"]]
            images = np.asarray(data["images"], dtype=np.uint8)
            offsets = np.asarray(data["offsets"], dtype=np.int64)
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
    return _derive(name, np.stack(decoded[:52]), decoded[52], box)


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


def _no_scores() -> npt.NDArray[np.floating[Any]]:
    return np.zeros(0, np.float32)


@dataclass(frozen=True, slots=True)
class IndexMatch:
    """The best card for one corner index and how sure the match is."""

    code: str
    score: float  # colour-adjusted correlation with the best template, -1..1
    margin: float  # lead over the best *other* card
    # Every rank's (13) and every suit's (4) score, to pool several corners' evidence.
    rank_scores: npt.NDArray[np.floating[Any]] = field(repr=False, compare=False, default_factory=_no_scores)
    suit_scores: npt.NDArray[np.floating[Any]] = field(repr=False, compare=False, default_factory=_no_scores)


def _variant_scores(
    templates: npt.NDArray[np.float32], means: npt.NDArray[np.float32], vector: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Best correlation per class over all variants, each against that variant's own mean."""
    res = vector[None, :] - means  # (k, D)
    res /= np.maximum(np.linalg.norm(res, axis=1, keepdims=True), 1e-6)
    k, classes, samples, dim = templates.shape
    scores = np.matmul(templates.reshape(k, classes * samples, dim), res[:, :, None])  # (k, C*S, 1)
    return np.asarray(scores.reshape(k, classes, samples).max(axis=(0, 2)), dtype=np.float32)


def match_index(profile: DeckProfile, feature: IndexFeature) -> IndexMatch:
    """Compare one normalised index with the deck's rank and suit templates.

    The score is the weaker of the rank and the suit correlation; the margin the smaller lead.
    """
    rank_scores = _variant_scores(profile.rank_templates, profile.rank_mean, feature.rank)
    suit_scores = _variant_scores(profile.suit_templates, profile.suit_mean, feature.suit)
    # Ink of the wrong colour (a red suit read as black) costs score in proportion.
    colour_gap = np.abs(profile.suit_chromas - feature.chroma).sum(axis=1)
    suit_scores = suit_scores - 2.0 * np.maximum(colour_gap - 0.25, 0.0)
    return match_scores(rank_scores, suit_scores)


def match_scores(rank_scores: npt.NDArray[np.floating[Any]], suit_scores: npt.NDArray[np.floating[Any]]) -> IndexMatch:
    """The best card for per-rank and per-suit scores (one corner's, or several corners' mean)."""
    r_order = np.argsort(rank_scores)[::-1]
    s_order = np.argsort(suit_scores)[::-1]
    rank, suit = int(r_order[0]), int(s_order[0])
    score = min(float(rank_scores[rank]), float(suit_scores[suit]))
    margin = min(float(rank_scores[rank] - rank_scores[r_order[1]]), float(suit_scores[suit] - suit_scores[s_order[1]]))
    return IndexMatch(
        code=CODES[rank * 4 + suit], score=score, margin=margin, rank_scores=rank_scores, suit_scores=suit_scores
    )
