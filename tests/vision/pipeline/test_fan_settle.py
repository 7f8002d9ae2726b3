"""What reading a blob's cards leaves to settle once the blob is read (FanSettle), and its forgetting."""

from __future__ import annotations

import numpy as np

from tests.vision.bench_tables import read_table
from tests.vision.pipeline.shapes import H, W, card_quad
from vision.deck import DeckProfile
from vision.index_match import IndexMatch
from vision.pipeline.corners import UNKNOWN, CornerRead
from vision.pipeline.fan_settle import FanSettle
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.settings import RecognizerSettings
from vision.scenes import truth_centres
from vision.synth import score_reading


def _clear(code: str) -> CornerRead:
    return CornerRead(code, 0.65, code, IndexMatch(code=code, score=0.93, margin=0.4))


def _fan() -> tuple[Hypothesis, Hypothesis]:
    """A fan's bottom card and a card read Ks lying over its far corner (2)."""
    bottom = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    top = Hypothesis(corners=card_quad(100.0 + 0.7 * W, 100.0, 0.0))
    top.code = "Ks"
    return bottom, top


def test_a_split_card_whose_far_corner_lies_under_that_card_is_read_by_its_other_index() -> None:
    pending = FanSettle(settings=RecognizerSettings())
    bottom, top = _fan()
    pending.split.append((bottom, _clear("3d"), _clear("Ks")))
    pending.settle([bottom, top], card_w=W)
    assert bottom.code == "3d"
    assert pending.split == []  # settled once: the next blob starts afresh


def test_a_forgotten_card_is_not_settled() -> None:
    pending = FanSettle(settings=RecognizerSettings())
    bottom, top = _fan()
    pending.split.append((bottom, _clear("3d"), _clear("Ks")))
    pending.one.append((bottom, 0))
    pending.forget(bottom)
    pending.settle([bottom, top], card_w=W)
    assert bottom.code == UNKNOWN


def test_a_card_named_by_an_index_lying_under_a_card_read_alike_is_left_unknown() -> None:
    pending = FanSettle(settings=RecognizerSettings())
    bottom, top = _fan()
    bottom.code, bottom.confidence = "Ks", 0.6
    pending.one.append((bottom, 2))
    pending.settle([bottom, top], card_w=W)
    assert bottom.code == UNKNOWN
    # Not so when the card read alike lies far off the corner.
    far = Hypothesis(corners=card_quad(100.0, 100.0 + 3 * H, 0.0))
    far.code = "Ks"
    bottom.code = "Ks"
    pending.one.append((bottom, 2))
    pending.settle([bottom, far], card_w=W)
    assert bottom.code == "Ks"


def test_two_cards_named_alike_each_by_a_corner_at_the_other_are_both_left_unknown() -> None:
    # A four-index design's fan: a rectangle drawn round a lower card, turned half round, takes
    # the top card's lower index for its own (dondorf's table 3008, 9h over the Qs); the two
    # rectangles share an edge, each naming corner at the other's corner. Which is the top card's
    # is not known from that: neither keeps the name, whichever was read first.
    for order in (0, 1):
        pending = FanSettle(settings=RecognizerSettings())
        top = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
        mirrored = Hypothesis(corners=card_quad(100.0 - W, 100.0, 180.0))
        for hyp in (top, mirrored):
            hyp.code, hyp.confidence = "9h", 0.62
        entries = [(top, 0), (mirrored, 0)]
        pending.one.extend(entries if order == 0 else entries[::-1])
        pending.settle([top, mirrored], card_w=W)
        assert (top.code, mirrored.code) == (UNKNOWN, UNKNOWN)


def _soft_fan() -> tuple[Hypothesis, Hypothesis]:
    """A fan's bottom card named Ah by one blurred index (corner 2) whose far corner was not asked, and
    an unread card above it."""
    bottom = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    bottom.code, bottom.confidence = "Ah", 0.55
    return bottom, Hypothesis(corners=card_quad(100.0 + 0.9 * W, 100.0 + 0.05 * H, 0.0))


def test_a_soft_read_whose_corner_lies_under_another_cards_corner_is_left_unknown_but_seen() -> None:
    # vision_blur's dondorf table 18608: the bottom 3d's lower corner under the unread top 8h's lower
    # left index (dondorf prints four), which reads 8h steadily.
    pending = FanSettle(settings=RecognizerSettings())
    bottom, above = _soft_fan()
    pending.one.append((bottom, 2))
    pending.soft.append((bottom, 2))
    pending.settle([bottom, above], card_w=W)
    assert bottom.code == UNKNOWN
    assert bottom.seen


def test_a_soft_read_whose_corner_lies_over_another_cards_face_is_kept() -> None:
    # Standard's table 11009: the middle 3c's index corner over the bottom 6h, 0.38 w from its nearest
    # corner (no index of the 6h's there), and a rectangle drawn the other way round from its corner.
    pending = FanSettle(settings=RecognizerSettings())
    middle = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    middle.code, middle.confidence = "3c", 0.55
    below = Hypothesis(corners=card_quad(100.0 + 0.38 * W, 100.0, 0.0))
    corner = middle.corners[2]
    turned = Hypothesis(corners=corner + np.array([(0.0, 0.0), (0.0, -W), (-H, -W), (-H, 0.0)]))
    pending.one.append((middle, 2))
    pending.soft.append((middle, 2))
    pending.settle([middle, below, turned], card_w=W)
    assert middle.code == "3c"


def test_a_soft_read_placed_a_few_pixels_off_the_corner_a_turned_rectangle_is_drawn_from_is_kept() -> None:
    # Kennard's table 11009: the fan's middle 3s, named by its soft index placed by its look 0.075 w
    # from the outline corner, from which a rectangle is drawn the other way round, across it.
    pending = FanSettle(settings=RecognizerSettings())
    middle = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    middle.code, middle.confidence = "3s", 0.55
    corner = middle.corners[2] + np.array([0.05 * W, -0.055 * W])
    turned = Hypothesis(corners=corner + np.array([(0.0, 0.0), (0.0, W), (H, W), (H, 0.0)]))
    pending.one.append((middle, 2))
    pending.soft.append((middle, 2))
    pending.settle([middle, turned], card_w=W)
    assert middle.code == "3s"


def test_the_fans_middle_3s_of_table_11009_is_read(kennard: DeckProfile) -> None:
    # The benchmark's table 11009: the middle 3s, named by its soft index, was un-named by the
    # rectangle drawn across it from its own outline corner (0.075 w off: see SAME_CORNER).
    cards = read_table(kennard, seed=11009)[2].cards
    assert any(c.code == "3s" and abs(c.center[0] - 1398) < 8 and abs(c.center[1] - 174) < 8 for c in cards)


def _top_kc(*, read: bool = True) -> Hypothesis:
    """A fan's top card, read Kc (dondorf prints an index at every corner), or not read at all."""
    top = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    if read:
        top.code = "Kc"
    return top


def _named_by_corner_0(corners: np.ndarray, code: str) -> Hypothesis:
    hyp = Hypothesis(corners=corners)
    hyp.code, hyp.confidence = code, 0.42
    return hyp


def _turned_on_right_edge() -> Hypothesis:
    """A card turned a quarter round from _top_kc's, its index corner (0) on the top card's right
    edge 0.2 w below its corner 1, named 4c by that corner."""
    turned = _named_by_corner_0(card_quad(100.0 + W / 2 - H / 2, 100.0 - H / 2 + 0.2 * W + W / 2, 90.0), "4c")
    assert np.allclose(turned.corners[0], _top_kc().corners[1] + (0.0, 0.2 * W))
    return turned


def _settled_one(top: Hypothesis, named: Hypothesis) -> str:
    """``named``'s code once a blob of ``top`` and it, ``named`` named by its corner 0, is settled."""
    pending = FanSettle(settings=RecognizerSettings())
    pending.one.append((named, 0))
    pending.settle([top, named], card_w=W)
    return named.code


def test_a_card_named_by_an_index_on_the_edge_of_a_card_it_lies_across_is_left_unknown() -> None:
    # Dondorf's table 19919: the fan's top Kc and a rectangle the fan's scan drew turned a quarter
    # round, its index corner on the Kc's right edge: that index, read turned, named it 4c.
    assert _settled_one(_top_kc(), _turned_on_right_edge()) == UNKNOWN


def test_a_card_named_by_an_index_at_the_edge_of_a_card_it_lies_along_is_kept() -> None:
    # A fan's cards lie along one another: an index corner just off the card above, near its
    # corner, is the lower card's own (as it is for any card but a soft read, see _covered).
    lower = _named_by_corner_0(card_quad(100.0 - 0.05 * W, 100.0 + 0.15 * W, 0.0), "2s")
    assert _settled_one(_top_kc(), lower) == "2s"


def test_a_card_named_by_an_index_on_the_edge_of_an_unread_rectangle_across_it_is_kept() -> None:
    # Every outline corner proposes rectangles across the fan's cards, unread: their edges run by
    # the fan's index corners (nicu-white's table 504, the middle Jd 0.05 w inside one).
    assert _settled_one(_top_kc(read=False), _turned_on_right_edge()) == "4c"


def test_the_fans_top_kc_of_table_19919_is_not_read_turned_as_another_card(dondorf: DeckProfile) -> None:
    # The benchmark's table 19919 (dondorf): a blurred, smeared fan of 7h, 2s and the top Kc. The
    # fan's scan read the Kc's corner-1 index turned as a 4c lying where the unfound 2s lies: a
    # misread of the 2s. Left unread, the 2s is missed, and no card on the table is misread.
    table, renderer, reading = read_table(dondorf, seed=19919)
    truth = truth_centres(renderer, table.scene)
    outcomes: list[str] = []
    score_reading(truth, [(c.code, c.center) for c in reading.cards], tol_px=22, outcomes=outcomes)
    assert "misread" not in outcomes
    assert dict(zip([c.code for c, _ in truth], outcomes, strict=True))["Kc"] == "correct"


def _notched(*, code: str = UNKNOWN, seen: bool = False) -> tuple[Hypothesis, Hypothesis]:
    """A fan's middle card named by its soft index (corner 0) and a rectangle turned across it from
    the outline corner 0.15 w back along its top edge (where its edge meets the card below), whose
    side passes through that index corner."""
    middle = Hypothesis(corners=card_quad(100.0, 100.0, 0.0))
    middle.code, middle.confidence = "Jd", 0.55
    notch = middle.corners[0] - np.array([0.15 * W, 0.0])
    turned = Hypothesis(corners=notch + np.array([(0.0, 0.0), (0.0, W), (H, W), (H, 0.0)]))
    turned.code, turned.seen = code, seen
    return middle, turned


def _settled_soft(middle: Hypothesis, turned: Hypothesis) -> str:
    """``middle``'s code once a blob of it, soft-read at its corner 0, and ``turned`` is settled."""
    pending = FanSettle(settings=RecognizerSettings())
    pending.one.append((middle, 0))
    pending.soft.append((middle, 0))
    pending.settle([middle, turned], card_w=W)
    return middle.code


def test_a_soft_read_on_the_side_of_an_unseen_rectangle_turned_across_it_is_kept() -> None:
    # Standard's table 2: the fan's middle Jd, its index corner on the side of a rectangle turned
    # across it from the outline notch 0.156 w back along its top edge, which nothing read or saw.
    assert _settled_soft(*_notched()) == "Jd"


def test_a_soft_read_under_a_seen_card_turned_across_it_is_left_unknown() -> None:
    # A card turned across it that showed an index (seen) may be a real card whose index that is.
    assert _settled_soft(*_notched(seen=True)) == UNKNOWN


def test_the_fans_middle_jd_of_table_2_is_read(standard: DeckProfile) -> None:
    # The benchmark's table 2: the middle Jd, named by its soft index, was un-named by the rectangle
    # turned across it from the outline notch where its top edge meets the 7d below.
    cards = read_table(standard, seed=2)[2].cards
    assert any(c.code == "Jd" and abs(c.center[0] - 1112) < 10 and abs(c.center[1] - 201) < 10 for c in cards)
