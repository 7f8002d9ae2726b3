"""The shoe firmware model on a fake clock: HELLO until welcomed, stop-and-wait, backoff, give-up."""

from __future__ import annotations

import itertools

import pytest

from controller.cards import card
from drivers.shoe import protocol as p
from drivers.shoe.sim.device import DeviceTiming, ShoeDevice


def parse(frames: list[bytes]) -> list[p.Frame]:
    parser = p.FrameParser()
    return [x for f in frames for x in parser.feed(f) if isinstance(x, p.Frame)]


def welcome(seq: int, resume_after: int) -> bytes:
    return p.encode_frame(seq=seq, type=p.MsgType.WELCOME, payload=p.encode_u32(resume_after))


def linked_device(timing: DeviceTiming | None = None) -> tuple[ShoeDevice, int]:
    shoe = ShoeDevice(timing=timing)
    (hello,) = parse(shoe.poll(0.0))
    assert hello.type == p.MsgType.HELLO
    shoe.receive(welcome(hello.seq, 0), 0.0)
    assert shoe.linked
    return shoe, hello.seq


def test_hello_repeats_with_the_same_seq_until_welcomed() -> None:
    shoe = ShoeDevice()
    first = parse(shoe.poll(0.0))
    assert parse(shoe.poll(0.1)) == []
    again = parse(shoe.poll(0.25))
    assert [f.seq for f in first + again] == [first[0].seq] * 2
    connect = p.encode_frame(seq=0, type=p.MsgType.CONNECT, payload=b"\x01")
    (answer,) = [f for f in parse(shoe.receive(connect, 0.3)) if f.type == p.MsgType.HELLO]
    assert answer.seq == first[0].seq  # a HELLO crossing a CONNECT is the same session


def test_retransmission_backs_off_then_gives_up_and_starts_a_new_session() -> None:
    shoe, hello_seq = linked_device()
    shoe.draw(card("As"))
    sent_at: list[int] = []  # milliseconds of the fake clock
    new_hello: p.Frame | None = None
    ms = 0
    while ms < 5000 and new_hello is None:
        ms += 1
        for frame in parse(shoe.poll(ms / 1000)):
            if frame.type == p.MsgType.CARD:
                sent_at.append(ms)
            elif frame.type == p.MsgType.HELLO:
                new_hello = frame
    assert len(sent_at) == p.MAX_TRANSMISSIONS
    gaps = [b - a for a, b in itertools.pairwise(sent_at)]
    assert gaps == pytest.approx([50, 100, 200, 400, 400, 400, 400], abs=1)  # 1 ms: the fake clock's step
    assert new_hello is not None
    assert new_hello.seq != hello_seq
    assert ms - sent_at[-1] == pytest.approx(400, abs=1)  # 2.35 s after the first transmission in all
    # Welcomed again from before that draw, the shoe sends it again: nothing was lost.
    resent = parse(shoe.receive(welcome(new_hello.seq, 0), ms / 1000))
    assert [(f.type, p.decode_card(f.payload).code) for f in resent] == [(p.MsgType.CARD, "As")]


def test_one_frame_at_a_time_and_the_next_after_its_ack() -> None:
    shoe, seq = linked_device()
    shoe.draw(card("As"))
    shoe.draw(card("Kd"))
    (first,) = parse(shoe.poll(0.01))
    assert first.seq == (seq + 1) & 0xFF
    assert parse(shoe.poll(0.02)) == []  # waiting for the ACK
    stale_ack = p.encode_frame(seq=seq, type=p.MsgType.ACK)
    assert parse(shoe.receive(stale_ack, 0.03)) == []
    ack = p.encode_frame(seq=first.seq, type=p.MsgType.ACK)
    (second,) = parse(shoe.receive(ack, 0.04))
    assert p.decode_card(second.payload).code == "Kd"
    assert second.seq == (first.seq + 1) & 0xFF


def test_nak_bad_frame_retransmits_now_and_out_of_sequence_restarts() -> None:
    shoe, _ = linked_device()
    shoe.draw(card("As"))
    (first,) = parse(shoe.poll(0.01))
    nak = p.encode_frame(seq=0, type=p.MsgType.NAK, payload=bytes((p.NakReason.BAD_FRAME,)))
    assert parse(shoe.receive(nak, 0.011)) == [first]
    oos = p.encode_frame(seq=0, type=p.MsgType.NAK, payload=bytes((p.NakReason.OUT_OF_SEQUENCE,)))
    (hello,) = parse(shoe.receive(oos, 0.012))
    assert hello.type == p.MsgType.HELLO
    assert not shoe.linked


def test_replay_after_welcome_starts_after_resume_point_and_buffer_is_bounded() -> None:
    shoe = ShoeDevice(replay_capacity=4)
    for code in ("2c", "3c", "4c", "5c", "6c", "7c"):
        shoe.draw(card(code))
    (hello,) = parse(shoe.poll(0.0))
    assert p.decode_hello(hello.payload).draw_counter == 6
    out = shoe.receive(welcome(hello.seq, 1), 0.0)  # the first replayed draw leaves at once
    counters = []
    for _ in range(10):
        cards = [f for f in parse(out) if f.type == p.MsgType.CARD]
        if not cards:
            break
        counters += [p.decode_card(f.payload).draw_counter for f in cards]
        out = shoe.receive(p.encode_frame(seq=cards[-1].seq, type=p.MsgType.ACK), 0.0)
    assert counters == [3, 4, 5, 6]  # 2 fell out of the 4-draw buffer: the controller will see a gap
