"""The embedded journal store: one SQLite file in WAL mode, entries hash-chained, checked when opened.

An append commits (and so fsyncs) before it returns: a kill -9 or power loss after that loses nothing.
Opening checks what a table needs before it runs on the file (docs/journal.md): the lock (one process
per table), the head file (a journal shorter than the table had written is refused), and the chain
from the newest checkpoint to the end (a changed, inserted or removed entry is refused).

The file's schema and what SQLite's errors mean are in ``sqlite_file``, connecting and upgrading in
``opening``, the start-up checks in ``integrity``, archive segments in ``segments``, the queries in
``queries``; this module keeps the store itself: opening, appending and saving, splitting, closing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from controller.journal.base import (
    Checkpoint,
    Entry,
    FinishedRound,
    JackpotAccount,
    JackpotChange,
    JackpotConfirm,
    JackpotOp,
    JournalError,
    JournalStore,
    JournalUnavailable,
)
from controller.journal.chain import encode_data, link
from controller.journal.integrity import Head, check_head, check_tail
from controller.journal.lock import JournalLock
from controller.journal.opening import connect_read_only, connect_writable, prepare
from controller.journal.queries import JournalQueries
from controller.journal.segments import check_segment, write_segment
from controller.journal.sqlite_file import (
    BATCH,
    FORMAT,
    damaged,
    fsync_folder,
    pack_line,
    rollback,
    storage_problem,
    unpack_line,
)

__all__ = [
    "BATCH",
    "FORMAT",
    "Head",
    "SqliteJournal",
    "damaged",
    "pack_line",
    "storage_problem",
    "unpack_line",
]

log = logging.getLogger(__name__)


class SqliteJournal(JournalQueries, JournalStore):
    """The embedded store. Safe to share between threads; writes are serialised.

    ``read_only`` opens without the lock and writes nothing (history, verify, export, a copy on
    read-only media). ``durable=False`` skips fsync: only for generating test and benchmark journals.
    ``keep_months``: rounds older than this many calendar months (the current one included) move to
    archive segments beside the journal when a checkpoint is saved (None: never; docs/journal.md).
    ``checked=False`` (read-only only) skips the start-up checks, for ``journal verify``, which makes
    them itself and reports rather than refuses.
    """

    def __init__(
        self,
        *,
        path: str | Path,
        read_only: bool = False,
        durable: bool = True,
        keep_months: int | None = 2,
        checked: bool = True,
    ) -> None:
        """Open (or, writable, create) the journal and check it.

        Raises:
            JournalLocked: another process has the table open.
            JournalIntegrityError: the journal lost entries, was changed, or is damaged; or it is
                missing or empty where the table had one.
            JournalError: it cannot be opened or created.
        """
        self.path = Path(path)
        self.head_path = self.path.with_name(self.path.name + ".head")
        self.read_only = read_only
        self.durable = durable
        self.keep_months = keep_months
        self.checked = checked
        self._lock = threading.Lock()
        self._file_lock: JournalLock | None = None
        self._db: sqlite3.Connection | None = None
        self.base_seq = 0
        self.base_hash = ""
        self.last_seq = 0
        self.last_hash = ""
        try:
            if read_only:
                self._db = connect_read_only(path=self.path)
            else:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise JournalError(f"{self.path.parent}: cannot create the data folder: {exc.strerror}") from None
                self._file_lock = JournalLock(self.path)
                self._db = connect_writable(path=self.path, head_path=self.head_path, durable=self.durable)
            self._open()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ opening

    def _open(self) -> None:
        db = self._conn
        try:
            meta = prepare(db, path=self.path, read_only=self.read_only)
            self.table_id = meta["table"]
            self.base_seq = int(meta["base_seq"])
            self.base_hash = meta["base_hash"]
            row = db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
            self.last_seq, self.last_hash = (row[0], row[1]) if row else (self.base_seq, self.base_hash)
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None
        if self.checked or not self.read_only:
            self.check()

    def check(self) -> None:
        """The start-up checks: the head file against the journal's end, the chain since the newest checkpoint.

        Raises:
            JournalIntegrityError: the journal lost entries or was changed (the message names what and where).
        """
        check_head(self)
        check_tail(self)

    # ------------------------------------------------------------------ writing

    def append(
        self,
        kind: str,
        data: Mapping[str, Any],
        *,
        actor: str,
        at: str,
        jackpot: JackpotOp | None = None,
        round_no: int | None = None,
    ) -> Entry:
        self._writable()
        text = encode_data(data)
        stored = json.loads(text)
        with self._lock:
            db = self._conn
            seq = self.last_seq + 1
            digest = link(self.last_hash, seq=seq, kind=kind, data=stored, actor=actor, at=at)
            try:
                db.execute("BEGIN IMMEDIATE")
                db.execute(
                    "INSERT INTO journal (seq, kind, data, actor, at, hash) VALUES (?, ?, ?, ?, ?, ?)",
                    (seq, kind, text, actor, at, digest),
                )
                if isinstance(jackpot, JackpotChange):
                    self._apply_jackpot(jackpot, round_no=round_no or 0, at=at)
                elif isinstance(jackpot, JackpotConfirm):
                    self._confirm(jackpot.hit, by=actor, at=at)
                db.execute("COMMIT")
            except (sqlite3.Error, JournalError) as exc:
                self._rollback()
                if isinstance(exc, JournalError):
                    raise
                raise JournalUnavailable(f"journal unavailable: {storage_problem(exc)} ({self.path})") from None
            self.last_seq, self.last_hash = seq, digest
        return Entry(seq=seq, kind=kind, data=stored, actor=actor, at=at, hash=digest)

    def _rollback(self) -> None:
        rollback(self._conn)

    def _writable(self) -> None:
        if self.read_only:
            raise JournalError(f"{self.path}: opened read-only")

    def _apply_jackpot(self, change: JackpotChange, *, round_no: int, at: str) -> None:
        db = self._conn
        if change.hits:
            db.execute("UPDATE jackpot_account SET meter = MAX(?, meter - ?)", (change.reset, change.won))
        db.execute(
            "UPDATE jackpot_account SET meter = meter + ?, contributions = contributions + ?, won = won + ?",
            (change.contribution, change.contribution, change.won),
        )
        for box, hand, amount in change.hits:
            db.execute(
                "INSERT INTO jackpot_hit (round, box, hand, amount, at) VALUES (?, ?, ?, ?, ?)",
                (round_no, box, hand, amount, at),
            )

    def _confirm(self, hit: int, *, by: str, at: str) -> None:
        cur = self._conn.execute(
            "UPDATE jackpot_hit SET confirmed_by = ?, confirmed_at = ? WHERE hit = ? AND confirmed_by IS NULL",
            (by, at, hit),
        )
        if cur.rowcount != 1:
            raise JournalError(f"jackpot hit {hit} does not exist or was confirmed already")

    def save(self, *, rounds: Sequence[FinishedRound] = (), checkpoint: Checkpoint | None = None) -> None:
        self._writable()
        with self._lock:
            db = self._conn
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany(
                    "INSERT OR IGNORE INTO round_index (round, seq, at, settled, line) VALUES (?, ?, ?, ?, ?)",
                    [(r.round, r.seq, r.at, int(r.settled), pack_line(r.line)) for r in rounds],
                )
                if checkpoint is not None:
                    db.execute(
                        "INSERT OR IGNORE INTO checkpoint (seq, hash, at, state) VALUES (?, ?, ?, ?)",
                        (checkpoint.seq, checkpoint.hash, checkpoint.at, json.dumps(checkpoint.state, sort_keys=True)),
                    )
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise JournalUnavailable(f"journal unavailable: {storage_problem(exc)} ({self.path})") from None
        if checkpoint is not None and self.keep_months is not None:
            from controller.journal.archive import archive_old

            try:
                archive_old(self, now=checkpoint.at, keep_months=self.keep_months)
            except JournalError as exc:  # the journal is whole either way; tried again at the next checkpoint
                log.error("archiving old rounds failed: %s", exc)

    def split(self, *, cut: Checkpoint, into: Path) -> None:
        """Move the entries up to ``cut`` (with their round index rows and checkpoints) into a new
        segment file ``into``; this file then starts after ``cut``, whose checkpoint it keeps.

        Crash-safe in either order: the segment is complete before it gets its name, and a segment
        found already written for the same entries is not written again.

        Raises:
            JournalError: the segment cannot be written (this file is unchanged), or a different
                segment already has that name.
        """
        self._writable()
        with self._lock:
            db = self._conn
            try:
                if into.exists():
                    check_segment(into, cut)
                else:
                    write_segment(
                        db, into=into, cut=cut, table_id=self.table_id, base_seq=self.base_seq, base_hash=self.base_hash
                    )
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM journal WHERE seq <= ?", (cut.seq,))
                db.execute("DELETE FROM round_index WHERE seq <= ?", (cut.seq,))
                db.execute("DELETE FROM checkpoint WHERE seq < ?", (cut.seq,))
                db.executemany(
                    "UPDATE meta SET value = ? WHERE key = ?", [(str(cut.seq), "base_seq"), (cut.hash, "base_hash")]
                )
                db.execute("COMMIT")
            except (sqlite3.Error, OSError) as exc:
                self._rollback()
                problem = storage_problem(exc) if isinstance(exc, sqlite3.Error) else exc.strerror
                raise JournalError(f"cannot archive entries up to {cut.seq} into {into}: {problem}") from None
            self.base_seq, self.base_hash = cut.seq, cut.hash

    def boundary(self, entry: Entry) -> None:
        self._writable()
        text = json.dumps({"table": self.table_id, "seq": entry.seq, "hash": entry.hash})
        temporary = self.head_path.with_name(self.head_path.name + ".new")
        try:
            with open(temporary, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                if self.durable:
                    os.fsync(out.fileno())
            os.replace(temporary, self.head_path)
            if self.durable:
                fsync_folder(self.head_path.parent)
        except OSError as exc:
            raise JournalUnavailable(
                f"journal unavailable: cannot write {self.head_path.name}: {exc.strerror}"
            ) from None

    def open_jackpot(self, *, name: str, meter: int) -> JackpotAccount:
        if not self.read_only:
            with self._lock:
                try:
                    self._conn.execute(
                        "INSERT OR IGNORE INTO jackpot_account (name, meter) VALUES (?, ?)", (name, meter)
                    )
                except sqlite3.Error as exc:
                    raise JournalUnavailable(f"journal unavailable: {storage_problem(exc)} ({self.path})") from None
        account = self.jackpot()
        if account is None:
            return JackpotAccount(name=name, meter=meter)
        return account

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None
        if self._file_lock is not None:
            self._file_lock.release()
            self._file_lock = None
