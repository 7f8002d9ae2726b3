"""Shoe firmware model and controller session end to end over a simulated faulty line, on a fake clock.

Deterministic and fast, so it can be fuzzed over fault seeds; the same guarantee is checked over a
real pty against the simulator process in test_driver_sim.py.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards import DECK, Card, card
from drivers.shoe import CardDrawn, DrawGap, LinkDown, LinkUp, ShoeConfig, ShoeEvent, ShoeStatus
from drivers.shoe import protocol as p
from drivers.shoe.session import ReferenceProtocol
from drivers.shoe.sim.config import Faults
from drivers.shoe.sim.device import DeviceTiming, ShoeDevice

TICK = 0.001
WIRE_DELAY = 0.0015


def run_link(
    *,
    deck: list[Card],
    faults: Faults,
    seed: int,
    draw_every: float = 0.01,
    outages: tuple[tuple[float, float], ...] = (),
    limit: float = 60.0,
) -> list[ShoeEvent]:
    """Draw ``deck`` at the shoe; return every event the controller produced."""
    rng = random.Random(seed)
    shoe = ShoeDevice(timing=DeviceTiming(heartbeat_interval=0.05))
    host = ReferenceProtocol(config=ShoeConfig(url="loop://", link_timeout=0.3, heartbeat_interval=0.05))
    to_host: list[tuple[float, bytes]] = []
    to_shoe: list[tuple[float, bytes]] = []
    events: list[ShoeEvent] = []
    connected = True
    pending = list(deck)
    next_draw = draw_every
    t = 0.0
    to_shoe.append((t + WIRE_DELAY, host.connected(t).send))
    while t < limit:
        t += TICK
        down = any(start <= t < end for start, end in outages)
        if down and connected:
            connected = False
            shoe.line_lost()
            events += host.disconnected("outage", t).events
            to_host.clear()
            to_shoe.clear()
        elif not down and not connected:
            connected = True
            to_shoe.append((t + WIRE_DELAY, host.connected(t).send))
        # The dealer deals once the shoe is linked; draws made before first contact are not the
        # controller's (docs/shoe-protocol.md, "Session start"), later ones are kept through outages.
        if pending and t >= next_draw and any(isinstance(e, LinkUp) for e in events):
            shoe.draw(pending.pop(0))
            next_draw = t + draw_every
        if connected:
            while to_shoe and to_shoe[0][0] <= t:
                for frame in shoe.receive(to_shoe.pop(0)[1], t):
                    to_host.append((t + WIRE_DELAY, faults.apply(frame, rng)))
            for frame in shoe.poll(t):
                to_host.append((t + WIRE_DELAY, faults.apply(frame, rng)))
            while to_host and to_host[0][0] <= t:
                step = host.received(to_host.pop(0)[1], t)
                events += step.events
                if step.send:
                    to_shoe.append((t + WIRE_DELAY, step.send))
        step = host.tick(t)
        events += step.events
        if connected and step.send:
            to_shoe.append((t + WIRE_DELAY, step.send))
        delivered = [e for e in events if isinstance(e, CardDrawn)]
        if not pending and len(delivered) >= len(deck) and shoe.backlog == 0:
            break
    return events


def assert_exactly_once_in_order(events: list[ShoeEvent], deck: list[Card]) -> None:
    cards = [e for e in events if isinstance(e, CardDrawn)]
    assert [c.card for c in cards] == deck
    assert [c.draw_counter for c in cards] == list(range(1, len(deck) + 1))
    assert not [e for e in events if isinstance(e, DrawGap)]


FAULTS = {
    "clean": Faults(),
    "corrupt": Faults(corrupt=0.3),
    "drop": Faults(drop=0.3),
    "duplicate": Faults(duplicate=0.3),
    "garbage": Faults(garbage=0.3),
    "all": Faults(corrupt=0.15, drop=0.15, duplicate=0.15, garbage=0.15),
}


@pytest.mark.parametrize("kind", list(FAULTS))
def test_full_deck_arrives_once_in_order_under_each_fault(kind: str) -> None:
    deck = list(DECK)
    random.Random(kind).shuffle(deck)
    events = run_link(deck=deck, faults=FAULTS[kind], seed=1)
    assert_exactly_once_in_order(events, deck)


def test_outages_replay_draws_made_while_down_without_gap_or_double() -> None:
    deck = list(DECK)
    events = run_link(deck=deck, faults=FAULTS["all"], seed=3, outages=((0.1, 0.25), (0.3, 0.31), (0.4, 0.9)))
    assert_exactly_once_in_order(events, deck)
    ups = [e for e in events if isinstance(e, LinkUp)]
    assert len(ups) >= 3
    assert all(u.resumed for u in ups[1:])
    assert any(e.replayed for e in events if isinstance(e, CardDrawn))
    assert len([e for e in events if isinstance(e, LinkDown)]) >= 2


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rates=st.tuples(*[st.sampled_from([0.0, 0.1, 0.3, 0.5])] * 4),
    outage_start=st.floats(0.0, 0.5),
    outage_len=st.floats(0.0, 1.5),
)
def test_any_fault_mix_and_outage_keeps_exactly_once(
    seed: int, rates: tuple[float, float, float, float], outage_start: float, outage_len: float
) -> None:
    corrupt, drop, duplicate, garbage = rates
    deck = list(DECK[:20])
    events = run_link(
        deck=deck,
        faults=Faults(corrupt=corrupt, drop=drop, duplicate=duplicate, garbage=garbage),
        seed=seed,
        outages=((outage_start, outage_start + outage_len),),
    )
    assert_exactly_once_in_order(events, deck)


def test_status_changes_during_an_outage_arrive_after_it_in_their_place_among_draws() -> None:
    shoe = ShoeDevice()
    host = ReferenceProtocol(config=ShoeConfig(url="loop://"))
    events: list[ShoeEvent] = []

    def shuttle(to_shoe: bytes, t: float) -> None:
        """Pass bytes both ways over a perfect line until it is quiet."""
        for _ in range(100):
            out = b"".join(shoe.receive(to_shoe, t) if to_shoe else shoe.poll(t))
            if not out and not to_shoe:
                return
            step = host.received(out, t) if out else host.tick(t)
            events.extend(step.events)
            to_shoe = step.send
        raise AssertionError("the line never went quiet")

    shuttle(host.connected(0.0).send, 0.0)
    shoe.draw(card("As"))
    shuttle(b"", 0.01)
    shoe.line_lost()
    events.extend(host.disconnected("outage", 0.02).events)
    shoe.status(p.WireStatus.JAM)  # while nobody listens
    shoe.status(p.WireStatus.JAM_CLEARED)
    shoe.draw(card("Kd"))
    shoe.status(p.WireStatus.LID_OPEN)
    shuttle(host.connected(1.0).send, 1.0)
    summary = [
        e.card.code if isinstance(e, CardDrawn) else e.code.value
        for e in events
        if isinstance(e, CardDrawn | ShoeStatus)
    ]
    assert summary == ["As", "jam", "jam-cleared", "Kd", "lid-open"]
