"""Misdeals end to end for every game: the simulated shoe in its own process feeds the live table,
the demo layout's simulated camera shows the cards as the director lays them, except for the one
mistake a scenario makes, and the camera link raises its tilt; a clean round raises none. Every
scenario runs on the shipped design and on one the recognizer was not developed on.

The link is stepped frame by frame, so what the camera has seen is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from controller.cards import DECK
from controller.config import build_config
from controller.engine import Action, BoxBet, Complete, Deal, Decide
from controller.live import LiveConfig, LiveTable
from controller.table import Actor, card_slots
from drivers.camera.sim import Optics, Scene, SimCard
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess
from tests.history import read_back
from tests.waiting import wait_for
from vision.checks import ZonePlace
from vision.deck import DeckProfile
from vision.director import DEMO_CHECKS, DemoCamera

pytestmark = pytest.mark.hil
DEALER = Actor("dana", "dealer")
SUPER = Actor("sam", "supervisor")
GAMES = ["oasis", "casino-holdem", "holdem-exchange", "holdem-bonus"]
# The decision each box takes when it may: exchanges first (the discards must leave the layout and
# the replacements land), then whatever keeps the box in the round to the showdown.
PREFERRED = ("exchange", "buy", "raise", "call", "bet", "check")
Fault = Callable[[list[SimCard]], list[SimCard]]


class Rig:
    """A simulated shoe process, a live table of one game on it, and the demo's camera over it.

    The director is not attached: :meth:`show` lays the table as the director would and then
    applies the scenario's mistake, if any.
    """

    def __init__(self, tmp: Path, deck: DeckProfile, game: str) -> None:
        self.sim = SimulatedShoeProcess(config=SimConfig(seed=9, shoe_id="CAM-2"))
        self.sim.start()
        self.data = tmp
        config = build_config({"game": game})
        self.live = LiveTable(config=LiveConfig(data=tmp, shoe=self.sim.device_path, table=config))
        self.live.start()
        wait_for(self.live.link_up.is_set, "the shoe link")
        self.table = self.live.table
        self.demo = DemoCamera(table=self.table, deck=deck, fps=None)
        self.director = self.demo.director
        self.fault: Fault | None = None
        self.optics = Optics()

    def close(self) -> None:
        self.demo.stop()
        self.live.stop()
        self.sim.stop()

    def resolve_restart_and_read_back(self, resolution: str) -> None:
        """The supervisor clears the camera's tilt (``resolution``), the round is ended, the table is
        restarted from its journal, and `history` reads the round back (docs/irregularities.md)."""
        for tilt in list(self.table.tilts.values()):
            self.table.clear_tilt(tilt.id, resolution=resolution, actor=SUPER, why=f"camera: {resolution}")  # type: ignore[arg-type]
        if self.table.round is not None:
            self.table.void_round(actor=SUPER, why="end of the scenario")
        before = [r.to_json() for r in self.table.recall]
        self.demo.stop()
        self.live.stop()
        self.live = LiveTable(config=LiveConfig(data=self.data, shoe=self.sim.device_path, table=self.table.config))
        self.live.start()
        assert [r.to_json() for r in self.live.table.recall] == before
        lines = read_back(self.data, "--last", "3")
        assert lines and lines[-1]["round"] == before[-1]["round"]

    def open_round(self) -> None:
        self.sim.command("shuffle")
        self.table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=20)], actor=DEALER)

    def show(self) -> None:
        cards = list(self.director.lay())
        if self.fault is not None:
            cards = self.fault(cards)
        self.demo.camera.scene = Scene(cards=tuple(cards), optics=self.optics)

    def deal(self) -> None:
        """Draw every card the round expects now; the layout follows each one."""
        while self.table.round is not None and isinstance(self.table.round.expected(), Deal):
            before = self.table.last_counter or 0  # a draw moves the counter (a new-deck entry does not)
            self.sim.draw()
            wait_for(lambda v=before: (self.table.last_counter or 0) > v, "the card to reach the table")
            assert not self.table.tilts, list(self.table.tilts.values())
        self.show()

    def decide(self) -> None:
        """The next box decides (the preferred legal action), and the cards it calls for come."""
        rnd = self.table.round
        assert rnd is not None
        step = rnd.expected()
        assert isinstance(step, Decide), step
        action = next(a for a in PREFERRED if a in step.options)
        discard = (rnd.state.boxes[step.box].cards[0],) if action == "exchange" else ()
        self.table.act(Action(step.box, action, discard=discard), actor=DEALER)
        self.show()
        self.deal()

    def frames(self, count: int) -> None:
        for _ in range(count):
            assert self.demo.link.step() is not None

    def frames_until_tilt(self, limit: int = 30) -> str:
        for _ in range(limit):
            self.frames(1)
            if self.table.tilts:
                (tilt,) = self.table.tilts.values()
                return tilt.kind
        raise AssertionError(f"no tilt after {limit} frames")

    def codes(self, place: ZonePlace) -> list[str]:
        """The codes dealt to a place, in deal order."""
        rnd = self.table.round
        assert rnd is not None
        out = []
        for card, slot in card_slots(rnd).items():
            here = ZonePlace.of_slot(slot)
            if here == place:
                out.append(card.code)
        return out

    def settle_frames(self) -> None:
        """Enough frames for a wrong count to be reported, were there one."""
        self.frames(DEMO_CHECKS.settle_frames + 4)


@pytest.fixture(params=GAMES)
def rig(request: pytest.FixtureRequest, tmp_path: Path, design: DeckProfile) -> Iterator[Rig]:
    """One game's rig, on each design in turn (tests/vision/conftest.py: DESIGNS)."""
    r = Rig(tmp_path, design, request.param)
    yield r
    r.close()


def test_a_clean_round_raises_nothing_through_the_showdown(rig: Rig) -> None:
    rig.open_round()
    rig.deal()
    rig.settle_frames()
    while rig.table.round is not None and isinstance(rig.table.round.expected(), Decide):
        rig.decide()
        rig.frames(6)
    assert rig.table.round is not None and isinstance(rig.table.round.expected(), Complete)
    exchanged = [b for b in rig.table.round.state.boxes.values() if b.discards]
    assert exchanged or rig.table.config.game in ("casino-holdem", "holdem-bonus")
    rig.settle_frames()
    assert rig.table.tilts == {} and rig.demo.link.reported == []
    # The camera sees what the round holds: every card in play, the discards gone, all face up.
    counts = rig.demo.link.tracker.counts()
    state = rig.table.round.state
    for place, cards in [
        (ZonePlace("dealer"), state.dealer),
        (ZonePlace("board"), state.board_cards()),
        (ZonePlace("box", 1), state.boxes[1].cards),
        (ZonePlace("box", 3), state.boxes[3].cards),
        (ZonePlace("box", 2), []),
    ]:
        zone = rig.director.zone_of(place)
        assert zone is not None
        assert counts[zone].total == len(cards), (zone, counts[zone])
        assert counts[zone].face_down == 0, (zone, counts[zone])
    rig.table.confirm_settlement(actor=DEALER)


def test_a_card_in_a_box_that_is_not_playing(rig: Rig) -> None:
    rig.open_round()
    x, y = rig.director.spot("box2", 0)

    def into_box2(cards: list[SimCard]) -> list[SimCard]:
        first = rig.codes(ZonePlace("box", 1))[0]
        return [replace(c, x_mm=x, y_mm=y) if c.code == first else c for c in cards]

    rig.fault = into_box2
    rig.deal()
    assert rig.frames_until_tilt() == "deal-sequence"
    (tilt,) = rig.table.tilts.values()
    (entry,) = rig.demo.link.reported
    assert "box 2" in tilt.message and entry.actor == "camera:camera"
    rig.resolve_restart_and_read_back("cancel")


def test_a_box_short_of_a_card_after_the_deal(rig: Rig) -> None:
    rig.open_round()
    rig.fault = lambda cards: [c for c in cards if c.code != rig.codes(ZonePlace("box", 3))[-1]]
    rig.deal()
    assert rig.frames_until_tilt() == "deal-sequence"
    (tilt,) = rig.table.tilts.values()
    held = len(rig.codes(ZonePlace("box", 3)))
    assert f"box 3 holds {held - 1} card(s); the shoe dealt {held}" in tilt.message
    rig.resolve_restart_and_read_back("cancel")


@pytest.mark.parametrize("rig", ["oasis", "holdem-exchange"], indirect=True)  # the games with exchanges
def test_a_discard_left_in_the_box_after_an_exchange(rig: Rig) -> None:
    rig.open_round()
    rig.deal()
    rig.settle_frames()
    assert rig.table.tilts == {}
    state = rig.table.round.state if rig.table.round else None
    assert state is not None
    x, y = rig.director.spot("box1", 5)

    def discard_stays(cards: list[SimCard]) -> list[SimCard]:
        # The dealer forgets to muck box 1's discard and puts it aside in the box.
        kept = [c for box in state.boxes.values() for c in box.discards if box.box == 1]
        return cards + [SimCard(code=c.code, x_mm=x, y_mm=y, face_up=False) for c in kept]

    rig.fault = discard_stays
    while not state.boxes[1].discards:
        rig.decide()
    assert rig.frames_until_tilt() == "deal-sequence"
    (tilt,) = rig.table.tilts.values()
    held = len(state.boxes[1].cards)
    assert f"box 1 holds {held + 1} card(s); the shoe dealt {held}" in tilt.message
    rig.resolve_restart_and_read_back("cancel")


@pytest.mark.parametrize("readable", [True, False], ids=["readable", "unreadable"])
def test_a_dealer_card_face_up_too_early(rig: Rig, readable: bool) -> None:
    rig.open_round()
    rig.deal()
    rig.settle_frames()
    assert rig.table.tilts == {}
    hole = rig.codes(ZonePlace("dealer"))[0]
    rig.fault = lambda cards: [replace(c, face_up=True) if c.code == hole else c for c in cards]
    if not readable:
        # So soft that no face on the table reads: the camera sees the card's side, not its identity.
        rig.optics = Optics(blur_sigma_px=4.0)
    rig.show()
    assert rig.frames_until_tilt() == "dealer-card-exposed"
    (tilt,) = rig.table.tilts.values()
    assert ("unreadable" in tilt.message) == (not readable)
    rig.resolve_restart_and_read_back("redeal")


def test_a_face_up_card_that_is_not_the_shoes(rig: Rig) -> None:
    rig.open_round()
    rig.deal()
    # Play on until the plan has dealt a card face up (Texas Hold'em Bonus: the flop).
    while rig.table.round is not None and not (rig.codes(ZonePlace("board")) or rig.table.config.game == "oasis"):
        rig.decide()
    rnd = rig.table.round
    assert rnd is not None
    face_up = [c for c, slot in card_slots(rnd).items() if slot.face_up]
    assert face_up
    shown, other = face_up[0].code, next(c.code for c in DECK if c not in rnd.state.seen)
    rig.frames(4)
    assert rig.table.tilts == {}
    rig.fault = lambda cards: [replace(c, code=other) if c.code == shown else c for c in cards]
    rig.show()
    assert rig.frames_until_tilt() == "camera-mismatch"
    (tilt,) = rig.table.tilts.values()
    assert other in tilt.message
    rig.resolve_restart_and_read_back("continue")


@pytest.mark.parametrize("rig", ["holdem-exchange"], indirect=True)
def test_the_dealers_hand_seen_shown_early_by_the_camera_takes_the_show_early_procedure(rig: Rig) -> None:
    """Seed 002: the dealer shows his cards before the boxes decided. The camera sees it first; the
    supervisor clears its tilt with the show-early procedure (docs/irregularities.md)."""
    rig.open_round()
    rig.deal()
    rig.settle_frames()
    assert rig.table.tilts == {}
    dealer = set(rig.codes(ZonePlace("dealer")))
    rig.fault = lambda cards: [replace(c, face_up=True) if c.code in dealer else c for c in cards]
    rig.show()
    assert rig.frames_until_tilt() == "dealer-card-exposed"
    (tilt,) = rig.table.tilts.values()
    assert "dealer-shown" in rig.table.resolutions(tilt)
    rig.table.clear_tilt(tilt.id, resolution="dealer-shown", actor=SUPER, why="hand shown before the decisions")
    rnd = rig.table.round
    assert rnd is not None and rig.table.tilts == {}
    step = rnd.expected()
    assert isinstance(step, Decide) and step.options == ("fold", "withdraw")
    rig.settle_frames()  # the dealer's cards lie face up legitimately now: no further tilt
    assert rig.table.tilts == {}
    rig.resolve_restart_and_read_back("cancel")


@pytest.mark.parametrize("rig", ["holdem-exchange"], indirect=True)  # the one game with face-down board cards
def test_a_board_card_turned_before_its_time(rig: Rig) -> None:
    """Board card 4 face up before the decisions (seed 002: one of the dealer's first four cards, a
    redeal); the camera's checks once looked at the dealer's area only."""
    rig.open_round()
    rig.deal()
    rig.settle_frames()
    assert rig.table.tilts == {}
    rnd = rig.table.round
    assert rnd is not None
    down = [card.code for card, slot in card_slots(rnd).items() if slot.target == "board" and not slot.face_up]
    assert down, "the round deals a face-down board card"
    rig.fault = lambda cards: [replace(c, face_up=True) if c.code == down[0] else c for c in cards]
    rig.show()
    assert rig.frames_until_tilt() == "dealer-card-exposed"
    (tilt,) = rig.table.tilts.values()
    assert "1 board card(s) face up before their turn" in tilt.message
    rig.resolve_restart_and_read_back("redeal")
