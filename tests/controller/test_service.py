"""sd_notify and the watchdog against a NOTIFY_SOCKET of the test's own; journald's native protocol."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.service import (
    JournaldHandler,
    Notifier,
    StatusLine,
    StopFlag,
    Watchdog,
    configure_logging,
    encode_fields,
)


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(2)
    yield sock
    sock.close()


def test_ready_and_stopping_reach_the_notify_socket(tmp_path: Path, listener: socket.socket) -> None:
    notifier = Notifier(environ={"NOTIFY_SOCKET": str(tmp_path / "notify")})
    assert notifier.enabled and notifier.ready("T1: oasis")
    assert listener.recv(4096).decode() == f"READY=1\nSTATUS=T1: oasis\nMAINPID={os.getpid()}"
    assert notifier.stopping()
    assert listener.recv(4096).decode() == "STOPPING=1\nSTATUS=stopping"
    notifier.close()


def test_an_abstract_notify_socket_is_reached_too() -> None:
    name = f"dealer-assist-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(2)
    try:
        assert Notifier(environ={"NOTIFY_SOCKET": "@" + name}).notify("READY=1")
        assert sock.recv(64) == b"READY=1"
    finally:
        sock.close()


def test_outside_systemd_nothing_is_sent_and_nothing_fails(tmp_path: Path) -> None:
    assert not Notifier(environ={}).notify("READY=1")
    assert not Notifier(environ={"NOTIFY_SOCKET": str(tmp_path / "gone")}).notify("READY=1")


def test_the_watchdog_pings_at_half_its_interval_only_while_healthy(tmp_path: Path, listener: socket.socket) -> None:
    now = [0.0]
    healthy = [True]
    env = {"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "10000000"}
    notifier = Notifier(environ=env)
    assert notifier.watchdog_seconds == 10.0
    dog = Watchdog(notifier, lambda: healthy[0], clock=lambda: now[0])
    listener.settimeout(0.2)
    sent = []
    for t in range(21):  # 21 seconds, one beat a second
        now[0] = float(t)
        healthy[0] = t < 12
        dog.beat()
        with contextlib.suppress(TimeoutError):
            sent.append((t, listener.recv(64).decode()))
    assert sent == [(0, "WATCHDOG=1"), (5, "WATCHDOG=1"), (10, "WATCHDOG=1")]


def test_the_status_line_is_sent_when_it_changes_and_only_then(tmp_path: Path, listener: socket.socket) -> None:
    notifier = Notifier(environ={"NOTIFY_SOCKET": str(tmp_path / "notify")})
    says = ["T1: oasis, shoe not linked"]
    line = StatusLine(notifier, lambda: says[0])
    assert notifier.ready(line.current())
    assert "STATUS=T1: oasis, shoe not linked" in listener.recv(4096).decode()
    listener.settimeout(0.2)
    assert not line.update()  # what ready carried is not sent again
    says[0] = "T1: oasis, shoe linked"
    assert line.update()
    assert listener.recv(4096).decode() == "STATUS=T1: oasis, shoe linked"
    assert not line.update()
    with pytest.raises(TimeoutError):
        listener.recv(4096)
    says[0] = "T1: oasis, shoe not linked"
    assert line.update()
    assert listener.recv(4096).decode() == "STATUS=T1: oasis, shoe not linked"


def test_a_watchdog_meant_for_another_process_is_ignored() -> None:
    assert (
        Notifier(environ={"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000", "WATCHDOG_PID": "1"}).watchdog_seconds is None
    )
    assert Notifier(environ={"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "0"}).watchdog_seconds is None


def test_journald_fields_and_multiline_values_in_the_native_format() -> None:
    data = encode_fields({"MESSAGE": "two\nlines", "PRIORITY": 4, "TABLE": "T1"})
    assert data == b"MESSAGE\n" + struct.pack("<Q", 9) + b"two\nlines\nPRIORITY=4\nTABLE=T1\n"


def test_a_log_record_reaches_the_journal_socket_with_its_fields(tmp_path: Path) -> None:
    journal = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    journal.bind(str(tmp_path / "journal"))
    journal.settimeout(2)
    handler = JournaldHandler(tmp_path / "journal")
    logger = logging.getLogger("dealer_assist.test")
    logger.addHandler(handler)
    try:
        logger.warning("T1: tilt %d", 3, extra={"fields": {"table": "T1", "tilt-kind": "duplicate-card"}})
        fields = dict(line.split("=", 1) for line in journal.recv(65536).decode().splitlines())
    finally:
        logger.removeHandler(handler)
        handler.close()
        journal.close()
    assert fields["MESSAGE"] == "T1: tilt 3" and fields["PRIORITY"] == "4"
    assert fields["SYSLOG_IDENTIFIER"] == "dealer-assist" and fields["LOGGER"] == "dealer_assist.test"
    assert fields["TABLE"] == "T1" and fields["TILT_KIND"] == "duplicate-card"
    assert fields["CODE_FUNC"] == "test_a_log_record_reaches_the_journal_socket_with_its_fields"


def test_logs_go_to_stderr_outside_systemd() -> None:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        handler = configure_logging(environ={})
        assert isinstance(handler, logging.StreamHandler) and root.level == logging.WARNING
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])


# A child that raises SIGTERM at the k-th traced line of its main loop, for every k up to 80: the signal
# handler then runs at every moment of a wait, including while the waiting thread holds a lock.
_SIGNAL_AT_EVERY_LINE = """
import os, signal, sys, threading

def event_on_signals():
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop

if sys.argv[1] == "event":
    make = event_on_signals
else:
    from controller.service import stop_on_signals as make
for k in range(1, 80):
    stop = make()
    lines = 0
    def tracer(frame, event, arg):
        global lines
        if event == "line":
            lines += 1
            if lines == k:
                os.kill(os.getpid(), signal.SIGTERM)
        return tracer
    sys.settrace(tracer)
    while not stop.wait(0.01):
        pass
    sys.settrace(None)
print("stopped every time")
"""


def _signalled_loop(kind: str, *, timeout: float) -> subprocess.CompletedProcess[str] | None:
    """Run the child; None when it hung (killed at ``timeout``)."""
    try:
        return subprocess.run(
            [sys.executable, "-c", _SIGNAL_AT_EVERY_LINE, kind],
            check=False,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None


def test_a_stop_signal_at_any_moment_of_the_main_loop_stops_it() -> None:
    done = _signalled_loop("flag", timeout=120)
    assert done is not None, "a stop signal hung the loop"
    assert done.returncode == 0 and done.stdout.strip() == "stopped every time", done.stderr
    # The same child with a threading.Event set by the handler hangs: it did in the service (SIGTERM,
    # no STOPPING=1). This proves the child finds that deadlock rather than passing whatever is waited on.
    assert _signalled_loop("event", timeout=10) is None


def test_the_stop_flag_is_set_from_another_thread_and_waits_out_its_timeout() -> None:
    stop = StopFlag()
    assert not stop.wait(0.01) and not stop.is_set()
    setter = threading.Timer(0.05, stop.set)
    setter.start()
    assert stop.wait(30) and stop.is_set()
    setter.join()
    assert stop.wait(0)
