"""The durable journal: an append-only log of accepted commands and cards, and the jackpot account.

The live table is what replaying the journal gives; restart is replay. The store interface is
small so a PostgreSQL store can implement it for a casino floor; SQLite (WAL, full sync) is the
embedded default.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.errors import ControllerError


class JournalError(ControllerError):
    """The journal cannot be opened, read or written; nothing was applied."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal entry: immutable once written. ``seq`` is consecutive from 1."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    actor: str
    at: str


@dataclass(frozen=True, slots=True)
class JackpotHitRecord:
    """A jackpot hit: pending until a supervisor confirms it."""

    hit: int
    round: int
    box: int
    hand: str
    amount: int
    at: str
    confirmed_by: str | None = None
    confirmed_at: str | None = None


@dataclass(frozen=True, slots=True)
class JackpotAccount:
    """The progressive account's meters."""

    name: str
    meter: int
    contributions: int = 0
    won: int = 0
    hits: tuple[JackpotHitRecord, ...] = field(default=())

    @property
    def pending(self) -> tuple[JackpotHitRecord, ...]:
        return tuple(h for h in self.hits if h.confirmed_by is None)


@dataclass(frozen=True, slots=True)
class JackpotChange:
    """What a settled round does to the account, applied in the same transaction as its entry.

    Relative, so that several tables can share one account: the hits are taken off the meter as it
    stands (never below ``reset``), then the contribution is added.
    """

    contribution: int
    reset: int
    hits: tuple[tuple[int, str, int], ...] = ()  # (box, hand, amount)

    @property
    def won(self) -> int:
        return sum(amount for _, _, amount in self.hits)


@dataclass(frozen=True, slots=True)
class JackpotConfirm:
    """A supervisor confirms (pays) a pending hit; applied in the same transaction as its entry."""

    hit: int


JackpotOp = JackpotChange | JackpotConfirm


class JournalStore(ABC):
    """Append-only storage for one table's journal plus its jackpot account."""

    @abstractmethod
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
        """Write one entry durably (and its jackpot operation with it) before returning.

        Raises:
            JournalError: the write failed, or the jackpot operation is refused (a hit that does
                not exist or was confirmed already); nothing was written.
        """

    @abstractmethod
    def entries(self, *, after: int = 0) -> Iterator[Entry]:
        """Entries with ``seq > after``, in order."""

    @abstractmethod
    def jackpot(self) -> JackpotAccount | None:
        """The jackpot account, or None before it is created."""

    @abstractmethod
    def open_jackpot(self, *, name: str, meter: int) -> JackpotAccount:
        """Create the account with a starting meter if it does not exist; return it."""

    @abstractmethod
    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq     INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL,
    data    TEXT NOT NULL,
    actor   TEXT NOT NULL,
    at      TEXT NOT NULL
);
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


class SqliteJournal(JournalStore):
    """The embedded store: one SQLite file in WAL mode with ``synchronous=FULL``.

    An append commits (and so fsyncs) before it returns: a kill -9 or power loss after that
    loses nothing. Safe to share between threads; writes are serialised.
    """

    def __init__(self, *, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise JournalError(f"{self.path}: cannot open the journal: {exc}") from None
        self._lock = threading.Lock()

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
        text = json.dumps(data, separators=(",", ":"), sort_keys=True)
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                cur = self._db.execute(
                    "INSERT INTO journal (kind, data, actor, at) VALUES (?, ?, ?, ?)", (kind, text, actor, at)
                )
                if isinstance(jackpot, JackpotChange):
                    self._apply_jackpot(jackpot, round_no=round_no or 0, at=at)
                elif isinstance(jackpot, JackpotConfirm):
                    self._confirm(jackpot.hit, by=actor, at=at)
                self._db.execute("COMMIT")
            except (sqlite3.Error, JournalError) as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if isinstance(exc, JournalError):
                    raise
                raise JournalError(f"{self.path}: cannot write to the journal: {exc}") from None
        seq = cur.lastrowid
        assert seq is not None
        return Entry(seq=seq, kind=kind, data=json.loads(text), actor=actor, at=at)

    def _apply_jackpot(self, change: JackpotChange, *, round_no: int, at: str) -> None:
        if change.hits:
            self._db.execute("UPDATE jackpot_account SET meter = MAX(?, meter - ?)", (change.reset, change.won))
        self._db.execute(
            "UPDATE jackpot_account SET meter = meter + ?, contributions = contributions + ?, won = won + ?",
            (change.contribution, change.contribution, change.won),
        )
        for box, hand, amount in change.hits:
            self._db.execute(
                "INSERT INTO jackpot_hit (round, box, hand, amount, at) VALUES (?, ?, ?, ?, ?)",
                (round_no, box, hand, amount, at),
            )

    def entries(self, *, after: int = 0) -> Iterator[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, data, actor, at FROM journal WHERE seq > ? ORDER BY seq", (after,)
            ).fetchall()
        for seq, kind, data, actor, at in rows:
            yield Entry(seq=seq, kind=kind, data=json.loads(data), actor=actor, at=at)

    def jackpot(self) -> JackpotAccount | None:
        with self._lock:
            row = self._db.execute("SELECT name, meter, contributions, won FROM jackpot_account").fetchone()
            hits = self._db.execute(
                "SELECT hit, round, box, hand, amount, at, confirmed_by, confirmed_at FROM jackpot_hit ORDER BY hit"
            ).fetchall()
        if row is None:
            return None
        return JackpotAccount(
            name=row[0],
            meter=row[1],
            contributions=row[2],
            won=row[3],
            hits=tuple(JackpotHitRecord(*h) for h in hits),
        )

    def open_jackpot(self, *, name: str, meter: int) -> JackpotAccount:
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO jackpot_account (name, meter) VALUES (?, ?)", (name, meter))
        account = self.jackpot()
        assert account is not None
        return account

    def _confirm(self, hit: int, *, by: str, at: str) -> None:
        cur = self._db.execute(
            "UPDATE jackpot_hit SET confirmed_by = ?, confirmed_at = ? WHERE hit = ? AND confirmed_by IS NULL",
            (by, at, hit),
        )
        if cur.rowcount != 1:
            raise JournalError(f"jackpot hit {hit} does not exist or was confirmed already")

    def close(self) -> None:
        with self._lock:
            self._db.close()
