"""The fan scan's walk pre-test: a walk is banded only where a card may lie along it, and that changes no card."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.deck import DeckProfile
from vision.pipeline import fan_scan
from vision.pipeline.fan_edges import Edge, outline_edges, walks
from vision.pipeline.fan_scan import EDGE_LEAST, FanScanner, _loose, _readable
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, view_calibration

CARD_W, CARD_H = 60.0, 84.0


def _blob(rng: np.random.Generator) -> np.ndarray:
    """A filled blob of two to four cards spread about a common corner region (a fan, a pile)."""
    mask = np.zeros((400, 400), np.uint8)
    centre = rng.uniform(150, 250, 2)
    for _ in range(int(rng.integers(2, 5))):
        a = math.radians(float(rng.uniform(0, 360)))
        d, n = np.array((math.cos(a), math.sin(a))), np.array((-math.sin(a), math.cos(a)))
        c = centre + rng.uniform(-35, 35, 2)
        quad = np.array([c, c + CARD_W * d, c + CARD_W * d + CARD_H * n, c + CARD_H * n])
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 255)
    return mask


def _fits_somewhere(walk: fan_scan.Walk, lo: float, hi: float, inside: tuple[np.ndarray, int, int]) -> bool:
    """Whether the scan's own test (``_may_lie``) passes a card placed anywhere from ``lo`` to
    ``hi`` along ``walk``, tried every tenth of a pixel."""
    scanner = object.__new__(FanScanner)
    return any(
        scanner._may_lie(walk.card(float(t), card_w=CARD_W, card_h=CARD_H), inside)
        for t in np.arange(lo, hi + 1e-9, 0.1)
    )


def test_a_walk_is_never_shut_where_the_scan_would_place_a_card_and_is_where_none_fits() -> None:
    rng = np.random.default_rng(15)
    shut = opened = 0
    for _ in range(40):
        mask = _blob(rng)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contour = max(contours, key=cv2.contourArea)
        x0, y0, bw, bh = cv2.boundingRect(contour)
        filled = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(filled, [contour], -1, 255, cv2.FILLED, offset=(-x0, -y0))
        inside = (filled, x0, y0)
        spans = []
        for edge in outline_edges(contour, least=EDGE_LEAST * CARD_W):
            for walk in walks(edge, contour, probe=0.08 * CARD_W):
                lo, hi = walk.span(CARD_W if walk.short else CARD_H)
                if hi >= lo:
                    spans.append((walk, lo, hi))
        if not spans:
            continue
        for (walk, lo, hi), may in zip(
            spans, _readable(spans, _loose(inside), card_w=CARD_W, card_h=CARD_H), strict=True
        ):
            fits = _fits_somewhere(walk, lo, hi, inside)
            assert may or not fits  # never shut where a card fits (the scan's test, every 0.1 px)
            shut += not may
            opened += fits
    # Not a test that could not fail: walks are shut, and walks are open.
    assert shut > 20
    assert opened > 20


def _scan(deck: DeckProfile, seed: int) -> tuple[int, list[tuple[str, int, int]]]:
    """How many walks the fan scan banded, and the cards read, on the benchmark's table ``seed``."""
    table = random_table(np.random.default_rng(seed))
    _, frame = render_table(deck, table, seed=seed)
    reader = Recognizer(deck=deck, calibration=view_calibration(table.view))
    reading = reader.read(frame)
    bands = reader._explainer.fan_scan.bands
    return bands, sorted((c.code, round(c.center[0]), round(c.center[1])) for c in reading.cards)


def test_walks_where_no_card_fits_are_not_banded_and_change_no_card(kennard: DeckProfile, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The benchmark's table 501 (fans): fewer bands with the pre-test, every card the same.
    bands, cards = _scan(kennard, 501)
    monkeypatch.setattr(fan_scan, "_readable", lambda spans, *_a, **_k: [True] * len(spans))
    every_walk, same = _scan(kennard, 501)
    assert bands < every_walk
    assert cards == same


def _outline(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=cv2.contourArea)


def test_a_side_runs_on_past_a_notch_along_the_next_cards_edge_in_line_with_it() -> None:
    # Two cards spread along their short sides, their tops in one line (y = 100), with the notch a
    # rounded corner leaves in the outline where the first card's straight edge ends (x = 160).
    mask = np.zeros((300, 300), np.uint8)
    mask[100:184, 100:160] = 255
    mask[100:184, 125:185] = 255
    mask[100:103, 160:164] = 0
    edge = Edge(
        start=np.array([100.0, 100.0]), direction=np.array([1.0, 0.0]), length=59.0, inward=np.array([0.0, 1.0])
    )
    along, back = walks(edge, _outline(mask), probe=0.08 * CARD_W)
    # Past the notch the probe lies on the next card's top edge, the outline itself: the side goes
    # on under that card, so the scan looks along it for that card's index corner.
    assert along.open_end and back.open_start
    # A card alone: past its corner the line leaves the blob.
    alone = np.zeros((300, 300), np.uint8)
    alone[100:184, 100:160] = 255
    along, back = walks(edge, _outline(alone), probe=0.08 * CARD_W)
    assert not along.open_end and not back.open_start
