"""The card on top of a stack of backs: it shows whole, though the cards under it were chosen first."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import pytest

from drivers.camera.effects import Shadow
from drivers.camera.sim import Lighting, Optics, Scene, SimCard, TableView
from tests.vision.stacks import (
    ON_CARD_PX,
    TWO_IN_A_CORNER,
    Point,
    backs_read,
    each_counted_once,
    no_back_where_no_card_lies,
    table_stack,
)
from vision.deck import DeckProfile
from vision.pipeline import backs, stack_tops
from vision.pipeline.back_in_place import WHOLE_FIT
from vision.pipeline.back_tester import BackTester
from vision.pipeline.hypotheses import Hypothesis
from vision.pipeline.overlaps import drop_twice_counted
from vision.recognize import BACK

# Three backs dealt by hand: the third lands back over the first, so the card on top covers most
# of both and every one of its corners lies near one of theirs.
_THREE_BLURRED = (
    TableView(
        table_w_mm=902.5,
        table_h_mm=505.4,
        roll_deg=-2.02,
        tilt_deg=14.41,
        distortion_k1=-0.0177,
        felt_bgr=(95, 30, 70),
        felt_texture="mottled",
    ),
    Scene(
        cards=(
            SimCard(code="Qh", x_mm=669.06, y_mm=429.3, angle_deg=260.56, face_up=False),
            SimCard(code="8s", x_mm=670.43, y_mm=446.5, angle_deg=262.18, face_up=False),
            SimCard(code="Jc", x_mm=662.02, y_mm=433.44, angle_deg=257.41, face_up=False),
        ),
        lighting=Lighting(brightness=0.89, falloff=0.39, falloff_angle_deg=306.1),
        optics=Optics(blur_sigma_px=1.3, noise_sigma=6.0, jpeg_quality=60),
    ),
    1,
)
_THREE_SHADOWED = (
    TableView(
        table_w_mm=698.3,
        table_h_mm=391.1,
        roll_deg=-2.25,
        tilt_deg=29.61,
        distortion_k1=-0.0038,
        felt_bgr=(70, 95, 60),
    ),
    Scene(
        cards=(
            SimCard(code="8h", x_mm=181.08, y_mm=333.35, angle_deg=282.72, face_up=False),
            SimCard(code="Td", x_mm=166.0, y_mm=315.3, angle_deg=278.55, face_up=False),
            SimCard(code="6h", x_mm=168.73, y_mm=326.82, angle_deg=275.71, face_up=False),
        ),
        lighting=Lighting(
            brightness=0.83,
            falloff=0.08,
            falloff_angle_deg=192.7,
            shadows=(
                Shadow(x_mm=134.3, y_mm=106.4, width_mm=193.0, height_mm=101.1, angle_deg=43.6, strength=0.35),
                Shadow(x_mm=356.6, y_mm=302.4, width_mm=250.8, height_mm=89.7, angle_deg=159.3, strength=0.33),
            ),
        ),
        optics=Optics(noise_sigma=3.0, jpeg_quality=95),
    ),
    508,
)


def _backs(deck: DeckProfile, table: tuple[TableView, Scene, int]) -> tuple[list[Point], list[Point]]:
    view, scene, seed = table
    return backs_read(deck, view, scene, seed=seed)


@pytest.mark.parametrize(
    ("deck_name", "table"), [("kennard", _THREE_BLURRED), ("dondorf", _THREE_SHADOWED)], ids=["blurred", "shadowed"]
)
def test_the_card_on_top_of_a_stack_is_counted_where_the_cards_under_it_cover_it(
    deck_name: str, table: tuple[TableView, Scene, int], request: pytest.FixtureRequest
) -> None:
    # The two lower cards' corners stick out of the stack's outline and are chosen first; their
    # rectangles cover the top card, which explains no new part of the blob, and the rectangles
    # its own outline corners propose are a few pixels off it. Before the fix one back was missed.
    deck: DeckProfile = request.getfixturevalue(deck_name)
    truth, found = _backs(deck, table)
    assert each_counted_once(truth, found), (truth, found)


class _Blind:
    """The stack step's back tester with the back's look in place matching nowhere: what is left
    to go by is geometry."""

    def __init__(self, real: BackTester) -> None:
        self.real = real

    def strip_likeness(self, hyp: Any, image: Any, covered: Any) -> float:
        return 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_no_card_is_put_on_top_of_a_stack_that_the_back_does_not_match_whole(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Geometry alone never makes a card on top: with the back's look matching nowhere in that step
    # (the stack's lower backs chosen as ever), no rectangle is added or put in place of a chosen one.
    tops: list[Any] = []
    asked: list[int] = []
    real = backs._tops

    def spy(pool: list[Any], **kw: Any) -> list[Any]:
        asked.append(sum(o.code == BACK for o in kw["chosen"]) * len(pool))
        before = [id(o) for o in kw["chosen"]]
        out = real(pool, **{**kw, "tester": _Blind(kw["tester"])})
        tops.extend(o for o in kw["chosen"] if id(o) not in before and all(o is not x for x in out))
        tops.extend(out)
        return out

    monkeypatch.setattr(backs, "_tops", spy)
    truth, found = _backs(kennard, _THREE_BLURRED)
    assert any(asked), "the step never had a candidate beside a chosen back: nothing was tested"
    assert not tops
    assert len(found) <= len(truth)


def test_a_card_on_top_seen_longer_than_the_planes_card_is_counted_once(kennard: DeckProfile) -> None:
    # Before the fix the top card was counted twice: once fitted to its near end, once as a
    # "lower card" at its far end (three backs for two cards).
    truth, found = _backs(kennard, TWO_IN_A_CORNER)
    assert each_counted_once(truth, found), (truth, found)


def test_no_card_is_put_in_place_of_a_top_and_a_lower_card_that_the_back_does_not_match_whole(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rectangle spanning a top and a back beside it replaces them only by its look: with the
    # back matching nowhere in that step, the two stay as they were.
    merged: list[Any] = []
    tops_seen: list[int] = []
    real = backs._one_card

    def spy(added: list[Any], **kw: Any) -> None:
        tops_seen.append(sum(o.whole and o.code == BACK for o in kw["chosen"]) * len(added))
        before = [id(o) for o in kw["chosen"]]
        real(added, **{**kw, "tester": _Blind(kw["tester"])})
        merged.extend(o for o in kw["chosen"] if id(o) not in before)

    monkeypatch.setattr(backs, "_one_card", spy)
    _backs(kennard, TWO_IN_A_CORNER)
    assert any(tops_seen), "no top with a back beside it reached the step: nothing was tested"
    assert not merged


def _rect(x: float, y: float, *, w: float = 60.0, h: float = 84.0) -> Any:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


@pytest.mark.parametrize(("offset", "dropped"), [((2.0, 3.0), True), ((-9.0, -12.0), False)], ids=["between", "beyond"])
def test_a_back_that_the_top_and_a_hidden_back_cover_is_dropped_when_no_other_back_may_be(
    offset: tuple[float, float], dropped: bool
) -> None:
    # A stack: the card on top (fitted whole) and a lower card found by its strip (hidden). A third
    # rectangle lying between them shows nothing of its own: it is no card, even when it is the
    # only chosen back the rule may drop. One lying beyond them shows its own strip: a card.
    solid = np.zeros((300, 300), np.uint8)
    top = Hypothesis(corners=_rect(100.0, 100.0), code=BACK, whole=True)
    low = Hypothesis(corners=_rect(108.0, 111.0), code=BACK, hidden=True)
    other = Hypothesis(corners=_rect(100.0 + offset[0], 100.0 + offset[1]), code=BACK)
    for hyp in (top, low, other):
        cv2.fillConvexPoly(solid, np.round(hyp.corners).astype(np.int32), 255)
    gone = drop_twice_counted([top, low, other], solid, card_area=60.0 * 84.0)
    assert [g is other for g in gone] == ([True] if dropped else [])


# Three backs dealt 5-7 mm apart and about a degree turned on red cloth (dev table 3011, figures as
# drawn): the stack's outline has only its four outer corners, and each rectangle they propose is
# wider than a card or skewed across two cards, so no card of the blob is chosen.
_THREE_UNPROPOSED = (
    TableView(
        table_w_mm=698.3372960937497,
        table_h_mm=391.0688858124999,
        roll_deg=0.5676221005004889,
        tilt_deg=29.64520076228957,
        distortion_k1=-0.05097075243401149,
        felt_bgr=(40, 30, 110),
        felt_texture="mottled",
    ),
    Scene(
        cards=(
            SimCard(
                code="Kd", x_mm=173.90270725515077, y_mm=327.9705483316931, angle_deg=320.70254415427473, face_up=False
            ),
            SimCard(
                code="8d", x_mm=177.80051217206605, y_mm=332.7631397998113, angle_deg=319.5823452661564, face_up=False
            ),
            SimCard(
                code="As", x_mm=171.04727119907392, y_mm=335.49939835153987, angle_deg=319.12661053956606, face_up=False
            ),
        ),
        lighting=Lighting(
            brightness=1.0335931616194298, falloff=0.08194257961972617, falloff_angle_deg=151.12712632474984
        ),
        optics=Optics(blur_sigma_px=1.3, motion_angle_deg=126.12391642596897),
    ),
    3011,
)


def test_the_card_on_top_of_a_stack_with_no_card_chosen_is_counted(kennard: DeckProfile) -> None:
    # Before the fix no back of the stack was counted: every stack step starts from a chosen back.
    # The card on top shows whole and is found by the back's look; the two under it show strips of
    # 0.1 of a card's width at most, which no step separates yet (more backs would be phantoms).
    truth, found = _backs(kennard, _THREE_UNPROPOSED)
    assert found, truth
    assert no_back_where_no_card_lies(truth, found), (truth, found)
    top = truth[-1]  # dealt last
    assert any(math.dist(top, b) < ON_CARD_PX for b in found), (top, found)


class _BlindWhole(_Blind):
    """``_Blind`` whose look as a whole card matches nowhere either."""

    def whole_likeness(self, image: Any) -> Any:
        return lambda hyp: 0.0


def test_no_card_is_put_on_a_stack_with_no_card_chosen_that_the_back_does_not_match_whole(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Geometry alone never makes that card: with the back's look matching nowhere in the step, the
    # stack's leftover rectangles (which the step does see) give no card.
    asked: list[int] = []
    real = stack_tops.unseen_tops

    def spy(candidates: list[Any], **kw: Any) -> list[Any]:
        asked.append(sum(bool(h.back) for h in candidates))
        return real(candidates, **{**kw, "tester": _BlindWhole(kw["tester"])})

    monkeypatch.setattr(backs, "unseen_tops", spy)
    _, found = _backs(kennard, _THREE_UNPROPOSED)
    assert any(asked), "no rectangle with the back's colours reached the step: nothing was tested"
    assert not found


class _ThinStrip:
    """A back tester by which a lower card's strip matches the back in place at 0.3 (a strip 0.1 of
    a card's width, mostly the card's own white border), and the default bar for a card seen whole."""

    whole_fit = WHOLE_FIT

    def strip_likeness(self, hyp: Any, image: Any, covered: Any) -> float:
        return 0.3


@pytest.mark.parametrize(("placed", "lower"), [(0.9, True), (0.5, False)], ids=["placed", "off"])
def test_a_card_beside_a_top_placed_right_is_a_lower_card_by_its_strip_on_the_stack(placed: float, lower: bool) -> None:
    # A chosen back 0.12 of a card's width from the card on top, its strip on the stack but
    # matching the back in place at 0.3 only. Beside a top a few pixels off (whole 0.5) that strip
    # may be the top's own border: no lower card. Beside a top placed right (whole 0.9, over
    # WHOLE_FIT) it is the lower card's (dev tables 2, 504, 3010: before the fix it was refused and
    # the top with it, and one back of the stack was missed).
    top = Hypothesis(corners=_rect(100.0, 100.0), code=BACK, whole=True)
    low = Hypothesis(corners=_rect(104.0, 94.0), code=BACK)
    solid = np.zeros((300, 300), np.uint8)
    for hyp in (top, low):
        cv2.fillConvexPoly(solid, np.round(hyp.corners).astype(np.int32), 255)
    image = np.zeros((300, 300, 3), np.uint8)
    tester: Any = _ThinStrip()
    still = stack_tops._still_lower(
        low, top=top, chosen=[low], solid=solid, tester=tester, image=image, card_w=60.0, placed=placed
    )
    assert still is lower


def test_the_top_of_a_stack_whose_rectangles_are_skewed_is_counted(kennard: DeckProfile) -> None:
    # Dev table 19504's three backs (6d, Td, 6s a few mm and degrees apart, warm light, blur): every
    # rectangle the outline proposed was snapped to corners of two cards, 5-6 degrees off square,
    # and none was chosen. The card on top was looked for along them, skewed as they were: slid and
    # fitted, it matched the back 0.76 (a card seen whole, 0.8) and no back of the stack counted.
    # Square, it matches 0.95 where the 6s lies.
    stack, near = table_stack(kennard, seed=19504, codes=("6d", "Td", "6s"))
    top = stack[-1]  # dealt last
    assert any(math.dist(top, b) < ON_CARD_PX for b in near), (stack, near)
    assert no_back_where_no_card_lies(stack, near), (stack, near)
