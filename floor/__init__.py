"""The casino floor: linked progressive jackpots and every table's replicated journal, on SQLite or PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from floor.base import FloorStore
from floor.errors import FloorConfigError, FloorError, FloorIntegrityError, FloorRefused, FloorUnavailable
from floor.jackpots import FULL_SHARE_BP, Account, Contribution, Hit
from floor.status import TableStatus

__all__ = [
    "EMBEDDED_NAME",
    "FULL_SHARE_BP",
    "Account",
    "Contribution",
    "FloorConfigError",
    "FloorError",
    "FloorIntegrityError",
    "FloorRefused",
    "FloorStore",
    "FloorUnavailable",
    "Hit",
    "TableStatus",
    "open_store",
]

EMBEDDED_NAME = "floor.sqlite3"


def open_store(url: str, *, migrate: bool = True, max_connections: int = 10, timeout: float = 5.0) -> FloorStore:
    """The store a URL names: ``postgresql://…`` (or ``postgres://…``), else a SQLite file path
    (``sqlite:///path`` or a plain path; a folder means its ``floor.sqlite3``). Migrates the schema first.
    ``timeout``: how long an operation waits for a PostgreSQL connection before ``FloorUnavailable``.

    Raises ``FloorUnavailable`` when the database cannot be reached."""
    store: FloorStore
    if url.startswith(("postgresql://", "postgres://")):
        from floor.postgres import PostgresFloorStore

        store = PostgresFloorStore(url, max_connections=max_connections, timeout=timeout)
    else:
        from floor.sqlite import SqliteFloorStore

        path = Path(url.removeprefix("sqlite://"))
        if path.is_dir():
            path = path / EMBEDDED_NAME
        store = SqliteFloorStore(path)
    if migrate:
        try:
            store.migrate()
        except BaseException:
            store.close()
            raise
    return store
