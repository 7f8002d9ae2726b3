"""The floor service's settings: the second-approval amount, the link-lost age, the refresh pace."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from floor.status import LINK_LOST_S


class FloorSettings(BaseModel):
    """The floor service's own settings (sign-in and sessions are the web display's ``Settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # A hit above this amount (tables' units) needs two different supervisors (approve, then confirm); None: one.
    second_approval_above: int | None = Field(default=None, ge=0)
    # A table that has not reported for longer shows "link lost".
    link_lost_seconds: float = Field(default=LINK_LOST_S, gt=0)
    # At most one refresh (and one message per display) this often, however many changes arrive.
    coalesce_seconds: float = Field(default=0.25, ge=0)
    # How often the tables' last report times are read (link lost / back, a missed signal).
    heartbeat_seconds: float = Field(default=1.0, gt=0)
    # How often everything is read again (rounds in the last hour age out, tables added or removed).
    full_refresh_seconds: float = Field(default=30.0, gt=0)
    # How often the SQLite poller looks for changes (PostgreSQL is not polled: it notifies).
    poll_seconds: float = Field(default=0.25, gt=0)
