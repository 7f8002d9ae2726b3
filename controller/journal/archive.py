"""Old rounds out of the live file: archive segments beside the journal, and reading across them.

A segment is a journal file of the same format holding a stretch of entries (with their round index
rows and checkpoints); its ``base_seq``/``base_hash`` say which entry it follows, so the chain runs on
from one segment to the next and into the live file. Segments live in ``archive/`` beside the
journal, named ``<journal stem>-<first entry, 10 digits>-<YYYY-MM of its last entry>.sqlite3`` so
that their names sort in chain order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from controller.journal.base import (
    Checkpoint,
    Entry,
    FinishedRound,
    JackpotAccount,
    JackpotOp,
    JournalError,
    JournalIntegrityError,
    JournalStore,
)

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from controller.journal.sqlite import SqliteJournal

ARCHIVE = "archive"


def month_start(at: str, *, months_back: int) -> str:
    """The first instant of the month ``months_back`` months before the month of ``at`` (ISO, same zone)."""
    when = datetime.fromisoformat(at)
    month = when.year * 12 + when.month - 1 - months_back
    first = when.replace(year=month // 12, month=month % 12 + 1, day=1)
    return first.replace(hour=0, minute=0, second=0, microsecond=0).isoformat()


def archive_old(store: SqliteJournal, *, now: str, keep_months: int) -> Path | None:
    """Move every round that ended before the last ``keep_months`` calendar months (counting the month
    of ``now``) into a new archive segment, cut at the newest checkpoint before then. Returns the segment
    written, or None when there is nothing to move.

    Raises:
        JournalError: the segment cannot be written (the live file is unchanged).
    """
    cut = store.archive_cut(before=month_start(now, months_back=max(keep_months - 1, 0)))
    if cut is None:
        return None
    into = store.path.parent / ARCHIVE / f"{store.path.stem}-{store.base_seq + 1:010d}-{cut.at[:7]}.sqlite3"
    store.split(cut=cut, into=into)
    return into


def segment_paths(journal: Path) -> list[Path]:
    """The table's archive segments in chain order, then the live journal."""
    folder = journal.parent / ARCHIVE
    archived = sorted(folder.glob(f"{journal.stem}-*.sqlite3")) if folder.is_dir() else []
    return [*archived, journal]


def find_finished(store: JournalStore, number: int) -> FinishedRound | None:
    """Round ``number`` from ``store``'s round index or, for a SQLite journal that has archived months,
    from theirs (opened read-only for the lookup); None if no such round has finished.

    Raises:
        JournalError: an index cannot be read.
    """
    from controller.journal.sqlite import SqliteJournal

    found = store.finished_round(number)
    if found is not None or not isinstance(store, SqliteJournal) or len(segment_paths(store.path)) < 2:
        return found
    archive = Segments(journal=store.path, checked=False)
    try:
        return archive.finished_round(number)
    finally:
        archive.close()


class Segments(JournalStore):
    """The archive segments and the live journal of one table, read as one read-only store.

    ``latest_checkpoint`` is the live file's (a restart never needs an archive); entries, the round
    index and checkpoints run across every segment. Opening checks that each segment follows the one
    before it (same table, the chain continuing).
    """

    read_only = True

    def __init__(self, *, journal: Path, checked: bool = True) -> None:
        """Open every segment read-only (``checked``: with the start-up checks of each).

        Raises:
            JournalError: a segment cannot be opened.
            JournalIntegrityError: the segments do not follow each other.
        """
        from controller.journal.sqlite import SqliteJournal

        self.journal = journal
        self.parts: list[SqliteJournal] = []
        try:
            for path in segment_paths(journal):
                part = SqliteJournal(path=path, read_only=True, checked=checked)
                if self.parts:
                    before = self.parts[-1]
                    if part.table_id != before.table_id:
                        raise JournalIntegrityError(f"{path} belongs to another table ({part.table_id})")
                    if (part.base_seq, part.base_hash) != (before.last_seq, before.last_hash):
                        raise JournalIntegrityError(
                            f"{path} does not continue {before.path.name}: it follows entry {part.base_seq}, "
                            f"but that segment ends at entry {before.last_seq}"
                        )
                self.parts.append(part)
        except BaseException:
            self.close()
            raise
        self.table_id = self.parts[-1].table_id
        self.live = self.parts[-1]

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
        raise JournalError(f"{self.journal}: opened read-only")

    def entries(self, *, after: int = 0) -> Iterator[Entry]:
        for part in self.parts:
            if part.last_seq > after:
                yield from part.entries(after=after)

    def latest_checkpoint(self) -> Checkpoint | None:
        return self.live.latest_checkpoint()

    def checkpoints(self) -> Iterator[Checkpoint]:
        """Every checkpoint of every segment, oldest first (a cut's checkpoint appears once)."""
        last = -1
        for part in self.parts:
            for checkpoint in part.checkpoints():
                if checkpoint.seq > last:
                    last = checkpoint.seq
                    yield checkpoint

    def save(self, *, rounds: Sequence[FinishedRound] = (), checkpoint: Checkpoint | None = None) -> None:
        raise JournalError(f"{self.journal}: opened read-only")

    def finished(self, *, last: int | None = None, upto: int | None = None) -> list[FinishedRound]:
        found: list[FinishedRound] = []
        for part in reversed(self.parts):
            wanted = None if last is None else last - len(found)
            if wanted == 0:
                break
            found[:0] = part.finished(last=wanted, upto=upto)
        return found

    def finished_between(self, *, start: str | None, end: str | None) -> Iterator[FinishedRound]:
        """Finished rounds ending in ``[start, end)``, across every segment, oldest first."""
        for part in self.parts:
            yield from part.finished_between(start=start, end=end)

    def finished_round(self, number: int) -> FinishedRound | None:
        for part in reversed(self.parts):
            found = part.finished_round(number)
            if found is not None:
                return found
        return None

    def finished_at(self, *, upto: int, limit: int) -> list[str]:
        found: list[str] = []
        for part in reversed(self.parts):
            if len(found) >= limit:
                break
            found[:0] = part.finished_at(upto=upto, limit=limit - len(found))
        return found

    def boundary(self, entry: Entry) -> None:
        raise JournalError(f"{self.journal}: opened read-only")

    def jackpot(self) -> JackpotAccount | None:
        return self.live.jackpot()

    def open_jackpot(self, *, name: str, meter: int) -> JackpotAccount:
        return self.live.open_jackpot(name=name, meter=meter)

    def close(self) -> None:
        for part in self.parts:
            with contextlib.suppress(JournalError):
                part.close()
        self.parts = []
