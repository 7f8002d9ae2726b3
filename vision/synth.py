"""Generated material for tests, benchmarks and demos: a second deck design and random table scenes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from drivers.camera.sim import CARD_H_MM, CARD_W_MM, Glare, Lighting, Optics, Scene, SimCard
from vision.deck import CODES

_RED: Final = (30, 30, 200)
_BLACK: Final = (25, 25, 25)
_FONT: Final = cv2.FONT_HERSHEY_DUPLEX


def _suit_shape(img: np.ndarray, suit: str, *, cx: int, cy: int, size: int, colour: tuple[int, int, int]) -> None:
    """Draw a suit symbol of height ``size`` centred at (cx, cy)."""
    r = size // 4
    if suit == "d":
        pts = np.array([[cx, cy - size // 2], [cx + size // 3, cy], [cx, cy + size // 2], [cx - size // 3, cy]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
    elif suit == "h":
        cv2.circle(img, (cx - r, cy - r // 2), r + 1, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (cx + r, cy - r // 2), r + 1, colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 2 * r - 1, cy - r // 3], [cx + 2 * r + 1, cy - r // 3], [cx, cy + size // 2]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
    elif suit == "s":
        # A tall pointed top and a flared foot: unmistakably not a club, even when small.
        pts = np.array([[cx, cy - size // 2 - 2], [cx + 2 * r + 2, cy + r // 2], [cx - 2 * r - 2, cy + r // 2]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
        cv2.circle(img, (cx - r, cy + r // 2), r + 1, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (cx + r, cy + r // 2), r + 1, colour, -1, cv2.LINE_AA)
        stem = np.array([[cx, cy], [cx + r + 2, cy + size // 2], [cx - r - 2, cy + size // 2]])
        cv2.fillPoly(img, [stem.astype(np.int32)], colour, cv2.LINE_AA)
    else:  # clubs: three round lobes with notches between them and a thin stem
        cv2.circle(img, (cx, cy - r - 2), r + 1, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (cx - r - 3, cy + r // 2), r + 1, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (cx + r + 3, cy + r // 2), r + 1, colour, -1, cv2.LINE_AA)
        cv2.rectangle(img, (cx - 2, cy - r), (cx + 2, cy + size // 2), colour, -1, cv2.LINE_AA)
        cv2.rectangle(img, (cx - r, cy + size // 2 - 3), (cx + r, cy + size // 2), colour, -1, cv2.LINE_AA)


def _index(img: np.ndarray, rank: str, suit: str, colour: tuple[int, int, int]) -> None:
    # A large casino index: rank in a heavy Hershey face, the suit under it at almost its height.
    label = "10" if rank == "T" else rank
    scale = 1.5 if len(label) == 1 else 1.15
    (tw, th), _ = cv2.getTextSize(label, _FONT, scale, 4)
    x = 38 - tw // 2
    cv2.putText(img, label, (x, 20 + th), _FONT, scale, colour, 4, cv2.LINE_AA)
    _suit_shape(img, suit, cx=38, cy=20 + th + 34, size=40, colour=colour)


def second_design_face(code: str) -> np.ndarray:
    """One face of the test design: cream paper, Hershey-font index, a framed big rank in the middle."""
    rank, suit = code[0], code[1]
    colour = _RED if suit in "dh" else _BLACK
    img = np.full((448, 320, 3), (228, 240, 246), np.uint8)
    cv2.rectangle(img, (70, 60), (250, 388), (160, 110, 40), 3, cv2.LINE_AA)
    label = "10" if rank == "T" else rank
    (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_TRIPLEX, 3.2, 6)
    cv2.putText(img, label, (160 - tw // 2, 200 + th // 2), cv2.FONT_HERSHEY_TRIPLEX, 3.2, colour, 6, cv2.LINE_AA)
    _suit_shape(img, suit, cx=160, cy=300, size=70, colour=colour)
    _index(img, rank, suit, colour)
    # The opposite corner carries the same index turned half a turn, as on every real deck.
    turned = np.full_like(img, 255)
    _index(turned, rank, suit, colour)
    turned = np.ascontiguousarray(turned[::-1, ::-1])
    region = np.any(turned < 250, axis=2)
    img[region] = turned[region]
    return img


def second_design_back() -> np.ndarray:
    """The test design's back: navy with a light grid inside a white border."""
    img = np.full((448, 320, 3), 255, np.uint8)
    img[22:426, 22:298] = (120, 50, 20)
    for k in range(22, 426, 24):
        cv2.line(img, (22, k), (297, k), (170, 95, 50), 2)
    for k in range(22, 298, 24):
        cv2.line(img, (k, 22), (k, 425), (170, 95, 50), 2)
    return img


def write_second_design(folder: Path) -> Path:
    """Write the 52 faces (``As.png`` …) into ``folder`` and the back beside them; returns the back."""
    folder.mkdir(parents=True, exist_ok=True)
    for code in CODES:
        cv2.imwrite(str(folder / f"{code}.png"), second_design_face(code))
    back = folder.parent / f"{folder.name}-back.png"
    cv2.imwrite(str(back), second_design_back())
    return back


@dataclass(frozen=True, slots=True)
class Conditions:
    """How hard a generated scene is: camera degradations and room light."""

    blur: float = 0.0
    noise: float = 0.0
    jpeg: int | None = None
    falloff: float = 0.0
    brightness: float = 1.0
    glare: bool = False


def random_conditions(rng: np.random.Generator) -> Conditions:
    """A random mix of the degradations the issue lists, each at a realistic strength."""
    return Conditions(
        blur=float(rng.choice([0.0, 0.0, 0.8, 1.3])),
        noise=float(rng.choice([0.0, 3.0, 6.0])),
        jpeg=int(rng.choice([60, 80, 95])) if rng.random() < 0.6 else None,
        falloff=float(rng.uniform(0.0, 0.45)),
        brightness=float(rng.uniform(0.75, 1.15)),
        glare=bool(rng.random() < 0.4),
    )


def random_scene(
    rng: np.random.Generator,
    *,
    count: int = 20,
    face_down_share: float = 0.3,
    fans: int = 2,
    back_pairs: int = 1,
    conditions: Conditions | None = None,
    table_mm: tuple[float, float] = (1000.0, 560.0),
) -> Scene:
    """A table with ``count`` distinct cards: singles at any angle (180 included), fans of three
    whose index corners stay visible, pairs of overlapping backs, on a grid so groups don't touch.
    """
    codes = list(rng.permutation(CODES))
    cards: list[SimCard] = []
    cols, rows = 7, 3
    cell_w, cell_h = table_mm[0] / cols, table_mm[1] / rows
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    order = rng.permutation(len(cells))
    slot = 0

    def centre() -> tuple[float, float]:
        nonlocal slot
        c, r = cells[int(order[slot])]
        slot += 1
        return (c + 0.5) * cell_w + rng.uniform(-8, 8), (r + 0.5) * cell_h + rng.uniform(-8, 8)

    for _ in range(fans):
        if len(cards) + 3 > count:
            break
        cx, cy = centre()
        base = float(rng.uniform(-30, 30)) + (180.0 if rng.random() < 0.3 else 0.0)
        step = float(rng.uniform(0.3, 0.42)) * CARD_W_MM
        a = math.radians(base)
        for k in (-1, 0, 1):
            # Later cards lie on top, shifted along the card's own x axis: every index stays clear.
            dx, dy = k * step * math.cos(a), k * step * math.sin(a)
            cards.append(SimCard(code=str(codes.pop()), x_mm=cx + dx, y_mm=cy + dy, angle_deg=base))
    for _ in range(back_pairs):
        if len(cards) + 2 > count:
            break
        cx, cy = centre()
        base = float(rng.uniform(0, 360))
        a = math.radians(base)
        off_x, off_y = 0.45 * CARD_W_MM, 0.3 * CARD_H_MM
        dx = off_x * math.cos(a) - off_y * math.sin(a)
        dy = off_x * math.sin(a) + off_y * math.cos(a)
        for half in (-0.5, 0.5):
            cards.append(
                SimCard(
                    code=str(codes.pop()),
                    x_mm=cx + half * dx,
                    y_mm=cy + half * dy,
                    angle_deg=base,
                    face_up=False,
                )
            )
    while len(cards) < count and slot < len(cells):
        cx, cy = centre()
        face_up = bool(rng.random() >= face_down_share)
        cards.append(
            SimCard(code=str(codes.pop()), x_mm=cx, y_mm=cy, angle_deg=float(rng.uniform(0, 360)), face_up=face_up)
        )
    cond = conditions or Conditions()
    glare: tuple[Glare, ...] = ()
    if cond.glare:
        glare = (
            Glare(
                x_mm=float(rng.uniform(0, table_mm[0])),
                y_mm=float(rng.uniform(0, table_mm[1])),
                radius_mm=float(rng.uniform(30, 70)),
                strength=float(rng.uniform(0.3, 0.6)),
            ),
        )
    return Scene(
        cards=tuple(cards),
        lighting=Lighting(
            brightness=cond.brightness,
            falloff=cond.falloff,
            falloff_angle_deg=float(rng.uniform(0, 360)),
            glare=glare,
        ),
        optics=Optics(blur_sigma_px=cond.blur, noise_sigma=cond.noise, jpeg_quality=cond.jpeg),
    )


@dataclass(slots=True)
class Tally:
    """Reads compared with the truth of generated scenes."""

    face_up: int = 0
    correct: int = 0
    unknown: int = 0
    misread: int = 0
    missed: int = 0  # a card with no detection near it
    face_down: int = 0
    backs_found: int = 0
    phantoms: int = 0  # detections where no card is

    def add(self, other: Tally) -> None:
        """Accumulate another tally into this one."""
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def score_reading(
    truth_px: list[tuple[SimCard, tuple[float, float]]],
    reads: list[tuple[str, tuple[float, float]]],
    *,
    tol_px: float,
    outcomes: list[str] | None = None,
    phantoms: list[int] | None = None,
) -> Tally:
    """Match detections to true cards by centre (nearest pairs first, within ``tol_px``) and count.

    ``outcomes``, when given, gets one word per true card in order: ``correct``, ``unknown``,
    ``misread`` or ``missed`` for a face-up card, ``counted``, ``missed`` or ``other`` for a back.
    ``phantoms``, when given, gets the index of every detection no card matched.
    """
    tally = Tally()
    # Nearest pairs first over all cards, not card by card: the cards of a fan turned about a
    # corner lie within the tolerance of one another, and a card taken first in list order would
    # take its neighbour's read away from it.
    pairs = sorted(
        (math.hypot(rx - tx, ry - ty), t, i)
        for t, (_card, (tx, ty)) in enumerate(truth_px)
        for i, (_code, (rx, ry)) in enumerate(reads)
    )
    match: dict[int, int] = {}
    used: set[int] = set()
    for d, t, i in pairs:
        if d >= tol_px:
            break
        if t not in match and i not in used:
            match[t] = i
            used.add(i)
    for t, (card, _centre) in enumerate(truth_px):
        best = match.get(t, -1)
        if card.face_up:
            tally.face_up += 1
        else:
            tally.face_down += 1
        if best < 0:
            tally.missed += 1
            if outcomes is not None:
                outcomes.append("missed")
            continue
        code = reads[best][0]
        if not card.face_up:
            tally.backs_found += code == "back"
            outcome = "counted" if code == "back" else "other"
        elif code == card.code:
            tally.correct += 1
            outcome = "correct"
        elif code == "unknown":
            tally.unknown += 1
            outcome = "unknown"
        else:
            tally.misread += 1
            outcome = "misread"
        if outcomes is not None:
            outcomes.append(outcome)
    tally.phantoms = len(reads) - len(used)
    if phantoms is not None:
        phantoms.extend(i for i in range(len(reads)) if i not in used)
    return tally
