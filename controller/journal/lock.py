"""One process per table: an exclusive lock on the journal, held while the table runs."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from controller.journal.base import JournalError, JournalLocked


class JournalLock:
    """An exclusive ``flock`` on ``<journal>.lock``, taken before the journal is opened.

    The kernel drops the lock when the process ends, however it ends (kill -9 included), so a stale
    lock file never keeps a table from starting. The file names the holder, for the refusal message.
    """

    def __init__(self, journal: Path) -> None:
        """Take the lock.

        Raises:
            JournalLocked: another process holds it (the message names it).
            JournalError: the lock file cannot be created.
        """
        self.path = journal.with_name(journal.name + ".lock")
        try:
            self._file: IO[str] | None = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held open
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot create the table's lock file: {exc.strerror}") from None
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            holder = self._file.read().strip() or "another process"
            self._file.close()
            self._file = None
            raise JournalLocked(
                f"{journal.parent}: this table is already running ({holder}); one process per table"
            ) from None
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv[:3]))
        since = datetime.now(UTC).isoformat(timespec="seconds")
        self._file.seek(0)
        self._file.truncate()
        self._file.write(f"pid {os.getpid()}, {command or 'python'}, since {since}")
        self._file.flush()

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.seek(0)
                self._file.truncate()
            self._file.close()  # closing drops the flock
            self._file = None
