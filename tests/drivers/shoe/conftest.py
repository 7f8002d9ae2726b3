"""Fixtures: simulated shoes in their own processes, drivers with fast test timings, event collection."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.shoe import ShoeConfig, ShoeDriver
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess

# Fast protocol timings keep the suite quick; the documented defaults are tested on a fake clock.
SIM_HEARTBEAT = 0.05
LINK_TIMEOUT = 0.4


@pytest.fixture
def make_sim(tmp_path: Path) -> Iterator[Callable[..., SimulatedShoeProcess]]:
    sims: list[SimulatedShoeProcess] = []

    def make(**options: Any) -> SimulatedShoeProcess:
        options.setdefault("link", str(tmp_path / f"shoe{len(sims)}"))
        options.setdefault("heartbeat", SIM_HEARTBEAT)
        sim = SimulatedShoeProcess(config=SimConfig(**options))
        sims.append(sim)
        sim.start()
        return sim

    yield make
    for sim in sims:
        sim.stop()


@pytest.fixture
def make_driver() -> Iterator[Callable[..., ShoeDriver]]:
    drivers: list[ShoeDriver] = []

    def make(url: str, **options: Any) -> ShoeDriver:
        options.setdefault("link_timeout", LINK_TIMEOUT)
        options.setdefault("heartbeat_interval", 0.05)
        options.setdefault("reconnect_initial", 0.02)
        options.setdefault("reconnect_max", 0.2)
        driver = ShoeDriver(config=ShoeConfig(url=url, **options))
        drivers.append(driver)
        driver.start()
        return driver

    yield make
    for driver in drivers:
        driver.stop()
