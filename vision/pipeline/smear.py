"""Motion smear: measured on the cards' own straight edges, and undone before their indices are read."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

ByteImage = npt.NDArray[Any]
Vec = npt.NDArray[np.float64]

# A card's edge against the cloth is a step blurred by everything between the card and the sensor:
# focus (the same spread across every edge) and motion (a smear of length L along one direction,
# which spreads an edge by the smear's extent across it, L |cos phi|, phi between the smear and the
# edge's normal). Spreads add as variances, a uniform smear's being its extent squared over 12:
#     var(edge) = focus + L^2 cos^2(phi) / 12 = c0 + c1 cos(2 n) + c2 sin(2 n)
# for an edge whose normal points along n, which is linear in (c0, c1, c2): edges of three or more
# directions (cards lie at every angle) give the smear's length and direction by least squares.
#
# Straight runs of an outline at least this long (frame pixels) are measured ...
MIN_RUN_PX: Final = 40.0
# ... across this half-width (pixels), sampled every SAMPLE_PX, at POINTS places along the run's
# middle (its ends are the card's rounded corners).
HALF_WIDTH_PX: Final = 7.0
SAMPLE_PX: Final = 0.5
POINTS: Final = 15
# A step lower than this (grey levels) is too faint to measure (a pale card on pale cloth).
MIN_STEP: Final = 40.0
# Runs needed, the sectors they are grouped in by the axis they face along, the runs an axis needs
# to be judged, and the axes judged needed for the fit to say anything (a smear's
# direction takes three, and each is left out in turn: see ``measure_smear``).
MIN_RUNS: Final = 6
AXES: Final = 6
MIN_AXES: Final = 4
MIN_PER_AXIS: Final = 2
# A smear shorter than this (pixels) is left alone: still frames measure up to about 2 px (their
# edges' own softness and noise: 338 of 342 still development frames, six designs, lie under it),
# smeared ones of 2.2 px and more above it (86 of 90), and a shorter smear costs the index reads
# little (the deck's classifier learnt round blurs of that spread).
MIN_SMEAR_PX: Final = 2.25
# Wiener regularisation (noise to signal power): the undone smear keeps its zeros from blowing up
# noise and JPEG blocks. At 0.03 the undone edges rang enough to cost reads the smeared frame had.
NOISE_TO_SIGNAL: Final = 0.08


@dataclass(frozen=True, slots=True)
class Smear:
    """A frame's motion smear as its cards' edges show it."""

    length: float  # pixels
    angle: float  # radians, of the smear's direction in the frame (x right, y down), in [0, pi)


def measure_smear(image: ByteImage, outlines: list[Vec]) -> Smear | None:
    """The motion smear that the straight runs of ``outlines`` (closed polygons in frame pixels,
    the cards' outer edges against the cloth) show in ``image``; None when too few runs of too few
    directions are seen to tell.
    """
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    runs = [run for outline in outlines for run in _runs(outline)]
    if len(runs) < MIN_RUNS:
        return None
    ends = np.array(runs)  # (runs, 2 ends, xy)
    found, spreads = edge_spreads(gray, ends[:, 0], ends[:, 1])
    d = ends[found, 1] - ends[found, 0]
    normals = np.arctan2(d[:, 0], -d[:, 1])
    if len(spreads) < MIN_RUNS:
        return None
    # Anything else at an edge only widens it, never sharpens it: a card's shadow on the cloth,
    # its edge lit from one side, a design's rim or border printed near its edge, a chip against
    # it. A smear widens every edge facing along it alike. Edges are grouped by the axis they
    # face along (AXES sectors of half a turn, either side alike), and each axis is judged by its
    # sharper edges (its lower quartile).
    n = normals % math.pi
    v = spreads
    sector = (n / (math.pi / AXES)).astype(int) % AXES
    axes, spreads_at = [], []
    for k in range(AXES):
        at = np.nonzero(sector == k)[0]
        if len(at) >= MIN_PER_AXIS:
            pick = at[np.argsort(v[at])[(len(at) - 1) // 4]]
            axes.append(float(n[pick]))  # the chosen edge's own direction, not its sector's
            spreads_at.append(float(v[pick]))
    if len(axes) < MIN_AXES:
        return None
    # A smear widens the edges of every axis by the same law; one axis widened by what lies
    # along it (one card's rim, a row of chips) is not a smear. The fit is made again leaving out
    # each axis in turn: where one of those finds less than half the smear, that axis alone made
    # it, and the weakest fit stands.
    a = np.array(axes)
    design = np.stack([np.ones_like(a), np.cos(2 * a), np.sin(2 * a)], axis=1)
    values = np.array(spreads_at)
    whole, *_ = np.linalg.lstsq(design, values, rcond=None)
    fits = []
    for out in range(len(a)):
        keep = np.arange(len(a)) != out
        coef, *_ = np.linalg.lstsq(design[keep], values[keep], rcond=None)
        fits.append(coef)
    weakest = min(fits, key=lambda f: math.hypot(f[1], f[2]))
    chosen = weakest if math.hypot(*weakest[1:]) < 0.5 * math.hypot(*whole[1:]) else whole
    c1, c2 = float(chosen[1]), float(chosen[2])
    return Smear(length=math.sqrt(24.0 * math.hypot(c1, c2)), angle=(math.atan2(c2, c1) / 2.0) % math.pi)


def unsmeared(image: ByteImage, smear: Smear, regions: list[tuple[int, int, int, int]]) -> ByteImage:
    """A copy of ``image`` with ``smear`` undone (a Wiener filter of the smear's uniform line)
    inside ``regions`` (x0, y0, x1, y1: the cards; the cloth is never read), or ``image`` itself
    when the smear is too short to be worth undoing.
    """
    if smear.length < MIN_SMEAR_PX:
        return image
    kernel = _line(smear.length, smear.angle)
    # Each region is filtered with this much of the frame around it, so that what it keeps lies
    # beyond the reach of the filter's edges (the inverse of a smear rings a few lengths along it).
    pad = int(4 * math.ceil(smear.length)) + 8
    h, w = image.shape[:2]
    out = image.copy()
    gains: dict[tuple[int, int], npt.NDArray[np.float32]] = {}
    for region in regions:
        x0, y0, x1, y1 = max(region[0], 0), max(region[1], 0), min(region[2], w), min(region[3], h)
        if x1 <= x0 or y1 <= y0:
            continue
        cx0, cy0, cx1, cy1 = max(x0 - pad, 0), max(y0 - pad, 0), min(x1 + pad, w), min(y1 + pad, h)
        crop = image[cy0:cy1, cx0:cx1]
        size = (cv2.getOptimalDFTSize(crop.shape[0] + pad), cv2.getOptimalDFTSize(crop.shape[1] + pad))
        gain = gains.get(size)
        if gain is None:
            gain = gains[size] = _wiener_gain(kernel, size)
        # Reflected past the crop (to the DFT's size), so its borders do not wrap round into it.
        big = cv2.copyMakeBorder(
            crop, 0, size[0] - crop.shape[0], 0, size[1] - crop.shape[1], cv2.BORDER_REFLECT
        ).astype(np.float32)
        for c in range(image.shape[2]):
            spectrum = cv2.dft(np.ascontiguousarray(big[..., c]), flags=cv2.DFT_COMPLEX_OUTPUT)
            sharp = cv2.idft(cv2.mulSpectrums(spectrum, gain, 0), flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
            kept = sharp[y0 - cy0 : y1 - cy0, x0 - cx0 : x1 - cx0]
            out[y0:y1, x0:x1, c] = np.clip(kept, 0, 255)
    return out


def _wiener_gain(kernel: npt.NDArray[np.float32], size: tuple[int, int]) -> npt.NDArray[np.float32]:
    """The Wiener filter of ``kernel`` (centred) for an image of ``size`` (rows, columns), as the
    two-channel spectrum ``cv2.mulSpectrums`` takes."""
    psf = np.zeros(size, np.float32)
    k = kernel.shape[0]
    psf[:k, :k] = kernel
    psf = np.roll(psf, (-(k // 2), -(k // 2)), axis=(0, 1))
    spectrum = cv2.dft(psf, flags=cv2.DFT_COMPLEX_OUTPUT)
    re, im = spectrum[..., 0], spectrum[..., 1]
    power = re * re + im * im + NOISE_TO_SIGNAL
    return np.ascontiguousarray(np.stack([re / power, -im / power], axis=-1), dtype=np.float32)


def _line(length: float, angle: float) -> npt.NDArray[np.float32]:
    """A uniform line ``length`` pixels long along ``angle``, summing to one: points every tenth of
    a pixel along it, each shared among its four nearest pixels (so a length between whole pixels
    is that length, not rounded to one)."""
    size = 2 * math.ceil(length / 2.0 + 1.0) + 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    for t in np.linspace(-length / 2.0, length / 2.0, max(2, int(10 * length) + 1)):
        x, y = c + t * math.cos(angle), c + t * math.sin(angle)
        x0, y0 = math.floor(x), math.floor(y)
        fx, fy = x - x0, y - y0
        kernel[y0, x0] += (1 - fx) * (1 - fy)
        kernel[y0, x0 + 1] += fx * (1 - fy)
        kernel[y0 + 1, x0] += (1 - fx) * fy
        kernel[y0 + 1, x0 + 1] += fx * fy
    return kernel / float(kernel.sum())


def _runs(outline: Vec) -> list[tuple[Vec, Vec]]:
    """The straight runs of a closed outline at least MIN_RUN_PX long, as end points."""
    pts = np.asarray(outline, np.float32).reshape(-1, 1, 2)
    if len(pts) < 3:
        return []
    poly = cv2.approxPolyDP(pts, 2.0, True).reshape(-1, 2).astype(np.float64)
    runs = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        if float(np.hypot(*(b - a))) >= MIN_RUN_PX:
            runs.append((a, b))
    return runs


def edge_spreads(gray: npt.NDArray[np.float32], a: Vec, b: Vec) -> tuple[npt.NDArray[np.intp], Vec]:
    """The variance of each edge's spread across the runs a[i]-b[i] (pixels squared): profiles
    across each at POINTS places along its middle, each centred on its own half-way crossing (the
    run as fitted is a pixel or so off the edge, and turned a little from it) and averaged, the
    second moment of the mean profile's slope. Returns the runs measured (their indices) and their
    spreads; a run whose step is too faint, or not one clean step, is left out.
    """
    length = np.hypot(*(b - a).T)[:, None]
    along_run = (b - a) / length
    normal = np.stack([-along_run[:, 1], along_run[:, 0]], axis=1)
    offsets = np.arange(-HALF_WIDTH_PX, HALF_WIDTH_PX + 1e-9, SAMPLE_PX)
    along = np.linspace(0.25, 0.75, POINTS)
    centres = a[:, None, :] + along[None, :, None] * (b - a)[:, None, :]  # (runs, points, xy)

    def profiles(shift: Vec) -> Vec:
        at = offsets[None, None, :] + shift[:, :, None]  # (runs, points, samples)
        xy = centres[:, :, None, :] + at[..., None] * normal[:, None, None, :]
        maps = xy.reshape(-1, len(offsets), 2).astype(np.float32)
        out = cv2.remap(gray, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(out, np.float64).reshape(at.shape)

    prof = profiles(np.zeros((len(a), POINTS)))
    lo, hi = prof[..., :4].mean(axis=-1), prof[..., -4:].mean(axis=-1)
    step = hi - lo
    strong = np.abs(step) >= MIN_STEP
    norm = (prof - lo[..., None]) / np.where(strong, step, 1.0)[..., None]  # 0 one side, 1 the other
    # Each profile's first half-way crossing, between samples i - 1 and i.
    above = norm >= 0.5
    i = np.argmax(above, axis=-1)
    crosses = above.any(axis=-1) & (i > 0) & strong
    i = np.clip(i, 1, len(offsets) - 1)
    p0 = np.take_along_axis(norm, (i - 1)[..., None], axis=-1)[..., 0]
    p1 = np.take_along_axis(norm, i[..., None], axis=-1)[..., 0]
    cross = offsets[i - 1] + (0.5 - p0) / np.maximum(p1 - p0, 1e-6) * SAMPLE_PX
    # The same places read again centred on their crossings (one remap for every run).
    centred = profiles(np.where(crosses, cross, 0.0))
    centred = (centred - lo[..., None]) / np.where(strong, step, 1.0)[..., None]
    keep = crosses.sum(axis=1) >= POINTS // 2
    # (A run whose places step up and down is no one edge: a card's edge beside another's.)
    keep &= ~(((step > 0) & strong).any(axis=1) & ((step < 0) & strong).any(axis=1))
    weight = crosses[..., None].astype(np.float64)
    mean = (centred * weight).sum(axis=1) / np.maximum(weight.sum(axis=1), 1.0)  # (runs, samples)
    slope = np.clip(np.diff(mean, axis=-1), 0.0, None)
    mid = (offsets[1:] + offsets[:-1]) / 2.0
    inner = np.abs(mid) <= HALF_WIDTH_PX - 2.0
    slope, mid = slope[:, inner], mid[inner]
    total = slope.sum(axis=-1)
    keep &= total >= 0.8  # one clean step within the window
    safe = np.maximum(total, 1e-9)
    centre = (slope * mid).sum(axis=-1) / safe
    spread = (slope * (mid[None, :] - centre[:, None]) ** 2).sum(axis=-1) / safe
    idx = np.nonzero(keep)[0]
    return idx, spread[idx]
