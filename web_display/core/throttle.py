"""Sign-in throttling that cannot be turned against staff, failed sign-ins audited per burst, and the
bound on concurrent password hashing.

Throttling (``LoginThrottle``): after a few free failures, each further failure makes the next attempt
wait longer (1 s, 2 s, 4 s, ... up to a ceiling). Delays are kept per source address, and per account
name for browsers the account has never signed in from; a browser that has signed in as that account
before holds a trusted-device cookie and is throttled on its own (per device) instead. So an attacker
guessing the dealer's password slows down only himself: the dealer signs in from his own terminal (its
address, or its device cookie) at once. An attempt refused while its delay runs is cheap (no password
hash) and does not lengthen the delay. The state is in memory and bounded: a restart forgets it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from web_display.errors import WebError

MAX_KEYS = 10_000  # per kind of key: an attacker with many addresses costs bounded memory


class TooManyAttempts(WebError):
    """Sign-ins refused for a while after repeated failures (HTTP 429 with Retry-After)."""

    status = 429

    def __init__(self, wait: float) -> None:
        self.retry_after = max(1, int(wait + 0.999))
        super().__init__(f"too many failed sign-ins: wait {self.retry_after} s and try again")


class ServerBusy(WebError):
    """Too many sign-ins at once: the server refuses more rather than run out of memory (HTTP 503)."""

    status = 503
    retry_after = 1


@dataclass(frozen=True, slots=True)
class Backoff:
    """Failures allowed before delays start, the first delay, the longest, and when a key is forgotten."""

    free: int = 5
    first: float = 1.0
    ceiling: float = 300.0
    forget: float = 3600.0

    def delay(self, failures: int) -> float:
        """The wait after ``failures`` failures in a row."""
        if failures < self.free:
            return 0.0
        return min(self.ceiling, self.first * 2.0 ** min(failures - self.free, 30))


@dataclass(slots=True)
class _Record:
    failures: int = 0
    not_before: float = 0.0
    last: float = 0.0


class _Delays:
    """Failures and the time of the next allowed attempt, per key; least recently failed evicted."""

    def __init__(self, policy: Backoff) -> None:
        self.policy = policy
        self._keys: OrderedDict[str, _Record] = OrderedDict()

    def wait(self, key: str, now: float) -> float:
        record = self._keys.get(key)
        if record is None:
            return 0.0
        if now - record.last > self.policy.forget:
            del self._keys[key]
            return 0.0
        return max(0.0, record.not_before - now)

    def failed(self, key: str, now: float) -> None:
        record = self._keys.pop(key, None) or _Record()
        if now - record.last > self.policy.forget:
            record = _Record()
        record.failures += 1
        record.last = now
        record.not_before = now + self.policy.delay(record.failures)
        self._keys[key] = record
        while len(self._keys) > MAX_KEYS:
            self._keys.popitem(last=False)

    def forget(self, key: str) -> None:
        self._keys.pop(key, None)


@dataclass(frozen=True, slots=True)
class Attempt:
    """Who is trying to sign in: the name asked for, the source address, and whether the browser holds a
    trusted-device cookie of that name (``device``: the cookie, as a key of its own)."""

    name: str
    address: str
    device: str | None = None


class LoginThrottle:
    """Growing delays per source address, per account name (untrusted browsers) and per trusted device."""

    def __init__(
        self,
        *,
        address: Backoff = Backoff(),
        account: Backoff = Backoff(free=20),
        device: Backoff = Backoff(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._address = _Delays(address)
        self._account = _Delays(account)
        self._device = _Delays(device)
        self._clock = clock
        self._lock = threading.Lock()

    def wait(self, attempt: Attempt) -> float:
        """Seconds before this attempt may be checked (0: now)."""
        now = self._clock()
        with self._lock:
            if attempt.device is not None:
                return self._device.wait(attempt.device, now)
            return max(self._address.wait(attempt.address, now), self._account.wait(attempt.name, now))

    def failed(self, attempt: Attempt) -> None:
        now = self._clock()
        with self._lock:
            if attempt.device is not None:
                self._device.failed(attempt.device, now)
            else:
                self._address.failed(attempt.address, now)
                self._account.failed(attempt.name, now)

    def succeeded(self, attempt: Attempt) -> None:
        """A right password: this address (or device) starts afresh; the name's count is left to run out,
        so that guessing from many addresses stays slow however often the real user signs in."""
        with self._lock:
            if attempt.device is not None:
                self._device.forget(attempt.device)
            else:
                self._address.forget(attempt.address)


@dataclass(slots=True)
class _Burst:
    first: str
    last: str
    last_seen: float
    started: float
    count: int = 0
    throttled: int = 0
    names: Counter[str] = field(default_factory=Counter)


class FailedSignIns:
    """Failed sign-ins for the audit log, one burst per source address: the first failure is written at
    once, the rest of the burst as one line when it ends (quiet for ``quiet`` seconds, older than
    ``span``, a sign-in from that address succeeds, or the server stops)."""

    def __init__(
        self,
        *,
        write: Callable[[str, str, str], None],
        quiet: float = 60.0,
        span: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
        stamp: Callable[[], str] | None = None,
    ) -> None:
        from datetime import UTC, datetime

        self._write = write
        self._quiet = quiet
        self._span = span
        self._clock = clock
        self._stamp = stamp or (lambda: datetime.now(UTC).isoformat(timespec="seconds"))
        self._bursts: OrderedDict[str, _Burst] = OrderedDict()
        self._lock = threading.Lock()

    def failed(self, *, name: str, address: str, throttled: bool) -> None:
        now = self._clock()
        ended: list[tuple[str, _Burst]] = []
        with self._lock:
            burst = self._bursts.get(address)
            if burst is not None and (now - burst.last_seen > self._quiet or now - burst.started > self._span):
                ended.append((address, self._bursts.pop(address)))
                burst = None
            if burst is None:
                stamp = self._stamp()
                self._bursts[address] = _Burst(first=stamp, last=stamp, last_seen=now, started=now)
                first = True
            else:
                burst.count += 1
                burst.throttled += throttled
                burst.names[name] += 1
                burst.last = self._stamp()
                burst.last_seen = now
                first = False
            while len(self._bursts) > MAX_KEYS:
                ended.append(self._bursts.popitem(last=False))
        for item in ended:
            self._end(*item)
        if first:
            self._write(name, "login-failed", f"from {address}{' (refused by the throttle)' if throttled else ''}")

    def flush(self, *, address: str | None = None, idle_only: bool = False) -> None:
        """Write the bursts that ended: one address's, the idle ones, or all (the server stops)."""
        now = self._clock()
        with self._lock:
            if address is not None:
                ended = [(address, b) for b in [self._bursts.pop(address, None)] if b is not None]
            else:
                keys = [
                    a
                    for a, b in self._bursts.items()
                    if not idle_only or now - b.last_seen > self._quiet or now - b.started > self._span
                ]
                ended = [(a, self._bursts.pop(a)) for a in keys]
        for item in ended:
            self._end(*item)

    def _end(self, address: str, burst: _Burst) -> None:
        if not burst.count:
            return  # the burst's one failure was written when it happened
        names = ", ".join(f"{n} ×{c}" for n, c in burst.names.most_common(10))
        if len(burst.names) > 10:
            names += f" and {len(burst.names) - 10} other names"
        who = next(iter(burst.names)) if len(burst.names) == 1 else "several names"
        detail = (
            f"{burst.count} more failed sign-ins from {address} between {burst.first} and {burst.last} "
            f"({burst.throttled} refused by the throttle); names: {names}"
        )
        self._write(who, "login-failed", detail)


class HashGate:
    """At most ``concurrent`` password hashes at once (argon2id takes 64 MiB each), at most ``waiting``
    more queued, and at most ``per_address`` in flight from one source address; beyond that a sign-in is
    refused at once (ServerBusy) rather than queued without bound."""

    def __init__(self, *, concurrent: int, waiting: int, per_address: int) -> None:
        self._semaphore = asyncio.Semaphore(concurrent)
        self._room = concurrent + waiting
        self._per_address = per_address
        self._inside = 0
        self._by_address: Counter[str] = Counter()

    @asynccontextmanager
    async def slot(self, address: str) -> AsyncIterator[None]:
        """Hold a hashing slot (on the event loop's thread).

        Raises:
            ServerBusy: the queue is full, or this address already has its sign-ins in flight.
        """
        if self._inside >= self._room:
            raise ServerBusy("too many sign-ins at once: try again in a moment")
        if self._by_address[address] >= self._per_address:
            raise ServerBusy("a sign-in from this address is already being checked: try again in a moment")
        self._inside += 1
        self._by_address[address] += 1
        try:
            async with self._semaphore:
                yield
        finally:
            self._inside -= 1
            self._by_address[address] -= 1
            if not self._by_address[address]:
                del self._by_address[address]
