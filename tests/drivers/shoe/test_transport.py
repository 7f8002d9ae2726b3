"""Backends chosen by URL, the reference protocol over socket://, and the seam for another vendor."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from controller.cards import card
from drivers.errors import DriverConfigError
from drivers.shoe import CardDrawn, LinkDown, LinkUp, ShoeConfig, ShoeDriver, ShoeEvent, ShoeFlags
from drivers.shoe import session as session_module
from drivers.shoe.session import ShoeProtocol, Step
from drivers.shoe.sim.device import ShoeDevice
from drivers.shoe.transport import SerialTransport, transport_for, url_scheme


@pytest.mark.parametrize(
    ("url", "scheme"),
    [("/dev/ttyUSB0", ""), ("/dev/pts/3", ""), ("socket://10.0.0.5:4000", "socket"), ("loop://", "loop")],
)
def test_backend_is_chosen_by_path_or_url(url: str, scheme: str) -> None:
    assert url_scheme(url) == scheme
    assert isinstance(transport_for(ShoeConfig(url=url)), SerialTransport)


def test_unknown_scheme_and_bad_settings_are_config_errors() -> None:
    with pytest.raises(DriverConfigError, match="no shoe transport"):
        transport_for(ShoeConfig(url="carrier-pigeon://coop"))
    with pytest.raises(DriverConfigError, match="link_timeout"):
        ShoeConfig(url="loop://", link_timeout=0)
    with pytest.raises(DriverConfigError, match="empty"):
        ShoeConfig(url=" ")


class ShoeServer:
    """A shoe behind a TCP socket (as with a serial-to-Ethernet adapter), run by the test."""

    def __init__(self, serve: object) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=serve, args=(self,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


def serve_reference(server: ShoeServer) -> None:
    device = ShoeDevice(shoe_id="NET-1")
    conn, _ = server.sock.accept()
    conn.settimeout(0.005)
    drawn = False
    with conn:
        while not server.stop.is_set():
            now = time.monotonic()
            try:
                data = conn.recv(4096)
            except TimeoutError:
                data = b""
            except ConnectionError:
                return  # the driver hung up (the test is over)
            out = device.receive(data, now) if data else device.poll(now)
            if device.linked and not drawn:
                drawn = True
                for code in ("9c", "9d", "9h"):
                    device.draw(card(code))
            try:
                for frame in out:
                    conn.sendall(frame)
            except ConnectionError:
                # The driver stops once it has its three cards and closes the socket, which can
                # fall between a poll and its send: that ends the conversation, it is no error.
                return


@pytest.fixture
def reference_server() -> Iterator[ShoeServer]:
    server = ShoeServer(serve_reference)
    yield server
    server.close()


def test_reference_protocol_over_socket_url(reference_server: ShoeServer) -> None:
    driver = ShoeDriver(config=ShoeConfig(url=f"socket://127.0.0.1:{reference_server.port}"))
    driver.start(require_device=True)
    try:
        events: list[ShoeEvent] = []
        while len([e for e in events if isinstance(e, CardDrawn)]) < 3:
            event = driver.get(timeout=30)
            assert event is not None, events
            events.append(event)
    finally:
        driver.stop()
    assert isinstance(events[0], LinkUp)
    assert events[0].shoe_id == "NET-1"
    assert [(e.card.code, e.draw_counter) for e in events if isinstance(e, CardDrawn)] == [
        ("9c", 1),
        ("9d", 2),
        ("9h", 3),
    ]


class LineProtocol(ShoeProtocol):
    """Another vendor's shoe: ASCII lines ``CARD <code> <counter>``; no acks, link up on first line."""

    def __init__(self, *, config: ShoeConfig) -> None:
        super().__init__(config=config)
        self._buf = b""
        self._up = False
        self._last: int | None = None

    @property
    def link_up(self) -> bool:
        return self._up

    @property
    def last_draw_counter(self) -> int | None:
        return self._last

    def connected(self, now: float) -> Step:
        return Step(send=b"HELLO?\n")

    def refused(self, counter: int | None) -> None:
        pass  # no acknowledgements: this shoe cannot be asked to send a card again

    def received(self, data: bytes, now: float) -> Step:
        step = Step()
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            if not self._up:
                self._up = True
                step.events.append(
                    LinkUp(
                        shoe_id="ACME",
                        firmware="?",
                        protocol_version=0,
                        draw_counter=0,
                        flags=ShoeFlags(),
                        resumed=False,
                        received_at=now,
                    )
                )
            kind, code, counter = line.decode().split()
            if kind == "CARD":
                self._last = int(counter)
                step.events.append(
                    CardDrawn(card=card(code), draw_counter=int(counter), shoe_id="ACME", received_at=now)
                )
        return step

    def tick(self, now: float) -> Step:
        return Step()

    def disconnected(self, reason: str, now: float) -> Step:
        self._up = False
        return Step()


def serve_lines(server: ShoeServer) -> None:
    conn, _ = server.sock.accept()
    with conn:
        conn.settimeout(5)
        assert conn.recv(16) == b"HELLO?\n"
        conn.sendall(b"CARD Ts 41\nCARD 2d 42\n")
        server.stop.wait(10)


def test_another_vendor_plugs_in_as_a_protocol_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(session_module.PROTOCOLS, "acme-lines", LineProtocol)
    server = ShoeServer(serve_lines)
    driver = ShoeDriver(config=ShoeConfig(url=f"socket://127.0.0.1:{server.port}", protocol="acme-lines"))
    driver.start()
    try:
        got = [driver.get(timeout=30) for _ in range(3)]
    finally:
        driver.stop()
        server.close()
    assert isinstance(got[0], LinkUp)
    assert [(e.card.code, e.draw_counter) for e in got[1:] if isinstance(e, CardDrawn)] == [
        ("Ts", 41),
        ("2d", 42),
    ]
    assert driver.last_draw_counter == 42


class FaultyAdapter(LineProtocol):
    """An adapter with a bug: it raises on the first bytes it sees."""

    def received(self, data: bytes, now: float) -> Step:
        raise RuntimeError("adapter bug")

    def disconnected(self, reason: str, now: float) -> Step:
        return Step(events=[LinkDown(reason=reason, received_at=now)])


def serve_twice(server: ShoeServer) -> None:
    for _ in range(2):
        conn, _ = server.sock.accept()
        server.connections += 1
        with conn:
            conn.settimeout(5)
            # The driver discards input that arrives before it has spoken (stale bytes): answer it.
            assert conn.recv(16) == b"HELLO?\n"
            conn.sendall(b"CARD As 1\n")
            with contextlib.suppress(OSError):
                while conn.recv(100):  # until the driver hangs up
                    pass
    server.stop.wait(10)


def test_an_adapter_bug_is_reported_as_link_down_and_the_driver_reconnects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(session_module.PROTOCOLS, "faulty", FaultyAdapter)
    server = ShoeServer(serve_twice)
    driver = ShoeDriver(
        config=ShoeConfig(url=f"socket://127.0.0.1:{server.port}", protocol="faulty", reconnect_initial=0.01)
    )
    driver.start()
    try:
        downs = [driver.get(timeout=30) for _ in range(2)]
    finally:
        driver.stop()
        server.close()
    assert all(isinstance(d, LinkDown) and "internal error: RuntimeError: adapter bug" in d.reason for d in downs)
    assert server.connections == 2
