"""Realistic generated tables for tests and the benchmark: oblique camera, lens, light, chips, fans, stacked backs."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Final

import numpy as np

from drivers.camera.effects import FELT_TEXTURES, GlareBand, Shadow, SimChip
from drivers.camera.sim import (
    CARD_H_MM,
    CARD_W_MM,
    PURPLE_FELT_BGR,
    Glare,
    Lighting,
    Optics,
    Scene,
    SimCard,
    SimHand,
    TableRenderer,
    TableView,
)
from vision.calibration import Calibration
from vision.deck import CODES, DeckProfile
from vision.lens import Lens

# Cloths a table may have (BGR): casino green, blue, burgundy, purple, grey-green.
FELTS: Final = ((45, 105, 20), (110, 60, 20), (40, 30, 110), PURPLE_FELT_BGR, (70, 95, 60))
CHIP_COLOURS: Final = ((40, 40, 190), (20, 20, 20), (190, 90, 30), (40, 150, 40), (230, 230, 230))
MIN_CARD_PX: Final = 152.0  # the targets are for cards at least 150 px tall
# Roles a generated card plays (the benchmark breaks its figures down by them).
ROLES: Final = ("single", "fan bottom", "fan middle", "fan top", "stacked back", "single back")


def view_calibration(view: TableView) -> Calibration:
    """The calibration of a generated table as a calibrated camera knows it: the layout's exact
    homography, and its lens (a table's markers measure both, see ``calibrate_markers``).
    """
    lens = Lens(k1=view.distortion_k1, width=view.width_px, height=view.height_px) if view.distortion_k1 else None
    return Calibration(homography=view.homography(), rms_px=0.0, lens=lens)


@dataclass(frozen=True, slots=True)
class Table:
    """One generated table: where the camera is, what lies on the table, and each card's role."""

    view: TableView
    scene: Scene
    roles: tuple[str, ...]  # one per scene card
    conditions: tuple[str, ...]  # labels of what makes this frame hard (for the breakdown)


def card_height_px(view: TableView, x_mm: float, y_mm: float) -> float:
    """How tall a card standing upright or across at a table point looks (its longer image side)."""
    renderer = _geometry(view)
    sides = []
    for angle in (0.0, 90.0):
        q = renderer.card_quad_px(SimCard(code="As", x_mm=x_mm, y_mm=y_mm, angle_deg=angle))
        sides.append(max(float(np.hypot(*(q[3] - q[0]))), float(np.hypot(*(q[1] - q[0])))))
    return min(sides)


class _Geometry:
    """The corner mapping of a TableRenderer without drawing anything (no deck, no felt)."""

    def __init__(self, view: TableView) -> None:
        from drivers.camera.sim import card_corners_mm, to_px

        self._h = view.homography()
        self._lens = Lens(k1=view.distortion_k1, width=view.width_px, height=view.height_px)
        self._corners = card_corners_mm
        self._to_px = to_px

    def card_quad_px(self, card: SimCard) -> np.ndarray:
        return self._lens.distort(self._to_px(self._h, self._corners(card)))


def _geometry(view: TableView) -> _Geometry:
    return _Geometry(view)


def random_view(
    rng: np.random.Generator, *, oblique: bool = True, felt: tuple[int, int, int] | None = None
) -> TableView:
    """A camera over a table: up to 35 degrees off vertical (when ``oblique``), a little roll, a
    mild barrel lens, one of several felts and textures, zoomed so every card is at least
    ``MIN_CARD_PX`` tall.
    """
    tilt = float(rng.uniform(0.0, 35.0)) if oblique else 0.0
    base = {
        "tilt_deg": tilt,
        "keystone": 0.0 if oblique else float(rng.uniform(0.0, 0.06)),
        "roll_deg": float(rng.uniform(-4, 4)),
        "distortion_k1": float(rng.uniform(-0.06, 0.0)) if oblique else 0.0,
        "felt_bgr": felt or tuple(int(c) for c in FELTS[int(rng.integers(0, len(FELTS)))]),
        "felt_texture": str(FELT_TEXTURES[int(rng.integers(0, len(FELT_TEXTURES)))]),
    }
    width = 1000.0
    while True:
        view = TableView(table_w_mm=width, table_h_mm=width * 0.56, **base)  # type: ignore[arg-type]
        worst = min(
            card_height_px(view, x, y)
            for x in (0.08 * width, 0.5 * width, 0.92 * width)
            for y in (0.1 * view.table_h_mm, 0.9 * view.table_h_mm)
        )
        if worst >= MIN_CARD_PX or width <= 500:
            return view
        width *= 0.95


def random_lighting(rng: np.random.Generator, view: TableView, *, hard: bool = True) -> tuple[Lighting, list[str]]:
    """The room's light: level (dim to bright), warm or neutral tint, falloff, glare spots and
    specular bands, shadows from above; with the labels of what was chosen.
    """
    labels: list[str] = []
    tw, th = view.table_w_mm, view.table_h_mm
    brightness = float(rng.uniform(0.75, 1.15))
    tint = (1.0, 1.0, 1.0)
    if hard and rng.random() < 0.25:
        brightness = float(rng.uniform(0.45, 0.7))
        labels.append("dim light")
    if hard and rng.random() < 0.3:
        warmth = float(rng.uniform(0.08, 0.2))
        tint = (1.0 - 1.5 * warmth, 1.0 - 0.3 * warmth, 1.0 + 0.5 * warmth)
        labels.append("warm light")
    glare: tuple[Glare, ...] = ()
    if rng.random() < 0.3:
        glare = (
            Glare(
                x_mm=float(rng.uniform(0, tw)),
                y_mm=float(rng.uniform(0, th)),
                radius_mm=float(rng.uniform(30, 70)),
                strength=float(rng.uniform(0.3, 0.6)),
            ),
        )
        labels.append("glare spot")
    bands: tuple[GlareBand, ...] = ()
    if hard and rng.random() < 0.3:
        bands = (
            GlareBand(
                x_mm=float(rng.uniform(0, tw)),
                y_mm=float(rng.uniform(0, th)),
                angle_deg=float(rng.uniform(0, 180)),
                width_mm=float(rng.uniform(12, 35)),
                strength=float(rng.uniform(0.25, 0.5)),
            ),
        )
        labels.append("glare band")
    shadows: tuple[Shadow, ...] = ()
    if hard and rng.random() < 0.3:
        shadows = tuple(
            Shadow(
                x_mm=float(rng.uniform(0, tw)),
                y_mm=float(rng.uniform(0, th)),
                width_mm=float(rng.uniform(120, 260)),
                height_mm=float(rng.uniform(60, 120)),
                angle_deg=float(rng.uniform(0, 180)),
                strength=float(rng.uniform(0.25, 0.45)),
            )
            for _ in range(int(rng.integers(1, 3)))
        )
        labels.append("shadows")
    lighting = Lighting(
        brightness=brightness,
        falloff=float(rng.uniform(0.0, 0.4)),
        falloff_angle_deg=float(rng.uniform(0, 360)),
        tint_bgr=tint,
        glare=glare,
        bands=bands,
        shadows=shadows,
    )
    return lighting, labels


def random_optics(rng: np.random.Generator, *, hard: bool = True) -> tuple[Optics, list[str]]:
    """Focus blur, motion smear, sensor noise and JPEG, each at a realistic strength."""
    blur = float(rng.choice([0.0, 0.0, 0.8, 1.3]))
    motion = float(rng.uniform(1.5, 4.0)) if hard and rng.random() < 0.2 else 0.0
    optics = Optics(
        blur_sigma_px=blur,
        noise_sigma=float(rng.choice([0.0, 3.0, 6.0])),
        jpeg_quality=int(rng.choice([60, 80, 95])) if rng.random() < 0.6 else None,
        motion_px=motion,
        motion_angle_deg=float(rng.uniform(0, 180)),
    )
    labels = [f"blur {blur:.1f} px"]
    if motion:
        labels.append("motion blur")
    if optics.jpeg_quality is not None:
        labels.append("JPEG")
    if optics.noise_sigma:
        labels.append("noise")
    return optics, labels


def random_table(
    rng: np.random.Generator,
    *,
    count: int = 20,
    fans: int = 2,
    stacks: int = 2,
    face_down_share: float = 0.3,
    chips: int = 4,
    oblique: bool = True,
    hard: bool = True,
    felt: tuple[int, int, int] | None = None,
) -> Table:
    """A table of ``count`` distinct cards: ``fans`` fans of three (every index corner in view,
    spread along the card's side or turned about a corner as a hand is fanned), ``stacks`` stacks
    of two or three backs dealt with small offsets, singles at any angle (180 included) and some
    face down, chips (some pushed against a card), under a random camera, light and optics.
    """
    view = random_view(rng, oblique=oblique, felt=felt)
    tw, th = view.table_w_mm, view.table_h_mm
    codes = [str(c) for c in rng.permutation(CODES)]
    cards: list[SimCard] = []
    roles: list[str] = []
    cols, rows = 6, 3
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    order = [cells[int(k)] for k in rng.permutation(len(cells))]
    cell_w, cell_h = tw / cols, th / rows

    def centre() -> tuple[float, float]:
        c, r = order.pop()
        return (c + 0.5) * cell_w + rng.uniform(-0.06, 0.06) * cell_w, (r + 0.5) * cell_h + rng.uniform(
            -0.06, 0.06
        ) * cell_h

    for _ in range(fans):
        if len(cards) + 3 > count or not order:
            break
        cx, cy = centre()
        base = float(rng.uniform(-30, 30)) + (180.0 if rng.random() < 0.3 else 0.0)
        a = math.radians(base)
        if rng.random() < 0.5:
            step = float(rng.uniform(0.3, 0.42)) * CARD_W_MM
            placed = [(cx + k * step * math.cos(a), cy + k * step * math.sin(a), base) for k in (-1, 0, 1)]
        else:
            # Fanned in the hand: each card turned a little further clockwise about the middle
            # card's bottom left corner (where the fingers hold them), every top-left index clear.
            spread = float(rng.uniform(12.0, 20.0))
            corner = np.array([-0.5 * CARD_W_MM, 0.5 * CARD_H_MM])
            pivot = np.array([cx, cy]) + _turn(base) @ corner
            placed = []
            for k in (-1, 0, 1):
                at = pivot - _turn(base + k * spread) @ corner
                placed.append((float(at[0]), float(at[1]), base + k * spread))
        for (x, y, ang), role in zip(placed, ("fan bottom", "fan middle", "fan top"), strict=True):
            cards.append(SimCard(code=codes.pop(), x_mm=x, y_mm=y, angle_deg=ang))
            roles.append(role)
    for _ in range(stacks):
        n = 3 if rng.random() < 0.4 else 2
        if len(cards) + n > count or not order:
            break
        cx, cy = centre()
        base = float(rng.uniform(0, 360))
        x, y, ang = cx, cy, base
        for _k in range(n):
            cards.append(SimCard(code=codes.pop(), x_mm=x, y_mm=y, angle_deg=ang, face_up=False))
            roles.append("stacked back")
            # The next card lands a little off the last one, as dealt: 6-25 mm, a few degrees.
            dist, direction = float(rng.uniform(6.0, 25.0)), float(rng.uniform(0, 2 * math.pi))
            x, y = x + dist * math.cos(direction), y + dist * math.sin(direction)
            ang += float(rng.uniform(-6.0, 6.0))
    while len(cards) < count and order:
        cx, cy = centre()
        face_up = bool(rng.random() >= face_down_share)
        angle = float(rng.uniform(0, 360))
        cards.append(SimCard(code=codes.pop(), x_mm=cx, y_mm=cy, angle_deg=angle, face_up=face_up))
        roles.append("single" if face_up else "single back")
    chip_list: list[SimChip] = []
    labels: list[str] = [f"tilt {5 * round(view.tilt_deg / 5):.0f} deg" if oblique else "top-down"]
    for k in range(chips):
        colour = tuple(int(c) for c in CHIP_COLOURS[int(rng.integers(0, len(CHIP_COLOURS)))])
        stack = int(rng.integers(1, 6))
        if k % 2 == 0 and cards:
            # Pushed against a card: the chip's edge touches the card's short side.
            card = cards[int(rng.integers(0, len(cards)))]
            a = math.radians(card.angle_deg)
            reach = 0.5 * CARD_H_MM + 19.0
            at = (card.x_mm - reach * math.sin(a), card.y_mm + reach * math.cos(a))
            chip_list.append(SimChip(x_mm=at[0], y_mm=at[1], colour_bgr=colour, stack=stack))  # type: ignore[arg-type]
        elif order:
            x, y = centre()
            chip_list.append(SimChip(x_mm=x, y_mm=y, colour_bgr=colour, stack=stack))  # type: ignore[arg-type]
    if chip_list:
        labels.append("chips")
    lighting, light_labels = random_lighting(rng, view, hard=hard)
    optics, optic_labels = random_optics(rng, hard=hard)
    hands: tuple[SimHand, ...] = ()
    return Table(
        view=view,
        scene=Scene(cards=tuple(cards), hands=hands, chips=tuple(chip_list), lighting=lighting, optics=optics),
        roles=tuple(roles),
        conditions=(*labels, *light_labels, *optic_labels),
    )


# ``bench_vision_blur``'s tables (stop 32's scan, kept so that its figures stay comparable): twelve
# cards in four fans of three, no backs or chips; a lamp at 45-70 %, focus blur 1.2-1.6 px, motion
# smear 1.5-4 px at any angle, JPEG 60-95 and sensor noise.
BLURRED_CARDS: Final = 12
BLURRED_FANS: Final = 4
BLURRED_BRIGHTNESS: Final = (0.45, 0.7)
BLURRED_BLUR_PX: Final = (1.2, 1.6)
BLURRED_MOTION_PX: Final = (1.5, 4.0)
BLURRED_JPEG: Final = (60, 80, 95)
BLURRED_NOISE: Final = (3.0, 6.0)
# The conditions are drawn from a generator of their own (table seed + this), so the layout of a
# table is the one ``random_table`` gives its seed in every other benchmark.
_CONDITIONS_SEED: Final = 777


def blurred_table(seed: int) -> Table:
    """``bench_vision_blur``'s table ``seed``: fans only, under dim light, blur, smear, JPEG and noise."""
    table = random_table(
        np.random.default_rng(seed), count=BLURRED_CARDS, fans=BLURRED_FANS, stacks=0, face_down_share=0.0, chips=0
    )
    rng = np.random.default_rng(seed + _CONDITIONS_SEED)
    lighting = dataclasses.replace(table.scene.lighting, brightness=float(rng.uniform(*BLURRED_BRIGHTNESS)))
    optics = Optics(
        blur_sigma_px=float(rng.uniform(*BLURRED_BLUR_PX)),
        noise_sigma=float(rng.choice(BLURRED_NOISE)),
        jpeg_quality=int(rng.choice(BLURRED_JPEG)),
        motion_px=float(rng.uniform(*BLURRED_MOTION_PX)),
        motion_angle_deg=float(rng.uniform(0, 180)),
    )
    return dataclasses.replace(table, scene=dataclasses.replace(table.scene, lighting=lighting, optics=optics))


def _turn(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def truth_centres(renderer: TableRenderer, scene: Scene) -> list[tuple[SimCard, tuple[float, float]]]:
    """Every card of a scene with its centre in the frame (through the lens)."""
    out = []
    for card in scene.cards:
        quad = renderer.card_quad_px(card)
        out.append((card, (float(quad[:, 0].mean()), float(quad[:, 1].mean()))))
    return out


def smallest_card_px(renderer: TableRenderer, scene: Scene) -> float:
    """The shortest long side of any card in the frame."""
    sizes = []
    for card in scene.cards:
        q = renderer.card_quad_px(card)
        sizes.append(max(float(np.hypot(*(q[3] - q[0]))), float(np.hypot(*(q[1] - q[0])))))
    return min(sizes) if sizes else float("inf")


def render_table(deck: DeckProfile, table: Table, *, seed: int) -> tuple[TableRenderer, np.ndarray]:
    """The frame of a generated table and the renderer that drew it (for the truth's positions)."""
    renderer = TableRenderer(deck=deck, view=table.view, seed=seed)
    return renderer, renderer.render(table.scene, seed=seed)
