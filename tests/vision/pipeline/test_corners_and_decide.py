"""Index corners read against the deck's learnt classifier, and the card decided from both corners and its face."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from drivers.camera.effects import SimChip
from drivers.camera.sim import Optics, Scene, SimCard, TableRenderer, TableView
from vision.deck import CODES, DeckProfile
from vision.index_match import IndexMatch, match_scores
from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.lone_card import LoneCardReader
from vision.pipeline.settings import RecognizerSettings

VIEW = TableView(tilt_deg=15.0)
CARDS = (
    SimCard(code="Qh", x_mm=200, y_mm=250, angle_deg=20),
    SimCard(code="Tc", x_mm=450, y_mm=250, angle_deg=200),  # upside down
    SimCard(code="8d", x_mm=700, y_mm=250, angle_deg=95),
)


def _stages(deck: DeckProfile) -> tuple[CornerReader, LoneCardReader]:
    """The corner reader and the lone-card reader over a card decider (``lone.decider``)."""
    settings = RecognizerSettings()
    corners = CornerReader(deck=deck, settings=settings)
    return corners, LoneCardReader(decider=CardDecider(deck=deck, settings=settings, corners=corners))


def _frame(deck: DeckProfile, *, optics: Optics | None = None) -> tuple[TableRenderer, np.ndarray]:
    renderer = TableRenderer(deck=deck, view=VIEW)
    scene = Scene(cards=CARDS, optics=optics or Optics())
    return renderer, renderer.render(scene, seed=5)


@pytest.fixture(params=["kennard", "hershey"])
def read_on(request: pytest.FixtureRequest) -> tuple[CornerReader, LoneCardReader, TableRenderer, np.ndarray]:
    """Both stages for one design, and its frame of CARDS."""
    deck: DeckProfile = request.getfixturevalue(request.param)
    return (*_stages(deck), *_frame(deck))


def test_both_index_corners_of_a_card_read_its_code(
    read_on: tuple[CornerReader, LoneCardReader, TableRenderer, np.ndarray],
) -> None:
    corners, _lone_reader, renderer, frame = read_on
    for card in CARDS:
        q = renderer.card_quad_px(card)  # clockwise from the printed top-left: an index corner
        assert corners.read(frame, q[0], q[1] - q[0], q[3] - q[0]).code == card.code
        assert corners.read(frame, q[2], q[3] - q[2], q[1] - q[2]).code == card.code
        # A corner with no index (the card's other two) reads nothing with confidence.
        assert corners.read(frame, q[1], q[2] - q[1], q[0] - q[1]).code == UNKNOWN


def _washed_out_card(deck: DeckProfile, code: str, contrast: float) -> np.ndarray:
    """A 400 px frame of felt holding one upright face at canonical size (top left at 100, 100),
    its ink's contrast to the paper scaled by ``contrast``."""
    frame = np.full((400, 400, 3), (40, 110, 40), np.uint8)
    face = deck.faces[CODES.index(code)].astype(np.float32)
    paper = float(np.percentile(face.min(axis=2), 90))
    frame[100:324, 100:260] = np.clip(paper - (paper - face) * contrast, 0, 255).astype(np.uint8)
    return frame


def test_a_guessed_corner_takes_no_index_from_the_paler_ink_alone(kennard: DeckProfile) -> None:
    # Read without the paler ink level (a fan scan's start, a guess), ink that holds no piece at
    # the usual level is no index: at such places it is a pip's, a picture's or a back's pale
    # side far more often. A washed-out index (a quarter of its contrast) is such ink.
    corners, _lone_reader = _stages(kennard)
    origin, x_vec, y_vec = np.array([100.0, 100.0]), np.array([160.0, 0.0]), np.array([0.0, 224.0])
    faint = _washed_out_card(kennard, "5s", 0.25)
    assert corners.read(faint, origin, x_vec, y_vec, pale=False).match is None
    # Asked for by a read that may use the paler level (the card's own corner), the corner is read
    # again, not taken from the frame's memo, and the index is found there.
    assert corners.read(faint, origin, x_vec, y_vec).code == "5s"
    assert corners.count == 2
    # An index with ink at the usual level reads at a guessed place as anywhere else.
    corners.new_frame()
    assert corners.read(_washed_out_card(kennard, "5s", 1.0), origin, x_vec, y_vec, pale=False).code == "5s"


def test_a_corner_is_read_once_a_frame(kennard: DeckProfile) -> None:
    corners, _lone_reader = _stages(kennard)
    renderer, frame = _frame(kennard)
    q = renderer.card_quad_px(CARDS[0])
    for _ in range(3):
        corners.read(frame, q[0], q[1] - q[0], q[3] - q[0])
    assert corners.count == 1
    corners.new_frame()
    corners.read(frame, q[0], q[1] - q[0], q[3] - q[0])
    assert corners.count == 1


def test_the_decider_names_each_card_and_agrees_with_its_face(
    read_on: tuple[CornerReader, LoneCardReader, TableRenderer, np.ndarray],
) -> None:
    _corners, lone, renderer, frame = read_on
    for card in CARDS:
        code, confidence = lone.read_alone(frame, renderer.card_quad_px(card))
        assert code == card.code and confidence >= 0.5


def test_a_face_that_is_not_the_index_card_is_refused(kennard: DeckProfile) -> None:
    """The face check: the index says one card, the face shows another: never a read."""
    _corners, lone = _stages(kennard)
    renderer, frame = _frame(kennard)
    q = renderer.card_quad_px(CARDS[0])  # a Qh: its face is no 8d's
    assert lone.face.agrees(frame, q, "Qh", alone=True)
    assert not lone.face.agrees(frame, q, "8d", alone=True)


def test_a_blurred_index_gives_unknown_never_another_card(kennard: DeckProfile) -> None:
    _corners, lone = _stages(kennard)
    renderer, frame = _frame(kennard, optics=Optics(blur_sigma_px=3.0))
    codes = [lone.read_alone(frame, renderer.card_quad_px(card))[0] for card in CARDS]
    assert all(code in (card.code, UNKNOWN) for code, card in zip(codes, CARDS, strict=True))
    assert UNKNOWN in codes  # this blur is past what the deck's classifier learnt from


def _plane_card(*, ink: int | None) -> tuple[np.ndarray, np.ndarray]:
    """A detection-plane picture of one card on dark red cloth (cream paper, under a warm lamp) and
    its corners: ``ink`` the darkest channel of a soft index in its top-left corner (None: blank).
    """
    image = np.zeros((140, 120, 3), np.uint8)
    image[:] = (30, 25, 90)  # red cloth
    quad = np.array([[30.0, 30.0], [88.6, 30.0], [88.6, 112.0], [30.0, 112.0]])
    image[30:112, 30:89] = (150, 175, 190)  # cream paper
    if ink is not None:
        image[35:44, 33:37] = (ink, ink + 8, ink + 12)  # a rank's stroke, grey at this scale
    return image, quad


def test_a_soft_index_the_ink_mask_missed_still_counts_as_ink(kennard: DeckProfile) -> None:
    # A small black index blurred at detection scale is grey: the ink mask took it for paper (or
    # under a warm lamp on red cloth, for cloth), and a fan's bottom card showing only that index
    # was never read. Against the box's own paper it is a clear step darker.
    corners, _lone_reader = _stages(kennard)
    no_ink = np.zeros((140, 120), np.uint8)
    image, quad = _plane_card(ink=70)
    assert not corners.inked(no_ink, quad, 0)
    assert corners.inked(no_ink, quad, 0, image=image)
    # A blank corner is no index, though the box's margin reaches over the dark cloth beside it;
    # nor is a stroke hardly darker than the paper (light, not ink).
    blank, _quad = _plane_card(ink=None)
    assert not corners.inked(no_ink, quad, 0, image=blank)
    faint, _quad = _plane_card(ink=120)
    assert not corners.inked(no_ink, quad, 0, image=faint)


def test_a_card_placed_from_one_index_is_read_at_its_far_index_only_when_that_shows_it(
    read_on: tuple[CornerReader, LoneCardReader, TableRenderer, np.ndarray],
) -> None:
    """A fan's top card shows both indices: the far one reads it and the near one leans to the
    same card. A card under it shows the top card's paper and pips at its far corner: no read.
    """
    corners, lone, renderer, _frame_of_cards = read_on
    decider = lone.decider
    fan = tuple(
        SimCard(code=code, x_mm=400 + 14 * k, y_mm=260, angle_deg=8) for k, code in enumerate(("5c", "9h", "Kd"))
    )
    frame = TableRenderer(deck=decider.deck, view=VIEW).render(Scene(cards=fan), seed=3)
    assert decider.read_far(frame, renderer.card_quad_px(fan[2])) == (
        "Kd",
        corners.read(frame, *_far(renderer.card_quad_px(fan[2]))).confidence,
    )
    for under in fan[:2]:
        assert decider.read_far(frame, renderer.card_quad_px(under)) is None


def _far(q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return q[2], q[3] - q[2], q[1] - q[2]


def _lone(deck: DeckProfile, code: str, *, chips: tuple[SimChip, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """A frame of one card lying alone (with chips over it) and the card's corners."""
    card = SimCard(code=code, x_mm=400, y_mm=260, angle_deg=12)
    renderer = TableRenderer(deck=deck, view=VIEW)
    return renderer.render(Scene(cards=(card,), chips=chips), seed=3), renderer.card_quad_px(card)


@pytest.mark.parametrize("code", ["7c", "5s"])
def test_a_lone_card_whose_face_a_chip_hides_is_read_by_two_clear_indices(kennard: DeckProfile, code: str) -> None:
    _corners, lone = _stages(kennard)
    frame, q = _lone(kennard, code, chips=(SimChip(x_mm=400, y_mm=260, stack=2),))
    assert not lone.face.agrees(frame, q, code, alone=True)  # the face confirms nothing
    assert lone.read_alone(frame, q)[0] == code


def test_two_clear_indices_on_another_card_s_face_are_never_a_read(kennard: DeckProfile) -> None:
    """The face stays a veto: a 7c's indices printed on an 8d's face (its pips plain) read nothing."""
    corners, lone = _stages(kennard)
    frame, q = _lone(kennard, "7c")
    other, _q = _lone(kennard, "8d")
    # The 8d's frame with the 7c's two index corners (a quarter of the card's width and height
    # at each) put back.
    x_axis, y_axis = q[1] - q[0], q[3] - q[0]
    for origin, sx, sy in ((q[0], 1.0, 1.0), (q[2], -1.0, -1.0)):
        box = np.array(
            [origin + sx * x_axis * a + sy * y_axis * b for a, b in ((0, 0), (0.3, 0), (0.3, 0.3), (0, 0.3))]
        )
        mask = np.zeros(frame.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 1)
        other[mask == 1] = frame[mask == 1]
    corners.new_frame()
    assert corners.read(other, q[0], q[1] - q[0], q[3] - q[0]).code == "7c"
    assert corners.read(other, q[2], q[3] - q[2], q[1] - q[2]).code == "7c"
    assert lone.read_alone(other, q)[0] == UNKNOWN


def _index(rank: float, suits: tuple[float, float, float, float], *, of: str) -> IndexMatch:
    """An index read whose rank (of card ``of``) fits ``rank`` and every other rank 0.1, and whose
    suits (c d h s) fit ``suits``."""
    ranks = np.full(13, 0.1)
    ranks[CODES.index(of) // 4] = rank
    return match_scores(ranks, np.array(suits))


def test_a_clear_rank_of_a_plain_colour_is_given_its_suit_by_the_face(kennard: DeckProfile) -> None:
    """Warm light and glare can leave a red index suit a poor fit to both red suits: the colour is
    plain, and the face (a Kd's picture) names the suit; it must fit that card best of all 52.
    """
    _corners, lone = _stages(kennard)
    face = lone.face
    poor_red = _index(0.8, (0.16, 0.48, 0.45, 0.15), of="Kd")
    frame, q = _lone(kennard, "Kd")
    assert face.suit_by_face(frame, q, [poor_red]) is not None
    assert face.suit_by_face(frame, q, [poor_red])[0] == "Kd"
    heart, q_heart = _lone(kennard, "Kh")
    assert face.suit_by_face(heart, q_heart, [poor_red])[0] == "Kh"  # the face, not the index, picks
    # The colour not plain (a black suit as close as the second red one): no suit.
    assert face.suit_by_face(frame, q, [_index(0.8, (0.44, 0.48, 0.45, 0.15), of="Kd")]) is None
    # A face that is another rank's (a Qd's under the index read as a king): no card.
    queen, q_queen = _lone(kennard, "Qd")
    assert face.suit_by_face(queen, q_queen, [poor_red]) is None


def _corner_read(rank_fits: list[float], suit_fits: list[float]) -> CornerRead:
    """A corner read as the reader makes it from its fits (ranks 2..A, suits c d h s)."""
    match = match_scores(np.array(rank_fits), np.array(suit_fits))
    s = RecognizerSettings()
    sure = match.score >= s.accept_score and match.margin >= s.accept_margin
    conf = max(0.0, min(1.0, 0.5 * min(match.score / s.accept_score, match.margin / s.accept_margin, 2.0)))
    return CornerRead(match.code if sure else UNKNOWN, conf, match.code, match)


# Held-out table 7000's lone Ah (hershey): its first corner, the rank stretched over the face's
# frame corner, fitted the 4 at 0.79 (the A at 0.59), lead 0.27; its second corner read the Ah.
_FIRST_4H = _corner_read(
    [0.46, 0.42, 0.79, 0.47, 0.58, 0.18, 0.66, 0.36, 0.12, 0.25, 0.42, 0.53, 0.59], [0.0, 0.12, 0.97, 0.01]
)
_SECOND_AH = _corner_read([0.2, 0.2, 0.45, 0.2, 0.3, 0.1, 0.35, 0.2, 0.1, 0.2, 0.3, 0.4, 0.96], [0.0, 0.1, 0.96, 0.01])


@pytest.mark.parametrize(
    ("first", "read", "corners_read"),
    [
        (_FIRST_4H, UNKNOWN, {0, 2}),  # barely sure: the second corner names another card
        (_corner_read([0.3] * 2 + [0.95] + [0.3] * 10, [0.0, 0.1, 0.96, 0.01]), "4h", {0}),  # plainly sure
    ],
)
def test_a_lone_card_barely_sure_at_one_corner_is_read_at_its_second_too(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch, first: CornerRead, read: str, corners_read: set[int]
) -> None:
    # The face is left out (monkeypatched to agree): on hershey's faces an A and a 4 look alike.
    assert first.code == "4h" and first.match is not None
    _corners, lone = _stages(kennard)
    asked: set[int] = set()

    def read_index(image: np.ndarray, corners: np.ndarray, k: int) -> CornerRead:
        asked.add(k)
        return first if k == 0 else _SECOND_AH

    monkeypatch.setattr(lone.corners, "read_index", read_index)
    monkeypatch.setattr(lone.face, "agrees", lambda *_a, **_k: True)
    quad = np.array([[100.0, 100.0], [205.0, 100.0], [205.0, 247.0], [100.0, 247.0]])
    assert lone.read_alone(np.zeros((400, 400, 3), np.uint8), quad)[0] == read
    assert asked == corners_read


# Blur seed 18692's Ac (kennard, blur 1.4 px, motion 3.2 px): neither index corner reads on its own
# (As at 0.80 and 0.82, margins 0.13-0.14), both lean the same way to the spade, the club a close second.
_BLURRED_AC = (
    _corner_read([0.1] * 12 + [0.89], [0.77, 0.29, 0.12, 0.84]),
    _corner_read([0.1] * 12 + [0.89], [0.75, 0.28, 0.11, 0.82]),
)


@pytest.mark.parametrize(("stands", "read"), [((None, None), UNKNOWN), ((None, 0.9), "As"), ((0.9, None), "As")])
def test_two_unread_corners_pool_to_a_card_only_where_one_fits_it_better_than_its_rivals(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch, stands: tuple[float | None, float | None], read: str
) -> None:
    # Blur errs alike at both corners of one card, which their mean does not average out: the pooled
    # card must fit one corner better than its twin (the same rank in the other suit of its colour)
    # and its runner-up ranks do, as a card read by one corner must.
    corners, _lone = _stages(kennard)
    decider = CardDecider(deck=kennard, settings=RecognizerSettings(), corners=corners)
    assert all(r.code == UNKNOWN and r.best == "As" for r in _BLURRED_AC)
    monkeypatch.setattr(corners, "read_index", lambda _image, _corners, k: _BLURRED_AC[k // 2])
    monkeypatch.setattr(decider.rivals, "near", lambda _image, _corners, k, **_kw: stands[k // 2])
    monkeypatch.setattr(decider.face, "agrees", lambda *_a, **_k: True)
    quad = np.array([[100.0, 100.0], [205.0, 100.0], [205.0, 247.0], [100.0, 247.0]])
    assert decider.read_card(np.zeros((400, 400, 3), np.uint8), quad, alone=False)[0] == read
