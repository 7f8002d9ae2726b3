"""What a table's observers read: snapshots, subscriptions and consistent reads, under the table's lock."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Self, TypeVar

from controller.table.state import RECALL, TableState

_T = TypeVar("_T")


class TablePublisher(TableState, ABC):
    """The table's lock (every command and every read holds it) and its observers: the displays'
    snapshots and subscriptions, and the camera's consistent reads."""

    def __init__(self, *, recall: int | None = RECALL) -> None:
        super().__init__(recall=recall)
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[dict[str, Any]], None]] = []

    @abstractmethod
    def _snapshot(self) -> dict[str, Any]:
        """The public snapshot of the table as it is now (:mod:`controller.view`): what every
        display is sent; the class that has every command the snapshot shows makes it."""

    def view(self) -> dict[str, Any]:
        """The public snapshot (see :mod:`controller.view`), consistent: taken under the table's lock."""
        with self._lock:
            return self._snapshot()

    def watch(self, callback: Callable[[dict[str, Any]], None]) -> tuple[Callable[[], None], dict[str, Any]]:
        """Subscribe and take the current snapshot in one step, so no change falls between them."""
        with self._lock:
            return self.subscribe(callback), self.view()

    def inspect(self, reader: Callable[[Self], _T]) -> _T:
        """Run ``reader`` on the table under its lock: a consistent read for an observer (the camera)
        that needs more than the public snapshot shows, e.g. face-down cards' identities. ``reader``
        must not block or call commands."""
        with self._lock:
            return reader(self)

    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback(snapshot)`` after every change; it must not block. Returns unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _publish(self) -> None:
        if self._subscribers:
            view = self._snapshot()
            for callback in list(self._subscribers):
                callback(view)
