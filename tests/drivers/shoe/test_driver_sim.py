"""The driver against the simulated shoe in a separate process over a real pseudo-terminal."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.cards import card
from drivers.errors import TransportError
from drivers.shoe import CardDrawn, DrawGap, LinkDown, LinkUp, ShoeDriver, ShoeEvent, ShoeStatus, StatusCode
from drivers.shoe.sim import Faults, SimulatedShoeProcess
from tests.waiting import wait_for

# Every test here drives a simulated shoe process over a pty: the simulated-hardware suite (-m hil).
pytestmark = pytest.mark.hil

# Generous upper bounds so a stuck test fails instead of hanging; never a performance threshold.
PATIENCE = 60.0


def collect(
    driver: ShoeDriver,
    until: Callable[[list[ShoeEvent]], bool],
    *,
    patience: float = PATIENCE,
) -> list[ShoeEvent]:
    """Events until ``until(events)`` holds; fails (not hangs) after ``patience`` seconds."""
    events: list[ShoeEvent] = []
    deadline = time.monotonic() + patience
    while not until(events):
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"gave up waiting; got {len(events)} events: {events[-5:]}")
        event = driver.get(timeout=min(left, 1.0))
        if event is not None:
            events.append(event)
    return events


def cards_in(events: list[ShoeEvent]) -> list[CardDrawn]:
    return [e for e in events if isinstance(e, CardDrawn)]


def n_cards(n: int) -> Callable[[list[ShoeEvent]], bool]:
    return lambda events: len(cards_in(events)) >= n


def drawn_by_sim(sim: SimulatedShoeProcess, n: int) -> list[tuple[int, str]]:
    notices = sim.wait_notice("drew ", count=n, timeout=PATIENCE)
    return [(int(counter), code) for _, counter, code in (line.split() for line in notices[:n])]


def assert_exactly_once_in_order(events: list[ShoeEvent], expected: list[tuple[int, str]]) -> None:
    got = [(e.draw_counter, e.card.code) for e in cards_in(events)]
    assert got == expected
    assert not [e for e in events if isinstance(e, DrawGap)]


FAULTS = {
    "corrupt": Faults(corrupt=0.2),
    "drop": Faults(drop=0.2),
    "duplicate": Faults(duplicate=0.2),
    "garbage": Faults(garbage=0.2),
    "all": Faults(corrupt=0.1, drop=0.1, duplicate=0.1, garbage=0.1),
}


@pytest.mark.parametrize("kind", list(FAULTS))
def test_full_deck_arrives_complete_in_order_once_under_faults(
    kind: str, make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    sim = make_sim(seed=11, draw_interval=0.005, faults=FAULTS[kind], fault_seed=5)
    # resume_after=0: the shoe is drawing before the driver connects; replay from its first draw.
    driver = make_driver(sim.device_path, resume_after=0)
    events = collect(driver, n_cards(52))
    assert_exactly_once_in_order(events, drawn_by_sim(sim, 52))
    assert {c.card for c in cards_in(events)} == {card(code) for _, code in drawn_by_sim(sim, 52)}


def test_disconnects_resume_with_no_gap_and_no_double(
    make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    sim = make_sim(seed=4, draw_interval=0.01, disconnect_every=8, disconnect_for=0.05)
    driver = make_driver(sim.device_path, resume_after=0, reconnect_max=0.05)
    events = collect(driver, n_cards(52))
    assert_exactly_once_in_order(events, drawn_by_sim(sim, 52))
    assert len(sim.wait_notice("disconnected", count=3)) >= 3
    downs = [e for e in events if isinstance(e, LinkDown)]
    ups = [e for e in events if isinstance(e, LinkUp)]
    # How many of the sim's outages the driver saw depends on scheduling; each one it saw was
    # reported down, and each reconnection resumed.
    assert downs
    assert len(ups) == len(downs) + 1
    assert all(up.resumed for up in ups)
    assert any(c.replayed for c in cards_in(events))  # drawn while the line was down


def test_silent_line_is_reported_down_by_timeout_and_resumes_without_loss(
    make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    sim = make_sim(seed=8)
    driver = make_driver(sim.device_path)
    collect(driver, lambda ev: any(isinstance(e, LinkUp) for e in ev))
    first = [sim.draw() for _ in range(3)]
    events = collect(driver, n_cards(3))
    sim.command("mute")
    down = collect(driver, lambda ev: any(isinstance(e, LinkDown) for e in ev))
    assert "no frame" in down[-1].reason  # found by the link timeout, not by a port failure
    during = [sim.draw() for _ in range(4)]  # the dealer goes on dealing while the cable is cut
    sim.command("unmute")
    events += down + collect(driver, n_cards(4))
    assert_exactly_once_in_order(events, first + during)
    assert [c.replayed for c in cards_in(events)[3:]] == [True] * 4


def test_status_events_and_duplicate_identity_reach_the_consumer_in_order(
    make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    sim = make_sim(cards=tuple(card(c) for c in ("As", "Kd", "Qh")))
    driver = make_driver(sim.device_path)
    collect(driver, lambda ev: any(isinstance(e, LinkUp) for e in ev))
    script = ["draw", "lid-open", "lid-close", "jam", "clear", "duplicate", "unreadable", "draw", "empty"]
    for line in script:
        sim.command(line)
    events = collect(driver, lambda ev: any(isinstance(e, ShoeStatus) and e.code is StatusCode.EMPTY for e in ev))
    summary = [
        (e.card.code, e.draw_counter) if isinstance(e, CardDrawn) else (e.code.value, e.draw_counter)
        for e in events
        if isinstance(e, CardDrawn | ShoeStatus)
    ]
    assert summary == [
        ("As", 1),
        ("lid-open", 1),
        ("lid-closed", 1),
        ("jam", 1),
        ("jam-cleared", 1),
        ("As", 2),  # the same identity again: a normal draw, the table decides it is a tilt
        ("unreadable", 3),
        ("Qh", 4),
        ("empty", 4),
    ]
    jam = next(e for e in events if isinstance(e, ShoeStatus) and e.code is StatusCode.JAM)
    assert jam.flags.jammed
    assert not jam.flags.lid_open
    with pytest.raises(Exception, match="empty"):
        sim.draw()
    sim.command("shuffle")
    assert sim.draw() == (5, "As")


def test_a_slow_consumer_loses_nothing_through_a_tiny_queue(
    make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    sim = make_sim(seed=21, draw_interval=0.003, ack_timeout=0.01)
    driver = make_driver(sim.device_path, queue_size=2, resume_after=0)
    expected = drawn_by_sim(sim, 52)  # the whole deck is drawn while nobody consumes
    # Long enough for the shoe to exhaust its retransmissions (about 1 s at this ack timeout) and
    # start a new session against a driver that cannot acknowledge; correctness must not depend on it.
    time.sleep(1.5)
    events = collect(driver, n_cards(52))
    assert_exactly_once_in_order(events, expected)


def test_asyncio_consumer_gets_events_without_blocking_the_loop(
    make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    sim = make_sim(seed=2)
    driver = make_driver(sim.device_path)

    async def main() -> list[CardDrawn]:
        linked = asyncio.Event()

        async def dealer() -> None:
            # Runs on the same loop: it only gets to draw if waiting for events leaves the loop free.
            await linked.wait()
            for _ in range(5):
                await asyncio.to_thread(sim.draw)

        async def consumer() -> list[CardDrawn]:
            cards: list[CardDrawn] = []
            async for event in driver.aevents():
                if isinstance(event, LinkUp):
                    linked.set()
                if isinstance(event, CardDrawn):
                    cards.append(event)
                    if len(cards) == 5:
                        break
            return cards

        _, cards = await asyncio.gather(dealer(), consumer())
        return cards

    cards = asyncio.run(asyncio.wait_for(main(), PATIENCE))
    assert [c.draw_counter for c in cards] == [1, 2, 3, 4, 5]


def test_missing_device_is_an_error_only_when_required(make_driver: Callable[..., ShoeDriver]) -> None:
    from drivers.shoe import ShoeConfig

    strict = ShoeDriver(config=ShoeConfig(url="/dev/nonexistent-shoe"))
    with pytest.raises(TransportError, match="cannot open shoe"):
        strict.start(require_device=True)
    patient = make_driver("/dev/nonexistent-shoe")
    # Said once (the table raises its link tilt from the start), then retried with backoff, quietly.
    down = patient.get(timeout=5)
    assert isinstance(down, LinkDown) and "/dev/nonexistent-shoe" in down.reason
    assert patient.get(timeout=0.5) is None
    assert patient.running
    patient.stop()
    assert not patient.running


class TestShoeInTheLoop:
    """Runs against the simulator, or a real shoe when DEALER_ASSIST_SHOE names its device.

    With a real shoe the technician draws cards when prompted; only what any shoe must do is checked.
    """

    CARDS = 5

    @pytest.fixture
    def shoe(
        self, make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
    ) -> tuple[ShoeDriver, SimulatedShoeProcess | None]:
        device = os.environ.get("DEALER_ASSIST_SHOE")
        if device:
            return make_driver(device, link_timeout=1.0, heartbeat_interval=0.25), None
        sim = make_sim(seed=99)
        return make_driver(sim.device_path), sim

    def test_link_comes_up_and_draws_arrive_with_consecutive_counters(
        self, shoe: tuple[ShoeDriver, SimulatedShoeProcess | None]
    ) -> None:
        driver, sim = shoe
        events = collect(driver, lambda ev: any(isinstance(e, LinkUp) for e in ev))
        up = next(e for e in events if isinstance(e, LinkUp))
        assert up.protocol_version == 1
        assert up.shoe_id
        if sim is None:
            print(f"\nshoe {up.shoe_id} linked: draw {self.CARDS} cards now", flush=True)
            expected = None
        else:
            expected = [sim.draw() for _ in range(self.CARDS)]
        events = collect(driver, n_cards(self.CARDS), patience=120.0)
        cards = cards_in(events)[: self.CARDS]
        counters = [c.draw_counter for c in cards]
        assert counters == list(range(counters[0], counters[0] + self.CARDS))
        assert counters[0] == up.draw_counter + 1
        assert all(c.shoe_id == up.shoe_id for c in cards)
        if expected is not None:
            assert [(c.draw_counter, c.card.code) for c in cards] == expected


def test_cancelling_an_asyncio_consumer_loses_no_event(
    make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    sim = make_sim(seed=6)
    driver = make_driver(sim.device_path)

    async def main() -> list[ShoeEvent]:
        events = driver.aevents()
        assert isinstance(await anext(events), LinkUp)
        waiting = asyncio.create_task(anext(events))
        await asyncio.sleep(0.05)  # the consumer is now parked waiting for the next event
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await asyncio.to_thread(sim.draw)
        await asyncio.to_thread(sim.draw)
        return [e async for e in _take_cards(driver, 2)]

    got = asyncio.run(asyncio.wait_for(main(), PATIENCE))
    assert [e.draw_counter for e in got if isinstance(e, CardDrawn)] == [1, 2]


async def _take_cards(driver: ShoeDriver, n: int):  # type: ignore[no-untyped-def]
    seen = 0
    async for event in driver.aevents():
        yield event
        if isinstance(event, CardDrawn):
            seen += 1
            if seen == n:
                return


def test_callback_mode_delivers_every_event_on_the_io_thread(
    make_sim: Callable[..., SimulatedShoeProcess],
) -> None:
    import threading

    from drivers.shoe import ShoeConfig

    sim = make_sim(seed=13)
    got: list[tuple[ShoeEvent, str]] = []
    arrived = threading.Condition()

    def on_event(event: ShoeEvent) -> None:
        with arrived:
            got.append((event, threading.current_thread().name))
            arrived.notify_all()

    driver = ShoeDriver(config=ShoeConfig(url=sim.device_path, link_timeout=0.4), on_event=on_event)
    driver.start()
    try:
        with arrived:
            assert arrived.wait_for(lambda: any(isinstance(e, LinkUp) for e, _ in got), PATIENCE)
        expected = [sim.draw() for _ in range(3)]
        with arrived:
            assert arrived.wait_for(lambda: len([e for e, _ in got if isinstance(e, CardDrawn)]) == 3, PATIENCE)
    finally:
        driver.stop()
    cards = [e for e, _ in got if isinstance(e, CardDrawn)]
    assert [(c.draw_counter, c.card.code) for c in cards] == expected
    assert {name for _, name in got} == {f"shoe:{sim.device_path}"}
    assert driver.get(timeout=0) is None  # nothing went to the queue as well


def test_a_second_reader_of_the_same_shoe_is_refused(
    make_sim: Callable[..., SimulatedShoeProcess], make_driver: Callable[..., ShoeDriver]
) -> None:
    from drivers.shoe import ShoeConfig

    sim = make_sim(seed=3)
    first = make_driver(sim.device_path)
    collect(first, lambda ev: any(isinstance(e, LinkUp) for e in ev))
    second = ShoeDriver(config=ShoeConfig(url=sim.device_path))
    with pytest.raises(TransportError, match="cannot open shoe"):
        second.start(require_device=True)
    sim.draw()
    assert [c.draw_counter for c in cards_in(collect(first, n_cards(1)))] == [1]


def test_a_draw_the_consumer_refused_is_not_acknowledged_and_comes_again(
    make_sim: Callable[..., SimulatedShoeProcess],
) -> None:
    """A consumer that cannot store a draw (its journal is full) refuses it: the driver does not
    acknowledge it, and the shoe, asked again, sends it — once accepted, each draw arrives once."""
    import threading

    from drivers.errors import DeliveryRefused
    from drivers.shoe import ShoeConfig

    sim = make_sim(seed=4)
    stored: list[int] = []
    refusing = threading.Event()
    refusing.set()
    refusals: list[int] = []

    def consume(event: ShoeEvent) -> None:
        if isinstance(event, CardDrawn):
            if refusing.is_set():
                refusals.append(event.draw_counter)
                raise DeliveryRefused("journal unavailable: disk full")
            stored.append(event.draw_counter)

    driver = ShoeDriver(
        config=ShoeConfig(url=sim.device_path, link_timeout=0.4, heartbeat_interval=0.05, reconnect_initial=0.02),
        on_event=consume,
    )
    driver.start()
    try:
        wait_for(lambda: driver.link_up, "the link")
        for _ in range(3):
            sim.draw()
        wait_for(lambda: len(refusals) >= 3, "the draws to be offered")
        assert stored == []
        refusing.clear()
        wait_for(lambda: len(stored) >= 3, "the refused draws to come again")
        sim.draw()
        wait_for(lambda: len(stored) >= 4, "the next draw")
        assert stored == [1, 2, 3, 4]
    finally:
        driver.stop()


def test_an_unplugged_simulated_shoe_leaves_no_link_to_a_pty_another_process_may_get(
    make_sim: Callable[..., SimulatedShoeProcess],
) -> None:
    # Closed, the old pty's number goes to the next pty any process opens: a link left on it led a
    # driver reconnecting in parallel tests to another simulator's pty (it locked it, and that test's
    # own driver could not open its shoe).
    sim = make_sim(seed=4)
    link = Path(sim.device_path)
    before = os.readlink(link)
    sim.command("disconnect 1")
    assert not link.exists() and not link.is_symlink()
    sim.wait_notice("connected", timeout=10.0)
    assert before.startswith("/dev/pts/")
    assert link.is_symlink() and Path(os.readlink(link)).exists()
