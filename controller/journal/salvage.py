"""Reading what can be read of a damaged journal: entries, checkpoints and round index rows, row by
row where a page is damaged, from the raw files (no check refuses them first)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.journal.base import Checkpoint, Entry, FinishedRound

CHUNK = 512


@dataclass
class SalvageFile:
    """One journal file (a segment or the live file) opened raw and read-only."""

    path: Path
    db: sqlite3.Connection
    first: int = 1
    last: int = 0
    problems: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, path: Path) -> SalvageFile | None:
        """The file, or None (with the reason printed by the caller) when SQLite cannot open it at all."""
        uri = path.resolve().as_uri()
        for mode in ("mode=ro", "immutable=1"):
            try:
                db = sqlite3.connect(f"{uri}?{mode}", uri=True)
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.DatabaseError:
                continue
            found = cls(path=path, db=db)
            found._bounds()
            return found
        return None

    def _bounds(self) -> None:
        try:
            self.first = int(self.db.execute("SELECT value FROM meta WHERE key = 'base_seq'").fetchone()[0]) + 1
        except (sqlite3.DatabaseError, TypeError):
            self.problems.append(f"{self.path.name}: the meta table is unreadable")
        for query, name in (("SELECT max(seq) FROM journal", "last"), ("SELECT min(seq) FROM journal", "min")):
            try:
                value = self.db.execute(query).fetchone()[0]
            except sqlite3.DatabaseError:
                value = None
            if name == "last" and value is not None:
                self.last = value
            elif name == "min" and value is not None and not self.problems:
                self.first = min(self.first, value)
        if self.last == 0:
            self.last = self._probe_last()

    def _probe_last(self) -> int:
        """The highest entry number that can be read, found by a search when the index pages are damaged."""
        low, high = 0, 1 << 40
        while low < high:
            middle = (low + high + 1) // 2
            try:
                hit = self.db.execute("SELECT 1 FROM journal WHERE seq >= ? LIMIT 1", (middle,)).fetchone()
            except sqlite3.DatabaseError:
                hit = (1,)
            if hit:
                low = middle
            else:
                high = middle - 1
        return low

    def entries(self, low: int, high: int) -> Iterator[Entry | int]:
        """Entries ``low..high`` in order; an unreadable one is given as its number."""
        start = max(low, self.first)
        while start <= high:
            end = min(high, start + CHUNK - 1)
            yield from self._range(start, end)
            start = end + 1

    def _range(self, low: int, high: int) -> Iterator[Entry | int]:
        try:
            rows = self.db.execute(
                "SELECT seq, kind, data, actor, at, hash FROM journal WHERE seq BETWEEN ? AND ? ORDER BY seq",
                (low, high),
            ).fetchall()
            parsed = [_entry(r) for r in rows]
        except (sqlite3.DatabaseError, ValueError):
            if low == high:
                yield low
                return
            middle = (low + high) // 2
            yield from self._range(low, middle)
            yield from self._range(middle + 1, high)
            return
        expected = low
        for entry in parsed:
            yield from range(expected, entry.seq)  # rows that are gone
            yield entry
            expected = entry.seq + 1
        yield from range(expected, high + 1)

    def checkpoints(self) -> list[Checkpoint]:
        found = []
        for r in self._rows("checkpoint", "seq, hash, at, state", "seq"):
            try:
                _types(r, (int, str, str, str))
                found.append(Checkpoint(seq=r[0], hash=r[1], at=r[2], state=json.loads(r[3])))
            except ValueError:
                continue  # a damaged row: the salvage goes on from another checkpoint
        return found

    def finished(self) -> list[FinishedRound]:
        return [
            FinishedRound(round=r[0], seq=r[1], at=r[2], settled=bool(r[3]), line=line)
            for r in self._rows("round_index", "round, seq, at, settled, line", "round")
            if _typed(r[:4], (int, int, str, int)) and (line := _line(r[4])) is not None
        ]

    def _rows(self, table: str, columns: str, key: str) -> list[tuple[Any, ...]]:
        """Every readable row of ``table`` in key order; a damaged stretch is stepped over, growing the
        step until reads succeed again (a few readable rows beside the damage may be skipped)."""
        rows: list[tuple[Any, ...]] = []
        after, step = -1, 1
        while after <= self.last:
            try:
                batch = self.db.execute(
                    f"SELECT {columns}, {key} FROM {table} WHERE {key} > ? ORDER BY {key} LIMIT 256",
                    (after,),
                ).fetchall()
            except sqlite3.DatabaseError:
                after, step = after + step, step * 2
                continue
            if not batch:
                break
            step = 1
            rows.extend(row[:-1] for row in batch)
            after = batch[-1][-1]
        return rows

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()


def _line(blob: bytes) -> Any:
    """A round index line, or None where its bytes are damaged."""
    from controller.journal.sqlite import unpack_line

    try:
        return unpack_line(blob)
    except (zlib.error, ValueError, TypeError):
        return None


def _types(row: tuple[Any, ...], types: tuple[type, ...]) -> None:
    """A damaged page can hand back values of any type (NULL, a number where text was): refuse them."""
    if len(row) != len(types) or not all(isinstance(v, t) for v, t in zip(row, types, strict=True)):
        raise ValueError(f"damaged row: {row[:1]}")


def _typed(row: tuple[Any, ...], types: tuple[type, ...]) -> bool:
    try:
        _types(row, types)
    except ValueError:
        return False
    return True


def _entry(row: tuple[Any, ...]) -> Entry:
    """An entry from a row read off a possibly damaged page.

    Raises:
        ValueError: the row's values are not an entry's (damage).
    """
    _types(row, (int, str, str, str, str, str))
    data = json.loads(row[2])
    if not isinstance(data, dict):
        raise ValueError(f"entry {row[0]}: damaged data")
    return Entry(seq=row[0], kind=row[1], data=data, actor=row[3], at=row[4], hash=row[5])
