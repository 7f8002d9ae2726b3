"""One-corner reads checked against their rivals: a runner-up rank, and a far corner showing another card."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.cards import RANKS
from vision.card_raster import CARD_PX_H, CARD_PX_W
from vision.deck import CODES, DeckProfile
from vision.index_match import IndexMatch
from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.rival_check import RivalCheck, runner_up_ranks
from vision.pipeline.settings import RecognizerSettings
from vision.pipeline.twin_suit import TwinSuit

# The canonical card as the frame: a card's corners, its index corner 0 at the top left.
CORNERS = np.array([[0.0, 0.0], [CARD_PX_W, 0.0], [CARD_PX_W, CARD_PX_H], [0.0, CARD_PX_H]])
# How far past the registered index box (canonical pixels) a corner's ink is copied.
PAD = 6
# Sensor noise (grey levels) over one corner: its index fits its registered look less well.
NOISE = 40.0


def _corner(deck: DeckProfile, card: np.ndarray, code: str, *, far: bool) -> None:
    """Copy ``code``'s registered index corner (the top left, or with ``far`` the bottom right,
    where the index is printed upside down) onto ``card``."""
    box = deck.index_box
    x1, y1 = round(box.x1 * CARD_PX_W) + PAD, round(box.y1 * CARD_PX_H) + PAD
    face = deck.faces[CODES.index(code)]
    if far:
        card[-y1:, -x1:] = face[-y1:, -x1:]
    else:
        card[:y1, :x1] = face[:y1, :x1]


def _card(deck: DeckProfile, near: str, far: str | None = None, *, noisy: int | None = None) -> np.ndarray:
    """A blank card showing ``near``'s index at its corner 0 and ``far``'s at corner 2 (with
    sensor noise of NOISE grey levels at corner ``noisy``: a look a little off), blurred a pixel:
    the faces' middles, pips or pictures, are not there (a fan's card under others)."""
    paper = deck.faces[CODES.index(near)][CARD_PX_H // 2, 2]
    card = np.empty((CARD_PX_H, CARD_PX_W, 3), np.uint8)
    card[:] = paper
    _corner(deck, card, near, far=False)
    if far is not None:
        _corner(deck, card, far, far=True)
    if noisy is not None:
        box = deck.index_box
        x1, y1 = round(box.x1 * CARD_PX_W) + PAD, round(box.y1 * CARD_PX_H) + PAD
        part = (
            (slice(0, y1), slice(0, x1)) if noisy == 0 else (slice(CARD_PX_H - y1, None), slice(CARD_PX_W - x1, None))
        )
        grains = np.random.default_rng(5).normal(0.0, NOISE, (y1, x1, 3))
        card[part] = np.clip(card[part] + grains, 0, 255).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(card, (0, 0), 1.0))


def _match(code: str, runner_up: str) -> IndexMatch:
    """A one-corner match of ``code`` whose runner-up rank is ``runner_up``'s."""
    ranks = np.full(len(RANKS), 0.1, np.float32)
    ranks[RANKS.index(code[0])], ranks[RANKS.index(runner_up)] = 0.76, 0.72
    suits = np.array([0.1, 0.1, 0.1, 0.1], np.float32)
    suits["cdhs".index(code[1])] = 0.9
    return IndexMatch(code=code, score=0.76, margin=0.1, rank_scores=ranks, suit_scores=suits)


def _decider(deck: DeckProfile, reads: dict[int, CornerRead], monkeypatch: pytest.MonkeyPatch) -> CardDecider:
    """The card decider, its index corners read as ``reads`` says (the classifier's misread given)."""
    settings = RecognizerSettings()
    corners = CornerReader(deck=deck, settings=settings)
    monkeypatch.setattr(corners, "read_index", lambda _image, _corners, k: reads[k])
    return CardDecider(deck=deck, settings=settings, corners=corners)


def test_the_runner_up_ranks_are_the_classifiers_next_in_the_read_suit() -> None:
    assert runner_up_ranks(_match("3c", "J"), "3c")[:1] == ["Jc"]
    assert runner_up_ranks(None, "3c") == []


def test_a_jack_read_as_a_three_by_one_corner_is_refused(hershey: DeckProfile, monkeypatch: pytest.MonkeyPatch) -> None:
    # hershey's table 18092: a blurred Jc's one corner read 3c, the J the classifier's runner-up.
    # The twin check alone (3c against 3s) lets it through; the Jc's registered index fits better.
    image = _card(hershey, "Jc")
    nothing = CornerRead(UNKNOWN, 0.0, None, None)
    decider = _decider(hershey, {0: CornerRead("3c", 0.52, "3c", _match("3c", "J")), 2: nothing}, monkeypatch)
    assert TwinSuit(deck=hershey).holds(image, *CORNERS[[0]], CORNERS[1], CORNERS[3], code="3c")
    assert decider.read_card(image, CORNERS, alone=False) == (UNKNOWN, 0.0)
    # Read right, with the three as its runner-up, the jack stands.
    decider = _decider(hershey, {0: CornerRead("Jc", 0.52, "Jc", _match("Jc", "3")), 2: nothing}, monkeypatch)
    assert decider.read_card(image, CORNERS, alone=False)[0] == "Jc"


def test_a_corner_under_another_cards_index_is_refused_when_its_own_corner_shows_its_index_more_clearly(
    dondorf: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dondorf's tables 18007 and 18085: a fan's bottom card named by its corner under the top card,
    # where a four-index design shows the top card's lower index (a little off: noise here), while
    # its own corner shows its own index, too blurred for the classifier (no match, only a best).
    image = _card(dondorf, "Qc", "Qh", noisy=0)
    decider = _decider(
        dondorf,
        {0: CornerRead("Qc", 0.55, "Qc", _match("Qc", "9")), 2: CornerRead(UNKNOWN, 0.0, "Qh", None)},
        monkeypatch,
    )
    assert TwinSuit(deck=dondorf).holds(image, *CORNERS[[0]], CORNERS[1], CORNERS[3], code="Qc")
    assert decider.read_card(image, CORNERS, alone=False) == (UNKNOWN, 0.0)


@pytest.mark.parametrize(("near", "far", "noisy"), [("Qc", "Qc", 0), ("Qh", "Qc", 2)])
def test_a_far_corner_showing_the_same_card_or_another_less_clearly_is_no_rival(
    dondorf: DeckProfile, near: str, far: str, noisy: int
) -> None:
    # The same card at both corners, the read one the less clear; or a fan's bottom card read by
    # its own clear index, its far corner under the top card showing that card's index less clearly.
    image = _card(dondorf, near, far, noisy=noisy)
    check = RivalCheck(twins=TwinSuit(deck=dondorf))
    shown = CornerRead(UNKNOWN, 0.0, far, None)
    assert check.holds(image, CORNERS, 0, code=near, match=_match(near, "9"), far=lambda: shown)


def test_several_codes_fitted_at_once_fit_as_each_pair_does(hershey: DeckProfile) -> None:
    # judged fits the read card and all its rivals as a whole by one product: each fit is the
    # pair's own (TwinSuit._fits, itself OpenCV's TM_CCOEFF_NORMED: test_twin_fits.py).
    twins = TwinSuit(deck=hershey)
    image = _card(hershey, "Jc", noisy=0)
    patch, at = twins._located(image, *CORNERS[[0]], CORNERS[1], CORNERS[3], code="3c")
    rivals = ["3s", "Jc", "2c", "3h"]
    together = twins._whole_fits(patch, at, ["3c", *rivals])
    apart = [twins._fits(patch, at, "3c", whole=True, rival=r) for r in rivals]
    assert together[0] == pytest.approx(apart[0][0], abs=1e-5)
    assert together[1:] == pytest.approx([other for _own, other in apart], abs=1e-5)


def test_a_corner_under_another_cards_index_is_refused_when_its_silent_own_corner_fits_its_index_better(
    dondorf: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dondorf's blur table 18751: a fan's bottom 8d named Kd by its corner under the top card's
    # lower index (a little off: noise here), its own corner's index so blurred that the classifier
    # names nothing there at all (no best): that corner still fits the 8d's registered index best.
    # (The face, under the cards above, refuses nothing there: a blank one here is let pass.)
    image = _card(dondorf, "Kd", "8d", noisy=0)
    silent = CornerRead(UNKNOWN, 0.0, None, None)
    check = RivalCheck(twins=TwinSuit(deck=dondorf))
    assert check.near(image, CORNERS, 0, code="Kd", match=_match("Kd", "9")) is not None
    assert not check.holds(image, CORNERS, 0, code="Kd", match=_match("Kd", "9"), far=lambda: silent)
    decider = _decider(dondorf, {0: CornerRead("Kd", 0.55, "Kd", _match("Kd", "9")), 2: silent}, monkeypatch)
    monkeypatch.setattr(decider.face, "agrees", lambda *_args, **_kwargs: True)
    assert decider.read_card(image, CORNERS, alone=False) == (UNKNOWN, 0.0)


@pytest.mark.parametrize(("near", "far", "noisy"), [("Kd", "Kd", 0), ("Kd", None, 0), ("8d", "Kd", 2)])
def test_a_silent_far_corner_showing_the_same_card_nothing_or_another_less_clearly_is_no_rival(
    dondorf: DeckProfile, near: str, far: str | None, noisy: int
) -> None:
    # The far corner names nothing: it shows the same card, bare paper (a card's corner past the
    # fan's edge), or another card's index less clearly than the read corner shows this one.
    image = _card(dondorf, near, far, noisy=noisy)
    check = RivalCheck(twins=TwinSuit(deck=dondorf))
    silent = CornerRead(UNKNOWN, 0.0, None, None)
    assert check.holds(image, CORNERS, 0, code=near, match=_match(near, "9"), far=lambda: silent)


@pytest.mark.parametrize(("shown", "named", "another"), [("Ah", "Ac", True), ("Ac", "Ac", False), ("Ts", "Ts", False)])
def test_a_corner_fits_another_card_when_some_other_registered_index_fits_it_better(
    dondorf: DeckProfile, shown: str, named: str, another: bool
) -> None:
    # A soft name is checked against all 52 registered indices, not only its twin and runner-up
    # ranks: a corner showing the Ah, named Ac, fits another card (the Ah) better; one named as
    # what it shows does not.
    check = RivalCheck(twins=TwinSuit(deck=dondorf))
    assert check.fits_another(_card(dondorf, shown), CORNERS, 0, code=named) is another
