"""The shoe driver: serial I/O on its own thread, events to the consumer through a bounded, lossless queue.

Usage (threads)::

    driver = ShoeDriver(config=ShoeConfig(url="/dev/ttyUSB0"))
    driver.start()
    for event in driver.events():      # blocks; ends after driver.stop()
        ...

Usage (asyncio)::

    driver.start()
    async for event in driver.aevents():
        ...

Lossless and bounded at once: the I/O thread acknowledges a draw to the shoe only after its event is in
the queue. When the consumer falls behind and the queue is full, the thread waits, the shoe stops
getting acknowledgements and keeps its draws in its replay buffer, and they arrive once the consumer
catches up (docs/shoe-protocol.md, "Sequencing").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator

from drivers.errors import DeliveryRefused, TransportError
from drivers.shoe.config import ShoeConfig
from drivers.shoe.events import CardDrawn, DrawGap, LinkDown, LinkUp, ShoeEvent, ShoeStatus, StatusCode
from drivers.shoe.session import ShoeProtocol, Step, make_protocol
from drivers.shoe.transport import ShoeTransport, transport_for

log = logging.getLogger(__name__)


class ShoeDriver:
    """One shoe connection. Thread-safe to ``start``/``stop``; one consumer reads its events.

    ``on_event``, when given, is called on the driver's I/O thread for every event *instead of* queueing
    it; it must be quick and thread-safe (e.g. ``loop.call_soon_threadsafe``). A callback that raises is
    logged and the event counts as delivered.
    """

    def __init__(
        self,
        *,
        config: ShoeConfig,
        on_event: Callable[[ShoeEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Raises: DriverConfigError: no transport for the URL or no protocol of that name."""
        self.config = config
        self._on_event = on_event
        self._clock = clock
        self._protocol: ShoeProtocol = make_protocol(config)
        self._transport: ShoeTransport = transport_for(config)
        self._queue: queue.Queue[ShoeEvent] = queue.Queue(maxsize=config.queue_size)
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        # Separate from _lock: stop() holds _lock while it joins the I/O thread, which wakes waiters.
        self._wakers_lock = threading.Lock()
        self._wakers: list[Callable[[], None]] = []
        self._down_reported = False  # a LinkDown was delivered and no LinkUp since

    # --- lifecycle ---------------------------------------------------------------------------------

    def start(self, *, require_device: bool = False) -> None:
        """Start the I/O thread and return at once.

        With ``require_device`` the port is opened before returning, so a wrong path fails here;
        otherwise a missing device is retried with backoff for as long as the driver runs.

        Raises:
            TransportError: with ``require_device``, when the port cannot be opened.
            RuntimeError: the driver is already running.
        """
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("shoe driver already started")
            if require_device:
                self._transport.open()
            self._stopping.clear()
            self._stopped.clear()
            self._thread = threading.Thread(target=self._run, name=f"shoe:{self.config.url}", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the I/O thread and close the port; ``events()`` iterators end after the queue drains."""
        with self._lock:
            thread = self._thread
            self._stopping.set()
            self._transport.cancel_read()
            if thread is not None:
                thread.join(timeout)
            self._thread = None
            self._stopped.set()
        self._wake_async()

    def __enter__(self) -> ShoeDriver:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether the I/O thread runs."""
        return not self._stopped.is_set()

    @property
    def link_up(self) -> bool:
        """Whether a session with the shoe is established (a snapshot; events are the reliable signal)."""
        return self._protocol.link_up

    @property
    def last_draw_counter(self) -> int | None:
        """Counter of the last draw the driver accepted from the shoe (its event is queued or being
        queued). A consumer resuming after a restart should use the last counter *it* recorded."""
        return self._protocol.last_draw_counter

    # --- consuming ---------------------------------------------------------------------------------

    def get(self, timeout: float | None = None) -> ShoeEvent | None:
        """The next event, or None after ``timeout`` seconds or once stopped with nothing left."""
        deadline = None if timeout is None else self._clock() + timeout
        while True:
            wait = 0.1 if deadline is None else min(0.1, max(0.0, deadline - self._clock()))
            try:
                return self._queue.get(timeout=wait)
            except queue.Empty:
                if self._stopped.is_set() and self._queue.empty():
                    return None
                if deadline is not None and self._clock() >= deadline:
                    return None

    def events(self) -> Iterator[ShoeEvent]:
        """Every event in order, blocking between them; ends when the driver is stopped and drained."""
        while True:
            event = self.get()
            if event is None:
                return
            yield event

    async def aevents(self) -> AsyncIterator[ShoeEvent]:
        """``events()`` for asyncio. The loop never blocks: the I/O thread wakes it through
        ``call_soon_threadsafe``. Cancellation-safe: an event is taken from the queue only when it is
        yielded, so cancelling the consuming task loses nothing."""
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening any more
                loop.call_soon_threadsafe(ready.set)

        with self._wakers_lock:
            self._wakers.append(wake)
        try:
            while True:
                try:
                    event = self._queue.get_nowait()
                except queue.Empty:
                    if self._stopped.is_set():
                        return
                    ready.clear()
                    # Checked again after clear(): a put between the first check and clear() would
                    # otherwise leave us waiting for a wake-up that already happened.
                    if self._queue.empty() and not self._stopped.is_set():
                        await ready.wait()
                    continue
                yield event
        finally:
            with self._wakers_lock:
                self._wakers.remove(wake)

    # --- the I/O thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        backoff = self.config.reconnect_initial
        transport = self._transport
        try:
            while not self._stopping.is_set():
                if not transport.is_open:
                    try:
                        transport.open()
                    except TransportError as exc:
                        log.debug("%s; retrying in %.2f s", exc, backoff)
                        if not self._down_reported:
                            # A shoe missing from the start is a link down too: the table must not
                            # tell the dealer to deal.
                            self._deliver(LinkDown(reason=str(exc), received_at=self._clock()))
                        self._stopping.wait(backoff)
                        backoff = min(backoff * 2, self.config.reconnect_max)
                        continue
                    backoff = self.config.reconnect_initial
                try:
                    self._apply(self._protocol.connected(self._clock()))
                    self._pump()
                except TransportError as exc:
                    self._lost(str(exc))
                except Exception as exc:
                    # A bug in an adapter must not silently end the link for the rest of the shift:
                    # report it, drop the connection and start over, as for a failing port.
                    log.exception("shoe protocol failed on %s", self.config.url)
                    self._lost(f"internal error: {type(exc).__name__}: {exc}")
                    self._stopping.wait(backoff)
        finally:
            transport.close()
            self._stopped.set()
            self._wake_async()

    def _lost(self, reason: str) -> None:
        self._transport.close()
        if not self._stopping.is_set():
            self._deliver_all(self._protocol.disconnected(reason, self._clock()).events)

    def _wake_async(self) -> None:
        with self._wakers_lock:
            wakers = list(self._wakers)
        for wake in wakers:
            wake()

    def _pump(self) -> None:
        transport = self._transport
        protocol = self._protocol
        while not self._stopping.is_set():
            data = transport.read()
            now = self._clock()
            if data:
                self._apply(protocol.received(data, now))
            self._apply(protocol.tick(now))

    def _apply(self, step: Step) -> None:
        # Events first: an acknowledgement must never leave before its draw is handed over, nor at all
        # when the consumer refused it (nothing stored, nothing acknowledged: the shoe sends it again).
        if self._deliver_all(step.events) and step.send and not self._stopping.is_set():
            self._transport.write(step.send)

    def _deliver_all(self, events: list[ShoeEvent]) -> bool:
        """Hand the events over in order; False (and the protocol rewound) when the consumer refused one."""
        for event in events:
            if not self._deliver(event):
                self._protocol.refused(_draw_of(event))
                return False
        return True

    def _deliver(self, event: ShoeEvent) -> bool:
        if isinstance(event, LinkDown | LinkUp):
            self._down_reported = isinstance(event, LinkDown)
        if self._on_event is not None:
            try:
                self._on_event(event)
            except DeliveryRefused as exc:
                log.warning("shoe event %s not stored, not acknowledged: %s", type(event).__name__, exc)
                return False
            except Exception:
                log.exception("shoe event callback failed on %r", event)
            return True
        while not self._stopping.is_set():
            try:
                self._queue.put(event, timeout=0.1)
            except queue.Full:
                continue
            self._wake_async()
            return True
        return True


def _draw_of(event: ShoeEvent) -> int | None:
    """The draw counter an event stands for (its card, an unreadable card, the first of lost draws)."""
    match event:
        case CardDrawn(draw_counter=counter) | ShoeStatus(code=StatusCode.UNREADABLE, draw_counter=counter):
            return counter
        case DrawGap(first=first):
            return first
    return None
