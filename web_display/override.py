"""Supervisor override on a dealer's terminal: one-shot grants, each bound to one action of one session.

The dealer's display asks for a grant naming the action (clear tilt 3 with "burn" because ...); the
server keeps the action and answers with a random id. The supervisor's name and password then come
with that id alone, so the credentials authorise exactly the action the grant holds. A grant is taken
(removed) by the first attempt to use it, right or wrong, and lapses after a short time: nothing can be
replayed, and the dealer's session never gains a supervisor's rights.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from web_display.core.security import new_token
from web_display.errors import WebError


class OverrideRefused(WebError):
    """A grant that does not exist (used, lapsed, another session's) or one too many outstanding."""

    status = 409


@dataclass(frozen=True, slots=True)
class Grant:
    """One action a supervisor may authorise on one dealer session's terminal, until ``expires``."""

    id: str
    session: str
    table: str
    action: Mapping[str, Any]
    expires: float


class OverrideGrants:
    """Outstanding grants, in memory, thread-safe; at most ``per_session`` per session (newest kept)."""

    def __init__(self, *, per_session: int = 4, clock: Callable[[], float] = time.monotonic) -> None:
        self._per_session = per_session
        self._clock = clock
        self._lock = threading.Lock()
        self._grants: dict[str, Grant] = {}

    def issue(self, *, session: str, table: str, action: Mapping[str, Any], ttl: float) -> Grant:
        """A new grant for ``action`` on this session's terminal, valid ``ttl`` seconds."""
        now = self._clock()
        grant = Grant(id=new_token(), session=session, table=table, action=dict(action), expires=now + ttl)
        with self._lock:
            self._grants = {k: g for k, g in self._grants.items() if g.expires > now}
            mine = sorted((g for g in self._grants.values() if g.session == session), key=lambda g: g.expires)
            for old in mine[: max(0, len(mine) - self._per_session + 1)]:
                del self._grants[old.id]
            self._grants[grant.id] = grant
        return grant

    def take(self, grant_id: str, *, session: str, table: str) -> Grant:
        """Remove and return the grant: whatever happens next, it cannot be used again.

        Raises:
            OverrideRefused: no such grant for this session and table, or it has lapsed.
        """
        now = self._clock()
        with self._lock:
            grant = self._grants.get(grant_id)
            if grant is None or grant.session != session or grant.table != table:
                raise OverrideRefused("this authorisation was used already or belongs elsewhere: start again")
            del self._grants[grant_id]
        if grant.expires <= now:
            raise OverrideRefused("this authorisation has lapsed: start again")
        return grant

    def __len__(self) -> int:
        with self._lock:
            return len(self._grants)
