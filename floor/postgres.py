"""The floor on PostgreSQL: psycopg 3 with a connection pool; the account row locked ``FOR UPDATE``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from floor.base import Cursor, FloorStore
from floor.errors import FloorUnavailable

CONNECT_TIMEOUT_S = 5


class PostgresFloorStore(FloorStore):
    """The floor a casino's IT runs: every operation one transaction on a pooled connection.

    Connections are checked before use, so after a server restart the pool drops dead ones and
    reconnects; an operation that meets a dead server raises ``FloorUnavailable`` and applied nothing."""

    def __init__(self, url: str, *, max_connections: int = 10) -> None:
        self.url = url
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            timeout=CONNECT_TIMEOUT_S,
            check=ConnectionPool.check_connection,
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S},
            open=False,
        )
        self._pool.open(wait=False)

    @property
    def _for_update(self) -> str:
        return " FOR UPDATE"

    def _lock_schema(self, cur: Cursor) -> None:
        cur.execute("LOCK TABLE schema_version IN EXCLUSIVE MODE")

    @contextmanager
    def _transaction(self, *, lock: bool) -> Iterator[Cursor]:
        try:
            with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                yield cur
        except PoolTimeout as exc:
            raise FloorUnavailable(
                f"floor unavailable: no connection to the floor database within {CONNECT_TIMEOUT_S} s"
            ) from exc
        except psycopg.OperationalError as exc:
            raise FloorUnavailable(f"floor unavailable: {str(exc).strip().splitlines()[0]}") from exc

    def close(self) -> None:
        self._pool.close()
