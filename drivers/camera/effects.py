"""What makes a simulated frame look like a real table's: cloth, chips, shadows, glare bands, lens and motion."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.base import ByteImage
from vision.lens import Lens

# Felt textures a TableView may name: plain cloth, a visible weave, a blotchy (worn, brushed)
# cloth and one with a printed pattern (a casino's logo lattice in a slightly darker dye).
FELT_TEXTURES: Final = ("plain", "weave", "mottled", "printed")
CHIP_RADIUS_MM: Final = 19.5  # a 39 mm casino chip


@dataclass(frozen=True, slots=True)
class SimChip:
    """A stack of casino chips: centre in table millimetres, the chip's colour and how many high."""

    x_mm: float
    y_mm: float
    colour_bgr: tuple[int, int, int] = (40, 40, 190)
    stack: int = 1


@dataclass(frozen=True, slots=True)
class GlareBand:
    """A specular band (a strip light mirrored by the glossy cards): a line through a point at an
    angle, its width in millimetres and strength 0..1. Cards shine in it; the matt felt far less.
    """

    x_mm: float
    y_mm: float
    angle_deg: float = 0.0
    width_mm: float = 30.0
    strength: float = 0.6


@dataclass(frozen=True, slots=True)
class Shadow:
    """A soft shadow from something above the picture (an arm, a player leaning in, a chip rack):
    an ellipse in table millimetres and how much light it takes away (0..1).
    """

    x_mm: float
    y_mm: float
    width_mm: float = 160.0
    height_mm: float = 90.0
    angle_deg: float = 0.0
    strength: float = 0.45


def felt_texture(
    shape: tuple[int, int], bgr: tuple[int, int, int], texture: str, rng: np.random.Generator
) -> ByteImage:
    """A cloth of one colour: slow mottling and fine grain always, plus the named texture.

    Raises:
        ValueError: an unknown texture name.
    """
    if texture not in FELT_TEXTURES:
        raise ValueError(f"unknown felt texture {texture!r} (have: {', '.join(FELT_TEXTURES)})")
    h, w = shape
    base = np.empty((h, w, 3), np.float32)
    base[:] = bgr
    low = cv2.resize(rng.normal(0, 1, (9, 16)).astype(np.float32), (w, h))
    gain = 1.0 + 0.06 * low
    if texture == "mottled":
        blotch = cv2.resize(rng.normal(0, 1, (36, 64)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        gain += 0.09 * blotch
    elif texture == "weave":
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        gain += 0.05 * np.sin(xs * 1.9) * np.sin(ys * 1.9)
    elif texture == "printed":
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        lattice = (np.sin(xs / 23.0 + ys / 31.0) * np.sin(xs / 29.0 - ys / 17.0)) > 0.55
        gain -= 0.12 * lattice.astype(np.float32)
    base *= gain[:, :, None]
    base += rng.normal(0, 3.0, (h, w)).astype(np.float32)[:, :, None]
    return np.clip(base, 0, 255).astype(np.uint8)


def chip_rim_px(radius_px: float, chip: SimChip) -> float:
    """How far below its top face a chip stack's rim shows (pixels): a taller stack shows more rim
    towards the camera."""
    return 0.12 * max(radius_px, 3.0) * max(chip.stack - 1, 0)


def draw_chip(frame: ByteImage, centre_px: npt.NDArray[np.float64], radius_px: float, chip: SimChip) -> None:
    """A chip stack seen from above: its shadow, the rim of the stack, the face with edge spots."""
    cx, cy = float(centre_px[0]), float(centre_px[1])
    r = max(radius_px, 3.0)
    height = chip_rim_px(radius_px, chip)
    h, w = frame.shape[:2]
    x0, y0 = max(int(cx - r * 1.6), 0), max(int(cy - r * 1.6), 0)
    x1, y1 = min(int(cx + r * 1.6 + height) + 2, w), min(int(cy + r * 1.6 + height) + 2, h)
    if x1 <= x0 or y1 <= y0:
        return
    roi = frame[y0:y1, x0:x1]
    shade = np.zeros(roi.shape[:2], np.uint8)
    cv2.circle(shade, (round(cx - x0 + 0.25 * r), round(cy - y0 + 0.25 * r + height)), round(r), 255, -1)
    soft = cv2.GaussianBlur(shade, (0, 0), 0.15 * r + 1).astype(np.float32) / 255.0
    roi[:] = (roi.astype(np.float32) * (1.0 - 0.5 * soft[:, :, None])).astype(np.uint8)
    colour = tuple(int(c) for c in chip.colour_bgr)
    dark = tuple(int(0.6 * c) for c in chip.colour_bgr)
    top = (round(cx - x0), round(cy - y0))
    if height > 0:
        cv2.circle(roi, (top[0], round(top[1] + height)), round(r), dark, -1, cv2.LINE_AA)
        cv2.rectangle(roi, (round(top[0] - r), top[1]), (round(top[0] + r), round(top[1] + height)), dark, -1)
    cv2.circle(roi, top, round(r), colour, -1, cv2.LINE_AA)
    for k in range(6):  # the white edge spots every casino chip has
        a = k * math.pi / 3
        spot = (round(top[0] + 0.8 * r * math.cos(a)), round(top[1] + 0.8 * r * math.sin(a)))
        cv2.circle(roi, spot, max(round(0.16 * r), 1), (235, 235, 235), -1, cv2.LINE_AA)
    cv2.circle(roi, top, max(round(0.55 * r), 1), (225, 225, 225), max(round(0.06 * r), 1), cv2.LINE_AA)


def shadow_gain(
    shape: tuple[int, int], polygons_px: list[npt.NDArray[np.int32]], strengths: list[float], blur_px: float
) -> npt.NDArray[np.float32]:
    """A multiplicative light map (1 = untouched) darkened under each polygon by its strength."""
    h, w = shape
    gain = np.ones((h, w), np.float32)
    for poly, strength in zip(polygons_px, strengths, strict=True):
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA)
        soft = cv2.GaussianBlur(mask, (0, 0), max(blur_px, 0.5)).astype(np.float32) / 255.0
        gain *= 1.0 - strength * soft
    return gain


def band_light(
    shape: tuple[int, int], line_px: tuple[float, float, float], width_px: float, strength: float
) -> npt.NDArray[np.float32]:
    """A band of light 0..strength along a line (a point and an angle in radians), Gaussian across."""
    h, w = shape
    px, py, angle = line_px
    nx, ny = -math.sin(angle), math.cos(angle)
    xs = np.arange(w, dtype=np.float32)[None, :] - np.float32(px)
    ys = np.arange(h, dtype=np.float32)[:, None] - np.float32(py)
    across = xs * np.float32(nx) + ys * np.float32(ny)
    sigma = max(width_px / 2.0, 1.0)
    return np.asarray(strength * np.exp(-(across * across) / np.float32(2 * sigma * sigma)), np.float32)


def motion_blur(frame: ByteImage, length_px: float, angle_deg: float) -> ByteImage:
    """The smear of a camera or table moving ``length_px`` during the exposure, along an angle."""
    if length_px < 0.5:
        return frame
    size = math.ceil(length_px) * 2 + 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length_px / 2, math.sin(a) * length_px / 2
    # Sub-pixel end points (4 fractional bits), so a short smear still has its length.
    start = (round(16 * (c - dx)), round(16 * (c - dy)))
    end = (round(16 * (c + dx)), round(16 * (c + dy)))
    cv2.line(kernel, start, end, 1.0, 1, cv2.LINE_AA, shift=4)
    kernel /= max(float(kernel.sum()), 1e-6)
    return np.asarray(cv2.filter2D(frame, -1, kernel, borderType=cv2.BORDER_REFLECT), np.uint8)


def apply_lens(frame: ByteImage, lens: Lens) -> ByteImage:
    """The frame as the distorting lens shows it: each seen pixel takes the ideal pixel the lens
    bends onto it (one remap, its maps kept per lens).
    """
    if lens.k1 == 0.0:
        return frame
    map_x, map_y = _lens_maps(lens)
    return np.asarray(cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT), np.uint8)


@functools.lru_cache(maxsize=4)
def _lens_maps(lens: Lens) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    w, h = lens.width, lens.height
    grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)), axis=-1)
    ideal = lens.undistort(grid)
    return ideal[..., 0].astype(np.float32), ideal[..., 1].astype(np.float32)
