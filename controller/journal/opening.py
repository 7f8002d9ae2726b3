"""Opening the journal's SQLite file: connecting (writable or read-only), creating it, upgrading format 1."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

from controller.journal.base import JournalError, JournalIntegrityError
from controller.journal.chain import genesis, link
from controller.journal.integrity import read_head
from controller.journal.sqlite_file import BATCH, FORMAT, SCHEMA, damaged, storage_problem


def connect_writable(*, path: Path, head_path: Path, durable: bool) -> sqlite3.Connection:
    """Connect to the journal to run a table on it (WAL; full sync unless not ``durable``).

    Raises:
        JournalIntegrityError: the file is missing or empty where the head file says the table had one,
            or SQLite finds it damaged.
        JournalError: it cannot be opened or created.
    """
    head = read_head(path=path, head_path=head_path)
    existed = path.is_file() and path.stat().st_size > 0
    if head is not None and not existed:
        state = "empty" if path.exists() else "missing"
        raise JournalIntegrityError(
            f"{path} is {state}, but {head_path.name} says this table had recorded "
            f"{head.seq} entries: restore the journal from its backup (docs/journal.md); "
            "a new table needs a new data folder"
        )
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
        return db
    except sqlite3.DatabaseError as exc:
        if existed and isinstance(exc, sqlite3.DatabaseError) and storage_problem(exc) == "damaged":
            raise damaged(path, exc) from None
        raise JournalError(f"{path}: cannot open the journal: {exc}") from None


def connect_read_only(*, path: Path) -> sqlite3.Connection:
    """Connect to read the journal only (also on read-only media).

    Raises:
        JournalIntegrityError: SQLite finds it damaged.
        JournalError: there is no journal, or it cannot be read.
    """
    if not path.is_file():
        raise JournalError(f"{path}: no table journal here")
    uri = path.resolve().as_uri()
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
            raise JournalError(f"{path}: cannot read the journal: {exc}") from None
    except sqlite3.DatabaseError as exc:
        raise damaged(path, exc) from None


def prepare(db: sqlite3.Connection, *, path: Path, read_only: bool) -> dict[str, str]:
    """The journal's meta rows, after creating (writable) a new journal's tables or upgrading a format-1 one.

    Raises:
        JournalError: not a table journal, a format-1 journal opened read-only, or a newer format.
        sqlite3.DatabaseError: SQLite cannot read it (the caller reports it as damaged).
    """
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not read_only:
        legacy = "journal" in tables and "meta" not in tables
        db.executescript(SCHEMA)
        if legacy:
            upgrade_from_format_1(db)
        elif db.execute("SELECT value FROM meta WHERE key = 'table'").fetchone() is None:
            new_table(db)
    elif "meta" not in tables:
        raise JournalError(
            f"{path}: this journal was written by an older dealer-assist (format 1, no hash "
            "chain): open it once with `dealer-assist run` or `dealer-assist journal verify` to upgrade it"
            if "journal" in tables
            else f"{path}: not a table journal"
        )
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if int(meta.get("format", "0")) > FORMAT:
        raise JournalError(f"{path}: written by a newer dealer-assist (format {meta['format']})")
    return meta


def new_table(db: sqlite3.Connection) -> None:
    """Give a new journal its table id and the start of its chain."""
    table = uuid.uuid4().hex
    db.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [("format", str(FORMAT)), ("table", table), ("base_seq", "0"), ("base_hash", genesis(table))],
    )


def upgrade_from_format_1(db: sqlite3.Connection) -> None:
    """Chain a journal written before hashes existed; one pass, in one transaction."""
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
