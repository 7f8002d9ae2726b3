"""Blurred indices: a rank both index corners pick clearly, though it fits the deck's looks poorly."""

from __future__ import annotations

import numpy as np

from drivers.camera.sim import Scene, SimCard, TableRenderer, TableView
from vision.deck import CODES, DeckProfile
from vision.index_match import IndexMatch, match_scores
from vision.pipeline.face_check import FaceCheck
from vision.pipeline.settings import RecognizerSettings

VIEW = TableView(tilt_deg=15.0)
# Suits (c d h s) torn between the two red ones, as a blurred heart and diamond are.
TORN_RED = (0.2, 0.8, 0.78, 0.2)


def _index(rank: float, *, of: str) -> IndexMatch:
    """One corner's read: the rank of ``of`` fits ``rank`` and every other rank 0.1 (far behind)."""
    ranks = np.full(13, 0.1)
    ranks[CODES.index(of) // 4] = rank
    return match_scores(ranks, np.array(TORN_RED))


def _lone(deck: DeckProfile, code: str) -> tuple[np.ndarray, np.ndarray]:
    """A frame of one card lying alone and the card's corners."""
    card = SimCard(code=code, x_mm=400, y_mm=260, angle_deg=12)
    renderer = TableRenderer(deck=deck, view=VIEW)
    return renderer.render(Scene(cards=(card,)), seed=3), renderer.card_quad_px(card)


def test_a_poorly_fitting_rank_both_corners_pick_lets_the_face_settle_the_suit(kennard: DeckProfile) -> None:
    face = FaceCheck(deck=kennard, settings=RecognizerSettings())
    blurred = _index(0.5, of="9h")  # under the accepting score 0.72, far ahead of every other rank
    frame, q = _lone(kennard, "9h")
    found = face.suit_by_face(frame, q, [blurred, _index(0.55, of="9h")])
    assert found is not None and found[0] == "9h"
    diamond, q_diamond = _lone(kennard, "9d")
    found = face.suit_by_face(diamond, q_diamond, [blurred, _index(0.55, of="9h")])
    assert found is not None and found[0] == "9d"  # the face, not the index, picks the suit


def test_a_poorly_fitting_rank_seen_once_or_disputed_settles_nothing(kennard: DeckProfile) -> None:
    face = FaceCheck(deck=kennard, settings=RecognizerSettings())
    frame, q = _lone(kennard, "9h")
    # One corner alone: its poor fit is not a rank.
    assert face.suit_by_face(frame, q, [_index(0.5, of="9h")]) is None
    # The two corners pick different ranks.
    assert face.suit_by_face(frame, q, [_index(0.5, of="9h"), _index(0.6, of="6h")]) is None
    # Both pick a rank whose face this is not (a 6h's face under indices read as a nine).
    six, q_six = _lone(kennard, "6h")
    assert face.suit_by_face(six, q_six, [_index(0.5, of="9h"), _index(0.55, of="9h")]) is None
