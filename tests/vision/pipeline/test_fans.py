"""The fan stage's settling of a card whose two index corners showed two different clear indices, and its
second look at a one-index read just under the bar."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.vision.pipeline.shapes import H, W, card_quad
from vision.deck import CODES, DeckProfile
from vision.index_match import IndexMatch
from vision.pipeline.corners import UNKNOWN, CornerRead, CornerReader
from vision.pipeline.decide import CardDecider
from vision.pipeline.fan_looks import _STEPS, FAN_LOOK_STEP, FAN_SEEN_SCORE
from vision.pipeline.fans import FanReader
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.plane import Plane
from vision.pipeline.settings import RecognizerSettings


def _reader(deck: DeckProfile) -> FanReader:
    settings = RecognizerSettings()
    corners = CornerReader(deck=deck, settings=settings)
    decider = CardDecider(deck=deck, settings=settings, corners=corners)
    return FanReader(settings=settings, corners=corners, decider=decider)


def _clear(code: str) -> CornerRead:
    return CornerRead(code, 0.65, code, IndexMatch(code=code, score=0.93, margin=0.4))


def _split(fans: FanReader, *, covering: str | None) -> Hypothesis:
    """A fan's bottom card (corner 0 read 3d, its far corner 2 read Ks), beside a card read Ks
    lying over that far corner (``covering`` its code; None: beside the fan, over nothing).
    """
    bottom = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    bottom.seen = True
    # Spread along the short side: the top card's quad covers the bottom card's corner 2.
    top = Hypothesis(corners=card_quad(100.0 + 0.7 * W, 100.0 if covering else 100.0 + 2 * H, 0.0))
    top.code = covering or "Ks"
    fans.pending.split.append((bottom, _clear("3d"), _clear("Ks")))
    fans.settle([bottom, top], card_w=W)
    return bottom


def test_a_far_corner_under_a_card_read_as_that_card_leaves_the_card_its_own_index(kennard: DeckProfile) -> None:
    fans = _reader(kennard)
    assert _split(fans, covering="Ks").code == "3d"


def test_two_clear_indices_stay_unread_when_nothing_explains_one(kennard: DeckProfile) -> None:
    fans = _reader(kennard)
    # The Ks read lies nowhere near the far corner: which index is this card's is not known.
    assert _split(fans, covering=None).code == UNKNOWN
    # Nor when the card over the corner was read as another code than the corner showed.
    bottom = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    top = Hypothesis(corners=card_quad(100.0 + 0.7 * W, 100.0, 0.0))
    top.code = "Qh"
    fans.pending.split.append((bottom, _clear("3d"), _clear("Ks")))
    fans.settle([bottom, top], card_w=W)
    assert bottom.code == UNKNOWN


class _Scripted(CornerReader):
    """Index reads scripted by where the patch starts: the corner itself, a frame pixel away,
    FAN_LOOK_STEP pixels away (``around``), and none elsewhere."""

    def __init__(
        self,
        deck: DeckProfile,
        *,
        at: CornerRead,
        beside: list[CornerRead],
        far: CornerRead | None = None,
        around: list[CornerRead] | None = None,
        turned: tuple[CornerRead, list[CornerRead]] | None = None,
        scaled: tuple[CornerRead, list[CornerRead]] | None = None,
    ) -> None:
        super().__init__(deck=deck, settings=RecognizerSettings())
        # Reads with the card drawn larger about the corner: at it, and a pixel away (smaller:
        # no index). None: scaling changes nothing.
        self.scaled = scaled
        self.at, self.beside, self.origin = at, beside, np.zeros(2)
        self.around = around or []
        # Reads with the patch turned a positive angle about the corner: at it, and a pixel away
        # (turned the other way: no index). None: turning changes nothing.
        self.turned = turned
        self.far = far or CornerRead(UNKNOWN, 0.0, None)  # the card's far corner: by default no index
        self.far_origin = np.full(2, np.nan)

    def read(self, image: Any, origin: Any, x_vec: Any, y_vec: Any, *, pale: bool = True) -> CornerRead:
        step = np.round(np.asarray(origin) - self.origin).astype(int)
        steps = [(int(x), int(y)) for x, y in _STEPS]
        angle = float(np.degrees(np.arctan2(x_vec[1], x_vec[0])))
        size = float(np.hypot(*x_vec)) / W
        if self.scaled is not None and abs(size - 1.0) > 0.02:
            if size < 1.0:
                return CornerRead(UNKNOWN, 0.0, None)
            if not step.any():
                return self.scaled[0]
            if (int(step[0]), int(step[1])) in steps:
                return self.scaled[1][steps.index((int(step[0]), int(step[1])))]
            return CornerRead(UNKNOWN, 0.0, None)
        if self.turned is not None and abs(angle) > 0.5:
            if angle < 0:
                return CornerRead(UNKNOWN, 0.0, None)
            if not step.any():
                return self.turned[0]
            if (int(step[0]), int(step[1])) in steps:
                return self.turned[1][steps.index((int(step[0]), int(step[1])))]
            return CornerRead(UNKNOWN, 0.0, None)
        if not step.any():
            return self.at
        if self.beside and (int(step[0]), int(step[1])) in steps:
            return self.beside[steps.index((int(step[0]), int(step[1])))]
        far_steps = [(int(FAN_LOOK_STEP * x), int(FAN_LOOK_STEP * y)) for x, y in _STEPS]
        if self.around and (int(step[0]), int(step[1])) in far_steps:
            return self.around[far_steps.index((int(step[0]), int(step[1])))]
        if np.allclose(origin, self.far_origin):
            return self.far
        return CornerRead(UNKNOWN, 0.0, None)  # elsewhere: no index


def _unsure(code: str, score: float) -> CornerRead:
    return CornerRead(UNKNOWN, 0.45, code, IndexMatch(code=code, score=score, margin=0.4))


def _scored(code: str, score: float) -> CornerRead:
    """An index read short of the bar whose best card is ``code`` at ``score``, every other rank
    and suit far behind (a fit of 0.1)."""
    rank, suit = divmod(CODES.index(code), 4)
    ranks, suits = np.full(13, 0.1), np.full(4, 0.1)
    ranks[rank], suits[suit] = score, score
    match = IndexMatch(code=code, score=score, margin=0.4, rank_scores=ranks, suit_scores=suits)
    return CornerRead(UNKNOWN, 0.4, code, match)


def _settled(fans: FanReader, card: Hypothesis, *, over_far: str | None) -> Hypothesis:
    """``card`` after the fan is settled, with a card read ``over_far`` lying over its far corner
    (turned about it, as a fan held in the hand; None: no card there)."""
    hyps = [card]
    if over_far is not None:
        top = Hypothesis(corners=card_quad(100.0 + 0.5 * W, 100.0 + 0.5 * H, 20.0))
        top.code = over_far
        hyps.append(top)
    fans.settle(hyps, card_w=W)
    return card


def _exposed(
    deck: DeckProfile,
    *,
    at: CornerRead,
    beside: list[CornerRead],
    far: CornerRead | None = None,
    over_far: str | None = None,
    around: list[CornerRead] | None = None,
    turn: bool = False,
    turned: tuple[CornerRead, list[CornerRead]] | None = None,
    scaled: tuple[CornerRead, list[CornerRead]] | None = None,
) -> Hypothesis:
    """A fan card read by its one index in view (corner 0, as the fan scan places one), whose far
    corner (2) reads ``far`` (default: no index), with a card read ``over_far`` lying over that far
    corner (None: no card there); the blob is settled after. ``around``: the reads FAN_LOOK_STEP
    pixels away; ``turn``: the card was drawn from the outline's corner (as explain reads one);
    ``turned``, ``scaled``: the reads with the patch turned a little about the corner, or the card
    drawn a little larger (see _Scripted).
    """
    settings = RecognizerSettings()
    corners = _Scripted(deck, at=at, beside=beside, far=far, around=around, turned=turned, scaled=scaled)
    fans = FanReader(
        settings=settings, corners=corners, decider=CardDecider(deck=deck, settings=settings, corners=corners)
    )
    card = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    corners.origin, corners.far_origin = card.corners[0], card.corners[2]
    plane = Plane(image=np.zeros((4, 4, 3), np.uint8), to_frame_h=np.eye(3), scale=1.0)
    if turn:
        fans.read_exposed(np.zeros((400, 400, 3), np.uint8), card, 0, plane, turn=True)
    else:
        fans.read_exposed(np.zeros((400, 400, 3), np.uint8), card, 0, plane, seen_score=FAN_SEEN_SCORE)
    return _settled(fans, card, over_far=over_far)


def test_a_fanned_index_just_under_the_bar_that_holds_its_card_a_pixel_each_way_is_read(kennard: DeckProfile) -> None:
    # One index, 0.70 at its corner (under the fan's 0.76); a pixel away it reads the same card
    # at 0.70-0.78 at all eight poses but one, where a glyph's edge breaks.
    beside = [_unsure("9s", s) for s in (0.74, 0.78, 0.71, 0.75, 0.73, 0.70, 0.76)] + [CornerRead(UNKNOWN, 0.0, None)]
    card = _exposed(kennard, at=_unsure("9s", 0.70), beside=beside)
    assert card.code == "9s"
    assert card.confidence >= 0.5


def test_a_fanned_index_that_changes_card_or_stays_low_a_pixel_away_stays_unknown(kennard: DeckProfile) -> None:
    # A glyph torn between two ranks: the neighbours read 8h and 5h by turns, however well.
    torn = [_unsure("8h" if k % 2 else "5h", 0.8) for k in range(8)]
    card = _exposed(kennard, at=_unsure("5h", 0.70), beside=torn)
    assert card.code == UNKNOWN and card.seen  # a card is there, unread
    # Two neighbours of eight reading another card are one too many.
    two_off = [_unsure("5h", 0.8)] * 6 + [_unsure("8h", 0.8)] * 2
    assert _exposed(kennard, at=_unsure("5h", 0.70), beside=two_off).code == UNKNOWN
    # Steady, but one pose a pixel away reads another card outright: that card's index is there too.
    clear_other = CornerRead("5h", 0.7, "5h", IndexMatch(code="5h", score=0.86, margin=0.4))
    steady_but = [_unsure("8h", 0.75)] * 7 + [clear_other]
    assert _exposed(kennard, at=_unsure("8h", 0.75), beside=steady_but).code == UNKNOWN
    # Steady but low: the middle of the nine scores is under the ordinary read bar (0.72).
    low = [_unsure("9s", 0.68)] * 8
    assert _exposed(kennard, at=_unsure("9s", 0.70), beside=low).code == UNKNOWN


def test_a_fanned_index_whose_cards_far_index_shows_another_card_is_not_named(kennard: DeckProfile) -> None:
    # A four-index design's fan: a scan pose half round from the bottom card puts its corner on the
    # top card's lower index (9h, read clearly), and the far corner on the bottom card's own (Qs).
    # Two printed indices of one card never differ: a card is there, unread, never a 9h.
    card = _exposed(kennard, at=_clear("9h"), beside=[], far=_clear("Qs"))
    assert card.code == UNKNOWN and card.seen
    # A pose a pixel off leaves the far index just short of a read: it is still the Qs's.
    card = _exposed(kennard, at=_clear("9h"), beside=[], far=_scored("Qs", 0.55))
    assert card.code == UNKNOWN and card.seen


def test_a_fanned_index_whose_far_corner_shows_nothing_or_itself_or_the_card_over_it_is_read(
    kennard: DeckProfile,
) -> None:
    assert _exposed(kennard, at=_clear("9h"), beside=[]).code == "9h"
    assert _exposed(kennard, at=_clear("9h"), beside=[], far=_scored("9h", 0.6)).code == "9h"
    # Ink at the far corner that fits no card (a pip, a picture's edge): no index there.
    assert _exposed(kennard, at=_clear("9h"), beside=[], far=_scored("Qs", 0.35)).code == "9h"
    # The far corner lies under a card read as what it showed (a fan turned about its corner).
    assert _exposed(kennard, at=_clear("9h"), beside=[], far=_clear("Qs"), over_far="Qs").code == "9h"


def _read(code: str, score: float) -> CornerRead:
    return CornerRead(code, 0.6, code, IndexMatch(code=code, score=score, margin=1.0))


_GARBAGE = CornerRead(UNKNOWN, 0.0, "Qd", IndexMatch(code="Qd", score=0.0, margin=0.0))
_CLEAR_7H = [_read("7h", s) for s in (0.79, 0.94, 0.88, 0.91, 0.85, 0.9, 0.83, 0.92)]


def test_an_outline_cards_index_that_reads_nothing_at_its_corner_but_one_card_all_round_is_read(
    kennard: DeckProfile,
) -> None:
    # Nicu-white's fan bottom 7h: its corner's patch reads "Qd 0.00" (its edge cuts a glyph), and
    # two pixels away each way the 7h reads clearly at all eight poses.
    assert _exposed(kennard, at=_GARBAGE, beside=[], around=_CLEAR_7H, turn=True).code == "7h"
    # Also when no index is found at the corner at all, and with one pose of eight showing nothing.
    one_off = [*_CLEAR_7H[:7], CornerRead(UNKNOWN, 0.0, None)]
    assert _exposed(kennard, at=CornerRead(UNKNOWN, 0.0, None), beside=[], around=one_off, turn=True).code == "7h"


def test_an_outline_cards_index_that_reads_nothing_and_no_one_card_around_stays_unread(kennard: DeckProfile) -> None:
    def look(around: list[CornerRead], **kw: Any) -> str:
        return _exposed(kennard, at=_GARBAGE, beside=[], around=around, turn=True, **kw).code

    # One pose reads another card outright: that card's index is there too.
    assert look([*_CLEAR_7H[:7], _read("4h", 0.8)]) == UNKNOWN
    # Poses showing another best card fairly (0.6), however many read the 7h clearly.
    assert look(_CLEAR_7H[:6] + [_unsure("4h", 0.6)] * 2) == UNKNOWN
    # Steady but only fair: the middle score is under the fan's bar.
    assert look([_unsure("7h", 0.74)] * 8) == UNKNOWN
    # Clear all round, but the card's far index shows another card: the far-index veto holds.
    assert look(_CLEAR_7H, far=_clear("Qs")) == UNKNOWN
    # A card placed by the fan scan likewise, as read at its corner or two pixels away.
    assert _exposed(kennard, at=_GARBAGE, beside=[], around=[*_CLEAR_7H[:7], _read("4h", 0.8)]).code == UNKNOWN
    assert _exposed(kennard, at=_unsure("4h", 0.6), beside=[], around=_CLEAR_7H).code == UNKNOWN


def _torn(code: str) -> CornerRead:
    """An index whose patch edge cuts a glyph: its rank found, its suit lost (the best card ``code`` at 0.09)."""
    return CornerRead(UNKNOWN, 0.06, code, IndexMatch(code=code, score=0.09, margin=0.0))


def test_a_fan_index_that_reads_plainly_at_some_poses_a_pixel_or_two_away_is_read(kennard: DeckProfile) -> None:
    # Nicu-white's fan middle 4c, placed by the fan scan 2 px off its corner: "4c 0.09" there
    # and at most poses round it (a glyph cut), 0.93-0.97 at three of them.
    beside = [_read("4c", 0.97), _torn("4c"), _torn("4c"), _torn("4c"), _read("4c", 0.97), _torn("4c")]
    beside += [_read("4c", 0.96), _torn("4c")]
    card = _exposed(kennard, at=_torn("4c"), beside=beside)
    assert card.code == "4c"
    # Nicu-white's fan bottom 6d, drawn from the outline's corner: 0.51 at it, 0.68-0.77 a pixel
    # away (the steady look's middle, 0.70, is under its bar; two poses plain), 0.78-0.79 at three
    # poses 2 px away.
    ring1 = [_unsure("6d", s) for s in (0.69, 0.69, 0.73, 0.68)] + [_read("6d", 0.77), _unsure("6d", 0.71)]
    ring1 += [_read("6d", 0.77), _unsure("6d", 0.70)]
    ring2 = [_read("6d", 0.78), _unsure("6d", 0.51), _unsure("6d", 0.57), _unsure("6d", 0.71), _read("6d", 0.79)]
    ring2 += [_unsure("6d", 0.74), _read("6d", 0.78), _unsure("6d", 0.58)]
    assert _exposed(kennard, at=_unsure("6d", 0.51), beside=ring1, around=ring2, turn=True).code == "6d"


def test_a_fan_index_read_plainly_at_too_few_poses_or_beside_another_card_stays_unread(kennard: DeckProfile) -> None:
    def scan(at: CornerRead, beside: list[CornerRead]) -> str:
        return _exposed(kennard, at=at, beside=beside).code

    # Two plain reads of sixteen poses are too few (one lucky pose, or two, is no read).
    assert scan(_torn("4c"), [_read("4c", 0.97), _read("4c", 0.96)] + [_torn("4c")] * 6) == UNKNOWN
    # Three, but another card shows fairly at one pose (or at the corner itself).
    three = [_read("4c", 0.97)] * 3
    assert scan(_torn("4c"), [*three, _unsure("4s", 0.55)] + [_torn("4c")] * 4) == UNKNOWN
    assert scan(_unsure("4s", 0.55), [*three] + [_torn("4c")] * 5) == UNKNOWN
    # Three, but just under the fan's bar (0.76): reads at the ordinary bar are no fan read.
    assert scan(_torn("4c"), [_read("4c", 0.75)] * 3 + [_torn("4c")] * 5) == UNKNOWN


def test_a_fan_index_that_reads_plainly_only_turned_a_little_is_read(kennard: DeckProfile) -> None:
    # Nicu-ornamental's fan-bottom 7h, drawn from the outline's corner: under 0.3 as placed and at
    # every pose 1-2 px away; turned 2 degrees about its corner it reads 0.95, and 0.91-0.97 at six
    # poses a pixel from there.
    torn = [_torn("7h")] * 8
    plain = [_read("7h", s) for s in (0.97, 0.95, 0.91, 0.96, 0.97, 0.92)] + [_torn("7h")] * 2
    card = _exposed(kennard, at=_torn("7h"), beside=torn, around=torn, turn=True, turned=(_read("7h", 0.95), plain))
    assert card.code == "7h"
    # Not where, as placed, a pose a pixel away shows another card fairly: that index is there too.
    beside = [_unsure("4h", 0.6), *torn[:7]]
    card = _exposed(kennard, at=_torn("7h"), beside=beside, around=torn, turn=True, turned=(_read("7h", 0.95), plain))
    assert card.code == UNKNOWN
    # Nor where turned it reads plainly at too few poses.
    few = [_read("7h", 0.95)] + [_torn("7h")] * 7
    assert _exposed(kennard, at=_torn("7h"), beside=torn, turn=True, turned=(_read("7h", 0.95), few)).code == UNKNOWN


def test_a_fan_index_seen_fairly_all_round_that_reads_plainly_at_its_cards_true_size_is_read(
    kennard: DeckProfile,
) -> None:
    # Nicu-white's fan middle 7s (the benchmark's table 3018), placed by the fan scan: 0.5-0.7 as
    # placed and a pixel or two away, never plainly; with the card drawn 4 % larger about its
    # corner (its outline a little short) it reads 7s outright, and plainly at poses round there.
    fair = [_unsure("7s", s) for s in (0.62, 0.66, 0.58, 0.7, 0.64, 0.6, 0.67, 0.55)]
    plain = [_read("7s", s) for s in (0.84, 0.8, 0.79, 0.86)] + [_unsure("7s", 0.7)] * 4
    card = _exposed(kennard, at=_unsure("7s", 0.66), beside=fair, around=fair, scaled=(_read("7s", 0.82), plain))
    assert card.code == "7s"
    # The same as drawn from the outline's corner.
    args = {"at": _unsure("7s", 0.66), "beside": fair, "around": fair, "turn": True}
    assert _exposed(kennard, **args, scaled=(_read("7s", 0.82), plain)).code == "7s"
    # Without the larger card's reads it stays a card seen, unread.
    card = _exposed(kennard, at=_unsure("7s", 0.66), beside=fair, around=fair)
    assert card.code == UNKNOWN and card.seen


def test_a_fan_index_larger_drawn_that_shows_another_card_or_too_few_plain_reads_stays_unread(
    kennard: DeckProfile,
) -> None:
    fair = [_unsure("7s", s) for s in (0.62, 0.66, 0.58, 0.7, 0.64, 0.6, 0.67, 0.55)]
    plain = [_read("7s", s) for s in (0.84, 0.8, 0.79, 0.86)] + [_unsure("7s", 0.7)] * 4

    def scaled(corner: CornerRead, ring: list[CornerRead]) -> str:
        return _exposed(kennard, at=_unsure("7s", 0.66), beside=fair, around=fair, scaled=(corner, ring)).code

    # The larger card's corner reads another card outright: the index is no plain 7s.
    assert scaled(_read("7c", 0.82), plain) == UNKNOWN
    # ... or a pose round it shows another card fairly.
    assert scaled(_read("7s", 0.82), [*plain[:7], _unsure("7c", 0.6)]) == UNKNOWN
    # Two plain reads (the corner's and one round it) are too few; and the corner itself not
    # read outright is no start.
    assert scaled(_read("7s", 0.82), plain[:1] + [_unsure("7s", 0.7)] * 7) == UNKNOWN
    assert scaled(_unsure("7s", 0.74), plain) == UNKNOWN


def _among(deck: DeckProfile, *, at: CornerRead, beside: list[CornerRead], far: CornerRead | None = None) -> Hypothesis:
    """A card with both index corners on the blob's outline, read there (``read_among``): corner 0
    reads ``at`` (``beside`` a frame pixel away each way), its far corner 2 ``far`` (default: no index).
    """
    settings = RecognizerSettings()
    corners = _Scripted(deck, at=at, beside=beside, far=far)
    fans = FanReader(
        settings=settings, corners=corners, decider=CardDecider(deck=deck, settings=settings, corners=corners)
    )
    card = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    corners.origin, corners.far_origin = card.corners[0], card.corners[2]
    plane = Plane(image=np.zeros((4, 4, 3), np.uint8), to_frame_h=np.eye(3), scale=1.0)
    fans.read_among(np.zeros((400, 400, 3), np.uint8), card, plane)
    fans.settle([card], card_w=W)
    return card


def test_a_fans_bottom_card_whose_near_index_is_weak_and_far_corner_blank_is_read_by_its_looks(
    kennard: DeckProfile,
) -> None:
    # Nicu-white's fan-bottom Td (table 509), spread along its short side: both index corners lie
    # on the outline, the far one on the fan's straight edge under the cards above, showing no
    # index. The near index reads Td at 0.70-0.72 (under the fan's 0.76), and no corner was clear,
    # so nothing more was tried; a pixel away each way it holds Td, as a true index does.
    beside = [_unsure("Td", s) for s in (0.74, 0.78, 0.71, 0.75, 0.73, 0.70, 0.76)] + [CornerRead(UNKNOWN, 0.0, None)]
    card = _among(kennard, at=_scored("Td", 0.70), beside=beside)
    assert card.code == "Td"


def test_a_weak_index_whose_far_corner_shows_ink_like_an_index_or_that_is_not_steady_stays_unread(
    kennard: DeckProfile,
) -> None:
    beside = [_unsure("Td", s) for s in (0.74, 0.78, 0.71, 0.75, 0.73, 0.70, 0.76)] + [CornerRead(UNKNOWN, 0.0, None)]
    # The far corner shows something fitting a card fairly: two corners with an index each, neither
    # clear, are no fan's bottom card (which of the two is this card's is not known).
    assert _among(kennard, at=_scored("Td", 0.70), beside=beside, far=_scored("Qs", 0.4)).code == UNKNOWN
    # The near index changes card a pixel away.
    torn = [_unsure("8h" if k % 2 else "Td", 0.8) for k in range(8)]
    assert _among(kennard, at=_scored("Td", 0.70), beside=torn).code == UNKNOWN
    # Under FAN_SEEN_SCORE at the corner: no index to look around.
    assert _among(kennard, at=_scored("Td", 0.45), beside=beside).code == UNKNOWN


class _FaceRefuses(CardDecider):
    """A decider whose face check refuses the clear index (the face under a fan's bottom card
    is mostly the cards above's): the two corners together read nothing."""

    def read_card(self, image: Any, corners: Any, *, alone: bool) -> tuple[str, float]:
        return UNKNOWN, 0.0


def _under_top(deck: DeckProfile, *, beside: list[CornerRead], over_far: str | None) -> Hypothesis:
    """A fan's bottom card with both index corners on the outline: its own corner 0 reads 5h fairly
    (0.72, under the fan's bar), ``beside`` a pixel away, and its far corner 2 the top card's
    clear 3s, with a card read ``over_far`` lying over that far corner (None: no card there)."""
    settings = RecognizerSettings()
    far = _scored("3s", 0.99)._replace(code="3s", confidence=0.9)
    corners = _Scripted(deck, at=_scored("5h", 0.72), beside=beside, far=far)
    fans = FanReader(
        settings=settings, corners=corners, decider=_FaceRefuses(deck=deck, settings=settings, corners=corners)
    )
    card = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    corners.origin, corners.far_origin = card.corners[0], card.corners[2]
    plane = Plane(image=np.zeros((4, 4, 3), np.uint8), to_frame_h=np.eye(3), scale=1.0)
    fans.read_among(np.zeros((400, 400, 3), np.uint8), card, plane)
    return _settled(fans, card, over_far=over_far)


def test_a_fair_index_whose_far_corner_lies_under_the_card_it_shows_names_its_card(kennard: DeckProfile) -> None:
    # The benchmark's dondorf table 3: a fan's bottom 5h whose far corner shows the top 3s's index.
    steady = [_scored("5h", s) for s in (0.74, 0.76, 0.71, 0.75, 0.73, 0.80, 0.76)] + [CornerRead(UNKNOWN, 0.0, None)]
    card = _under_top(kennard, beside=steady, over_far="3s")
    assert card.code == "5h"
    # Nothing over the far corner: which index is the card's is not known, and it stays unread.
    alone = _under_top(kennard, beside=steady, over_far=None)
    assert alone.code == UNKNOWN and alone.seen
    # Nor when the card over it was read as another card than the far corner showed.
    assert _under_top(kennard, beside=steady, over_far="Qh").code == UNKNOWN
    # Nor when the fair index does not hold its card a pixel away.
    torn = [_scored("8h" if k % 2 else "5h", 0.8) for k in range(8)]
    assert _under_top(kennard, beside=torn, over_far="3s").code == UNKNOWN
