"""Typed settings of one shoe connection: where it is, how fast, and how patient the driver is."""

from __future__ import annotations

from dataclasses import dataclass

from drivers.errors import DriverConfigError
from drivers.shoe import protocol as p


@dataclass(frozen=True, kw_only=True)
class ShoeConfig:
    """How to reach a shoe and the protocol timings (defaults are the documented ones).

    ``url`` is a device path (``/dev/ttyUSB0``, a pty path or a stable symlink) or a pyserial URL
    (``socket://host:port``, ``rfc2217://host:port``, ``loop://``). ``resume_after`` is the draw counter
    of the last draw the consumer has durably recorded (e.g. from its journal after a restart): the
    first session asks the shoe to replay everything after it.

    Raises:
        DriverConfigError: on construction, when a value is out of range.
    """

    url: str
    baudrate: int = p.DEFAULT_BAUDRATE
    protocol: str = "reference"
    heartbeat_interval: float = p.HEARTBEAT_INTERVAL
    link_timeout: float = p.LINK_TIMEOUT
    connect_interval: float = p.CONNECT_INTERVAL
    reconnect_initial: float = 0.1
    reconnect_max: float = 2.0
    read_timeout: float = 0.02
    write_timeout: float = 0.5
    partial_frame_timeout: float = p.PARTIAL_FRAME_TIMEOUT
    queue_size: int = 1024
    resume_after: int | None = None

    def __post_init__(self) -> None:
        if not self.url.strip():
            raise DriverConfigError("shoe url is empty (a device path or a URL such as socket://host:port)")
        if self.baudrate <= 0:
            raise DriverConfigError(f"baudrate must be positive, got {self.baudrate}")
        for name in (
            "heartbeat_interval",
            "link_timeout",
            "connect_interval",
            "reconnect_initial",
            "reconnect_max",
            "read_timeout",
            "write_timeout",
            "partial_frame_timeout",
        ):
            value = getattr(self, name)
            if not value > 0:
                raise DriverConfigError(f"{name} must be positive, got {value}")
        if self.reconnect_max < self.reconnect_initial:
            raise DriverConfigError("reconnect_max must be at least reconnect_initial")
        if self.queue_size < 1:
            raise DriverConfigError(f"queue_size must be at least 1, got {self.queue_size}")
        if self.resume_after is not None and not 0 <= self.resume_after <= p.MAX_COUNTER:
            raise DriverConfigError(f"resume_after {self.resume_after} is not a draw counter")
