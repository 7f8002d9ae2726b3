"""The embedded floor store: one SQLite file, writers serialised by ``BEGIN IMMEDIATE``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.sql import Cursor, QmarkCursor
from floor.base import FloorStore
from floor.errors import FloorUnavailable

BUSY_TIMEOUT_MS = 30_000


class SqliteFloorStore(FloorStore):
    """The floor on one SQLite file (WAL, ``synchronous=FULL``): the demo's and a small room's store."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise FloorUnavailable(f"floor unavailable: folder {self.path.parent} does not exist")

    @property
    def _for_update(self) -> str:
        return ""

    def _has_table(self, cur: Cursor, name: str) -> bool:
        cur.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = %s", (name,))
        return cur.fetchone() is not None

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextmanager
    def _transaction(self, *, lock: bool) -> Iterator[Cursor]:
        try:
            conn = self._connect()
        except sqlite3.Error as exc:
            raise FloorUnavailable(f"floor unavailable: cannot open {self.path}: {exc}") from exc
        try:
            conn.execute("BEGIN IMMEDIATE" if lock else "BEGIN")
            yield QmarkCursor(conn.cursor())
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise FloorUnavailable(f"floor unavailable: {self.path}: {exc}") from exc
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            conn.close()

    def close(self) -> None:
        """Nothing held between operations: each opens and closes its own connection."""
