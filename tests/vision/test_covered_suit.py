"""A fan card whose suit lies partly under the next card: named by the suit's uncovered part, or not at all."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import cv2
import numpy as np
import numpy.typing as npt
import pytest

import vision.pipeline.corners as corners_module
from tests.vision.bench_tables import read_at_true_corner
from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.covered_suit import covered_match, covered_suit, suit_fits
from vision.deck import DeckProfile
from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader
from vision.pipeline.settings import RecognizerSettings
from vision.tools.kde_decks import kde_deck

Image = npt.NDArray[np.uint8]
SCALE = 1.25  # the card 280 px tall in the frame


def _fanned(deck: DeckProfile, under: str, over: str, *, cut: tuple[float, float], angle: float) -> Image:
    """``under`` lying square at (40, 40) on felt, ``over`` on it turned ``angle`` degrees clockwise
    with its left edge through ``cut`` (canonical pixels of ``under``), softly focused."""
    w, h = CARD_PX_W * SCALE, CARD_PX_H * SCALE
    frame = np.zeros((int(h + 80), int(2.4 * w), 3), np.uint8)
    frame[:] = (40, 110, 40)

    def lay(code: str, corners: list[npt.NDArray[np.float64]]) -> None:
        m = cv2.getAffineTransform(
            np.float32([[0, 0], [CARD_PX_W, 0], [CARD_PX_W, CARD_PX_H]]), np.float32(corners[:3])
        )
        size = (frame.shape[1], frame.shape[0])
        face = cv2.warpAffine(deck.face(code), m, size, flags=cv2.INTER_AREA)
        inside = cv2.warpAffine(np.full((CARD_PX_H, CARD_PX_W), 255, np.uint8), m, size) > 128
        frame[inside] = face[inside]
        # The card's edge: a thin grey line, as a camera sees one card's edge over another.
        outline = np.round(np.array(corners) * 4).astype(np.int32)
        cv2.polylines(frame, [outline], True, (150, 150, 150), 1, cv2.LINE_AA, shift=2)

    tl = np.array([40.0, 40.0])
    lay(under, [tl, tl + np.array([w, 0.0]), tl + np.array([w, h]), tl + np.array([0.0, h])])
    t = np.radians(angle)
    turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    top = tl + np.array(cut) * SCALE + turn @ (0.0, -0.3 * h)
    lay(over, [top + turn @ q for q in (np.array([0, 0]), np.array([w, 0]), np.array([w, h]), np.array([0, h]))])
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), 0.8), dtype=np.uint8)


def _read(deck: DeckProfile, frame: Image) -> CornerRead:
    """The under card's index read at its true corner (as a fan's read puts it)."""
    w, h = CARD_PX_W * SCALE, CARD_PX_H * SCALE
    reader = CornerReader(deck=deck, settings=RecognizerSettings())
    return reader.read(frame, np.array([40.0, 40.0]), np.array([w, 0.0]), np.array([0.0, h]))


@pytest.fixture
def uncovered_only() -> Iterator[None]:
    """Reads as they were before: no suit judged on its uncovered part."""
    keep = corners_module.covered_match
    corners_module.covered_match = lambda *_a, **_k: None
    yield
    corners_module.covered_match = keep


# (under, over, cut, angle): the next card's edge runs through the suit's far side, the rank whole.
COVERED = [("8c", "Kd", (18, 40), 20.0), ("3h", "Ks", (16, 40), 10.0), ("8c", "Kd", (16, 40), 10.0)]


@pytest.mark.parametrize(("under", "over", "cut", "angle"), COVERED)
def test_a_suit_partly_under_the_next_card_is_read_by_its_uncovered_part(
    kennard: DeckProfile, under: str, over: str, cut: tuple[float, float], angle: float
) -> None:
    frame = _fanned(kennard, under, over, cut=cut, angle=angle)
    assert _read(kennard, frame).code == under


@pytest.mark.parametrize("case", COVERED)
@pytest.mark.usefixtures("uncovered_only")
def test_the_covered_suits_were_not_read_whole(
    kennard: DeckProfile, case: tuple[str, str, tuple[float, float], float]
) -> None:
    # The same patches read as a whole suit: the cut suit, stretched to its box, fits nothing.
    under, over, cut, angle = case
    assert _read(kennard, _fanned(kennard, under, over, cut=cut, angle=angle)).code == UNKNOWN


@pytest.mark.parametrize(
    ("under", "over", "cut", "angle"),
    [
        ("8c", "Kd", (12, 40), 20.0),  # only the club's stem and left leaf show: a spade's could be the same
        ("3h", "Ks", (12, 40), 20.0),  # only the heart's left lobe's edge shows
        ("3h", "Ks", (10, 40), 10.0),
        ("8c", "Kd", (14, 40), 20.0),
    ],
)
def test_a_suit_mostly_under_the_next_card_is_not_read(
    kennard: DeckProfile, under: str, over: str, cut: tuple[float, float], angle: float
) -> None:
    assert _read(kennard, _fanned(kennard, under, over, cut=cut, angle=angle)).code == UNKNOWN


def test_the_uncovered_part_tells_a_suit_from_the_other_of_its_colour_or_nothing(kennard: DeckProfile) -> None:
    # Every cut across the suit, at three tilts: a card is named only as itself, never as the
    # other suit of its colour (a heart's left half as a diamond, a club's as a spade).
    named = 0
    for under, over in (("8c", "Kd"), ("3h", "Ks"), ("7s", "Kd"), ("Ad", "Ks")):
        for angle in (0.0, 10.0, 20.0):
            for x in range(8, 24, 2):
                code = _read(kennard, _fanned(kennard, under, over, cut=(x, 40), angle=angle)).code
                assert code in (under, UNKNOWN), (under, angle, x, code)
                named += code == under
    assert named > 0


def test_each_suit_fits_its_own_registered_glyph_best_on_a_whole_index_of_its_colour(kennard: DeckProfile) -> None:
    # A whole, plainly read index: its own suit fits it on the edge that covers nothing.
    from vision.index import index_feature
    from vision.index_match import match_index
    from vision.pipeline.corners import CORNER_LEAD, _led

    w, h = CARD_PX_W * SCALE, CARD_PX_H * SCALE
    frame = _fanned(kennard, "Qh", "Ks", cut=(60, 40), angle=0.0)
    reader = CornerReader(deck=kennard, settings=RecognizerSettings())
    dx, dy = np.array([w, 0.0]) / CARD_PX_W, np.array([0.0, h]) / CARD_PX_H
    start = np.array([40.0, 40.0]) - CORNER_LEAD * (dx + dy)
    m = np.array([[dx[0], dy[0], start[0]], [dx[1], dy[1], start[1]]])
    sw, sh = reader._search  # (the patch a read cuts)
    patch = np.asarray(cv2.warpAffine(frame, m, (sw, sh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP), np.uint8)
    feature = index_feature(patch, _led(kennard.index_box), cut=True, lead=CORNER_LEAD)
    assert feature is not None
    assert match_index(kennard, feature).code == "Qh"
    hearts = suit_fits(kennard, patch, feature, rank="Q", suits="hd", lead=CORNER_LEAD)
    assert hearts is not None
    judged = covered_suit(hearts)
    assert judged is not None and judged[0] > 0.95
    # Asked whether it is a diamond rather than a heart: the heart's own glyph fits better.
    diamonds = suit_fits(kennard, patch, feature, rank="Q", suits="dh", lead=CORNER_LEAD)
    assert diamonds is not None and covered_suit(diamonds) is None
    # Named on its uncovered part only when the ink is plainly of the suit's colour: the same
    # index with its ink's colour grey (as a cut spade the classifier leant to diamonds) is not.
    match = match_index(kennard, feature)
    named = covered_match(kennard, patch, feature, match, lead=CORNER_LEAD, least=0.17)
    assert named is not None and named.code == "Qh"
    grey = dataclasses.replace(feature, chroma=np.full(3, 1 / 3, np.float32))
    assert covered_match(kennard, patch, grey, match, lead=CORNER_LEAD, least=0.17) is None


@pytest.mark.slow  # registers KDE's nicu-white design the first time on a machine (about 20 s)
@pytest.mark.parametrize(("seed", "code"), [(3010, "8c"), (3012, "2c")])
def test_a_fan_cards_club_cut_by_the_next_card_reads_at_its_corner(seed: int, code: str) -> None:
    # The benchmark's nicu-white tables: fan cards turned in the hand, the next card's edge
    # across the club's right leaf (8c read 0.14 as a whole suit, 2c 0.53).
    assert read_at_true_corner(kde_deck("nicu-white"), seed=seed, code=code) == code
