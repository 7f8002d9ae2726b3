"""Sign-in throttling: growing delays per address, per name for untrusted browsers, per trusted device;
refused attempts cost nothing and extend nothing; failed sign-ins audited per burst; bounded hashing."""

from __future__ import annotations

import asyncio

from web_display.core.throttle import Attempt, Backoff, FailedSignIns, HashGate, LoginThrottle, ServerBusy


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_delays_double_after_the_free_failures_up_to_the_ceiling() -> None:
    policy = Backoff(free=3, first=1.0, ceiling=10.0)
    assert [policy.delay(n) for n in range(1, 9)] == [0, 0, 1, 2, 4, 8, 10, 10]


def test_waiting_out_a_delay_always_works_and_refused_attempts_do_not_extend_it() -> None:
    clock = FakeClock()
    throttle = LoginThrottle(address=Backoff(free=2, first=4.0), clock=clock)
    attacker = Attempt(name="dealer", address="10.0.0.2")
    for _ in range(2):
        assert throttle.wait(attacker) == 0
        throttle.failed(attacker)
    assert throttle.wait(attacker) == 4.0
    for _ in range(64):  # hammering while refused: nothing is recorded, the delay stays put
        clock.now += 1 / 64
        throttle.wait(attacker)
    assert throttle.wait(attacker) == 3.0
    clock.now += 3.0
    assert throttle.wait(attacker) == 0


def test_one_address_guessing_does_not_slow_another_address_or_a_trusted_device() -> None:
    clock = FakeClock()
    throttle = LoginThrottle(address=Backoff(free=2), account=Backoff(free=5), clock=clock)
    attacker = Attempt(name="dealer", address="10.0.0.2")
    for _ in range(4):
        clock.now += throttle.wait(attacker)
        throttle.failed(attacker)
    assert throttle.wait(attacker) > 0
    assert throttle.wait(Attempt(name="dealer", address="10.0.0.3")) == 0  # the real dealer's terminal


def test_guessing_from_many_addresses_slows_the_name_but_never_its_trusted_devices() -> None:
    clock = FakeClock()
    throttle = LoginThrottle(address=Backoff(free=5), account=Backoff(free=3, first=60.0), clock=clock)
    for i in range(10):
        throttle.failed(Attempt(name="supervisor", address=f"10.0.1.{i}"))
    assert throttle.wait(Attempt(name="supervisor", address="10.0.2.1")) > 0  # a new browser waits
    assert throttle.wait(Attempt(name="supervisor", address="10.0.2.1", device="cookie")) == 0
    assert throttle.wait(Attempt(name="dealer", address="10.0.2.1")) == 0  # other names are not slowed


def test_a_success_clears_the_address_but_not_the_names_count() -> None:
    clock = FakeClock()
    throttle = LoginThrottle(address=Backoff(free=1, first=5.0), account=Backoff(free=2, first=5.0), clock=clock)
    attempt = Attempt(name="dealer", address="10.0.0.3")
    throttle.failed(attempt)
    assert throttle.wait(attempt) == 5.0
    throttle.succeeded(attempt)
    assert throttle.wait(Attempt(name="other", address="10.0.0.3")) == 0
    throttle.failed(Attempt(name="dealer", address="10.0.0.9"))
    assert throttle.wait(Attempt(name="dealer", address="10.0.0.8")) == 5.0


def test_failed_sign_ins_are_written_once_per_burst() -> None:
    clock = FakeClock()
    rows: list[tuple[str, str, str]] = []
    log = FailedSignIns(write=lambda *row: rows.append(row), quiet=60, span=600, clock=clock, stamp=lambda: "T")
    for i in range(40):
        clock.now += 1
        log.failed(name="dealer" if i % 4 else "admin", address="10.0.0.2", throttled=i > 10)
    log.failed(name="kim", address="10.0.0.7", throttled=False)
    assert rows == [("admin", "login-failed", "from 10.0.0.2"), ("kim", "login-failed", "from 10.0.0.7")]
    clock.now += 61  # quiet for a minute: the burst ended
    log.flush(idle_only=True)
    assert rows[2] == (
        "several names",
        "login-failed",
        "39 more failed sign-ins from 10.0.0.2 between T and T (29 refused by the throttle); "
        "names: dealer ×30, admin ×9",
    )
    assert len(rows) == 3  # 10.0.0.7 had one failure, written when it happened


def test_a_burst_longer_than_its_span_is_written_and_a_new_one_starts() -> None:
    clock = FakeClock()
    rows: list[tuple[str, str, str]] = []
    log = FailedSignIns(write=lambda *row: rows.append(row), quiet=60, span=600, clock=clock, stamp=lambda: "T")
    for _ in range(1300):  # one attempt every second for more than 21 minutes
        clock.now += 1
        log.failed(name="dealer", address="10.0.0.2", throttled=True)
    assert [r[2].split(" between")[0] for r in rows] == [
        "from 10.0.0.2 (refused by the throttle)",
        "600 more failed sign-ins from 10.0.0.2",
        "from 10.0.0.2 (refused by the throttle)",
        "600 more failed sign-ins from 10.0.0.2",
        "from 10.0.0.2 (refused by the throttle)",
    ]


def test_the_hash_gate_bounds_work_in_progress_and_what_waits() -> None:
    async def scenario() -> list[str]:
        gate = HashGate(concurrent=1, waiting=2, per_address=1)
        release = asyncio.Event()
        outcomes: list[str] = []

        async def sign_in(address: str) -> None:
            try:
                async with gate.slot(address):
                    await release.wait()
                outcomes.append(f"{address} ok")
            except ServerBusy as exc:
                outcomes.append(f"{address} busy: {exc.message}")

        tasks = [asyncio.create_task(sign_in(a)) for a in ("a", "a", "b", "c", "d")]
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(*tasks)
        return outcomes

    outcomes = asyncio.run(scenario())
    assert sorted(outcomes) == [
        "a busy: a sign-in from this address is already being checked: try again in a moment",
        "a ok",
        "b ok",
        "c ok",
        "d busy: too many sign-ins at once: try again in a moment",
    ]
