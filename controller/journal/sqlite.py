"""The embedded journal store: one SQLite file in WAL mode, entries hash-chained, checked when opened.

An append commits (and so fsyncs) before it returns: a kill -9 or power loss after that loses nothing.
Opening checks what a table needs before it runs on the file (docs/journal.md): the lock (one process
per table), the head file (a journal shorter than the table had written is refused), and the chain
from the newest checkpoint to the end (a changed, inserted or removed entry is refused).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import uuid
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal.base import (
    Checkpoint,
    Entry,
    FinishedRound,
    JackpotAccount,
    JackpotChange,
    JackpotConfirm,
    JackpotHitRecord,
    JackpotOp,
    JournalError,
    JournalIntegrityError,
    JournalStore,
    JournalUnavailable,
)
from controller.journal.chain import encode_data, genesis, link
from controller.journal.lock import JournalLock

FORMAT = 2
BATCH = 512  # entries read per query while streaming
log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq     INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    data    TEXT NOT NULL,
    actor   TEXT NOT NULL,
    at      TEXT NOT NULL,
    hash    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoint (
    seq   INTEGER PRIMARY KEY,
    hash  TEXT NOT NULL,
    at    TEXT NOT NULL,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS round_index (
    round   INTEGER PRIMARY KEY,
    seq     INTEGER NOT NULL UNIQUE,
    at      TEXT NOT NULL,
    settled INTEGER NOT NULL,
    line    BLOB NOT NULL  -- the history line, JSON, zlib-compressed
);
CREATE INDEX IF NOT EXISTS round_index_at ON round_index (at);
CREATE TABLE IF NOT EXISTS jackpot_account (
    name          TEXT PRIMARY KEY,
    meter         INTEGER NOT NULL,
    contributions INTEGER NOT NULL DEFAULT 0,
    won           INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS jackpot_hit (
    hit          INTEGER PRIMARY KEY,
    round        INTEGER NOT NULL,
    box          INTEGER NOT NULL,
    hand         TEXT NOT NULL,
    amount       INTEGER NOT NULL,
    at           TEXT NOT NULL,
    confirmed_by TEXT,
    confirmed_at TEXT,
    UNIQUE (round, box)
);
"""


@dataclass(frozen=True, slots=True)
class Head:
    """The newest round boundary the table recorded, kept beside the database (``<journal>.head``)."""

    table: str
    seq: int
    hash: str


def storage_problem(exc: sqlite3.Error) -> str:
    """What went wrong with the storage, in the words a display shows ("disk full", "I/O error")."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_FULL"):
        return "disk full"
    if name.startswith("SQLITE_IOERR"):
        return "I/O error"
    if name.startswith("SQLITE_READONLY"):
        return "read-only storage"
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return "damaged"
    return str(exc)


def damaged(path: Path, exc: sqlite3.Error) -> JournalIntegrityError:
    """The one-line refusal for a journal SQLite cannot read (a damaged page, not a database)."""
    folder = path.parent
    return JournalIntegrityError(
        f"{path}: the journal is damaged ({exc}); the table will not run on it: "
        f"`dealer-assist journal verify --data {folder}` finds the damage, "
        f"`dealer-assist journal export --data {folder}` salvages every readable round"
    )


class SqliteJournal(JournalStore):
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
                self._db = self._connect_read_only()
            else:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise JournalError(f"{self.path.parent}: cannot create the data folder: {exc.strerror}") from None
                self._file_lock = JournalLock(self.path)
                self._db = self._connect_writable()
            self._open()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ opening

    def _connect_writable(self) -> sqlite3.Connection:
        head = self._read_head()
        existed = self.path.is_file() and self.path.stat().st_size > 0
        if head is not None and not existed:
            state = "empty" if self.path.exists() else "missing"
            raise JournalIntegrityError(
                f"{self.path} is {state}, but {self.head_path.name} says this table had recorded "
                f"{head.seq} entries: restore the journal from its backup (docs/journal.md); "
                "a new table needs a new data folder"
            )
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={'FULL' if self.durable else 'OFF'}")
            return db
        except sqlite3.DatabaseError as exc:
            if existed and isinstance(exc, sqlite3.DatabaseError) and storage_problem(exc) == "damaged":
                raise damaged(self.path, exc) from None
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from None

    def _connect_read_only(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise JournalError(f"{self.path}: no table journal here")
        uri = self.path.resolve().as_uri()
        try:
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.OperationalError:
            # Read-only media: SQLite cannot create the WAL's shared-memory file. The copy cannot
            # change under us, so read it as immutable.
            try:
                db = sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None, check_same_thread=False)
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return db
            except sqlite3.DatabaseError as exc:
                raise JournalError(f"{self.path}: cannot read the journal: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, exc) from None

    def _open(self) -> None:
        db = self._conn
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not self.read_only:
                legacy = "journal" in tables and "meta" not in tables
                db.executescript(_SCHEMA)
                if legacy:
                    self._upgrade_from_format_1()
                elif db.execute("SELECT value FROM meta WHERE key = 'table'").fetchone() is None:
                    self._new_table()
            elif "meta" not in tables:
                raise JournalError(
                    f"{self.path}: this journal was written by an older dealer-assist (format 1, no hash "
                    "chain): open it once with `dealer-assist run` or `dealer-assist journal verify` to upgrade it"
                    if "journal" in tables
                    else f"{self.path}: not a table journal"
                )
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            if int(meta.get("format", "0")) > FORMAT:
                raise JournalError(f"{self.path}: written by a newer dealer-assist (format {meta['format']})")
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
        self._check_head()
        self._check_tail()

    def _new_table(self) -> None:
        table = uuid.uuid4().hex
        self._conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [("format", str(FORMAT)), ("table", table), ("base_seq", "0"), ("base_hash", genesis(table))],
        )

    def _upgrade_from_format_1(self) -> None:
        """Chain a journal written before hashes existed; one pass, in one transaction."""
        db = self._conn
        table = uuid.uuid4().hex
        previous = genesis(table)
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("ALTER TABLE journal ADD COLUMN hash TEXT NOT NULL DEFAULT ''")
            after = 0
            while rows := db.execute(
                "SELECT seq, kind, data, actor, at FROM journal WHERE seq > ? ORDER BY seq LIMIT ?", (after, BATCH)
            ).fetchall():
                updates = []
                for seq, kind, data, actor, at in rows:
                    previous = link(previous, seq=seq, kind=kind, data=json.loads(data), actor=actor, at=at)
                    updates.append((previous, seq))
                    after = seq
                db.executemany("UPDATE journal SET hash = ? WHERE seq = ?", updates)
            db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("format", str(FORMAT)), ("table", table), ("base_seq", "0"), ("base_hash", genesis(table))],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _read_head(self) -> Head | None:
        try:
            text = self.head_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise JournalError(f"{self.head_path}: cannot read the journal's head: {exc.strerror}") from None
        try:
            raw = json.loads(text)
            return Head(table=str(raw["table"]), seq=int(raw["seq"]), hash=str(raw["hash"]))
        except (ValueError, KeyError, TypeError):
            raise JournalIntegrityError(
                f"{self.head_path} is damaged; it guards against a journal that lost its last rounds. "
                f"Check the journal with `dealer-assist journal verify --data {self.path.parent}`"
            ) from None

    def _check_head(self) -> None:
        head = self._read_head()
        if head is None:
            return
        if head.table != self.table_id:
            raise JournalIntegrityError(
                f"{self.path} belongs to table {self.table_id}, but {self.head_path.name} to table {head.table}: "
                "the journal was replaced by another table's"
            )
        if self.last_seq < head.seq:
            raise JournalIntegrityError(
                f"{self.path} ends at entry {self.last_seq}, but the table had recorded entry {head.seq} "
                f"({self.head_path.name}): entries were lost (a deleted or damaged -wal file, or an older "
                "copy restored). The table will not run on it: restore the journal (docs/journal.md)"
            )
        if head.seq > self.base_seq:
            found = self.entry(head.seq)
            if found is None or found.hash != head.hash:
                raise JournalIntegrityError(
                    f"{self.path}: entry {head.seq} is not the one the table recorded ({self.head_path.name}): "
                    f"the journal was changed or replaced; run `dealer-assist journal verify --data {self.path.parent}`"
                )

    def _check_tail(self) -> None:
        """Check the chain from the newest checkpoint (or the first entry) to the end."""
        checkpoint = self.latest_checkpoint()
        after, previous = (self.base_seq, self.base_hash)
        if checkpoint is not None:
            found = self.entry(checkpoint.seq)
            if found is None or found.hash != checkpoint.hash:
                raise self._broken(checkpoint.seq, "does not match the checkpoint taken after it")
            after, previous = checkpoint.seq, checkpoint.hash
        for entry in self.entries(after=after):
            if entry.seq != after + 1:
                raise self._broken(after + 1, "is missing")
            if _hash_of(previous, entry) != entry.hash:
                raise self._broken(entry.seq, "does not follow from the entry before it (changed or inserted)")
            after, previous = entry.seq, entry.hash

    def _broken(self, seq: int, what: str) -> JournalIntegrityError:
        return JournalIntegrityError(
            f"{self.path}: journal entry {seq} {what}; the table will not run on it: "
            f"`dealer-assist journal verify --data {self.path.parent}` checks the whole journal, "
            f"`dealer-assist journal export --data {self.path.parent}` salvages every readable round"
        )

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._db

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
        db = self._conn
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")

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

    def archive_cut(self, *, before: str) -> Checkpoint | None:
        """The newest checkpoint taken before ``before`` (ISO time) past this file's first entry: where
        an archive segment can end."""
        rows = self._rows(
            "SELECT seq, hash, at, state FROM checkpoint WHERE at < ? AND seq > ? ORDER BY seq DESC LIMIT 1",
            (before, self.base_seq),
        )
        return _checkpoint(rows[0]) if rows else None

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
                    self._check_segment(into, cut)
                else:
                    self._write_segment(into, cut)
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

    def _write_segment(self, into: Path, cut: Checkpoint) -> None:
        into.parent.mkdir(parents=True, exist_ok=True)
        temporary = into.with_name(into.name + ".new")
        temporary.unlink(missing_ok=True)
        segment = sqlite3.connect(temporary, isolation_level=None)
        try:
            segment.execute("PRAGMA journal_mode=DELETE")
            segment.executescript(_SCHEMA)
            segment.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [
                    ("format", str(FORMAT)),
                    ("table", self.table_id),
                    ("base_seq", str(self.base_seq)),
                    ("base_hash", self.base_hash),
                ],
            )
        finally:
            segment.close()
        db = self._conn
        db.execute("ATTACH DATABASE ? AS segment", (str(temporary),))
        try:
            db.execute("BEGIN")
            db.execute(
                "INSERT INTO segment.journal (seq, kind, data, actor, at, hash) "
                "SELECT seq, kind, data, actor, at, hash FROM main.journal WHERE seq <= ? ORDER BY seq",
                (cut.seq,),
            )
            db.execute(
                "INSERT INTO segment.round_index (round, seq, at, settled, line) "
                "SELECT round, seq, at, settled, line FROM main.round_index WHERE seq <= ? ORDER BY round",
                (cut.seq,),
            )
            db.execute(
                "INSERT INTO segment.checkpoint (seq, hash, at, state) "
                "SELECT seq, hash, at, state FROM main.checkpoint WHERE seq <= ? ORDER BY seq",
                (cut.seq,),
            )
            db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        finally:
            db.execute("DETACH DATABASE segment")
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, into)
        _fsync_folder(into.parent)

    def _check_segment(self, into: Path, cut: Checkpoint) -> None:
        segment = sqlite3.connect(f"{into.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = segment.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        finally:
            segment.close()
        if row is None or (row[0], row[1]) != (cut.seq, cut.hash):
            raise JournalError(f"{into} exists and does not end with entry {cut.seq}")

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
                _fsync_folder(self.head_path.parent)
        except OSError as exc:
            raise JournalUnavailable(
                f"journal unavailable: cannot write {self.head_path.name}: {exc.strerror}"
            ) from None

    # ------------------------------------------------------------------ reading

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
            yield from (_entry(row) for row in rows)
            if len(rows) < BATCH:
                return
            after = rows[-1][0]

    def entry(self, seq: int) -> Entry | None:
        """One entry by number, or None."""
        rows = self._rows("SELECT seq, kind, data, actor, at, hash FROM journal WHERE seq = ?", (seq,))
        return _entry(rows[0]) if rows else None

    def latest_checkpoint(self) -> Checkpoint | None:
        rows = self._rows("SELECT seq, hash, at, state FROM checkpoint ORDER BY seq DESC LIMIT 1")
        return _checkpoint(rows[0]) if rows else None

    def checkpoints(self) -> Iterator[Checkpoint]:
        """Every checkpoint in this file, oldest first."""
        after = -1
        while True:
            rows = self._rows(
                "SELECT seq, hash, at, state FROM checkpoint WHERE seq > ? ORDER BY seq LIMIT 64", (after,)
            )
            yield from (_checkpoint(row) for row in rows)
            if len(rows) < 64:
                return
            after = rows[-1][0]

    def finished(self, *, last: int | None = None, upto: int | None = None) -> list[FinishedRound]:
        rows = self._rows(
            "SELECT round, seq, at, settled, line FROM round_index WHERE seq <= ? ORDER BY round DESC LIMIT ?",
            (self.last_seq if upto is None else upto, -1 if last is None else last),
        )
        return [_finished(row) for row in reversed(rows)]

    def finished_between(self, *, start: str | None, end: str | None) -> Iterator[FinishedRound]:
        """Finished rounds whose end is in ``[start, end)`` (ISO times; None: open), oldest first, streamed."""
        after = 0
        while True:
            rows = self._rows(
                "SELECT round, seq, at, settled, line FROM round_index WHERE round > ? AND at >= ? AND at < ? "
                "ORDER BY round LIMIT ?",
                (after, start or "", end or "\uffff", BATCH),
            )
            yield from (_finished(row) for row in rows)
            if len(rows) < BATCH:
                return
            after = rows[-1][0]

    def finished_round(self, number: int) -> FinishedRound | None:
        rows = self._rows("SELECT round, seq, at, settled, line FROM round_index WHERE round = ?", (number,))
        return _finished(rows[0]) if rows else None

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


def _entry(row: tuple[Any, ...]) -> Entry:
    return Entry(seq=row[0], kind=row[1], data=json.loads(row[2]), actor=row[3], at=row[4], hash=row[5])


def _checkpoint(row: tuple[Any, ...]) -> Checkpoint:
    return Checkpoint(seq=row[0], hash=row[1], at=row[2], state=json.loads(row[3]))


def _finished(row: tuple[Any, ...]) -> FinishedRound:
    return FinishedRound(round=row[0], seq=row[1], at=row[2], settled=bool(row[3]), line=unpack_line(row[4]))


def pack_line(line: Mapping[str, Any]) -> bytes:
    """A round's history line as the round index stores it (compact JSON, zlib: a fifth of the size)."""
    return zlib.compress(json.dumps(line, separators=(",", ":")).encode(), 6)


def unpack_line(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def _hash_of(previous: str, entry: Entry) -> str:
    return link(previous, seq=entry.seq, kind=entry.kind, data=entry.data, actor=entry.actor, at=entry.at)


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
