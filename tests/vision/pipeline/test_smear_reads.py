"""A smeared blob read again: unread cards named where the second look reads them, first reads standing."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.pipeline.corners import UNKNOWN
from vision.pipeline.hypotheses import BACK, Hypothesis
from vision.pipeline.smear_reads import box_around, named_again

_W = 58.0  # card width (detection pixels)
_CARD = np.array([[0.0, 0.0], [_W, 0.0], [_W, 82.0], [0.0, 82.0]])


def _card(dx: float, code: str = UNKNOWN, *, turn_deg: float = 0.0, dy: float = 0.0) -> Hypothesis:
    a = np.radians(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corners: npt.NDArray[np.float64] = _CARD @ rot.T + np.array([100.0 + dx, 100.0 + dy])
    return Hypothesis(corners=corners, code=code, confidence=0.0 if code == UNKNOWN else 0.8)


def test_an_unread_card_takes_the_name_read_at_its_place_with_the_geometry_it_was_read_at() -> None:
    first = [_card(0.0, "Kh"), _card(40.0)]
    again = _card(41.5, "Td")
    assert named_again(first, lambda: [_card(0.5, "Kh"), again], card_w=_W) == 1
    assert [h.code for h in first] == ["Kh", "Td"]
    assert np.allclose(first[1].corners, again.corners)
    assert first[1].confidence == again.confidence


def test_first_reads_stand_and_nothing_is_added_where_the_first_look_found_no_card() -> None:
    first = [_card(0.0, "Kh"), _card(40.0)]
    # The read card read otherwise, a card where the first look found none, a back, an unknown.
    names = named_again(
        first, lambda: [_card(0.0, "Kd"), _card(200.0, "2c"), _card(40.0, BACK), _card(40.0)], card_w=_W
    )
    assert names == 0
    assert [h.code for h in first] == ["Kh", UNKNOWN]


def test_a_name_read_elsewhere_or_turned_away_or_already_in_the_blob_is_not_taken() -> None:
    first = [_card(0.0, "Kh"), _card(40.0)]
    elsewhere = _card(40.0 + 0.3 * _W, "Td")  # past a fifth of a card's width
    turned = _card(40.0, "Td", turn_deg=25.0)  # a fan's neighbour, turned from it
    twice = _card(40.0, "Kh")  # the blob holds the Kh already
    assert named_again(first, lambda: [elsewhere, turned, twice], card_w=_W) == 0
    assert first[1].code == UNKNOWN


def test_a_blob_with_nothing_unread_is_not_read_again() -> None:
    def never() -> list[Hypothesis]:
        raise AssertionError("read again")

    assert named_again([_card(0.0, "Kh")], never, card_w=_W) == 0


def test_two_unread_cards_are_each_named_once() -> None:
    first = [_card(0.0), _card(40.0)]
    assert named_again(first, lambda: [_card(1.0, "5h"), _card(39.0, "5h"), _card(41.0, "8c")], card_w=_W) == 2
    assert [h.code for h in first] == ["5h", "8c"]


def test_the_box_read_again_holds_the_outline_and_its_margin() -> None:
    outline = np.array([[10.2, 20.7], [50.0, 22.0], [48.9, 80.1]])
    assert box_around(outline, 12) == (-2, 8, 63, 94)  # (x1, y1 exclusive: 50 + 12 and ceil(80.1) + 12 included)
