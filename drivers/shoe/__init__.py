"""Card-reading shoe: wire protocol, serial driver and simulated shoe (see docs/shoe-protocol.md).

The table service uses :class:`ShoeDriver` with a :class:`ShoeConfig` and consumes the events below.
"""

from __future__ import annotations

from drivers.shoe.config import ShoeConfig
from drivers.shoe.driver import ShoeDriver
from drivers.shoe.events import (
    CardDrawn,
    DrawGap,
    LinkDown,
    LinkUp,
    ShoeEvent,
    ShoeFlags,
    ShoeStatus,
    StatusCode,
    event_to_dict,
)

__all__ = [
    "CardDrawn",
    "DrawGap",
    "LinkDown",
    "LinkUp",
    "ShoeConfig",
    "ShoeDriver",
    "ShoeEvent",
    "ShoeFlags",
    "ShoeStatus",
    "StatusCode",
    "event_to_dict",
]
