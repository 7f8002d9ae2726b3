"""What a journal store is: entries, the jackpot account's records, and the store interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.errors import ControllerError


class JournalError(ControllerError):
    """The journal cannot be opened, read or written; nothing was applied."""


class JournalUnavailable(JournalError):
    """The storage failed (a full disk, an I/O error, read-only media): the entry was not written.
    The message starts "journal unavailable: " and names the problem, as displays show it."""


class JournalIntegrityError(JournalError):
    """The journal is not the one the table wrote: entries lost, changed or out of order.

    The table refuses to run on it; ``dealer-assist journal verify`` finds the damage and
    ``dealer-assist journal export`` salvages every readable round.
    """


class JournalLocked(JournalError):
    """Another process holds the table's journal (one process per table)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal entry: immutable once written. ``seq`` is consecutive from 1; ``hash`` chains it to
    the entry before (docs/journal.md)."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    actor: str
    at: str
    hash: str = ""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The table's state after entry ``seq`` (a round boundary), with that entry's chain hash."""

    seq: int
    hash: str
    at: str
    state: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class FinishedRound:
    """A finished round as the journal's round index keeps it: what ``history`` prints for it.

    ``seq`` is the entry that finished it; ``line`` the history line (round record, ``round``,
    ``settlement``); ``settled`` False for a void round.
    """

    round: int
    seq: int
    at: str
    settled: bool
    line: Mapping[str, Any]


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
    """Append-only storage for one table's journal, its checkpoints and round index, and its jackpot
    account. ``read_only`` stores (history, verify, export) refuse every write."""

    table_id: str = ""
    read_only: bool = False
    last_seq: int = 0  # the newest entry's number (0: none yet)
    base_seq: int = 0  # entries up to this one are archived out of this store

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
        """Entries with ``seq > after``, in order, streamed (never all in memory at once).

        Raises:
            JournalError: an entry cannot be read.
        """

    def entry(self, seq: int) -> Entry | None:
        """One entry by number, or None (stores with an index answer without a scan)."""
        found = next(iter(self.entries(after=seq - 1)), None)
        return found if found is not None and found.seq == seq else None

    @abstractmethod
    def latest_checkpoint(self) -> Checkpoint | None:
        """The newest checkpoint, or None (replay from the first entry).

        Raises:
            JournalError: it cannot be read.
        """

    @abstractmethod
    def save(self, *, rounds: Sequence[FinishedRound] = (), checkpoint: Checkpoint | None = None) -> None:
        """Index finished rounds and save a checkpoint, in one transaction; rows already there are kept
        (a replay after a crash writes them again). The checkpoint must come after the rounds it covers.

        Raises:
            JournalError: the write failed; nothing was written.
        """

    @abstractmethod
    def finished(self, *, last: int | None = None, upto: int | None = None) -> list[FinishedRound]:
        """The last ``last`` finished rounds (None: all) whose finishing entry is at or before ``upto``,
        oldest first.

        Raises:
            JournalError: the index cannot be read.
        """

    @abstractmethod
    def finished_round(self, number: int) -> FinishedRound | None:
        """Round ``number`` from the round index, or None if this store's index does not hold it.

        Raises:
            JournalError: the index cannot be read.
        """

    @abstractmethod
    def finished_at(self, *, upto: int, limit: int) -> list[str]:
        """When the last ``limit`` settled rounds finished (entry ``upto`` at the latest), oldest first."""

    @abstractmethod
    def boundary(self, entry: Entry) -> None:
        """A round ended with ``entry``: remember it outside the database as the journal's head, so that a
        journal found shorter at the next start is refused (docs/journal.md).

        Raises:
            JournalError: the head cannot be written.
        """

    @abstractmethod
    def jackpot(self) -> JackpotAccount | None:
        """The jackpot account, or None before it is created."""

    @abstractmethod
    def open_jackpot(self, *, name: str, meter: int) -> JackpotAccount:
        """Create the account with a starting meter if it does not exist; return it."""

    @abstractmethod
    def close(self) -> None: ...
