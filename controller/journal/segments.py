"""Writing an archive segment: the journal's oldest entries copied into a file of their own, then named."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from controller.journal.base import Checkpoint, JournalError
from controller.journal.sqlite_file import FORMAT, SCHEMA, fsync_folder, rollback


def write_segment(
    db: sqlite3.Connection, *, into: Path, cut: Checkpoint, table_id: str, base_seq: int, base_hash: str
) -> None:
    """Copy the entries of ``db`` up to ``cut`` (with their round index rows and checkpoints) into ``into``.

    The segment is complete and synced before it gets its name; ``table_id``, ``base_seq`` and
    ``base_hash`` are the journal's, so the segment's chain starts where the journal's does.
    """
    into.parent.mkdir(parents=True, exist_ok=True)
    temporary = into.with_name(into.name + ".new")
    temporary.unlink(missing_ok=True)
    segment = sqlite3.connect(temporary, isolation_level=None)
    try:
        segment.execute("PRAGMA journal_mode=DELETE")
        segment.executescript(SCHEMA)
        segment.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("format", str(FORMAT)),
                ("table", table_id),
                ("base_seq", str(base_seq)),
                ("base_hash", base_hash),
            ],
        )
    finally:
        segment.close()
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
        rollback(db)
        raise
    finally:
        db.execute("DETACH DATABASE segment")
    with open(temporary, "rb") as written:
        os.fsync(written.fileno())
    os.replace(temporary, into)
    fsync_folder(into.parent)


def check_segment(into: Path, cut: Checkpoint) -> None:
    """A segment already at ``into`` must end with ``cut``'s entry (a split interrupted after naming it).

    Raises:
        JournalError: it does not.
    """
    segment = sqlite3.connect(f"{into.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = segment.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    finally:
        segment.close()
    if row is None or (row[0], row[1]) != (cut.seq, cut.hash):
        raise JournalError(f"{into} exists and does not end with entry {cut.seq}")
