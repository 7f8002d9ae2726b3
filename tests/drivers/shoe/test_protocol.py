"""The wire format on plain bytes: CRC vectors, framing, resynchronisation, and fuzzed streams."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import DECK, Card
from drivers.errors import ProtocolError
from drivers.shoe import protocol as p


def crc16_bitwise(data: bytes) -> int:
    """CRC-16/CCITT-FALSE written out bit by bit, independent of binascii."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"123456789", 0x29B1), (b"", 0xFFFF), (b"A", 0xB915)],
)
def test_crc_matches_published_check_values(data: bytes, expected: int) -> None:
    assert p.crc16(data) == expected
    assert crc16_bitwise(data) == expected


@settings(deadline=None)
@given(st.binary(max_size=80))
def test_crc_agrees_with_bitwise_definition(data: bytes) -> None:
    assert p.crc16(data) == crc16_bitwise(data)


def card_frame(seq: int, counter: int, code: str) -> bytes:
    return p.encode_frame(seq=seq, type=p.MsgType.CARD, payload=p.encode_card(draw_counter=counter, code=code))


def test_card_frame_layout_is_as_documented() -> None:
    frame = card_frame(7, 1, "As")
    assert len(frame) == 12
    assert frame[:4] == bytes((0xA5, 6, 7, 0x02))
    assert frame[4:10] == b"\x00\x00\x00\x01As"
    assert int.from_bytes(frame[10:], "big") == p.crc16(frame[1:10])


def test_check_frame_answers_need_more_bad_or_length() -> None:
    frame = card_frame(1, 5, "Kd")
    for cut in range(len(frame)):
        assert p.check_frame(frame[:cut]) == 0, cut
    assert p.check_frame(frame + b"\x00") == len(frame)
    assert p.check_frame(b"\x01\x02\xa5\x06") == -2  # garbage up to the next SOF
    assert p.check_frame(b"\x01\x02\x03") == -3
    assert p.check_frame(bytes((p.SOF, p.MAX_PAYLOAD + 1))) == -1  # impossible length
    broken = bytearray(frame)
    broken[5] ^= 0x10
    assert p.check_frame(bytes(broken)) == -1


def test_every_single_bit_flip_is_detected() -> None:
    frame = card_frame(3, 42, "Td")
    parser = p.FrameParser()
    for i in range(len(frame)):
        for bit in range(8):
            damaged = bytearray(frame)
            damaged[i] ^= 1 << bit
            out = parser.feed(bytes(damaged))
            assert not any(isinstance(x, p.Frame) for x in out), (i, bit)
            parser = p.FrameParser()


def test_a_frame_behind_a_false_start_is_found() -> None:
    frame = card_frame(9, 10, "2c")
    # A false SOF whose length byte claims 4 bytes swallows the real frame's start; CRC fails, the
    # parser drops one byte only and finds the real frame.
    out = p.FrameParser().feed(b"\xa5\x04" + frame)
    frames = [x for x in out if isinstance(x, p.Frame)]
    assert frames == [p.Frame(seq=9, type=p.MsgType.CARD, payload=p.encode_card(draw_counter=10, code="2c"))]


def test_skip_partial_releases_a_frame_held_by_a_false_long_frame() -> None:
    frame = card_frame(9, 10, "2c")
    parser = p.FrameParser()
    assert parser.feed(b"\xa5\x30" + frame) == []  # the false start claims 48 bytes: need more
    out = parser.skip_partial()
    assert next(x for x in out if isinstance(x, p.Frame)).seq == 9
    assert parser.pending == 0


def test_hello_round_trip_and_malformed_payloads() -> None:
    hello = p.Hello(version=1, draw_counter=123456, flags=5, shoe_id="SHOE-7", firmware="fw 2.1")
    assert p.decode_hello(p.encode_hello(hello)) == hello
    raw = p.encode_hello(hello)
    for bad in (raw[:-1], raw + b"x", raw[:3]):
        with pytest.raises(ProtocolError):
            p.decode_hello(bad)
    with pytest.raises(ProtocolError):
        p.encode_hello(p.Hello(version=1, draw_counter=0, flags=0, shoe_id="x" * 17, firmware=""))


def test_status_and_card_payloads_reject_wrong_sizes_and_codes() -> None:
    status = p.StatusPayload(code=p.WireStatus.JAM, flags=p.FLAG_JAMMED, draw_counter=9)
    assert p.decode_status(p.encode_status(status)) == status
    with pytest.raises(ProtocolError):
        p.decode_status(b"\x63\x00\x00\x00\x00\x01")  # unknown code 99
    with pytest.raises(ProtocolError):
        p.decode_card(b"\x00\x00\x00\x01A")
    with pytest.raises(ProtocolError):
        p.encode_frame(seq=256, type=p.MsgType.ACK)
    with pytest.raises(ProtocolError):
        p.encode_frame(seq=0, type=p.MsgType.ACK, payload=bytes(p.MAX_PAYLOAD + 1))


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=400), chunk=st.integers(min_value=1, max_value=64))
def test_random_bytes_never_crash_and_every_byte_is_accounted_for(data: bytes, chunk: int) -> None:
    parser = p.FrameParser()
    accounted = 0
    for i in range(0, len(data), chunk):
        for item in parser.feed(data[i : i + chunk]):
            accounted += item.count if isinstance(item, p.BadBytes) else 6 + len(item.payload)
    # Flushing partial frames one byte at a time always terminates and consumes everything.
    for _ in range(len(data) + 1):
        if not parser.pending:
            break
        for item in parser.skip_partial():
            accounted += item.count if isinstance(item, p.BadBytes) else 6 + len(item.payload)
    assert parser.pending == 0
    assert accounted == len(data)


sent_cards = st.lists(st.sampled_from(DECK), min_size=1, max_size=12)
noise = st.lists(st.binary(max_size=20), min_size=13, max_size=13)
# At most three flipped bits per frame: CRC-16/CCITT-FALSE is guaranteed to catch those (Hamming
# distance 4 at this length); more could, once in 65536, forge a valid frame, which is physics, not a bug.
flips = st.lists(st.tuples(st.integers(0, 11), st.integers(0, 7)), max_size=3)


@settings(max_examples=300, deadline=None)
@given(cards=sent_cards, garbage=noise, damage=flips, chunk=st.integers(min_value=1, max_value=40))
def test_mangled_streams_never_yield_a_card_that_was_not_sent(
    cards: list[Card], garbage: list[bytes], damage: list[tuple[int, int]], chunk: int
) -> None:
    sent = {(i + 1, c.code) for i, c in enumerate(cards)}
    stream = bytearray()
    for i, c in enumerate(cards):
        frame = bytearray(card_frame(i & 0xFF, i + 1, c.code))
        for index, bit in damage if i % 2 else ():
            frame[index] ^= 1 << bit
        stream += garbage[i] + frame
    stream += garbage[-1]
    parser = p.FrameParser()
    got: list[p.Frame] = []
    for i in range(0, len(stream), chunk):
        got += [x for x in parser.feed(bytes(stream[i : i + chunk])) if isinstance(x, p.Frame)]
    while parser.pending:
        got += [x for x in parser.skip_partial() if isinstance(x, p.Frame)]
    for frame in got:
        if frame.type == p.MsgType.CARD:
            payload = p.decode_card(frame.payload)
            assert (payload.draw_counter, payload.code) in sent
    # Undamaged frames all arrive, in order.
    intact = [(i + 1, c.code) for i, c in enumerate(cards) if not (i % 2 and damage)]
    received = [(d.draw_counter, d.code) for d in (p.decode_card(f.payload) for f in got if f.type == p.MsgType.CARD)]
    assert [r for r in received if r in intact] == intact
