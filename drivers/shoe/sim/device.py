"""Shoe side of the reference protocol as a pure state machine: what a real shoe's firmware does.

The simulator process wraps it with a pseudo-terminal, a deck and scripted faults. No I/O, no clock
reads: ``now`` comes in, frames go out.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from controller.cards import Card
from drivers.errors import ProtocolError
from drivers.shoe import protocol as p


@dataclass(frozen=True, kw_only=True)
class DeviceTiming:
    """The shoe's protocol timings (defaults are the documented ones)."""

    heartbeat_interval: float = p.HEARTBEAT_INTERVAL
    hello_interval: float = p.HELLO_INTERVAL
    ack_timeout: float = p.ACK_TIMEOUT
    ack_timeout_max: float = p.ACK_TIMEOUT_MAX
    max_transmissions: int = p.MAX_TRANSMISSIONS


@dataclass(frozen=True, slots=True)
class _Draw:
    counter: int
    card: Card | None  # None: the card left the shoe unread
    flags: int


@dataclass(frozen=True, slots=True)
class _StatusItem:
    code: p.WireStatus
    counter: int
    flags: int  # as they were when it happened, not when the frame leaves


@dataclass(slots=True)
class _Outstanding:
    seq: int
    frame: bytes
    sent: int
    deadline: float
    timeout: float
    item: _Draw | _StatusItem


class ShoeDevice:
    """A card-reading shoe: draw counter, replay buffer, stop-and-wait sender, heartbeat."""

    MAX_UNSENT_STATUS = 64

    def __init__(
        self,
        *,
        shoe_id: str = "SIM-1",
        firmware: str = "sim-1.0",
        timing: DeviceTiming | None = None,
        draw_counter: int = 0,
        replay_capacity: int = p.REPLAY_CAPACITY,
        version: int = p.PROTOCOL_VERSION,
    ) -> None:
        self.shoe_id = shoe_id
        self.firmware = firmware
        self.timing = timing or DeviceTiming()
        self.version = version
        self.draw_counter = draw_counter
        self.flags = 0
        self._buffer: deque[_Draw] = deque(maxlen=replay_capacity)
        self._parser = p.FrameParser()
        self._linked = False
        self._seq = 0
        self._hello: bytes = b""
        self._next_hello = 0.0
        self._outbox: deque[_Draw | _StatusItem] = deque()
        self._unsent_status: list[_StatusItem] = []
        self._outstanding: _Outstanding | None = None
        self._last_tx = float("-inf")

    @property
    def linked(self) -> bool:
        """Whether the controller has welcomed the current session."""
        return self._linked

    @property
    def backlog(self) -> int:
        """Sequenced frames waiting to be sent or acknowledged."""
        return len(self._outbox) + (self._outstanding is not None)

    # --- what happens at the shoe ------------------------------------------------------------------

    def draw(self, drawn: Card | None) -> int:
        """A card leaves the shoe (``None``: unreadable); returns its draw counter."""
        self.draw_counter += 1
        item = _Draw(counter=self.draw_counter, card=drawn, flags=self.flags)
        self._buffer.append(item)
        if self._linked:
            self._outbox.append(item)
        return self.draw_counter

    def status(self, code: p.WireStatus) -> None:
        """A change of condition (not UNREADABLE, which is a draw: use ``draw(None)``)."""
        bit = {
            p.WireStatus.LID_OPEN: (p.FLAG_LID_OPEN, True),
            p.WireStatus.LID_CLOSED: (p.FLAG_LID_OPEN, False),
            p.WireStatus.JAM: (p.FLAG_JAMMED, True),
            p.WireStatus.JAM_CLEARED: (p.FLAG_JAMMED, False),
            p.WireStatus.EMPTY: (p.FLAG_EMPTY, True),
            p.WireStatus.NEW_DECK: (p.FLAG_EMPTY, False),
        }.get(code)
        if bit is not None:
            mask, on = bit
            self.flags = (self.flags | mask) if on else (self.flags & ~mask)
        item = _StatusItem(code=code, counter=self.draw_counter, flags=self.flags)
        if self._linked:
            self._outbox.append(item)
        else:
            self._keep_status([item])

    def line_lost(self) -> None:
        """The line went away (cable pulled, port closed): the session is over, draws stay buffered."""
        unsent = [self._outstanding.item] if self._outstanding is not None else []
        self._keep_status([it for it in (*unsent, *self._outbox) if isinstance(it, _StatusItem)])
        self._linked = False
        self._outstanding = None
        self._outbox.clear()
        self._parser = p.FrameParser()
        self._hello = b""
        self._next_hello = 0.0

    # --- the protocol ------------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> list[bytes]:
        """Bytes from the controller; returns frames to send."""
        out: list[bytes] = []
        for item in self._parser.feed(data):
            if isinstance(item, p.Frame):
                out += self._frame(item, now)
        return out + self.poll(now)

    def poll(self, now: float) -> list[bytes]:
        """Timers: HELLO while unwelcomed, retransmission, the next frame, heartbeat."""
        out: list[bytes] = []
        if not self._linked:
            if now >= self._next_hello:
                out.append(self._say_hello(now, new_session=not self._hello))
        else:
            pending = self._outstanding
            if pending is not None and now >= pending.deadline:
                out += self._retransmit(pending, now)
            if self._linked and self._outstanding is None:
                nxt = self._next_frame(now)
                if nxt:
                    out.append(nxt)
        if not out and now - self._last_tx >= self.timing.heartbeat_interval:
            out.append(
                p.encode_frame(
                    seq=0,
                    type=p.MsgType.HEARTBEAT,
                    payload=p.encode_u32(self.draw_counter) + bytes((self.flags,)),
                )
            )
        if out:
            self._last_tx = now
        return out

    def next_deadline(self, now: float) -> float:
        """The latest time ``poll`` must be called again."""
        times = [self._last_tx + self.timing.heartbeat_interval]
        if not self._linked:
            times.append(self._next_hello)
        elif self._outstanding is not None:
            times.append(self._outstanding.deadline)
        elif self._outbox:
            times.append(now)
        return min(times)

    def _frame(self, frame: p.Frame, now: float) -> list[bytes]:
        kind = frame.type
        if kind == p.MsgType.CONNECT:
            if not self._linked:
                # Our HELLO may be crossing this CONNECT on the wire: repeat it, same SEQ, so the
                # controller sees one session, not two.
                return [self._say_hello(now, new_session=False)]
            # Linked as far as we know, yet the controller asks: it lost the session; start a new one.
            self.line_lost()
            return [self._say_hello(now, new_session=True)]
        if kind == p.MsgType.WELCOME:
            if self._linked or not self._hello or frame.seq != self._seq:
                return []
            try:
                resume_after = p.decode_u32(frame.payload)
            except ProtocolError:
                return []
            self._linked = True
            self._outbox.clear()
            # Draws after the resume point and the status changes not yet delivered, in the order they
            # happened: a status with counter c happened after draw c and before draw c + 1.
            items: list[_Draw | _StatusItem] = [d for d in self._buffer if d.counter > resume_after]
            items += self._unsent_status
            items.sort(key=lambda it: (it.counter, isinstance(it, _StatusItem)))
            self._outbox.extend(items)
            self._unsent_status.clear()
            return []
        if not self._linked:
            if kind == p.MsgType.NAK and self._hello:
                return [self._say_hello(now, new_session=False)]  # our HELLO arrived damaged
            return []
        pending = self._outstanding
        if kind == p.MsgType.ACK:
            if pending is not None and frame.seq == pending.seq:
                self._outstanding = None
            return []
        if kind == p.MsgType.NAK and frame.payload:
            reason = frame.payload[0]
            if reason == p.NakReason.OUT_OF_SEQUENCE:
                self.line_lost()
                return [self._say_hello(now, new_session=True)]
            if reason == p.NakReason.UNKNOWN_TYPE and pending is not None:
                self._outstanding = None
                return []
            if pending is not None:
                return self._retransmit(pending, now)
        return []

    def _keep_status(self, items: list[_StatusItem]) -> None:
        # Status changes wait for the next session; bounded, oldest dropped first (the flags in HELLO
        # still tell the standing condition).
        self._unsent_status.extend(items)
        del self._unsent_status[: -self.MAX_UNSENT_STATUS]

    def _say_hello(self, now: float, *, new_session: bool) -> bytes:
        if new_session or not self._hello:
            self._linked = False
            self._outstanding = None
            self._seq = (self._seq + 1) & 0xFF
        hello = p.Hello(
            version=self.version,
            draw_counter=self.draw_counter,
            flags=self.flags,
            shoe_id=self.shoe_id,
            firmware=self.firmware,
        )
        self._hello = p.encode_frame(seq=self._seq, type=p.MsgType.HELLO, payload=p.encode_hello(hello))
        self._next_hello = now + self.timing.hello_interval
        return self._hello

    def _next_frame(self, now: float) -> bytes:
        while self._outbox:
            item = self._outbox.popleft()
            self._seq = (self._seq + 1) & 0xFF
            if isinstance(item, _Draw):
                if item.card is None:
                    payload = p.encode_status(
                        p.StatusPayload(code=p.WireStatus.UNREADABLE, flags=item.flags, draw_counter=item.counter)
                    )
                    frame = p.encode_frame(seq=self._seq, type=p.MsgType.STATUS, payload=payload)
                else:
                    payload = p.encode_card(draw_counter=item.counter, code=item.card.code)
                    frame = p.encode_frame(seq=self._seq, type=p.MsgType.CARD, payload=payload)
            else:
                payload = p.encode_status(p.StatusPayload(code=item.code, flags=item.flags, draw_counter=item.counter))
                frame = p.encode_frame(seq=self._seq, type=p.MsgType.STATUS, payload=payload)
            timeout = self.timing.ack_timeout
            self._outstanding = _Outstanding(
                seq=self._seq,
                frame=frame,
                sent=1,
                deadline=now + timeout,
                timeout=timeout,
                item=item,
            )
            return frame
        return b""

    def _retransmit(self, pending: _Outstanding, now: float) -> list[bytes]:
        if pending.sent >= self.timing.max_transmissions:
            # Give up on this session; the replay after the next WELCOME resends the draws.
            self.line_lost()
            return [self._say_hello(now, new_session=True)]
        pending.sent += 1
        pending.timeout = min(pending.timeout * 2, self.timing.ack_timeout_max)
        pending.deadline = now + pending.timeout
        return [pending.frame]
