"""Shoe transports: one base class, backends chosen from the configured device path or URL."""

from __future__ import annotations

import contextlib
import re
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import serial

from drivers.errors import DriverConfigError, TransportError
from drivers.shoe.config import ShoeConfig

_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*)://", re.IGNORECASE)


class ShoeTransport(ABC):
    """A byte pipe to one shoe. Backends fill ``_open``/``_read``/``_write``/``_close``.

    Every method raises :class:`TransportError` (never a backend's own exception), so the driver has one
    failure to handle: close, report the link down, reopen with backoff.
    """

    schemes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, config: ShoeConfig) -> None:
        self.config = config
        self._is_open = False

    @property
    def is_open(self) -> bool:
        """Whether the port is open."""
        return self._is_open

    def open(self) -> None:
        """Open the port.

        Raises:
            TransportError: the device is missing, busy or not a serial port.
        """
        try:
            self._open()
        except TransportError:
            raise
        except Exception as exc:
            raise TransportError(f"cannot open shoe at {self.config.url}: {exc}") from exc
        self._is_open = True

    def read(self) -> bytes:
        """Bytes that arrived, waiting at most ``config.read_timeout`` for the first one.

        Raises:
            TransportError: the device went away.
        """
        try:
            return self._read()
        except Exception as exc:
            raise TransportError(f"shoe at {self.config.url} failed while reading: {exc}") from exc

    def write(self, data: bytes) -> None:
        """Write all of ``data``, waiting at most ``config.write_timeout``.

        Raises:
            TransportError: the device went away or did not take the bytes in time.
        """
        try:
            self._write(data)
        except Exception as exc:
            raise TransportError(f"shoe at {self.config.url} failed while writing: {exc}") from exc

    def close(self) -> None:
        """Close the port; never raises (the port may already be gone)."""
        self._is_open = False
        with contextlib.suppress(Exception):  # a vanished device cannot be closed any more cleanly
            self._close()

    def cancel_read(self) -> None:  # noqa: B027 - an optional hook, nothing to do by default
        """Wake a read that is waiting (used by ``stop()``); backends that can, override it."""

    @abstractmethod
    def _open(self) -> None: ...

    @abstractmethod
    def _read(self) -> bytes: ...

    @abstractmethod
    def _write(self, data: bytes) -> None: ...

    @abstractmethod
    def _close(self) -> None: ...


class SerialTransport(ShoeTransport):
    """Any port pyserial can open: device paths, pty paths and ``socket://``, ``rfc2217://``, ``loop://``."""

    schemes = ("", "socket", "rfc2217", "loop")

    def __init__(self, *, config: ShoeConfig) -> None:
        super().__init__(config=config)
        self._serial: Any = None

    def _open(self) -> None:
        port = serial.serial_for_url(
            self.config.url,
            baudrate=self.config.baudrate,
            bytesize=serial.EIGHTBITS,
            parity=serial.PARITY_NONE,
            stopbits=serial.STOPBITS_ONE,
            timeout=self.config.read_timeout,
            write_timeout=self.config.write_timeout,
            # One reader per shoe: a second one (a technician's shoe-listen beside the table service)
            # would steal half the bytes, so it is refused instead (flock on device paths).
            exclusive=True,
            do_not_open=True,
        )
        port.open()
        port.reset_input_buffer()  # stale bytes from before are of no use: the session restarts anyway
        self._serial = port

    def _read(self) -> bytes:
        port = self._serial
        first: bytes = port.read(1)
        if not first:
            return b""
        waiting = port.in_waiting
        return first + port.read(waiting) if waiting else first

    def _write(self, data: bytes) -> None:
        written = self._serial.write(data)
        if written is not None and written != len(data):
            raise TransportError(f"wrote {written} of {len(data)} bytes")

    def _close(self) -> None:
        if self._serial is not None:
            self._serial.close()
            self._serial = None

    def cancel_read(self) -> None:
        port = self._serial
        if port is not None and hasattr(port, "cancel_read"):
            with contextlib.suppress(Exception):  # racing a close; the read times out on its own anyway
                port.cancel_read()


TRANSPORTS: dict[str, type[ShoeTransport]] = dict.fromkeys(SerialTransport.schemes, SerialTransport)


def register_transport(cls: type[ShoeTransport]) -> type[ShoeTransport]:
    """Make a backend available for the URL schemes it lists (usable as a class decorator)."""
    for scheme in cls.schemes:
        TRANSPORTS[scheme] = cls
    return cls


def url_scheme(url: str) -> str:
    """The URL scheme, lower case, or ``""`` for a plain device path."""
    match = _SCHEME.match(url)
    return match.group(1).lower() if match else ""


def transport_for(config: ShoeConfig) -> ShoeTransport:
    """A (closed) transport for ``config.url``, chosen by its scheme.

    Raises:
        DriverConfigError: no backend handles that scheme.
    """
    scheme = url_scheme(config.url)
    try:
        cls = TRANSPORTS[scheme]
    except KeyError:
        known = ", ".join(f"{s}://" for s in sorted(TRANSPORTS) if s)
        raise DriverConfigError(f"no shoe transport for {config.url!r} (a device path, or one of {known})") from None
    return cls(config=config)
