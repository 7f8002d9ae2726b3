"""The drivers' exception hierarchy: one base, ``DriverError``, for every failure they raise on purpose."""

from __future__ import annotations


class DriverError(Exception):
    """Base of every error the drivers raise on purpose."""


class DriverConfigError(DriverError, ValueError):
    """A driver or simulator setting that is malformed: names the setting and the bad value."""


class TransportError(DriverError):
    """The device could not be opened, read or written (unplugged, wrong path, permission)."""


class ProtocolError(DriverError):
    """Bytes that do not follow the wire protocol (a payload its type does not allow)."""


class SimulatorError(DriverError):
    """The simulated shoe refused a command, or its process could not be started or stopped."""


class DeliveryRefused(DriverError):
    """Raised by a shoe event consumer that could not store the event (its journal is unavailable):
    the driver acknowledges nothing of it, and the shoe sends it again once asked."""
