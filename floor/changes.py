"""What changed on the floor, without polling PostgreSQL: LISTEN on a dedicated connection, or poll SQLite.

One interface, :class:`ChangeSource`: ``wait(timeout)`` blocks until something changed (or the timeout
passed) and says what: table ids, the jackpots, or "everything" (at the start and after a reconnect,
when signals may have been missed). On PostgreSQL the store's writes ``NOTIFY floor_changes`` (payload:
the table id, or ``jackpot``) in the transaction that made the change, so the listener wakes only when
one committed. SQLite (embedded, one host) has no notifications: the poller compares each table's
status version and a jackpot mark every ``interval`` seconds, a read of one small row per table.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass

import psycopg

from floor.base import FloorStore
from floor.errors import FloorUnavailable
from floor.status import CHANNEL, JACKPOT

POLL_S = 0.25


@dataclass(frozen=True, slots=True)
class Changes:
    """Tables whose status changed, whether the jackpots did, or ``everything`` (refresh it all)."""

    tables: frozenset[str] = frozenset()
    jackpot: bool = False
    everything: bool = False

    def __bool__(self) -> bool:
        return bool(self.tables) or self.jackpot or self.everything

    def __or__(self, other: Changes) -> Changes:
        return Changes(
            tables=self.tables | other.tables,
            jackpot=self.jackpot or other.jackpot,
            everything=self.everything or other.everything,
        )


EVERYTHING = Changes(everything=True)


def _from_keys(keys: list[str]) -> Changes:
    return Changes(tables=frozenset(k for k in keys if k != JACKPOT), jackpot=JACKPOT in keys)


class ChangeSource(ABC):
    """Blocks a worker thread until the floor changes. Not thread-safe: one thread waits on it."""

    @abstractmethod
    def wait(self, timeout: float) -> Changes:
        """What changed, as soon as something did; empty ``Changes`` after ``timeout`` seconds of quiet.

        Raises:
            FloorUnavailable: the database cannot be reached (the next call tries again, and reports
                ``everything`` once it is back).
        """

    @abstractmethod
    def close(self) -> None: ...


class PgListener(ChangeSource):
    """``LISTEN floor_changes`` on its own autocommit connection (not the store's pool: a listening
    connection must stay open and idle). Reconnects on the next ``wait`` after a loss."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0) -> None:
        self.url = url
        self.connect_timeout = connect_timeout
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None

    def _connect(self) -> psycopg.Connection[tuple[object, ...]]:
        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=max(1, round(self.connect_timeout)))
            conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            raise FloorUnavailable(f"floor unavailable: {str(exc).strip().splitlines()[0]}") from exc
        return conn

    def wait(self, timeout: float) -> Changes:
        if self._conn is None or self._conn.closed:
            self._conn = self._connect()
            return EVERYTHING  # signals sent while nobody listened are lost: read everything once
        try:
            keys = [n.payload for n in self._conn.notifies(timeout=timeout, stop_after=1)]
            if keys:  # whatever else already arrived comes along: the caller coalesces anyway
                keys += [n.payload for n in self._conn.notifies(timeout=0.001)]
        except psycopg.Error as exc:
            self.close()
            raise FloorUnavailable(f"floor unavailable: {str(exc).strip().splitlines()[0]}") from exc
        return _from_keys(keys)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class SqlitePoller(ChangeSource):
    """Compares each table's status version and the jackpot mark every ``interval`` seconds."""

    def __init__(self, store: FloorStore, *, interval: float = POLL_S) -> None:
        self.store = store
        self.interval = interval
        self._versions: dict[str, int] | None = None
        self._jackpot: tuple[int, ...] = ()
        self._closed = threading.Event()

    def _poll(self) -> Changes:
        versions, jackpot = self.store.change_marks()
        if self._versions is None:
            self._versions, self._jackpot = versions, jackpot
            return EVERYTHING
        changed = frozenset(t for t, v in versions.items() if self._versions.get(t) != v)
        changed |= frozenset(set(self._versions) - set(versions))
        moved = jackpot != self._jackpot
        self._versions, self._jackpot = versions, jackpot
        return Changes(tables=changed, jackpot=moved)

    def wait(self, timeout: float) -> Changes:
        deadline = time.monotonic() + timeout
        while True:
            found = self._poll()
            left = deadline - time.monotonic()
            if found or left <= 0 or self._closed.is_set():
                return found
            self._closed.wait(min(self.interval, left))

    def close(self) -> None:
        self._closed.set()


def change_source(store: FloorStore, url: str, *, interval: float = POLL_S) -> ChangeSource:
    """The listener for a PostgreSQL URL, else the poller on the (SQLite) store."""
    if url.startswith(("postgresql://", "postgres://")):
        return PgListener(url, connect_timeout=getattr(store, "timeout", 5.0))
    return SqlitePoller(store, interval=interval)
