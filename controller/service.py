"""Running as a service: systemd's readiness and watchdog (sd_notify), logs to the journal with fields.

Both speak systemd's documented datagram protocols over Unix sockets directly (a few lines each), so
nothing more needs installing and both are tested against sockets of the tests' own. Outside systemd
(no ``NOTIFY_SOCKET``, no ``JOURNAL_STREAM``) they do nothing and logs go to standard error.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from controller.journal import Entry

JOURNAL_SOCKET = Path("/run/systemd/journal/socket")
IDENTIFIER = "dealer-assist"
log = logging.getLogger("dealer_assist.table")


class Notifier:
    """``sd_notify``: tells systemd the service is ready, alive (watchdog), or stopping.

    ``address`` is ``NOTIFY_SOCKET`` as systemd sets it: a path, or ``@name`` for an abstract socket.
    """

    def __init__(self, address: str | None = None, *, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = address if address is not None else env.get("NOTIFY_SOCKET")
        self._sock: socket.socket | None = None
        self.watchdog_seconds = self._watchdog(env)

    @staticmethod
    def _watchdog(env: Mapping[str, str]) -> float | None:
        """The watchdog interval systemd asks for (``WATCHDOG_USEC``), if it is meant for this process."""
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        if not usec.isdigit() or int(usec) == 0 or (pid and pid != str(os.getpid())):
            return None
        return int(usec) / 1e6

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def notify(self, *lines: str) -> bool:
        """Send ``KEY=VALUE`` lines; False when not under systemd or the socket is gone (never raises)."""
        if not self.address:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto("\n".join(lines).encode(), target)
        except OSError:
            return False
        return True

    def ready(self, status: str) -> bool:
        return self.notify("READY=1", f"STATUS={status}", f"MAINPID={os.getpid()}")

    def stopping(self, status: str = "stopping") -> bool:
        return self.notify("STOPPING=1", f"STATUS={status}")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


class StopFlag:
    """A stop request that a signal handler may raise: set from a handler or any thread, waited on by
    the service's main loop.

    A Python signal handler runs on the main thread between two bytecodes, possibly while that thread
    holds the lock inside ``threading.Event.wait``; ``Event.set()`` there takes the same lock and never
    returns. A SIGTERM once hung the service so (no STOPPING=1; systemd would have waited out its stop
    timeout, then killed it). So this takes no lock at all: ``set`` writes a flag, ``wait`` sleeps in
    short steps and looks at it.
    """

    STEP = 0.05  # seconds: how late a wait may notice a stop, at worst

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float) -> bool:
        """Sleep until the flag is set or ``timeout`` seconds pass; True when it is set."""
        deadline = time.monotonic() + timeout
        while not self._set:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(self.STEP, left))
        return True


def stop_on_signals() -> StopFlag:
    """A :class:`StopFlag` that SIGINT (Ctrl-C) and SIGTERM (systemd's stop) set. Call on the main thread."""
    stop = StopFlag()

    def handler(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return stop


class StatusLine:
    """systemd's status line (``systemctl status`` shows it as "Status:") kept current: ``compose()``
    says what the service is doing now, and a changed text is sent; an unchanged one is not."""

    def __init__(self, notifier: Notifier, compose: Callable[[], str]) -> None:
        self._notifier = notifier
        self._compose = compose
        self._sent: str | None = None

    def current(self) -> str:
        """The status now, counted as sent (for :meth:`Notifier.ready`, which carries it)."""
        self._sent = self._compose()
        return self._sent

    def update(self) -> bool:
        """Send the status if it changed since the last one; True when something was sent."""
        text = self._compose()
        if text == self._sent:
            return False
        self._sent = text
        return self._notifier.notify(f"STATUS={text}")


class Watchdog:
    """Pings systemd's watchdog at half its interval, but only while ``healthy()`` says so: a table
    whose lock is stuck, whose web server died or whose journal failed stops pinging and is restarted."""

    def __init__(self, notifier: Notifier, healthy: Callable[[], bool], *, clock: Callable[[], float] = time.monotonic):
        self._notifier = notifier
        self._healthy = healthy
        self._clock = clock
        self._next = 0.0

    def beat(self) -> None:
        """Call often (the service's main loop); pings when due and healthy."""
        interval = self._notifier.watchdog_seconds
        if interval is None:
            return
        now = self._clock()
        if now >= self._next and self._healthy():
            self._notifier.notify("WATCHDOG=1")
            self._next = now + interval / 2


_PRIORITY = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6, logging.DEBUG: 7}


class JournaldHandler(logging.Handler):
    """Log records to the systemd journal with structured fields (its native protocol).

    Every record has MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, LOGGER, CODE_FILE/LINE/FUNC and THREAD_NAME;
    ``extra={"fields": {"TABLE": ..., "TILT_KIND": ...}}`` adds more (names upper-cased, as journald
    wants them). Query with e.g. ``journalctl -t dealer-assist TILT_KIND=duplicate-card``.
    """

    def __init__(self, path: Path = JOURNAL_SOCKET, *, identifier: str = IDENTIFIER) -> None:
        super().__init__()
        self.path = path
        self.identifier = identifier
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            if record.exc_info:
                message += "\n" + logging.Formatter().formatException(record.exc_info)
            fields: dict[str, Any] = {
                "MESSAGE": message,
                "PRIORITY": _PRIORITY.get(record.levelno, 6),
                "SYSLOG_IDENTIFIER": self.identifier,
                "LOGGER": record.name,
                "CODE_FILE": record.pathname,
                "CODE_LINE": record.lineno,
                "CODE_FUNC": record.funcName,
                "THREAD_NAME": record.threadName or "",
            }
            for key, value in (getattr(record, "fields", None) or {}).items():
                fields[_field_name(key)] = value
            self._sock.sendto(encode_fields(fields), str(self.path))
        except Exception:
            self.handleError(record)

    def close(self) -> None:
        self._sock.close()
        super().close()


def _field_name(key: str) -> str:
    name = "".join(c if c.isalnum() else "_" for c in key.upper()).lstrip("_")
    return name if name and not name[0].isdigit() else f"F_{name}"


def encode_fields(fields: Mapping[str, Any]) -> bytes:
    """journald's native datagram: ``KEY=value\\n``, or for a value with a newline ``KEY\\n`` + its
    length as 64-bit little-endian + the value + ``\\n``."""
    out = bytearray()
    for key, value in fields.items():
        data = str(value).encode()
        if b"\n" in data:
            out += key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
        else:
            out += key.encode() + b"=" + data + b"\n"
    return bytes(out)


def configure_logging(*, environ: Mapping[str, str] | None = None) -> logging.Handler:
    """Logs to the journal (structured, from INFO: rounds and tilt clears too) when systemd runs us with
    stderr on the journal; else to stderr from WARNING (tilts, faults), keeping a terminal readable."""
    env = os.environ if environ is None else environ
    handler: logging.Handler
    if env.get("JOURNAL_STREAM") and JOURNAL_SOCKET.exists():
        handler = JournaldHandler()
        level = logging.INFO
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        level = logging.WARNING
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # The shoe's and the camera's comings and goings belong on a technician's terminal too.
    for device in ("controller.live", "vision.link"):
        logging.getLogger(device).setLevel(logging.INFO)
    # Uvicorn's and the web app's routine lines stay out; their warnings and errors still come.
    for noisy in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return handler


def entry_logger(table: str) -> Callable[[Entry, float], None]:
    """A journal observer (:func:`controller.telemetry.observe_appends`) logging what an operator looks
    for: tilts raised and cleared, rounds settled and voided, with fields. These are technician logs:
    a tilt's message may name its card, which is why they never go to a display."""

    def observe(entry: Entry, seconds: float) -> None:
        data = entry.data
        fields: dict[str, Any] = {"TABLE": table, "JOURNAL_SEQ": entry.seq, "ACTOR": entry.actor}
        if entry.kind == "tilt-raised":
            fields |= {"TILT_ID": data.get("tilt"), "TILT_KIND": data.get("kind")}
            log.warning("%s: tilt %s (%s): %s", table, data.get("tilt"), data.get("kind"), data.get("message"),
                        extra={"fields": fields})  # fmt: skip
        elif entry.kind == "tilt-cleared":
            fields |= {"TILT_ID": data.get("tilt"), "RESOLUTION": data.get("resolution")}
            log.info("%s: tilt %s cleared by %s with %s: %s", table, data.get("tilt"), entry.actor,
                     data.get("resolution"), data.get("why"), extra={"fields": fields})  # fmt: skip
        elif entry.kind in ("round-settled", "round-voided"):
            fields |= {"ROUND": data.get("round")}
            outcome = "settled" if entry.kind == "round-settled" else f"void: {data.get('why')}"
            log.info("%s: round %s %s", table, data.get("round"), outcome, extra={"fields": fields})
        if seconds > 1.0:
            log.warning("%s: a journal write took %.1f s", table, seconds, extra={"fields": fields})

    return observe
