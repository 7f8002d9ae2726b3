"""Shoe wire protocol constants, CRC, frame encoding and the pure byte parser (docs/shoe-protocol.md)."""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from drivers.errors import ProtocolError

PROTOCOL_VERSION: Final = 1
DEFAULT_BAUDRATE: Final = 115200

SOF: Final = 0xA5
HEADER_SIZE: Final = 4  # SOF LEN SEQ TYPE
CRC_SIZE: Final = 2
MAX_PAYLOAD: Final = 48
MAX_FRAME: Final = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_COUNTER: Final = 0xFFFFFFFE

# Timing defaults (seconds); both sides can override them, the doc names the defaults.
HEARTBEAT_INTERVAL: Final = 0.25
LINK_TIMEOUT: Final = 1.0
CONNECT_INTERVAL: Final = 0.25
HELLO_INTERVAL: Final = 0.25
ACK_TIMEOUT: Final = 0.05
ACK_TIMEOUT_MAX: Final = 0.4
MAX_TRANSMISSIONS: Final = 8
PARTIAL_FRAME_TIMEOUT: Final = 0.02
REPLAY_CAPACITY: Final = 256


class MsgType(IntEnum):
    """Message types; shoe → controller below 0x10, controller → shoe from 0x10 (HEARTBEAT both)."""

    HELLO = 0x01
    CARD = 0x02
    STATUS = 0x03
    HEARTBEAT = 0x04
    CONNECT = 0x10
    WELCOME = 0x11
    ACK = 0x12
    NAK = 0x13


SEQUENCED: Final = frozenset({MsgType.HELLO, MsgType.CARD, MsgType.STATUS})


class WireStatus(IntEnum):
    """``STATUS.code`` values."""

    LID_OPEN = 1
    LID_CLOSED = 2
    JAM = 3
    JAM_CLEARED = 4
    UNREADABLE = 5
    EMPTY = 6
    NEW_DECK = 7


class NakReason(IntEnum):
    """``NAK.reason`` values: the protocol's error codes."""

    BAD_FRAME = 1
    MALFORMED = 2
    OUT_OF_SEQUENCE = 3
    UNSUPPORTED_VERSION = 4
    UNKNOWN_TYPE = 5


FLAG_LID_OPEN: Final = 0x01
FLAG_JAMMED: Final = 0x02
FLAG_EMPTY: Final = 0x04
FLAG_MASK: Final = FLAG_LID_OPEN | FLAG_JAMMED | FLAG_EMPTY


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0); ``b"123456789"`` → 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame as it was on the wire, CRC already checked."""

    seq: int
    type: int
    payload: bytes


def encode_frame(*, seq: int, type: int, payload: bytes = b"") -> bytes:
    """The bytes of one frame.

    Raises:
        ProtocolError: the sequence number is not 0..255 or the payload is longer than MAX_PAYLOAD.
    """
    if not 0 <= seq <= 0xFF:
        raise ProtocolError(f"sequence number {seq} is not 0..255")
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((len(payload), seq, type)) + payload
    return bytes((SOF,)) + body + crc16(body).to_bytes(2, "big")


def check_frame(buf: bytes | bytearray) -> int:
    """Klipper-style check of the bytes at the head of ``buf``.

    Returns 0 when more bytes are needed, ``-n`` when the first ``n`` bytes are bad and must be
    discarded, or ``n > 0`` when the first ``n`` bytes are one valid frame.
    """
    if not buf:
        return 0
    if buf[0] != SOF:
        nxt = buf.find(SOF, 1)
        return -(len(buf) if nxt < 0 else nxt)
    if len(buf) < 2:
        return 0
    length = buf[1]
    if length > MAX_PAYLOAD:
        return -1
    size = HEADER_SIZE + length + CRC_SIZE
    if len(buf) < size:
        return 0
    body = bytes(buf[1 : HEADER_SIZE + length])
    if crc16(body) != int.from_bytes(buf[size - CRC_SIZE : size], "big"):
        return -1
    return size


@dataclass(frozen=True, slots=True)
class BadBytes:
    """Bytes the parser threw away; ``crc_failed`` when they looked like a frame with a wrong CRC."""

    count: int
    crc_failed: bool


class FrameParser:
    """Pure incremental parser: feed bytes, get frames and reports of discarded bytes, in order."""

    def __init__(self) -> None:
        self._buf = bytearray()

    @property
    def pending(self) -> int:
        """Bytes held back as the possible start of a frame."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[Frame | BadBytes]:
        """Add bytes and return every frame (and discarded run) they complete."""
        self._buf += data
        return self._drain()

    def skip_partial(self) -> list[Frame | BadBytes]:
        """Give up on a partial frame at the head (a false SOF): drop one byte and parse again."""
        if not self._buf:
            return []
        del self._buf[0]
        return [BadBytes(count=1, crc_failed=False), *self._drain()]

    def _drain(self) -> list[Frame | BadBytes]:
        out: list[Frame | BadBytes] = []
        while True:
            n = check_frame(self._buf)
            if n == 0:
                return out
            if n < 0:
                crc_failed = n == -1 and self._buf[0] == SOF and len(self._buf) > 1 and self._buf[1] <= MAX_PAYLOAD
                out.append(BadBytes(count=-n, crc_failed=crc_failed))
                del self._buf[:-n]
                continue
            raw = self._buf[:n]
            out.append(Frame(seq=raw[2], type=raw[3], payload=bytes(raw[HEADER_SIZE : n - CRC_SIZE])))
            del self._buf[:n]


# --- payloads --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """``HELLO`` payload."""

    version: int
    draw_counter: int
    flags: int
    shoe_id: str
    firmware: str


@dataclass(frozen=True, slots=True)
class CardPayload:
    """``CARD`` payload; ``code`` is the raw two ASCII characters (checked by the receiver)."""

    draw_counter: int
    code: str


@dataclass(frozen=True, slots=True)
class StatusPayload:
    """``STATUS`` payload."""

    code: int
    flags: int
    draw_counter: int


def _short_str(value: str, what: str) -> bytes:
    raw = value.encode("ascii", "replace")
    if len(raw) > 16:
        raise ProtocolError(f"{what} {value!r} is longer than 16 characters")
    return bytes((len(raw),)) + raw


def encode_hello(hello: Hello) -> bytes:
    """``HELLO`` payload bytes.

    Raises:
        ProtocolError: the shoe id or firmware string is longer than 16 characters.
    """
    return (
        struct.pack(">BIB", hello.version, hello.draw_counter, hello.flags & FLAG_MASK)
        + _short_str(hello.shoe_id, "shoe id")
        + _short_str(hello.firmware, "firmware")
    )


def decode_hello(payload: bytes) -> Hello:
    """Parse a ``HELLO`` payload.

    Raises:
        ProtocolError: the payload is too short, too long or not ASCII.
    """
    try:
        version, counter, flags = struct.unpack_from(">BIB", payload, 0)
        pos = 6
        id_len = payload[pos]
        shoe_id = payload[pos + 1 : pos + 1 + id_len]
        pos += 1 + id_len
        fw_len = payload[pos]
        firmware = payload[pos + 1 : pos + 1 + fw_len]
        end = pos + 1 + fw_len
    except (struct.error, IndexError) as exc:
        raise ProtocolError("HELLO payload too short") from exc
    if end != len(payload) or len(shoe_id) != id_len or len(firmware) != fw_len:
        raise ProtocolError("HELLO payload length does not match its strings")
    try:
        return Hello(
            version=version,
            draw_counter=counter,
            flags=flags & FLAG_MASK,
            shoe_id=shoe_id.decode("ascii"),
            firmware=firmware.decode("ascii"),
        )
    except UnicodeDecodeError as exc:
        raise ProtocolError("HELLO strings are not ASCII") from exc


def encode_card(*, draw_counter: int, code: str) -> bytes:
    """``CARD`` payload bytes (``code`` must be two ASCII characters).

    Raises:
        ProtocolError: the code is not two ASCII characters.
    """
    raw = code.encode("ascii", "replace")
    if len(raw) != 2:
        raise ProtocolError(f"card code {code!r} is not two characters")
    return struct.pack(">I", draw_counter) + raw


def decode_card(payload: bytes) -> CardPayload:
    """Parse a ``CARD`` payload (the code is not checked against the 52 cards here).

    Raises:
        ProtocolError: the payload is not 6 bytes.
    """
    if len(payload) != 6:
        raise ProtocolError(f"CARD payload is {len(payload)} bytes, not 6")
    (counter,) = struct.unpack_from(">I", payload, 0)
    return CardPayload(draw_counter=counter, code=payload[4:6].decode("latin-1"))


def encode_status(status: StatusPayload) -> bytes:
    """``STATUS`` payload bytes."""
    return struct.pack(">BBI", status.code, status.flags & FLAG_MASK, status.draw_counter)


def decode_status(payload: bytes) -> StatusPayload:
    """Parse a ``STATUS`` payload.

    Raises:
        ProtocolError: the payload is not 6 bytes or the code is unknown.
    """
    if len(payload) != 6:
        raise ProtocolError(f"STATUS payload is {len(payload)} bytes, not 6")
    code, flags, counter = struct.unpack(">BBI", payload)
    if code not in WireStatus._value2member_map_:
        raise ProtocolError(f"unknown status code {code}")
    return StatusPayload(code=code, flags=flags & FLAG_MASK, draw_counter=counter)


def encode_u32(value: int) -> bytes:
    """A big-endian unsigned 32-bit field."""
    return struct.pack(">I", value)


def decode_u32(payload: bytes) -> int:
    """Parse a payload that is one big-endian unsigned 32-bit field.

    Raises:
        ProtocolError: the payload is not 4 bytes.
    """
    if len(payload) != 4:
        raise ProtocolError(f"payload is {len(payload)} bytes, not 4")
    value: int = struct.unpack(">I", payload)[0]
    return value
