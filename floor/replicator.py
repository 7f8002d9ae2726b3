"""Ships a table's journal to the floor exactly once by (table, seq), resuming after any outage."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.journal.base import Entry, JournalStore
from floor.base import FloorStore
from floor.errors import FloorIntegrityError, FloorUnavailable

BATCH = 500  # entries per floor transaction: one round trip per batch, a batch stored whole or not at all


@dataclass(frozen=True, slots=True)
class Shipped:
    """One pass: how many entries were new on the floor, and the floor's highest seq after it."""

    added: int
    floor_seq: int


class Replicator:
    """The table's local journal stays its source of truth; this copies it to the floor.

    Every pass starts from the floor's own highest seq for the table (never from a local bookmark), so a
    pass cut short by an outage — even after the floor committed a batch whose acknowledgement was lost —
    resumes exactly where the floor is, and the floor's UNIQUE(table, seq) makes any overlap harmless."""

    def __init__(
        self,
        *,
        journal: JournalStore,
        store: FloorStore,
        batch: int = BATCH,
        before_batch: Callable[[Sequence[Entry]], None] | None = None,
    ) -> None:
        """``before_batch`` runs before each batch is stored (the table's link feeds the linked
        progressive from it); it must be idempotent: a batch cut short by an outage comes again."""
        if not journal.table_id:
            raise FloorIntegrityError("the journal has no table id: it cannot be replicated")
        self.journal = journal
        self.store = store
        self.table_id = journal.table_id
        self.batch = batch
        self.before_batch = before_batch
        self.link_up = True
        self.unavailable = 0  # passes cut short by the floor being unreachable

    def ship(self) -> Shipped:
        """Copy every entry the floor does not have yet, in order, in batches.

        Raises:
            FloorUnavailable: the floor failed; the batches stored before it stay, the rest wait for the next pass.
            FloorIntegrityError: the floor holds a different entry under one of this table's numbers, or
                entries it lacks are in neither the archives nor the live journal (a gap the floor must not get).
            FloorConfigError: the table is not on the floor.
        """
        floor_seq = self.store.last_seq(self.table_id)
        if floor_seq < self.journal.base_seq:
            # The floor lacks entries that were archived out of the live file (a table joining a floor
            # late, or after a long outage): read them from the archive segments, then the live file.
            return self._ship_from_archives(floor_seq)
        if floor_seq > self.journal.base_seq:
            self._check_joint(self.journal, floor_seq)
        return self._ship(self.journal, floor_seq)

    def _ship_from_archives(self, floor_seq: int) -> Shipped:
        from controller.journal.archive import Segments

        path = getattr(self.journal, "path", None)
        if path is None:
            raise FloorIntegrityError(
                f"table {self.table_id}: the floor has entries up to {floor_seq} but the live journal starts "
                f"after {self.journal.base_seq}, and this journal has no archive to read them from"
            )
        segments = Segments(journal=path, checked=True)
        try:
            if segments.parts[0].base_seq > floor_seq:
                raise FloorIntegrityError(
                    f"table {self.table_id}: the floor has entries up to {floor_seq}, but the oldest archive "
                    f"starts after {segments.parts[0].base_seq}: entries are missing"
                )
            if floor_seq > 0:
                self._check_joint(segments, floor_seq)
            return self._ship(segments, floor_seq)
        finally:
            segments.close()

    def _ship(self, source: JournalStore, floor_seq: int) -> Shipped:
        added = 0
        pending: list[Entry] = []
        for entry in source.entries(after=floor_seq):
            pending.append(entry)
            if len(pending) >= self.batch:
                added += self._store_batch(pending)
                floor_seq = pending[-1].seq
                pending = []
        if pending:
            added += self._store_batch(pending)
            floor_seq = pending[-1].seq
        return Shipped(added=added, floor_seq=floor_seq)

    def _store_batch(self, entries: list[Entry]) -> int:
        if self.before_batch is not None:
            self.before_batch(entries)
        return self.store.replicate(table_id=self.table_id, entries=entries)

    def _check_joint(self, source: JournalStore, seq: int) -> None:
        """The floor's newest entry must be the journal's entry of that number (same hash): resuming on a
        floor copy that went another way (another table's journal, a restored older journal) is refused."""
        floor = next(iter(self.store.journal(self.table_id, after=seq - 1)), None)
        local = next(iter(source.entries(after=seq - 1)), None)
        if floor is None or local is None or local.seq != seq or floor.hash != local.hash:
            raise FloorIntegrityError(
                f"table {self.table_id}: entry {seq} on the floor is not this journal's entry {seq}; "
                "nothing shipped (the floor never changes an entry)"
            )

    def run(self, stop: threading.Event, *, interval: float = 0.2) -> None:
        """Ship every ``interval`` seconds until ``stop`` is set; an unreachable floor marks the link down
        (``link_up``) and is retried on the next pass. Integrity and configuration errors end the loop."""
        while not stop.is_set():
            try:
                self.ship()
                self.link_up = True
            except FloorUnavailable:
                self.link_up = False
                self.unavailable += 1
            stop.wait(interval)
