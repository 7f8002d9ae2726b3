"""SQL the stores share across databases: a cursor with ``%s`` placeholders, and sqlite3 speaking it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    """What shared SQL needs of a cursor: ``%s`` placeholders whatever the database (psycopg's own)."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...

    @property
    def rowcount(self) -> int: ...


class QmarkCursor:
    """Runs the shared ``%s`` SQL on sqlite3's ``?`` placeholders."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._cursor.execute(sql.replace("%s", "?"), tuple(params))

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount
