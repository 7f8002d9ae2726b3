"""Camera-only tables end to end: no shoe; the test lays cards onto the simulated camera's table as a
dealer would, and the camera link deals them (without identity when face down), reveals them when
they are turned up, and raises the tilts only the camera can see.

The link is stepped frame by frame, so what it has seen is exact.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from controller.cards import DECK, Card, card
from controller.config import build_config
from controller.engine import Action, BoxBet, CardDealt, CardRevealed, Complete, Deal, Decide, Identify, Round, Slot
from controller.live import LiveConfig, LiveTable
from controller.record import parse_record, settle_record
from controller.table import Actor
from drivers.camera.sim import Glare, Lighting, Scene, SimCard, SimHand, SimulatedCamera, TableView
from vision.calibration import Calibration
from vision.camera_only import CameraOnlySettings
from vision.checks import CheckSettings
from vision.config import ZoneConfig
from vision.deck import DeckProfile
from vision.link import CameraLink, LinkSettings

pytestmark = pytest.mark.hil
DEALER = Actor("dana", "dealer")
SUPERVISOR = Actor("sam", "supervisor")
VIEW = TableView(width_px=1280, height_px=720, table_w_mm=700, table_h_mm=394)


def rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


@dataclass(frozen=True)
class Layout:
    """Where the camera looks, the zones, where each box lies and how far apart a dealer lays cards."""

    view: TableView
    box_left: dict[int, float]
    box_width: float
    dealer: tuple[float, float, float, float]  # x0, y0, x1, y1 (mm)
    board: tuple[float, float, float, float] | None
    box_y: tuple[float, float]
    pitch: float = 70.0

    @property
    def zones(self) -> list[ZoneConfig]:
        zones = [ZoneConfig(name="dealer", kind="dealer", polygon_mm=rect(*self.dealer))]
        if self.board is not None:
            zones.append(ZoneConfig(name="board", kind="board", polygon_mm=rect(*self.board)))
        y0, y1 = self.box_y
        zones += [
            ZoneConfig(name=f"box{n}", polygon_mm=rect(x, y0, x + self.box_width, y1)) for n, x in self.box_left.items()
        ]
        return zones

    def spot(self, slot: Slot) -> tuple[float, float]:
        if slot.target == "box":
            return self.box_left[slot.box] + 50 + self.pitch * slot.index, (self.box_y[0] + self.box_y[1]) / 2
        if slot.target == "dealer":
            return self.dealer[0] + 100 + self.pitch * slot.index, (self.dealer[1] + self.dealer[3]) / 2
        assert self.board is not None
        return self.board[0] + 40 + self.pitch * slot.index, (self.board[1] + self.board[3]) / 2

    def box_of(self, c: SimCard) -> int | None:
        y0, y1 = self.box_y
        for n, x in self.box_left.items():
            if x <= c.x_mm <= x + self.box_width and y0 <= c.y_mm <= y1:
                return n
        return None


HOLDEM = Layout(
    view=VIEW,
    box_left={1: 20.0, 2: 250.0, 3: 480.0},
    box_width=200,
    dealer=(200, 10, 500, 120),
    board=(150, 128, 550, 232),
    box_y=(260, 390),
)
# Oasis: five cards a box and five for the dealer, on a wider table seen by a larger frame.
OASIS = Layout(
    view=TableView(width_px=1600, height_px=900, table_w_mm=820, table_h_mm=461),
    box_left={1: 20.0, 2: 420.0},
    box_width=380,
    dealer=(150, 10, 670, 130),
    board=None,
    box_y=(300, 440),
)
BOX_LEFT = HOLDEM.box_left
CHECKS = CheckSettings(confirm_frames=2, settle_frames=4)
IDENTIFY = CameraOnlySettings(identify_frames=12)


def spot(slot: Slot) -> tuple[float, float]:
    return HOLDEM.spot(slot)


class Rig:
    """A live table with no shoe, a simulated camera over it and a shuffled deck in the dealer's hand."""

    def __init__(
        self, tmp: Path, deck: DeckProfile, settings: dict[str, Any], *, layout: Layout = HOLDEM, seed: int = 3
    ) -> None:
        self.tmp = tmp
        self.deck_profile = deck
        self.layout = layout
        self.config = build_config(settings)
        self.live = LiveTable(config=LiveConfig(data=tmp, shoe=None, table=self.config))
        self.table = self.live.table
        self.camera = SimulatedCamera(deck=deck, view=layout.view, seed=1)
        self.link = self._link()
        self.shoe = [c.code for c in DECK]
        random.Random(seed).shuffle(self.shoe)
        self.cards: list[SimCard] = []
        self.truth: dict[int, str] = {}  # card number in the round -> the card really laid down

    def _link(self) -> CameraLink:
        return CameraLink(
            table=self.table,
            source=self.camera,
            deck=self.deck_profile,
            calibration=Calibration(homography=self.layout.view.homography(), rms_px=0.0),
            zones=self.layout.zones,
            settings=LinkSettings(checks=CHECKS, max_fps=None, camera_only=IDENTIFY),
        )

    def restart(self) -> None:
        """The controller restarts: a new table service replays the journal, a new link starts
        with a fresh tracker (the cards on the felt stay where they are)."""
        self.link.stop()
        self.live.stop()
        self.camera = SimulatedCamera(deck=self.deck_profile, view=self.layout.view, seed=1)
        self.camera.scene = Scene(cards=tuple(self.cards))
        self.live = LiveTable(config=LiveConfig(data=self.tmp, shoe=None, table=self.config))
        self.table = self.live.table
        self.link = self._link()

    def close(self) -> None:
        self.link.stop()
        self.live.stop()

    def settlement(self) -> dict[str, Any] | None:
        paid = self.table.settlement
        return None if paid is None else paid.to_json()

    @property
    def round(self) -> Round:
        assert self.table.round is not None
        return self.table.round

    def show(self, hands: tuple[SimHand, ...] = ()) -> None:
        self.camera.scene = Scene(cards=tuple(self.cards), hands=hands)

    def put(self, code: str, slot: Slot, *, face_up: bool | None = None) -> None:
        x, y = self.layout.spot(slot)
        up = slot.face_up if face_up is None else face_up
        self.cards.append(SimCard(code=code, x_mm=x, y_mm=y, angle_deg=2.0 * (slot.index % 3 - 1), face_up=up))
        self.show()

    def turn_up(self, where: Callable[[SimCard], bool]) -> None:
        self.cards = [replace(c, face_up=True) if where(c) else c for c in self.cards]
        self.show()

    def take_away(self, where: Callable[[SimCard], bool]) -> None:
        self.cards = [c for c in self.cards if not where(c)]
        self.show()

    def frames(self, count: int) -> None:
        for _ in range(count):
            assert self.link.step() is not None

    def frames_until(self, condition: Callable[[], bool], what: str, limit: int = 20) -> int:
        for n in range(1, limit + 1):
            self.link.step()
            if condition():
                return n
        raise AssertionError(f"no {what} after {limit} frames: {self.table.expected()}")

    def next_slot(self) -> Slot:
        step = self.round.expected()
        assert isinstance(step, Deal), step
        return step.slot

    def deal_one(self, code: str | None = None) -> CardDealt:
        """Lay the next card where the round expects it; the camera deals it."""
        slot = self.next_slot()
        code = code or self.shoe.pop(0)
        before = self.round.cards_dealt
        self.put(code, slot)
        self.frames_until(lambda: self.round.cards_dealt > before or bool(self.table.tilts), "deal")
        assert not self.table.tilts, self.table.expected()
        event = next(e for e in reversed(self.round.events) if isinstance(e, CardDealt))
        assert event.slot == slot
        self.truth[before + 1] = code
        return event

    def deal(self) -> None:
        while isinstance(self.round.expected(), Deal):
            self.deal_one()

    def showdown(self) -> None:
        """The dealer turns every card still in play; the camera reveals what the settlement needs."""
        in_play = {b.box for b in self.round.state.in_play()}
        self.turn_up(lambda c: self.layout.box_of(c) in (None, *in_play))
        self.frames_until(
            lambda: isinstance(self.round.expected(), Complete) or bool(self.table.tilts), "showdown", limit=30
        )
        assert not self.table.tilts, self.table.expected()

    def truth_round(self) -> Round:
        """The same round replayed with every card's real identity (what a reading shoe would give)."""
        items: list[Card | Action] = []
        dealt = 0
        for event in self.round.events:
            if isinstance(event, CardDealt):
                dealt += 1
                items.append(card(self.truth[dealt]))
            elif not isinstance(event, CardRevealed):
                items.append(event.action)
        return Round.replay(
            config=self.config, bets=self.round.bets, events=items, jackpot_meter=self.round.jackpot_meter
        )


@pytest.fixture
def make_rig(tmp_path: Path, kennard: DeckProfile) -> Iterator[Callable[..., Rig]]:
    rigs: list[Rig] = []

    def make(game: str, **settings: Any) -> Rig:
        layout = OASIS if game == "oasis" else HOLDEM
        rigs.append(Rig(tmp_path / game, kennard, {"game": game, **settings}, layout=layout))
        return rigs[-1]

    yield make
    for rig in rigs:
        rig.close()


def confirm_and_settle_again(rig: Rig) -> dict[str, Any]:
    """Confirm the round's settlement; its record must settle again exactly as it was paid.
    Returns the settlement paid, as JSON.
    """
    rig.table.confirm_settlement(actor=DEALER)
    recalled = rig.table.recall[-1]
    paid = recalled.settlement.to_json()
    assert settle_record(parse_record(recalled.record.to_json())).to_json() == paid
    return paid


def test_a_casino_holdem_round_dealt_and_settled_by_the_camera_alone(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("casino-holdem")
    rig.table.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=3, ante=20)], actor=DEALER)
    rig.deal()
    hidden = rig.round.unrevealed()
    # Both boxes' two cards and the dealer's two went down face down: six placeholders; the flop
    # was dealt face up, with the identities the camera read.
    assert [slot.target for _, slot in hidden] == ["box", "box", "dealer", "box", "box", "dealer"]
    assert [c.code for c in rig.round.state.board_cards()] == [rig.truth[n] for n in (7, 8, 9)]
    view = rig.table.view()
    assert view["dealer"] == [{"code": None, "face_up": False}] * 2
    assert all(c == {"code": None, "face_up": False} for b in view["boxes"] for c in b["cards"])
    assert isinstance(rig.round.expected(), Decide)
    rig.table.act(Action(1, "call"), actor=DEALER)
    rig.table.act(Action(3, "call"), actor=DEALER)
    rig.deal()  # the turn and the river, face up
    step = rig.round.expected()
    assert isinstance(step, Identify) and step.slot.target == "dealer"  # still face down: the round waits
    assert rig.table.phase() == "showdown" and rig.settlement() is None
    rig.showdown()
    assert rig.round.unrevealed() == ()
    truth = rig.truth_round().settle()
    assert rig.settlement() == truth.to_json()
    assert confirm_and_settle_again(rig) == truth.to_json()
    record = rig.table.recall[-1].record.to_json()
    assert record["cards"][0] is None and {"card": 1, "code": rig.truth[1]} in record["reveals"]
    assert rig.table.tilts == {} and rig.link.reported == []
    # From the journal on disk: `history` prints the round, `settle` pays it again the same.
    cli = [sys.executable, "-m", "controller.cli"]
    history = subprocess.run([*cli, "history", "--data", str(rig.tmp)], capture_output=True, text=True, check=True)
    (line,) = history.stdout.splitlines()
    settled = subprocess.run([*cli, "settle", "-"], input=line, capture_output=True, text=True, check=True)
    assert json.loads(settled.stdout) == json.loads(line)["settlement"] == truth.to_json()


def test_a_folded_box_keeps_its_cards_unknown(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("holdem-bonus")
    rig.table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=10)], actor=DEALER)
    rig.deal()
    rig.table.act(Action(1, "fold"), actor=DEALER)
    # The folded hand is mucked face down: the camera never learns it.
    rig.take_away(lambda c: c.x_mm < 250 and c.y_mm > 250)
    rig.table.act(Action(3, "bet"), actor=DEALER)
    rig.deal()  # the flop
    rig.table.act(Action(3, "check"), actor=DEALER)
    rig.deal()  # the turn
    rig.table.act(Action(3, "bet"), actor=DEALER)
    rig.deal()  # the river
    rig.showdown()
    assert [slot.box for _, slot in rig.round.unrevealed()] == [1, 1]
    paid = rig.table.settlement
    assert paid is not None
    truth = rig.truth_round().settle().to_json()
    got = paid.to_json()
    box1 = got["boxes"][0]
    assert box1["outcome"] == "fold" and box1["hand"] is None and box1["cards"][0].startswith("?")
    assert box1["net"] == truth["boxes"][0]["net"] == -10
    assert got["boxes"][1] == truth["boxes"][1] and got["dealer"] == truth["dealer"]
    assert got["house_pays"] == truth["house_pays"]
    confirm_and_settle_again(rig)


def test_a_restart_mid_round_replays_placeholders_and_reveals(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("casino-holdem")
    rig.table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=10)], actor=DEALER)
    for _ in range(4):
        rig.deal_one()
    # The player on box 1 looks at his first card: the camera reads it, the displays still hide it.
    rig.turn_up(lambda c: c.code == rig.truth[1])
    rig.frames_until(lambda: rig.round.card_number(1).code == rig.truth[1], "reveal")
    assert rig.table.view()["boxes"][0]["cards"][0] == {"code": None, "face_up": False}
    rig.cards = [replace(c, face_up=False) if c.code == rig.truth[1] else c for c in rig.cards]
    rig.show()
    before = [(c.code, s) for c, s in rig.round.dealt()]
    rig.restart()
    assert [(c.code, s) for c, s in rig.round.dealt()] == before
    assert [n for n, _ in rig.round.unrevealed()] == [2, 3, 4]
    # The new link sees the four cards already on the felt: they are the round's, not new deals.
    rig.frames(8)
    assert rig.round.cards_dealt == 4 and rig.table.tilts == {}
    rig.deal()
    rig.table.act(Action(1, "call"), actor=DEALER)
    rig.table.act(Action(3, "fold"), actor=DEALER)
    rig.take_away(lambda c: c.x_mm > 450 and c.y_mm > 250)
    rig.deal()
    rig.showdown()
    truth = rig.truth_round().settle().to_json()
    got = rig.table.view()["settlement"]
    assert got["boxes"][0]["net"] == truth["boxes"][0]["net"] and got["house_pays"] == truth["house_pays"]
    confirm_and_settle_again(rig)


def test_a_card_read_twice_and_a_card_never_read(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("casino-holdem")
    rig.table.open_round([BoxBet(box=2, ante=10)], actor=DEALER)
    rig.deal()
    rig.table.act(Action(2, "call"), actor=DEALER)
    rig.deal()
    # Cards 1 and 3 are box 2's, 2 and 4 the dealer's, 5 to 9 the board. The dealer's first card is
    # really a copy of the first flop card (a foreign card in the deck) ...
    flop = rig.truth[5]
    rig.cards = [replace(c, code=flop) if c.code == rig.truth[2] else c for c in rig.cards]
    rig.truth[2] = flop
    # ... and box 2's second card is not turned yet.
    rig.turn_up(lambda c: c.code != rig.truth[3])
    rig.frames_until(lambda: bool(rig.table.tilts), "tilt")
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "duplicate-card" and tilt.card is None
    assert [e.data["kind"] for e in rig.link.reported] == ["duplicate-card"]
    # The displays never name a card that is not face up; this one is (on the board).
    assert flop in rig.table.view()["tilts"][0]["message"]
    rig.table.clear_tilt(tilt.id, resolution="burn", actor=SUPERVISOR, why="foreign card taken out")
    # The supervisor takes the foreign card away and puts the right one there, face up.
    real = next(c for c in rig.shoe if c not in rig.truth.values())
    rig.cards = [replace(c, code=real) if c.code == flop and c.y_mm < 120 else c for c in rig.cards]
    rig.truth[2] = real
    rig.show()
    rig.frames_until(lambda: rig.round.card_number(2).code == real, "reveal of the replacement")
    # Box 2's second card lies face down: the round waits for the dealer to turn it, no tilt.
    rig.frames(IDENTIFY.identify_frames + 4)
    assert rig.table.tilts == {} and rig.table.expected() == "turn up card 3 (box 2 card 2): the settlement needs it"
    # The dealer mucks it unread. The checks see box 2 a card short; the supervisor lets play go on ...
    rig.take_away(lambda c: c.code == rig.truth[3])
    rig.frames_until(lambda: bool(rig.table.tilts), "deal-sequence tilt")
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "deal-sequence" and "box 2 holds 1 card(s)" in tilt.message
    rig.table.clear_tilt(tilt.id, resolution="continue", actor=SUPERVISOR, why="card mucked by mistake")
    # ... and after identify_frames the camera asks a supervisor for the mucked card's identity.
    rig.frames_until(lambda: bool(rig.table.tilts), "unknown-card tilt", limit=IDENTIFY.identify_frames + 4)
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "unknown-card" and tilt.card == 3
    assert "enter-card" in tilt.resolutions and "burn" not in tilt.resolutions
    with pytest.raises(Exception, match="already dealt"):
        rig.table.clear_tilt(tilt.id, resolution="enter-card", actor=SUPERVISOR, why="read it", card=real)
    rig.table.clear_tilt(tilt.id, resolution="enter-card", actor=SUPERVISOR, why="read it", card=rig.truth[3])
    assert isinstance(rig.round.expected(), Complete)
    truth = rig.truth_round().settle().to_json()
    assert rig.settlement() == truth
    assert confirm_and_settle_again(rig) == truth


def test_a_hand_over_the_table_deals_nothing(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("casino-holdem")
    rig.table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    slot = rig.next_slot()
    x, y = spot(slot)
    # The dealer's hand comes in with the card and stays over it: the zone is covered, not read.
    code = rig.shoe.pop(0)
    rig.cards.append(SimCard(code=code, x_mm=x, y_mm=y, face_up=False))
    rig.show(hands=(SimHand(x_mm=x, y_mm=y + 30),))
    for _ in range(8):
        done = rig.link.step()
        assert done is not None and "box1" in done.update.covered
    assert rig.round.cards_dealt == 0 and rig.table.tilts == {}
    # The hand leaves: the card is dealt, once.
    rig.show()
    rig.frames_until(lambda: rig.round.cards_dealt == 1, "the card dealt")
    rig.frames(8)
    assert rig.round.cards_dealt == 1 and rig.table.tilts == {}


def test_a_card_where_none_is_due(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("casino-holdem")
    rig.table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=10)], actor=DEALER)
    rig.deal()
    assert isinstance(rig.round.expected(), Decide)
    rig.put(rig.shoe.pop(0), Slot("board", 3, face_up=True))  # the turn, before anyone decided
    rig.frames_until(lambda: bool(rig.table.tilts), "tilt")
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "unexpected-card" and "the board" in tilt.message
    assert rig.round.cards_dealt == 9


def test_a_holdem_exchange_round_with_a_bought_card_and_an_exchange(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("holdem-exchange")
    rig.table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=10)], actor=DEALER)
    rig.deal()  # two passes, board cards 4 and 5 face down, the flop face up
    assert [slot.target for _, slot in rig.round.unrevealed()].count("board") == 2
    rig.table.act(Action(1, "buy"), actor=DEALER)
    rig.table.act(Action(3, "bet"), actor=DEALER)
    # Box 1 bought: the dealer turns board card 4, and the camera reads it.
    fourth = next(n for n, (_, s) in enumerate(rig.round.dealt(), 1) if s.target == "board" and s.index == 3)
    rig.turn_up(lambda c: c.code == rig.truth[fourth])
    rig.frames_until(lambda: rig.round.card_number(fourth).code == rig.truth[fourth], "board card 4 revealed")
    assert rig.table.view()["board"][3] == {"code": rig.truth[fourth], "face_up": True}
    # Box 1 exchanges its first hole card, still unknown: the dealer takes it away face down ...
    thrown = rig.round.state.boxes[1].cards[0]
    assert isinstance(rig.round.card_number(1), type(thrown)) and thrown.code == "?1"
    rig.table.act(Action(1, "exchange", discard=(thrown,)), actor=DEALER)
    gone = next(c for c in rig.cards if c.code == rig.truth[1])
    rig.take_away(lambda c: c is gone)
    rig.frames(8)
    assert rig.table.tilts == {}
    # ... and deals the replacement where it lay.
    slot = rig.next_slot()
    assert slot.target == "box" and slot.box == 1 and slot.index == 2
    before = rig.round.cards_dealt
    code = rig.shoe.pop(0)
    rig.cards.append(replace(gone, code=code))
    rig.show()
    rig.frames_until(lambda: rig.round.cards_dealt > before, "the replacement dealt")
    rig.truth[before + 1] = code
    rig.table.act(Action(1, "bet"), actor=DEALER)
    rig.showdown()
    paid = rig.settlement()
    truth = rig.truth_round().settle().to_json()
    assert paid is not None
    # The thrown card was never read: the record keeps it as "?1"; everything paid is the shoe's.
    assert paid["boxes"][0]["discards"] == ["?1"]
    assert {**paid, "boxes": None} == {**truth, "boxes": None}
    for mine, real in zip(paid["boxes"], truth["boxes"], strict=True):
        assert {**mine, "discards": None} == {**real, "discards": None}
    confirm_and_settle_again(rig)
    assert rig.link.reported == []


def test_an_oasis_round_where_the_bonus_needs_a_thrown_card(make_rig: Callable[..., Rig]) -> None:
    # The bonus is judged on the five cards as dealt, and here an exchange does not kill it: the
    # card box 1 throws (face down, never read) is needed to settle, and a supervisor enters it.
    rig = make_rig("oasis", rules={"bonus_lost_on_exchange": False})
    rig.table.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=10)], actor=DEALER)
    rig.deal()
    dealt = rig.round.dealt()
    assert [s.target for c, s in dealt if not c.code.startswith("?")] == ["dealer"]  # the dealer's 5th, face up
    thrown = rig.round.state.boxes[1].cards[2]
    rig.table.act(Action(1, "exchange", discard=(thrown,)), actor=DEALER)
    gone = next(c for c in rig.cards if c.code == rig.truth[thrown.number])  # type: ignore[attr-defined]
    rig.take_away(lambda c: c is gone)
    rig.frames(8)
    before = rig.round.cards_dealt
    code = rig.shoe.pop(0)
    rig.cards.append(replace(gone, code=code))
    rig.show()
    rig.frames_until(lambda: rig.round.cards_dealt > before, "the replacement dealt")
    rig.truth[before + 1] = code
    rig.table.act(Action(1, "raise"), actor=DEALER)
    rig.table.act(Action(2, "fold"), actor=DEALER)
    rig.take_away(lambda c: rig.layout.box_of(c) == 2)
    in_play = {1}
    rig.turn_up(lambda c: rig.layout.box_of(c) in (None, *in_play))
    rig.frames_until(lambda: bool(rig.table.tilts), "the camera asking for the thrown card", limit=40)
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "unknown-card" and tilt.card == thrown.number  # type: ignore[attr-defined]
    rig.table.clear_tilt(tilt.id, resolution="enter-card", actor=SUPERVISOR, why="read the thrown card", card=gone.code)
    assert isinstance(rig.round.expected(), Complete)
    paid = rig.settlement()
    truth = rig.truth_round().settle().to_json()
    assert paid is not None
    assert paid["boxes"][0] == truth["boxes"][0] and paid["dealer"] == truth["dealer"]
    assert paid["boxes"][1]["net"] == truth["boxes"][1]["net"] == -10 and paid["boxes"][1]["hand"] is None
    confirm_and_settle_again(rig)


def test_a_card_turned_up_that_the_camera_cannot_read(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig("casino-holdem")
    rig.table.open_round([BoxBet(box=2, ante=10)], actor=DEALER)
    rig.deal()
    rig.table.act(Action(2, "call"), actor=DEALER)
    rig.deal()
    # The showdown under strong reflections on both index corners of the dealer's first card
    # (card 2): it lies face up, the camera sees a card there but cannot read it. (One reflection
    # over the middle of the card is not enough: its two indices still read it, as a person would.)
    x, y = spot(Slot("dealer", 0))
    card = min(rig.cards, key=lambda c: math.hypot(c.x_mm - x, c.y_mm - y))
    turn = math.radians(card.angle_deg)
    glare = tuple(
        Glare(
            x_mm=card.x_mm + dx * math.cos(turn) - dy * math.sin(turn),
            y_mm=card.y_mm + dx * math.sin(turn) + dy * math.cos(turn),
            radius_mm=18,
            strength=1.0,
        )
        for dx, dy in ((-24.0, -34.0), (24.0, 34.0))
    )
    rig.camera.scene = Scene(cards=tuple(replace(c, face_up=True) for c in rig.cards), lighting=Lighting(glare=glare))
    rig.frames_until(lambda: bool(rig.table.tilts), "unknown-card tilt", limit=IDENTIFY.identify_frames + 12)
    (tilt,) = rig.table.tilts.values()
    assert tilt.kind == "unknown-card" and tilt.card == 2 and "the dealer card 1" in tilt.message
    assert [n for n, _ in rig.round.unrevealed()] == [2]  # the other three were read
    rig.table.clear_tilt(tilt.id, resolution="enter-card", actor=SUPERVISOR, why="glare", card=rig.truth[2])
    assert rig.settlement() == rig.truth_round().settle().to_json()
