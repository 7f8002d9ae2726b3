"""Reading the embedded journal: entries, checkpoints, the round index and the jackpot account, by query.

A mixin rather than a collaborator: every query runs on the journal's one connection under its one
lock, and each is a public method of the store (``JournalStore``), so delegating would only repeat
every signature.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.journal.base import Checkpoint, Entry, FinishedRound, JackpotAccount, JackpotHitRecord, JournalError
from controller.journal.sqlite_file import BATCH, damaged, to_checkpoint, to_entry, to_finished


class JournalQueries:
    """The reading half of ``SqliteJournal``: its queries over the connection it opened."""

    path: Path
    base_seq: int
    last_seq: int
    _lock: threading.Lock
    _db: sqlite3.Connection | None

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._db

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """Run a query under the lock; a page SQLite cannot read is the one-line "damaged" refusal."""
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise damaged(self.path, exc) from None

    def entries(self, *, after: int = 0) -> Iterator[Entry]:
        after = max(after, self.base_seq)
        while True:
            rows = self._rows(
                "SELECT seq, kind, data, actor, at, hash FROM journal WHERE seq > ? ORDER BY seq LIMIT ?",
                (after, BATCH),
            )
            yield from (to_entry(row) for row in rows)
            if len(rows) < BATCH:
                return
            after = rows[-1][0]

    def entry(self, seq: int) -> Entry | None:
        """One entry by number, or None."""
        rows = self._rows("SELECT seq, kind, data, actor, at, hash FROM journal WHERE seq = ?", (seq,))
        return to_entry(rows[0]) if rows else None

    def latest_checkpoint(self) -> Checkpoint | None:
        rows = self._rows("SELECT seq, hash, at, state FROM checkpoint ORDER BY seq DESC LIMIT 1")
        return to_checkpoint(rows[0]) if rows else None

    def checkpoints(self) -> Iterator[Checkpoint]:
        """Every checkpoint in this file, oldest first."""
        after = -1
        while True:
            rows = self._rows(
                "SELECT seq, hash, at, state FROM checkpoint WHERE seq > ? ORDER BY seq LIMIT 64", (after,)
            )
            yield from (to_checkpoint(row) for row in rows)
            if len(rows) < 64:
                return
            after = rows[-1][0]

    def archive_cut(self, *, before: str) -> Checkpoint | None:
        """The newest checkpoint taken before ``before`` (ISO time) past this file's first entry: where
        an archive segment can end."""
        rows = self._rows(
            "SELECT seq, hash, at, state FROM checkpoint WHERE at < ? AND seq > ? ORDER BY seq DESC LIMIT 1",
            (before, self.base_seq),
        )
        return to_checkpoint(rows[0]) if rows else None

    def finished(self, *, last: int | None = None, upto: int | None = None) -> list[FinishedRound]:
        rows = self._rows(
            "SELECT round, seq, at, settled, line FROM round_index WHERE seq <= ? ORDER BY round DESC LIMIT ?",
            (self.last_seq if upto is None else upto, -1 if last is None else last),
        )
        return [to_finished(row) for row in reversed(rows)]

    def finished_between(self, *, start: str | None, end: str | None) -> Iterator[FinishedRound]:
        """Finished rounds whose end is in ``[start, end)`` (ISO times; None: open), oldest first, streamed."""
        after = 0
        while True:
            rows = self._rows(
                "SELECT round, seq, at, settled, line FROM round_index WHERE round > ? AND at >= ? AND at < ? "
                "ORDER BY round LIMIT ?",
                (after, start or "", end or "\uffff", BATCH),
            )
            yield from (to_finished(row) for row in rows)
            if len(rows) < BATCH:
                return
            after = rows[-1][0]

    def finished_round(self, number: int) -> FinishedRound | None:
        rows = self._rows("SELECT round, seq, at, settled, line FROM round_index WHERE round = ?", (number,))
        return to_finished(rows[0]) if rows else None

    def finished_at(self, *, upto: int, limit: int) -> list[str]:
        rows = self._rows(
            "SELECT at FROM round_index WHERE settled = 1 AND seq <= ? ORDER BY round DESC LIMIT ?", (upto, limit)
        )
        return [row[0] for row in reversed(rows)]

    def jackpot(self) -> JackpotAccount | None:
        account = self._rows("SELECT name, meter, contributions, won FROM jackpot_account")
        if not account:
            return None
        hits = self._rows(
            "SELECT hit, round, box, hand, amount, at, confirmed_by, confirmed_at FROM jackpot_hit ORDER BY hit"
        )
        name, meter, contributions, won = account[0]
        return JackpotAccount(
            name=name, meter=meter, contributions=contributions, won=won, hits=tuple(JackpotHitRecord(*h) for h in hits)
        )
