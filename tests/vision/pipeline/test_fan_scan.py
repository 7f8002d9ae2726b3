"""The fan scan: a start beside one that showed no index is not read again, and that changes no card."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.deck import DeckProfile
from vision.pipeline import fan_scan
from vision.pipeline.fan_scan import MISSED_NEAR, FanScanner, _missed_near, _top
from vision.recognize import Recognizer
from vision.scenes import random_table, render_table, view_calibration


def _card(corner: tuple[float, float], angle_deg: float, *, w: float = 100.0, h: float = 140.0) -> np.ndarray:
    a = math.radians(angle_deg)
    d, n = np.array((math.cos(a), math.sin(a))), np.array((-math.sin(a), math.cos(a)))
    c = np.array(corner)
    return np.array([c, c + w * d, c + w * d + h * n, c + h * n])


def test_a_start_beside_one_that_showed_no_index_is_skipped_only_close_by_further_in_and_turned_alike() -> None:
    missed = [_top(_card((50.0, 50.0), 0.0))]
    assert _missed_near(_card((51.0, 50.5), 0.0), missed, card_w=100.0)
    assert _missed_near(_card((50.0, 51.0), 0.0), missed, card_w=100.0)
    # A start a pixel before it along the top edge may read what that one cut into (dondorf's table 3006).
    assert not _missed_near(_card((49.0, 50.0), 0.0), missed, card_w=100.0)
    # Further than MISSED_NEAR of a card's width (2 px), or turned 10 degrees: another patch.
    assert not _missed_near(_card((50.0 + 100.0 * MISSED_NEAR + 0.5, 50.0), 0.0), missed, card_w=100.0)
    assert not _missed_near(_card((50.5, 50.0), 10.0), missed, card_w=100.0)
    assert not _missed_near(_card((50.0, 50.0), 0.0), [], card_w=100.0)


def _read(deck: DeckProfile, seed: int) -> tuple[int, list[tuple[str, int, int]]]:
    """The fan scan's start reads and the cards read on the benchmark's table ``seed``."""
    table = random_table(np.random.default_rng(seed))
    _, frame = render_table(deck, table, seed=seed)
    calls = 0
    read_fanned = FanScanner._read_fanned

    def counted(self: FanScanner, *args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return read_fanned(self, *args, **kwargs)  # type: ignore[arg-type]

    FanScanner._read_fanned = counted  # type: ignore[method-assign]
    try:
        reading = Recognizer(deck=deck, calibration=view_calibration(table.view)).read(frame)
    finally:
        FanScanner._read_fanned = read_fanned  # type: ignore[method-assign]
    return calls, sorted((c.code, round(c.center[0]), round(c.center[1])) for c in reading.cards)


def test_starts_beside_a_start_that_showed_no_index_are_not_read_and_change_no_card(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The benchmark's table 501: its fans' edges give starts a pixel or two from one that read
    # no index (22 start reads without the rule, 16 with it), and every card reads the same.
    calls, cards = _read(kennard, 501)
    monkeypatch.setattr(fan_scan, "MISSED_NEAR", 0.0)
    every_start, same = _read(kennard, 501)
    assert calls < every_start
    assert cards == same


def test_a_start_just_before_one_that_read_nothing_is_still_read(dondorf: DeckProfile) -> None:
    # The benchmark's table 3006: the fan's middle 6c reads from a start 2 frame pixels before one
    # whose patch cut into its rank and read nothing; skipping it lost the card.
    _, cards = _read(dondorf, 3006)
    assert any(code == "6c" and abs(x - 1096) < 5 and abs(y - 204) < 5 for code, x, y in cards)


def test_a_middle_card_whose_grey_index_is_faint_beside_the_card_belows_pip_is_read(kennard: DeckProfile) -> None:
    # The benchmark's table 19707: the fan's middle 3s, turned about a corner, its grey blurred 3
    # beside the big pip of the Th below: no start was found there (faint ink), and its box held
    # too little ink at the plain level to be read (CornerReader.holds_none).
    _, cards = _read(kennard, 19707)
    assert any(code == "3s" and abs(x - 1343) < 8 and abs(y - 204) < 8 for code, x, y in cards)
