"""The demo's table with its camera: the director lays the live table's cards as a dealer would,
and whole rounds of every game played by the simulated players raise no camera tilt."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.cards import DECK
from controller.config import build_config
from controller.engine import Action, BoxBet, Complete
from controller.live import LiveConfig, LiveTable
from controller.table import Actor
from drivers.camera.sim import Lighting, SimulatedCamera, TableView
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess
from tests.waiting import wait_for
from vision.config import load_table_vision
from vision.deck import DeckProfile
from vision.director import DEMO_LAYOUT, DemoCamera, DirectorSettings, SceneDirector, spots
from vision.tracking import CardTurnedUp

pytestmark = pytest.mark.hil
GAMES = ["oasis", "casino-holdem", "holdem-exchange", "holdem-bonus"]


class DemoRig:
    """The demo's table: a simulated shoe process, the live table, the demo camera (stepped)."""

    def __init__(self, tmp: Path, deck: DeckProfile, game: str, *, director: DirectorSettings) -> None:
        self.sim = SimulatedShoeProcess(config=SimConfig(seed=11, shoe_id="DEMO-CAM"))
        self.sim.start()
        config = build_config({"game": game, "name": "Demo table"})
        self.live = LiveTable(config=LiveConfig(data=tmp, shoe=self.sim.device_path, table=config))
        self.live.start()
        wait_for(self.live.link_up.is_set, "the shoe link")
        self.table = self.live.table
        self.demo = DemoCamera(table=self.table, deck=deck, fps=None, director=director)
        self.demo.director.attach()
        self.turned: list[CardTurnedUp] = []
        self.covered: set[str] = set()

    def close(self) -> None:
        self.demo.stop()
        self.live.stop()
        self.sim.stop()

    def frames(self, count: int) -> None:
        for _ in range(count):
            self.demo.director.tick()
            step = self.demo.link.step()
            assert step is not None
            self.turned.extend(e for e in step.update.events if isinstance(e, CardTurnedUp))
            self.covered |= step.update.covered

    def until_clear(self) -> None:
        """Frames until the camera has seen the layout clear (what the demo waits for)."""
        for _ in range(40):
            self.frames(1)
            if not any(self.demo.health().cards.values()):
                return
        raise AssertionError(f"the layout never looked clear: {self.demo.health().cards}")


@pytest.fixture
def rig_for(tmp_path: Path, kennard: DeckProfile) -> Iterator[Callable[[str], DemoRig]]:
    made: list[DemoRig] = []

    def make(game: str) -> DemoRig:
        # A lively room: hands pass and the light changes far more often than at a real table.
        settings = DirectorSettings(seed=4, hand_rate=0.15, hand_ticks=2, light_rate=0.08)
        made.append(DemoRig(tmp_path / game, kennard, game, director=settings))
        return made[-1]

    yield make
    for r in made:
        r.close()


def test_spots_fill_rows_inside_the_zone() -> None:
    box = [(0.0, 0.0), (215.0, 0.0), (215.0, 196.0), (0.0, 196.0)]
    got = spots(box, count=6)
    assert len(got) == 6 and len({round(y) for _, y in got}) == 2 and len({round(x) for x, _ in got}) == 3
    # Every card lies wholly inside the zone.
    assert all(31.5 <= x <= 215 - 31.5 and 44 <= y <= 196 - 44 for x, y in got)
    # Too many for the zone: the rows overlap rather than leave it.
    tight = spots([(0.0, 0.0), (215.0, 0.0), (215.0, 120.0), (0.0, 120.0)], count=6)
    assert all(44 <= y <= 120 - 44 for _, y in tight)


@pytest.fixture
def quiet_table(tmp_path: Path) -> Iterator[LiveTable]:
    """An Oasis table with no shoe: the test hands it the shoe's reads itself."""
    live = LiveTable(config=LiveConfig(data=tmp_path, shoe=None, table=build_config({"game": "oasis"})))
    yield live
    live.stop()


def test_the_director_lays_the_round_as_a_dealer_would(quiet_table: LiveTable, kennard: DeckProfile) -> None:
    table = quiet_table.table
    zones = load_table_vision(DEMO_LAYOUT).zones
    camera = SimulatedCamera(deck=kennard, view=TableView(width_px=320, height_px=180))
    director = SceneDirector(table=table, camera=camera, zones=zones, settings=DirectorSettings(jitter_mm=0.0))
    director.attach()
    dealer = Actor("dana", "dealer")
    table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=10), BoxBet(box=5, ante=10)], actor=dealer)
    deck = iter(DECK)
    for _ in range(20):
        table.on_card(next(deck).code)
    assert table.round is not None and not table.tilts
    state = table.round.state
    where = {c.code: c for c in camera.scene.cards}
    assert len(where) == 20
    # Each box's five cards in its own spots, face down; the dealer's fifth card face up.
    box1 = [c.code for c in state.boxes[1].cards]
    assert [(where[c].x_mm, where[c].y_mm) for c in box1] == [director.spot("box1", k) for k in range(5)]
    assert [where[c.code].face_up for c in state.dealer] == [False] * 4 + [True]
    assert not any(where[c].face_up for b in state.boxes.values() for c in (x.code for x in b.cards))
    # Box 1 exchanges its second card: the discard is mucked and the replacement takes its spot.
    discard = state.boxes[1].cards[1]
    table.act(Action(1, "exchange", discard=(discard,)), actor=dealer)
    assert discard.code not in {c.code for c in camera.scene.cards}
    replacement = next(deck).code
    table.on_card(replacement)
    new = next(c for c in camera.scene.cards if c.code == replacement)
    assert (new.x_mm, new.y_mm) == director.spot("box1", 1) and not new.face_up
    # Box 1 raises, box 3 folds (its hand is mucked), box 5 raises: the showdown turns the rest.
    table.act(Action(1, "raise"), actor=dealer)
    table.act(Action(3, "fold"), actor=dealer)
    table.act(Action(5, "raise"), actor=dealer)
    shown = camera.scene.cards
    assert {c.code for c in shown} == {
        c.code for c in [*state.dealer, *state.boxes[1].cards, *state.boxes[5].cards]
    } and all(c.face_up for c in shown)
    # Settled: the layout is cleared.
    table.confirm_settlement(actor=dealer)
    assert camera.scene.cards == ()


def test_the_room_changes_on_ticks(quiet_table: LiveTable, kennard: DeckProfile) -> None:
    zones = load_table_vision(DEMO_LAYOUT).zones
    camera = SimulatedCamera(deck=kennard, view=TableView(width_px=320, height_px=180))
    settings = DirectorSettings(hand_rate=1.0, hand_ticks=2, light_rate=1.0, seed=1)
    director = SceneDirector(table=quiet_table.table, camera=camera, zones=zones, settings=settings)
    director.tick()
    (hand,) = camera.scene.hands
    assert camera.scene.lighting != Lighting()
    # The hand reaches from the dealer's side over one zone, stays its ticks, then goes.
    assert 60 <= hand.angle_deg <= 120
    director.tick()
    assert len(camera.scene.hands) == 1
    director.tick()
    assert camera.scene.hands == ()
    with pytest.raises(ValueError, match="hand_rate"):
        DirectorSettings(hand_rate=1.5)


@pytest.mark.parametrize("game", GAMES)
def test_the_demo_table_plays_rounds_without_a_camera_tilt(rig_for: Callable[[str], DemoRig], game: str) -> None:
    rig = rig_for(game)
    table = rig.table

    def new_round() -> None:
        rig.sim.command("shuffle")
        rig.until_clear()

    player = AutoPlayer(
        table=table, draw=rig.sim.draw, new_round=new_round, config=AutoplayConfig(pace=0, seed=7, max_boxes=4)
    )
    settled = 0
    while settled < 3:
        before = table.last_counter or 0  # a draw moves the counter (the shoe's new-deck entry does not)
        done = player.step()
        assert not done.startswith("refused"), done
        if done == "waiting for the card from the shoe":
            wait_for(lambda v=before: (table.last_counter or 0) > v, "the card from the shoe")
            continue
        rig.frames(1)
        if table.round is not None and isinstance(table.round.expected(), Complete):
            rig.frames(4)  # the showdown: every card in play turned and read
        if done == "confirmed the settlement":
            settled += 1
        assert table.tilts == {}, list(table.tilts.values())
    assert rig.demo.link.reported == []
    # The camera did see the game: cards read at the showdowns, and hands over the layout.
    assert len(rig.turned) >= 6 and rig.covered
