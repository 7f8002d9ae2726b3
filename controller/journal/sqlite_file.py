"""The journal's SQLite file: schema and format, rows as records, and what SQLite's failures mean."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.journal.base import Checkpoint, Entry, FinishedRound, JournalIntegrityError

FORMAT = 2
BATCH = 512  # entries read per query while streaming

SCHEMA = """
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


def rollback(db: sqlite3.Connection) -> None:
    """End an open transaction, if any, without raising."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def to_entry(row: tuple[Any, ...]) -> Entry:
    return Entry(seq=row[0], kind=row[1], data=json.loads(row[2]), actor=row[3], at=row[4], hash=row[5])


def to_checkpoint(row: tuple[Any, ...]) -> Checkpoint:
    return Checkpoint(seq=row[0], hash=row[1], at=row[2], state=json.loads(row[3]))


def to_finished(row: tuple[Any, ...]) -> FinishedRound:
    return FinishedRound(round=row[0], seq=row[1], at=row[2], settled=bool(row[3]), line=unpack_line(row[4]))


def pack_line(line: Mapping[str, Any]) -> bytes:
    """A round's history line as the round index stores it (compact JSON, zlib: a fifth of the size)."""
    return zlib.compress(json.dumps(line, separators=(",", ":")).encode(), 6)


def unpack_line(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
