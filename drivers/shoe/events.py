"""Events the shoe driver hands to its consumer: typed, frozen, in the order they happened."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from controller.cards import Card
from drivers.shoe.protocol import FLAG_EMPTY, FLAG_JAMMED, FLAG_LID_OPEN


class StatusCode(Enum):
    """What a :class:`ShoeStatus` event reports; the value is the name used in JSON."""

    LID_OPEN = "lid-open"
    LID_CLOSED = "lid-closed"
    JAM = "jam"
    JAM_CLEARED = "jam-cleared"
    UNREADABLE = "unreadable"
    EMPTY = "empty"
    NEW_DECK = "new-deck"


@dataclass(frozen=True, slots=True)
class ShoeFlags:
    """The shoe's standing condition."""

    lid_open: bool = False
    jammed: bool = False
    empty: bool = False

    @classmethod
    def from_bits(cls, bits: int) -> ShoeFlags:
        """Decode the wire ``flags`` byte."""
        return cls(
            lid_open=bool(bits & FLAG_LID_OPEN),
            jammed=bool(bits & FLAG_JAMMED),
            empty=bool(bits & FLAG_EMPTY),
        )


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A card left the shoe and was read. ``draw_counter`` is the shoe's own gapless draw number.

    ``replayed`` is true when the card was drawn while the link was down and arrived on reconnect.
    ``received_at`` is ``time.monotonic()`` when the driver emitted the event.
    """

    card: Card
    draw_counter: int
    shoe_id: str
    received_at: float
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class ShoeStatus:
    """A change of the shoe's condition. ``UNREADABLE`` is a draw: it has its own ``draw_counter``."""

    code: StatusCode
    flags: ShoeFlags
    draw_counter: int
    shoe_id: str
    received_at: float


@dataclass(frozen=True, slots=True)
class DrawGap:
    """Draws ``first..last`` (inclusive) are lost for good (the shoe could not replay them): a tilt."""

    first: int
    last: int
    shoe_id: str
    received_at: float


@dataclass(frozen=True, slots=True)
class LinkUp:
    """A session with the shoe started. ``resumed`` is false on first contact or a shoe reset/swap."""

    shoe_id: str
    firmware: str
    protocol_version: int
    draw_counter: int
    flags: ShoeFlags
    resumed: bool
    received_at: float


@dataclass(frozen=True, slots=True)
class LinkDown:
    """The link to the shoe was lost (``reason`` says how); the driver is already reconnecting."""

    reason: str
    received_at: float


ShoeEvent = CardDrawn | ShoeStatus | DrawGap | LinkUp | LinkDown


def event_to_dict(event: ShoeEvent) -> dict[str, Any]:
    """A JSON-ready dict for one event (the shape ``dealer-assist shoe-listen`` prints)."""
    match event:
        case CardDrawn():
            return {
                "event": "card",
                "card": event.card.code,
                "draw_counter": event.draw_counter,
                "shoe_id": event.shoe_id,
                "replayed": event.replayed,
                "t": round(event.received_at, 6),
            }
        case ShoeStatus():
            return {
                "event": "status",
                "status": event.code.value,
                "draw_counter": event.draw_counter,
                "lid_open": event.flags.lid_open,
                "jammed": event.flags.jammed,
                "empty": event.flags.empty,
                "shoe_id": event.shoe_id,
                "t": round(event.received_at, 6),
            }
        case DrawGap():
            return {
                "event": "draw-gap",
                "first": event.first,
                "last": event.last,
                "shoe_id": event.shoe_id,
                "t": round(event.received_at, 6),
            }
        case LinkUp():
            return {
                "event": "link-up",
                "shoe_id": event.shoe_id,
                "firmware": event.firmware,
                "protocol_version": event.protocol_version,
                "draw_counter": event.draw_counter,
                "resumed": event.resumed,
                "lid_open": event.flags.lid_open,
                "jammed": event.flags.jammed,
                "empty": event.flags.empty,
                "t": round(event.received_at, 6),
            }
        case LinkDown():
            return {"event": "link-down", "reason": event.reason, "t": round(event.received_at, 6)}
