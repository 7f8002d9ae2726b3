"""What the live table raises when it refuses a command."""

from __future__ import annotations

from controller.errors import ControllerError


class TableError(ControllerError):
    """A command the table refuses now (the message says why and what to do)."""


class PermissionDenied(TableError):
    """The actor's role may not do this (e.g. a dealer clearing a tilt)."""
