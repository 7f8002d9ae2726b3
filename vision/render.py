"""A test frame of a known layout: the simulated camera draws the cards a technician names, zone by zone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from drivers.camera.sim import CARD_H_MM, Marker, Scene, SimCard, TableRenderer, TableView
from vision.config import TableVision
from vision.deck import CODES, DeckProfile
from vision.director import spots
from vision.errors import ConfigError

ByteImage = npt.NDArray[Any]
BACK = "back"


def parse_layout(text: str, *, zones: Sequence[str]) -> dict[str, list[str]]:
    """``"box1=As,Kd;dealer=back,back"`` as {zone: [code or "back", ...]}.

    Raises:
        ConfigError: a part without ``=``, a zone the table does not have, an unknown card, or a
            card named twice (one deck has each card once; backs may repeat).
    """
    layout: dict[str, list[str]] = {}
    seen: set[str] = set()
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        zone, sep, cards = part.partition("=")
        zone = zone.strip()
        if not sep:
            raise ConfigError(f"--cards: {part!r} needs ZONE=CARD,CARD (e.g. box1=As,Kd)")
        if zone not in zones:
            raise ConfigError(f"--cards: no zone {zone!r} in the configuration (have: {', '.join(zones)})")
        codes = [c.strip() for c in cards.split(",") if c.strip()]
        for code in codes:
            if code != BACK and code not in CODES:
                raise ConfigError(f"--cards: {code!r} is not a card (As, Td, 9h, ... or back)")
            if code != BACK and code in seen:
                raise ConfigError(f"--cards: {code} is named twice")
            seen.add(code)
        layout.setdefault(zone, []).extend(codes)
    if not layout:
        raise ConfigError("--cards: no cards named")
    return layout


def render_layout(config: TableVision, deck: DeckProfile, layout: dict[str, list[str]]) -> ByteImage:
    """One frame of the configured table (its markers, zone lines) with the layout's cards in
    their zones' spots, as the simulated camera over the whole layout sees it.

    Raises:
        ConfigError: the configuration has no zones.
    """
    if not config.zones:
        raise ConfigError("the configuration has no zones to put cards in")
    polygons = [np.array(z.polygon_mm, dtype=np.float64) for z in config.zones]
    points = np.vstack(polygons)
    markers = [Marker(id=m.id, x_mm=m.x_mm, y_mm=m.y_mm, size_mm=m.size_mm) for m in config.vision.markers]
    for m in markers:
        points = np.vstack(
            [points, [[m.x_mm - m.size_mm, m.y_mm - m.size_mm], [m.x_mm + m.size_mm, m.y_mm + m.size_mm]]]
        )
    lo, hi = points.min(axis=0) - CARD_H_MM / 2, points.max(axis=0) + CARD_H_MM / 2
    # The view's table rectangle starts at 0, 0: shift the layout so its extent does.
    shift = -lo
    view = TableView(table_w_mm=float(hi[0] - lo[0]), table_h_mm=float(hi[1] - lo[1]))
    placed = [Marker(id=m.id, x_mm=m.x_mm + shift[0], y_mm=m.y_mm + shift[1], size_mm=m.size_mm) for m in markers]
    renderer = TableRenderer(deck=deck, view=view, zones=[p + shift for p in polygons], markers=placed)
    back_codes = iter(c for c in CODES if c not in {code for codes in layout.values() for code in codes})
    cards: list[SimCard] = []
    by_name = {z.name: z for z in config.zones}
    for zone, codes in layout.items():
        centres = spots(by_name[zone].polygon_mm, count=len(codes))
        for code, (x, y) in zip(codes, centres, strict=True):
            face_up = code != BACK
            cards.append(
                SimCard(
                    code=code if face_up else next(back_codes), x_mm=x + shift[0], y_mm=y + shift[1], face_up=face_up
                )
            )
    return renderer.render(Scene(cards=tuple(cards)), seed=0)
