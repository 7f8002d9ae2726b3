"""Test kit for the floor: a real floor store whose link can be cut or hung."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager

from floor import FloorStore, FloorUnavailable
from floor.base import Cursor


class FlakyStore(FloorStore):
    """A real floor store whose connection can be cut: every operation then fails as a dead link does."""

    def __init__(self, inner: FloorStore) -> None:
        self.inner = inner
        self.down = False
        self.flowing = threading.Event()  # cleared: every operation hangs, as on a dead TCP connection
        self.flowing.set()

    def _transaction(self, *, lock: bool) -> AbstractContextManager[Cursor]:
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
