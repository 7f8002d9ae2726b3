"""The floor on PostgreSQL: psycopg 3 with a connection pool; the account row locked ``FOR UPDATE``."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from controller.sql import Cursor
from floor.base import FloorStore
from floor.errors import FloorUnavailable
from floor.status import CHANNEL

# The pool warns of each failed reconnection attempt on its own logger; the floor's callers say once, in
# one line, that the floor is unavailable (FloorUnavailable), so its retries would only be noise.
logging.getLogger("psycopg.pool").setLevel(logging.ERROR)

CONNECT_TIMEOUT_S = 5
# The pool retries a lost server with a doubling delay; giving up after a few seconds and starting over on
# the next request keeps the delay short, so a table is back within seconds of the floor's return.
RECONNECT_S = 5.0


class PostgresFloorStore(FloorStore):
    """The floor a casino's IT runs: every operation one transaction on a pooled connection.

    Connections are checked before use, so after a server restart the pool drops dead ones and
    reconnects; an operation that meets a dead server raises ``FloorUnavailable`` and applied nothing."""

    def __init__(self, url: str, *, max_connections: int = 10, timeout: float = CONNECT_TIMEOUT_S) -> None:
        self.url = url
        self.timeout = timeout
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            timeout=timeout,
            check=ConnectionPool.check_connection,
            reconnect_timeout=RECONNECT_S,
            kwargs={"connect_timeout": max(1, round(timeout))},
            open=False,
        )
        self._pool.open(wait=False)

    @property
    def _for_update(self) -> str:
        return " FOR UPDATE"

    def _has_table(self, cur: Cursor, name: str) -> bool:
        cur.execute("SELECT to_regclass(%s) IS NOT NULL", (name,))
        return bool(cur.fetchone()[0])

    def _notify(self, cur: Cursor, key: str) -> None:
        # Delivered when (and only if) the transaction commits; identical ones in a transaction fold into one.
        cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, key))

    def _lock_schema(self, cur: Cursor) -> None:
        cur.execute("LOCK TABLE schema_version IN EXCLUSIVE MODE")

    def lock_table(self, cur: Cursor, table: str) -> None:
        # SHARE ROW EXCLUSIVE conflicts with itself and with writers, not with plain reads.
        cur.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")

    @contextmanager
    def _transaction(self, *, lock: bool) -> Iterator[Cursor]:
        try:
            with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                yield cur
        except PoolTimeout as exc:
            raise FloorUnavailable(
                f"floor unavailable: no connection to the floor database within {self.timeout:g} s"
            ) from exc
        except psycopg.OperationalError as exc:
            raise FloorUnavailable(f"floor unavailable: {str(exc).strip().splitlines()[0]}") from exc

    def close(self) -> None:
        self._pool.close()
