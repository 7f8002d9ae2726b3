"""Test kit for the floor: a real floor store whose link can be cut or hung."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from controller.journal.base import JournalStore
from controller.sql import Cursor
from floor import FloorStore, FloorUnavailable


class FlakyStore(FloorStore):
    """A real floor store whose connection can be cut: every operation then fails as a dead link does."""

    def __init__(self, inner: FloorStore) -> None:
        self.inner = inner
        self.down = False
        self.flowing = threading.Event()  # cleared: every operation hangs, as on a dead TCP connection
        self.flowing.set()
        self.meanwhile: Callable[[], None] | None = None  # runs as each operation starts (the table plays on)

    def _transaction(self, *, lock: bool) -> AbstractContextManager[Cursor]:
        if self.meanwhile is not None:
            self.meanwhile()
        self.flowing.wait()
        if self.down:
            raise FloorUnavailable("floor unavailable: connection refused (test cut the link)")
        return self.inner._transaction(lock=lock)

    @property
    def _for_update(self) -> str:
        return self.inner._for_update

    def _has_table(self, cur: Cursor, name: str) -> bool:
        return self.inner._has_table(cur, name)

    def close(self) -> None:
        self.inner.close()


def floor_agrees(store: FloorStore, account: str, journals: Iterable[JournalStore]) -> None:
    """Each table's journal is on the floor entry for entry, and the linked account holds exactly what the
    journals say was contributed (settled rounds) and won (the floor's amounts, journaled back):
    ``meter = seeded + contributions - won + corrections``."""
    acc = store.account(account)
    contributed = won = hits = 0
    for journal in journals:
        entries = list(journal.entries())
        assert [(e.seq, e.hash) for e in store.journal(journal.table_id)] == [(e.seq, e.hash) for e in entries]
        contributed += sum(
            e.data["settlement"]["jackpot"]["contribution"] for e in entries if e.kind == "round-settled"
        )
        floor_hits = [e for e in entries if e.kind == "jackpot-floor-hit"]
        won += sum(e.data["amount"] for e in floor_hits)
        hits += len(floor_hits)
    assert acc.contributions + acc.overflow == contributed
    assert (acc.won, acc.hits) == (won, hits)
    assert acc.meter == acc.seeded + acc.contributions - acc.won + acc.corrections
