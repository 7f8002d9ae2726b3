"""The durable journal: an append-only, hash-chained log of accepted commands and cards, with
checkpoints, a round index and the jackpot account (docs/journal.md).

The live table is what replaying the journal gives; restart is the newest checkpoint plus the entries
after it. The store interface is small so a PostgreSQL store can implement it for a casino floor;
SQLite (WAL, full sync) is the embedded default.
"""

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
    JournalLocked,
    JournalStore,
    JournalUnavailable,
)
from controller.journal.sqlite import SqliteJournal

__all__ = [
    "Checkpoint",
    "Entry",
    "FinishedRound",
    "JackpotAccount",
    "JackpotChange",
    "JackpotConfirm",
    "JackpotHitRecord",
    "JackpotOp",
    "JournalError",
    "JournalIntegrityError",
    "JournalLocked",
    "JournalStore",
    "JournalUnavailable",
    "SqliteJournal",
]
