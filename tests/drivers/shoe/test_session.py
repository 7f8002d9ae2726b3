"""The controller-side session on plain bytes with a fake clock: acks, dedup, gaps, timeouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import card
from drivers.errors import DriverConfigError
from drivers.shoe import CardDrawn, DrawGap, LinkDown, LinkUp, ShoeConfig, ShoeStatus, StatusCode
from drivers.shoe import protocol as p
from drivers.shoe.session import ReferenceProtocol, make_protocol

CONFIG = ShoeConfig(url="loop://", link_timeout=1.0, heartbeat_interval=0.25)


def hello(seq: int, counter: int = 0, *, shoe_id: str = "S1", version: int = 1, flags: int = 0) -> bytes:
    payload = p.encode_hello(
        p.Hello(version=version, draw_counter=counter, flags=flags, shoe_id=shoe_id, firmware="fw")
    )
    return p.encode_frame(seq=seq, type=p.MsgType.HELLO, payload=payload)


def card_frame(seq: int, counter: int, code: str) -> bytes:
    return p.encode_frame(seq=seq, type=p.MsgType.CARD, payload=p.encode_card(draw_counter=counter, code=code))


def status_frame(seq: int, code: p.WireStatus, counter: int, flags: int = 0) -> bytes:
    payload = p.encode_status(p.StatusPayload(code=code, flags=flags, draw_counter=counter))
    return p.encode_frame(seq=seq, type=p.MsgType.STATUS, payload=payload)


def frames(data: bytes) -> list[p.Frame]:
    return [x for x in p.FrameParser().feed(data) if isinstance(x, p.Frame)]


def linked(counter: int = 0, config: ShoeConfig = CONFIG) -> ReferenceProtocol:
    session = ReferenceProtocol(config=config)
    session.connected(0.0)
    session.received(hello(1, counter), 0.0)
    assert session.link_up
    return session


def test_connect_asks_for_hello_and_first_hello_is_welcomed_from_its_own_counter() -> None:
    session = ReferenceProtocol(config=CONFIG)
    sent = frames(session.connected(0.0).send)
    assert [f.type for f in sent] == [p.MsgType.CONNECT]
    step = session.received(hello(5, 40, flags=p.FLAG_LID_OPEN), 0.01)
    (up,) = step.events
    assert isinstance(up, LinkUp)
    assert (up.shoe_id, up.draw_counter, up.resumed, up.flags.lid_open) == ("S1", 40, False, True)
    (welcome,) = frames(step.send)
    assert (welcome.type, welcome.seq, p.decode_u32(welcome.payload)) == (p.MsgType.WELCOME, 5, 40)


def test_frames_before_hello_are_ignored() -> None:
    session = ReferenceProtocol(config=CONFIG)
    session.connected(0.0)
    step = session.received(card_frame(2, 1, "As"), 0.0)
    assert step.events == []
    assert step.send == b""


def test_card_is_delivered_then_acknowledged_and_a_retransmission_only_reacknowledged() -> None:
    session = linked()
    step = session.received(card_frame(2, 1, "As"), 0.1)
    (event,) = step.events
    assert isinstance(event, CardDrawn)
    assert (event.card, event.draw_counter, event.shoe_id, event.replayed) == (card("As"), 1, "S1", False)
    (ack,) = frames(step.send)
    assert (ack.type, ack.seq) == (p.MsgType.ACK, 2)
    again = session.received(card_frame(2, 1, "As"), 0.2)
    assert again.events == []
    assert [(f.type, f.seq) for f in frames(again.send)] == [(p.MsgType.ACK, 2)]


def test_out_of_sequence_frame_is_refused() -> None:
    session = linked()
    step = session.received(card_frame(4, 1, "As"), 0.1)
    assert step.events == []
    (nak,) = frames(step.send)
    assert nak.type == p.MsgType.NAK
    assert nak.payload == bytes((p.NakReason.OUT_OF_SEQUENCE,))


def test_draw_counter_makes_replays_exactly_once_and_reports_gaps() -> None:
    session = linked(counter=10)
    events = session.received(card_frame(2, 11, "2c") + card_frame(3, 11, "2c"), 0.1).events
    assert [e.draw_counter for e in events if isinstance(e, CardDrawn)] == [11]
    events = session.received(card_frame(4, 9, "3c"), 0.2).events  # an old draw replayed again
    assert events == []
    events = session.received(card_frame(5, 14, "4c"), 0.3).events
    assert isinstance(events[0], DrawGap)
    assert (events[0].first, events[0].last) == (12, 13)
    assert isinstance(events[1], CardDrawn)
    assert events[1].draw_counter == 14


def test_a_duplicated_identity_with_a_new_counter_is_a_normal_draw() -> None:
    session = linked()
    events = session.received(card_frame(2, 1, "Qh") + card_frame(3, 2, "Qh"), 0.1).events
    assert [(e.card.code, e.draw_counter) for e in events if isinstance(e, CardDrawn)] == [
        ("Qh", 1),
        ("Qh", 2),
    ]


def test_unreadable_draws_and_misread_codes_keep_counters_gapless() -> None:
    session = linked()
    events = session.received(
        status_frame(2, p.WireStatus.UNREADABLE, 1) + card_frame(3, 2, "Zz") + card_frame(4, 3, "Ah"), 0.1
    ).events
    assert [type(e).__name__ for e in events] == ["ShoeStatus", "ShoeStatus", "CardDrawn"]
    assert [e.draw_counter for e in events] == [1, 2, 3]
    assert all(e.code is StatusCode.UNREADABLE for e in events[:2] if isinstance(e, ShoeStatus))


def test_status_frames_carry_flags() -> None:
    session = linked()
    (event,) = session.received(status_frame(2, p.WireStatus.JAM, 0, p.FLAG_JAMMED | p.FLAG_LID_OPEN), 0.1).events
    assert isinstance(event, ShoeStatus)
    assert event.code is StatusCode.JAM
    assert (event.flags.jammed, event.flags.lid_open, event.flags.empty) == (True, True, False)


def test_link_loss_is_reported_exactly_at_the_timeout() -> None:
    session = linked()
    session.received(p.encode_frame(seq=0, type=p.MsgType.HEARTBEAT, payload=bytes(5)), 2.0)
    just_before = session.tick(2.0 + CONFIG.link_timeout - 0.001)
    assert not [e for e in just_before.events if isinstance(e, LinkDown)]
    at = session.tick(2.0 + CONFIG.link_timeout)
    (down,) = at.events
    assert isinstance(down, LinkDown)
    assert "no frame" in down.reason
    assert p.MsgType.CONNECT in [f.type for f in frames(at.send)]


def test_heartbeat_is_sent_when_quiet_and_connect_repeats_until_hello() -> None:
    session = linked()
    assert frames(session.tick(0.1).send) == []
    assert [f.type for f in frames(session.tick(0.3).send)] == [p.MsgType.HEARTBEAT]
    fresh = ReferenceProtocol(config=CONFIG)
    fresh.connected(0.0)
    assert fresh.tick(0.1).send == b""
    assert [f.type for f in frames(fresh.tick(0.26).send)] == [p.MsgType.CONNECT]


def test_reconnect_resumes_after_the_last_delivered_draw() -> None:
    session = linked(counter=0)
    session.received(card_frame(2, 1, "As") + card_frame(3, 2, "Ks"), 0.1)
    session.disconnected("unplugged", 0.2)
    session.connected(1.0)
    step = session.received(hello(9, 5), 1.1)
    (up,) = step.events
    assert isinstance(up, LinkUp)
    assert up.resumed
    (welcome,) = frames(step.send)
    assert p.decode_u32(welcome.payload) == 2
    replay = session.received(card_frame(10, 2, "Ks") + card_frame(11, 3, "Qs"), 1.2).events
    assert [(e.draw_counter, e.replayed) for e in replay if isinstance(e, CardDrawn)] == [(3, True)]


def test_a_shoe_reset_or_another_shoe_starts_without_history() -> None:
    session = linked(counter=50)
    session.disconnected("x", 1.0)
    session.connected(1.0)
    (up,) = session.received(hello(1, 3), 1.1).events  # the counter went backwards
    assert isinstance(up, LinkUp)
    assert not up.resumed
    session.disconnected("x", 2.0)
    session.connected(2.0)
    (up,) = session.received(hello(1, 60, shoe_id="OTHER"), 2.1).events
    assert isinstance(up, LinkUp)
    assert not up.resumed


def test_configured_resume_point_is_used_on_first_contact() -> None:
    session = ReferenceProtocol(config=ShoeConfig(url="loop://", resume_after=7))
    session.connected(0.0)
    step = session.received(hello(1, 9), 0.0)
    assert isinstance(step.events[0], LinkUp)
    assert step.events[0].resumed
    assert p.decode_u32(frames(step.send)[0].payload) == 7


def test_lost_welcome_is_repeated_not_a_new_session() -> None:
    session = linked()
    step = session.received(hello(1, 0), 0.3)
    assert step.events == []
    assert [f.type for f in frames(step.send)] == [p.MsgType.WELCOME]


def test_unsupported_version_is_refused_and_reported_once() -> None:
    session = ReferenceProtocol(config=CONFIG)
    session.connected(0.0)
    first = session.received(hello(1, version=9), 0.0)
    second = session.received(hello(1, version=9), 0.3)
    assert [type(e) for e in first.events] == [LinkDown]
    assert second.events == []
    assert frames(first.send)[0].payload == bytes((p.NakReason.UNSUPPORTED_VERSION,))
    assert not session.link_up


def test_corrupt_frame_gets_a_nak() -> None:
    session = linked()
    broken = bytearray(card_frame(2, 1, "As"))
    broken[6] ^= 0x01
    step = session.received(bytes(broken), 0.1)
    assert step.events == []
    assert frames(step.send)[0].payload == bytes((p.NakReason.BAD_FRAME,))


def test_unknown_protocol_name_is_a_config_error() -> None:
    with pytest.raises(DriverConfigError, match="unknown shoe protocol"):
        make_protocol(ShoeConfig(url="loop://", protocol="acme"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=64), max_size=20))
def test_random_bytes_in_a_session_never_crash_or_forge_a_card(chunks: list[bytes]) -> None:
    session = linked()
    now = 0.0
    for chunk in chunks:
        now += 0.01
        step = session.received(chunk, now)
        step.events += session.tick(now).events
        assert not [e for e in step.events if isinstance(e, CardDrawn | DrawGap)]
