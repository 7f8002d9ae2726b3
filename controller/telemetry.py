"""Prometheus metrics of the tables: rounds, tilts by kind, shoe and camera links, journal write latency.

Counts and states only, never a card. ``observe_appends`` is the hook on the journal: it times each
append of one store and hands the written entry to an observer, leaving the store's code alone.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from controller.journal import Entry, JournalStore
from controller.tilts import ROUND_ENDING

AppendObserver = Callable[[Entry, float], None]

# Journal appends fsync: sub-millisecond on an SSD, tens of milliseconds on an SD card or a busy disk.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def observe_appends(store: JournalStore, observer: AppendObserver) -> JournalStore:
    """Time every ``append`` of this store instance and report ``(entry, seconds)`` after it is durable.

    Wraps the instance, not the class, so any store works and its code is untouched; a table already
    built on ``store`` sees the wrapper too. An observer that raises is not allowed to fail the write:
    the entry is durable by then, so the error is swallowed (metrics are best effort).
    """
    append = store.append

    def timed(*args: Any, **kwargs: Any) -> Entry:
        started = time.perf_counter()
        entry = append(*args, **kwargs)
        # The entry is written: a metrics failure must not make the table believe otherwise.
        with contextlib.suppress(Exception):
            observer(entry, time.perf_counter() - started)
        return entry

    store.append = timed  # type: ignore[method-assign]
    return store


class TableMetrics:
    """The metrics of the tables one process runs, in a registry of their own (``registry``)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.rounds = Counter(
            "dealer_assist_rounds",
            "Rounds finished, by outcome (settled or void)",
            ["table", "outcome"],
            registry=self.registry,
        )
        self.tilts = Counter("dealer_assist_tilts", "Tilts raised, by kind", ["table", "kind"], registry=self.registry)
        self.journal_write = Histogram(
            "dealer_assist_journal_write_seconds",
            "Time to append one entry to the journal durably (fsync included)",
            ["table"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.shoe_link = Gauge(
            "dealer_assist_shoe_link_up", "1 while the link to the shoe is up", ["table"], registry=self.registry
        )
        self.camera_link = Gauge(
            "dealer_assist_camera_link_up", "1 while the camera over the table works", ["table"], registry=self.registry
        )

    def journal_observer(self, table: str, *, round_open: Callable[[], bool]) -> AppendObserver:
        """The observer to give :func:`observe_appends` for this table's journal.

        ``round_open`` says whether the table has a round open; it is read when a tilt is cleared
        (before the clear is applied: the table calls its store under its lock), since a redeal,
        cancel or void resolution ends a round only if one was open.
        """
        latency = self.journal_write.labels(table=table)

        def observe(entry: Entry, seconds: float) -> None:
            latency.observe(seconds)
            if entry.kind == "round-settled":
                self.rounds.labels(table=table, outcome="settled").inc()
            elif entry.kind == "round-voided" or (
                entry.kind == "tilt-cleared" and entry.data.get("resolution") in ROUND_ENDING and round_open()
            ):
                self.rounds.labels(table=table, outcome="void").inc()
            elif entry.kind == "tilt-raised":
                self.tilts.labels(table=table, kind=str(entry.data.get("kind"))).inc()

        return observe

    def watch_shoe_link(self, table: str, is_up: Callable[[], bool]) -> None:
        """Read the shoe's link state at every scrape."""
        self.shoe_link.labels(table=table).set_function(lambda: 1.0 if is_up() else 0.0)

    def watch_camera_link(self, table: str, is_up: Callable[[], bool]) -> None:
        """Read the camera's state at every scrape."""
        self.camera_link.labels(table=table).set_function(lambda: 1.0 if is_up() else 0.0)
