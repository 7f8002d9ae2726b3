"""The simulated shoe: a real backend on a pseudo-terminal speaking the reference protocol."""

from __future__ import annotations

from drivers.shoe.sim.config import Faults, SimConfig
from drivers.shoe.sim.process import SimulatedShoeProcess

__all__ = ["Faults", "SimConfig", "SimulatedShoeProcess"]
