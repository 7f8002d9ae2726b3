"""The demo's table with its camera: the director lays the live table's cards as a dealer would,
and whole rounds of every game played by the simulated players raise no camera tilt."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.config import build_config
from controller.engine import Complete
from controller.live import LiveConfig, LiveTable
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess
from vision.deck import DeckProfile
from vision.director import DemoCamera, DirectorSettings, spots
from vision.tracking import CardTurnedUp

pytestmark = pytest.mark.hil
GAMES = ["oasis", "casino-holdem", "holdem-exchange", "holdem-bonus"]


def wait_for(condition: Callable[[], object], what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


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
    got = spots(box, 6)
    assert len(got) == 6 and len({round(y) for _, y in got}) == 2 and len({round(x) for x, _ in got}) == 3
    # Every card lies wholly inside the zone.
    assert all(31.5 <= x <= 215 - 31.5 and 44 <= y <= 196 - 44 for x, y in got)
    # Too many for the zone: the rows overlap rather than leave it.
    tight = spots([(0.0, 0.0), (215.0, 0.0), (215.0, 120.0), (0.0, 120.0)], 6)
    assert all(44 <= y <= 120 - 44 for _, y in tight)


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
        before = table.version
        done = player.step()
        assert not done.startswith("refused"), done
        if done == "waiting for the card from the shoe":
            wait_for(lambda v=before: table.version > v, "the card from the shoe")
            continue
        rig.frames(2)
        if table.round is not None and isinstance(table.round.expected(), Complete):
            rig.frames(4)  # the showdown: every card in play turned and read
        if done == "confirmed the settlement":
            settled += 1
        assert table.tilts == {}, list(table.tilts.values())
    assert rig.demo.link.reported == []
    # The camera did see the game: cards read at the showdowns, and hands over the layout.
    assert len(rig.turned) >= 6 and rig.covered
