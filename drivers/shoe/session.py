"""Controller side of a shoe protocol as a pure state machine: bytes and clock ticks in, events and bytes out.

``ShoeProtocol`` is the seam for other vendors: an adapter turns one wire format into the driver's
events. ``ReferenceProtocol`` implements docs/shoe-protocol.md. No I/O, no threads, no clock reads:
the driver passes ``now`` in, which is what lets the tests drive it with a fake clock.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from controller.cards import Card
from controller.cards import card as parse_card
from controller.errors import CardError
from drivers.errors import DriverConfigError, ProtocolError
from drivers.shoe import protocol as p
from drivers.shoe.config import ShoeConfig
from drivers.shoe.events import (
    CardDrawn,
    DrawGap,
    LinkDown,
    LinkUp,
    ShoeEvent,
    ShoeFlags,
    ShoeStatus,
    StatusCode,
)

_STATUS_CODES: dict[int, StatusCode] = {
    p.WireStatus.LID_OPEN: StatusCode.LID_OPEN,
    p.WireStatus.LID_CLOSED: StatusCode.LID_CLOSED,
    p.WireStatus.JAM: StatusCode.JAM,
    p.WireStatus.JAM_CLEARED: StatusCode.JAM_CLEARED,
    p.WireStatus.UNREADABLE: StatusCode.UNREADABLE,
    p.WireStatus.EMPTY: StatusCode.EMPTY,
    p.WireStatus.NEW_DECK: StatusCode.NEW_DECK,
}


@dataclass(slots=True)
class Step:
    """What one input produced: events to deliver first, then bytes to write to the shoe."""

    events: list[ShoeEvent] = field(default_factory=list)
    send: bytes = b""


class ShoeProtocol(ABC):
    """One shoe wire format, controller side. The driver calls these from its I/O thread only."""

    def __init__(self, *, config: ShoeConfig) -> None:
        self.config = config

    @property
    @abstractmethod
    def link_up(self) -> bool:
        """Whether a session with the shoe is established."""

    @property
    @abstractmethod
    def last_draw_counter(self) -> int | None:
        """Counter of the last draw delivered (None before the first session)."""

    @abstractmethod
    def connected(self, now: float) -> Step:
        """The port was (re)opened."""

    @abstractmethod
    def received(self, data: bytes, now: float) -> Step:
        """Bytes arrived from the shoe."""

    @abstractmethod
    def tick(self, now: float) -> Step:
        """Time passed (called at least every ``config.read_timeout``)."""

    @abstractmethod
    def disconnected(self, reason: str, now: float) -> Step:
        """The port failed or was closed."""

    @abstractmethod
    def refused(self, counter: int | None) -> None:
        """The consumer could not store an event (nothing of it may be acknowledged): forget the session
        and every draw from ``counter`` on (None: no draw), so that the shoe, asked again, replays them."""


class ReferenceProtocol(ShoeProtocol):
    """The reference protocol of docs/shoe-protocol.md, controller side."""

    def __init__(self, *, config: ShoeConfig) -> None:
        super().__init__(config=config)
        self._parser = p.FrameParser()
        self._session = False
        self._shoe_id = ""
        self._last_seq = 0
        self._welcome = b""
        self._hello_counter = 0
        self._known_shoe: str | None = None
        self._last_counter: int | None = None
        self._resume_hint = config.resume_after
        self._last_rx = 0.0
        self._last_tx = float("-inf")
        self._last_byte = 0.0
        self._next_connect = 0.0
        self._version_refused = False

    @property
    def link_up(self) -> bool:
        return self._session

    @property
    def last_draw_counter(self) -> int | None:
        return self._last_counter

    @property
    def shoe_id(self) -> str | None:
        """Id of the shoe of the current or last session."""
        return self._known_shoe

    # --- driver hooks ------------------------------------------------------------------------------

    def connected(self, now: float) -> Step:
        self._parser = p.FrameParser()
        self._session = False
        self._version_refused = False
        self._last_rx = now
        self._last_byte = now
        self._next_connect = now + self.config.connect_interval
        return self._out(Step(), self._connect_frame(), now)

    def received(self, data: bytes, now: float) -> Step:
        self._last_byte = now
        return self._handle(self._parser.feed(data), now)

    def tick(self, now: float) -> Step:
        step = Step()
        if self._parser.pending and now - self._last_byte >= self.config.partial_frame_timeout:
            # A false start of frame in garbage is holding bytes back; drop it and look again.
            self._last_byte = now
            step = self._handle(self._parser.skip_partial(), now)
        if self._session and now - self._last_rx >= self.config.link_timeout:
            self._session = False
            step.events.append(
                LinkDown(
                    reason=f"no frame from shoe {self._shoe_id} for {self.config.link_timeout:g} s",
                    received_at=now,
                )
            )
            self._next_connect = now
        if not self._session and now >= self._next_connect:
            self._next_connect = now + self.config.connect_interval
            step = self._out(step, self._connect_frame(), now)
        elif self._session and not step.send and now - self._last_tx >= self.config.heartbeat_interval:
            step = self._out(step, p.encode_frame(seq=0, type=p.MsgType.HEARTBEAT), now)
        return step

    def refused(self, counter: int | None) -> None:
        # Quietly, with no LinkDown: the link is fine, the consumer is not. A new session at the next
        # tick resumes after the last draw the consumer has.
        self._session = False
        self._next_connect = 0.0
        if counter is not None and (self._last_counter is None or counter - 1 < self._last_counter):
            self._last_counter = counter - 1

    def disconnected(self, reason: str, now: float) -> Step:
        step = Step()
        if self._session:
            self._session = False
            step.events.append(LinkDown(reason=reason, received_at=now))
        return step

    # --- frames ------------------------------------------------------------------------------------

    def _handle(self, items: list[p.Frame | p.BadBytes], now: float) -> Step:
        step = Step()
        out = bytearray()
        nak_sent = False
        for item in items:
            if isinstance(item, p.BadBytes):
                if item.crc_failed and not nak_sent:
                    nak_sent = True
                    out += self._nak(p.NakReason.BAD_FRAME)
                continue
            self._last_rx = now
            out += self._frame(item, step.events, now)
        return self._out(step, bytes(out), now)

    def _frame(self, frame: p.Frame, events: list[ShoeEvent], now: float) -> bytes:
        kind = frame.type
        if kind == p.MsgType.HELLO:
            return self._hello(frame, events, now)
        if kind == p.MsgType.HEARTBEAT or not self._session:
            # Frames before a session are stale leftovers of an earlier one: HELLO starts afresh.
            return b""
        if kind in (p.MsgType.CONNECT, p.MsgType.WELCOME, p.MsgType.ACK, p.MsgType.NAK):
            return b""  # our own frames echoed back (loop://, a wiring fault): nothing to answer
        if kind not in (p.MsgType.CARD, p.MsgType.STATUS):
            return p.encode_frame(seq=frame.seq, type=p.MsgType.NAK, payload=bytes((p.NakReason.UNKNOWN_TYPE,)))
        if frame.seq == self._last_seq:
            return self._ack(frame.seq)  # a retransmission: our ACK was lost or late
        if frame.seq != (self._last_seq + 1) & 0xFF:
            return self._nak(p.NakReason.OUT_OF_SEQUENCE)
        try:
            if kind == p.MsgType.CARD:
                payload = p.decode_card(frame.payload)
                try:
                    drawn = parse_card(payload.code)
                except CardError:
                    drawn = None
                self._draw(payload.draw_counter, drawn, None, events, now)
            else:
                status = p.decode_status(frame.payload)
                flags = ShoeFlags.from_bits(status.flags)
                if status.code == p.WireStatus.UNREADABLE:
                    self._draw(status.draw_counter, None, flags, events, now)
                else:
                    events.append(
                        ShoeStatus(
                            code=_STATUS_CODES[status.code],
                            flags=flags,
                            draw_counter=status.draw_counter,
                            shoe_id=self._shoe_id,
                            received_at=now,
                        )
                    )
        except ProtocolError:
            return self._nak(p.NakReason.MALFORMED)
        self._last_seq = frame.seq
        return self._ack(frame.seq)

    def _draw(
        self,
        counter: int,
        drawn: Card | None,
        flags: ShoeFlags | None,
        events: list[ShoeEvent],
        now: float,
    ) -> None:
        last = self._last_counter
        if last is not None and counter <= last:
            return  # replayed after a reconnect, already delivered: exactly once
        if last is not None and counter > last + 1:
            events.append(DrawGap(first=last + 1, last=counter - 1, shoe_id=self._shoe_id, received_at=now))
        self._last_counter = counter
        if drawn is None:
            events.append(
                ShoeStatus(
                    code=StatusCode.UNREADABLE,
                    flags=flags or ShoeFlags(),
                    draw_counter=counter,
                    shoe_id=self._shoe_id,
                    received_at=now,
                )
            )
            return
        events.append(
            CardDrawn(
                card=drawn,
                draw_counter=counter,
                shoe_id=self._shoe_id,
                received_at=now,
                replayed=counter <= self._hello_counter,
            )
        )

    def _hello(self, frame: p.Frame, events: list[ShoeEvent], now: float) -> bytes:
        try:
            hello = p.decode_hello(frame.payload)
        except ProtocolError:
            return self._nak(p.NakReason.MALFORMED)
        if hello.version != p.PROTOCOL_VERSION:
            if not self._version_refused:
                self._version_refused = True
                events.append(
                    LinkDown(
                        reason=f"shoe {hello.shoe_id} speaks protocol version {hello.version}, "
                        f"this driver speaks {p.PROTOCOL_VERSION}",
                        received_at=now,
                    )
                )
            return self._nak(p.NakReason.UNSUPPORTED_VERSION)
        if self._session and frame.seq == self._last_seq and hello.shoe_id == self._shoe_id:
            return self._welcome  # our WELCOME was lost: say it again, same resume point
        if self._session:
            events.append(LinkDown(reason=f"shoe {self._shoe_id} started a new session", received_at=now))
        resumed = True
        last = self._last_counter
        if last is None and self._resume_hint is not None and hello.draw_counter >= self._resume_hint:
            last = self._resume_hint
        elif last is None or hello.shoe_id != self._known_shoe or hello.draw_counter < last:
            # First contact, another shoe, or a counter that went backwards (reset): start from now.
            last = None
        self._resume_hint = None
        if last is None:
            resumed = False
            self._last_counter = hello.draw_counter
            resume_after = hello.draw_counter  # everything drawn after this HELLO is ours
        else:
            self._last_counter = last
            resume_after = last
        self._session = True
        self._shoe_id = hello.shoe_id
        self._known_shoe = hello.shoe_id
        self._last_seq = frame.seq
        self._hello_counter = hello.draw_counter
        self._welcome = p.encode_frame(seq=frame.seq, type=p.MsgType.WELCOME, payload=p.encode_u32(resume_after))
        events.append(
            LinkUp(
                shoe_id=hello.shoe_id,
                firmware=hello.firmware,
                protocol_version=hello.version,
                draw_counter=hello.draw_counter,
                flags=ShoeFlags.from_bits(hello.flags),
                resumed=resumed,
                received_at=now,
            )
        )
        return self._welcome

    # --- helpers -----------------------------------------------------------------------------------

    def _ack(self, seq: int) -> bytes:
        return p.encode_frame(seq=seq, type=p.MsgType.ACK)

    def _nak(self, reason: p.NakReason) -> bytes:
        return p.encode_frame(seq=self._last_seq, type=p.MsgType.NAK, payload=bytes((reason,)))

    def _connect_frame(self) -> bytes:
        return p.encode_frame(seq=0, type=p.MsgType.CONNECT, payload=bytes((p.PROTOCOL_VERSION,)))

    def _out(self, step: Step, data: bytes, now: float) -> Step:
        if data:
            step.send += data
            self._last_tx = now
        return step


PROTOCOLS: dict[str, type[ShoeProtocol]] = {"reference": ReferenceProtocol}


def make_protocol(config: ShoeConfig) -> ShoeProtocol:
    """The protocol adapter named by ``config.protocol``.

    Raises:
        DriverConfigError: no adapter has that name.
    """
    try:
        cls = PROTOCOLS[config.protocol]
    except KeyError:
        known = ", ".join(sorted(PROTOCOLS))
        raise DriverConfigError(f"unknown shoe protocol {config.protocol!r} (known: {known})") from None
    return cls(config=config)
