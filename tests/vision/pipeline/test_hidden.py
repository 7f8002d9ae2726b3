"""Lower backs of a stack no outline corner proposes: found by the back's look in place, not by geometry."""

from __future__ import annotations

import pytest

from drivers.camera.sim import PURPLE_FELT_BGR, Scene, SimCard, TableView
from tests.vision.test_stacked_backs import _backs_at, _read
from vision.deck import DeckProfile
from vision.pipeline.back_tester import BackTester


def _stack(at: tuple[float, float], offsets: list[tuple[float, float, float]], codes: str) -> list[SimCard]:
    """Backs dealt on one another, bottom first: each ``(dx, dy, turn)`` from the last (mm, degrees)."""
    x, y, angle = at[0], at[1], 20.0
    cards = []
    for code, (dx, dy, turn) in zip(codes.split(), [(0.0, 0.0, 0.0), *offsets], strict=True):
        x, y, angle = x + dx, y + dy, angle + turn
        cards.append(SimCard(code=code, x_mm=x, y_mm=y, angle_deg=angle, face_up=False))
    return cards


# Three stacks of three (offsets not in line, as a dealer's are not), one of two dealt wide apart
# (no card between them), a back alone, and a back with a face dealt over its corner.
_CARDS = (
    *_stack((150, 150), [(14, 6, 2), (12, 8, -3)], "2h 3h 4h"),
    *_stack((430, 150), [(-6, 14, -2), (-4, 13, 4)], "5h 6h 7h"),
    *_stack((720, 160), [(16, -4, 3)], "8h 9h"),
    *_stack((250, 410), [(9, 12, -2), (15, 2, 3)], "2s 3s 4s"),
    SimCard(code="9c", x_mm=600, y_mm=410, angle_deg=30, face_up=False),
    SimCard(code="Kd", x_mm=800, y_mm=410, angle_deg=-10, face_up=False),
    SimCard(code="Qs", x_mm=840, y_mm=440, angle_deg=10),
)
_MIDDLES = {"3h", "6h", "3s"}


def _design(request: pytest.FixtureRequest, name: str) -> DeckProfile:
    deck: DeckProfile = request.getfixturevalue(name)
    return deck


@pytest.mark.parametrize(("name", "felt"), [("kennard", None), ("hershey", PURPLE_FELT_BGR)])
def test_the_middle_card_of_three_is_counted_and_no_card_where_none_lies(
    request: pytest.FixtureRequest, name: str, felt: tuple[int, int, int] | None
) -> None:
    # The middle card of three shows a strip between its neighbours and no outline corner of its
    # own: no rectangle was proposed for it (10 of 13 placed, every middle card missed). It is
    # the top card shifted part of the way to the bottom one where its strip is the back in
    # place. Two backs dealt apart hold no card between them, a lone back none under it, and a
    # face over a back's corner is no back.
    view = TableView(keystone=0.04, roll_deg=1.0)
    if felt is not None:
        view = TableView(keystone=0.04, roll_deg=1.0, felt_bgr=felt)
    reading, truth = _read(_design(request, name), Scene(cards=_CARDS), view)
    backs = {code: at for code, at in truth.items() if code != "Qs"}
    found, count = _backs_at(reading, backs)
    assert count <= len(backs)
    assert {"8h", "9h", "9c", "Kd"} <= found
    assert len(found & _MIDDLES) >= 2, sorted(set(backs) - found)
    assert [c.code for c in reading.cards if c.code != "back"] == ["Qs"]


def test_a_lower_card_is_never_counted_from_geometry_alone(
    kennard: DeckProfile, monkeypatch: pytest.MonkeyPatch
) -> None:
    # When what shows of the proposed rectangle is not the back in place (here: nothing ever
    # matches), no card is added however well its position fits the stack.
    view = TableView(keystone=0.04, roll_deg=1.0)
    monkeypatch.setattr(BackTester, "strip_likeness", lambda *_args, **_kw: -1.0)
    reading, truth = _read(kennard, Scene(cards=_CARDS), view)
    found, count = _backs_at(reading, {code: at for code, at in truth.items() if code != "Qs"})
    assert not found & _MIDDLES
    assert count <= len(truth) - 1 - len(_MIDDLES)
