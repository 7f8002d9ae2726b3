"""The floor's exception hierarchy: every refusal names the problem and nothing is half-applied."""

from __future__ import annotations

from controller.errors import ControllerError


class FloorError(ControllerError):
    """Base of every error the floor store raises on purpose."""


class FloorUnavailable(FloorError):
    """The floor database cannot be reached or failed mid-operation; the operation was rolled back whole.
    The message starts "floor unavailable: " and names the problem. Retrying later is safe: every
    operation is idempotent by (table, seq)."""


class FloorIntegrityError(FloorError):
    """The floor already holds something different under the same key (a journal entry with another hash,
    an operation replayed with different arguments): the floor never changes what it recorded."""


class FloorConfigError(FloorError, ValueError):
    """An unknown table or account, a bad parameter, a table that does not feed the account."""


class FloorRefused(FloorError):
    """Refused in the current state: a jackpot hit that needs a second, different supervisor, or the same
    supervisor approving and confirming it. Nothing was changed."""
