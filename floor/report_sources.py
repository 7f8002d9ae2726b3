"""Where a report's entries come from: the floor's replicated journals, or one table's own journal folder.

Both read only the entry kinds a report needs and only the stretch of each journal inside the range:
``at`` grows with ``seq`` (a table's clock, ISO UTC text), so the first entry at or after a time is found
by bisecting ``seq`` with primary-key lookups, and the range is then read as a primary-key range scan,
filtered by kind and time in SQL. No index on ``at`` is needed; a month of a busy table costs a few dozen
lookups, not a scan of its journal.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from floor.reports import KINDS, UNKNOWN_CURRENCY, Period, Report, TableAccumulator, TableInfo, build_report

if TYPE_CHECKING:
    from controller.journal.archive import Segments
    from floor.base import FloorStore

WORKERS = 4  # tables read at once (the floor store's pool holds 10 connections by default)
WINDOW = 20_000  # journal entries (by seq) read per query: bounds memory on a long range
JOURNAL = "journal.sqlite3"

Found = tuple[int, str] | None  # (seq, at) of the first entry at or after a seq, or None past the end


def first_seq_at(probe: Callable[[int], Found], lo: int, hi: int, when: str) -> int:
    """The smallest seq in ``[lo, hi]`` from which every entry is at or after ``when`` (``hi``: none is).

    ``probe(s)`` gives the first entry with seq >= s; entries' times must not go down as seq goes up."""
    while lo < hi:
        mid = (lo + hi) // 2
        found = probe(mid)
        if found is None or found[1] >= when:
            hi = mid
        else:
            lo = found[0] + 1
    return lo


class Source(ABC):
    """Tables and their entries of the report's kinds, ``start <= at < end``, in journal order."""

    @abstractmethod
    def tables(self) -> list[TableInfo]: ...

    @abstractmethod
    def entries(self, table_id: str, *, start: str, end: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(kind, at, data) of each entry of :data:`floor.reports.KINDS` in ``[start, end)``."""

    def close(self) -> None:  # noqa: B027 - a hook: only some sources hold anything
        """Release what the source holds."""


class FloorSource(Source):
    """The floor store's replicated journals (SQLite or PostgreSQL); tables' pits, games and units of account
    from ``floor_tables``."""

    def __init__(self, store: FloorStore) -> None:
        self.store = store

    def tables(self) -> list[TableInfo]:
        names, units = self.store.table_names(), self.store.units()
        out = []
        for t, pit, game in self.store.tables():
            currency, minor_units = units.get(t, ("", 0))
            if not currency:  # registered before the floor kept units, and not since
                currency, minor_units = self._journaled_unit(t)
            out.append(TableInfo(t, pit, game, names.get(t, ""), currency, minor_units))
        return out

    def _journaled_unit(self, table_id: str) -> tuple[str, int]:
        """The unit of account of the table's latest replicated configuration (a table's money never changes
        unit: controller/table refuses it); :data:`UNKNOWN_CURRENCY` when none is on the floor."""
        with self.store._transaction(lock=False) as cur:
            cur.execute(
                "SELECT data FROM journal WHERE table_id = %s AND kind = 'configured' ORDER BY seq DESC LIMIT 1",
                (table_id,),
            )
            row = cur.fetchone()
        return _unit(None if row is None else json.loads(row[0]))

    def entries(self, table_id: str, *, start: str, end: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
        # Reads through the store's own transactions (one connection each, released before yielding).
        with self.store._transaction(lock=False) as cur:
            cur.execute("SELECT MIN(seq), MAX(seq) FROM journal WHERE table_id = %s", (table_id,))
            low, high = cur.fetchone()
            if low is None:
                return

            def probe(seq: int) -> Found:
                cur.execute(
                    "SELECT seq, at FROM journal WHERE table_id = %s AND seq >= %s ORDER BY seq LIMIT 1",
                    (table_id, seq),
                )
                row = cur.fetchone()
                return None if row is None else (int(row[0]), str(row[1]))

            first = first_seq_at(probe, int(low), int(high) + 1, start)
            stop = first_seq_at(probe, first, int(high) + 1, end)
        kinds = ", ".join(["%s"] * len(KINDS))
        for window in range(first, stop, WINDOW):
            with self.store._transaction(lock=False) as cur:
                cur.execute(
                    "SELECT kind, at, data FROM journal WHERE table_id = %s AND seq >= %s AND seq < %s "
                    f"AND kind IN ({kinds}) AND at >= %s AND at < %s ORDER BY seq",
                    (table_id, window, min(window + WINDOW, stop), *KINDS, start, end),
                )
                rows = cur.fetchall()
            for kind, at, data in rows:
                yield str(kind), str(at), json.loads(data)


class TableSource(Source):
    """One table's data folder: its live journal and archived months, read-only (a running table is fine).
    The table has no pit (``-``); its game is the one its settlements name."""

    def __init__(self, folder: Path) -> None:
        """Raises:
        JournalError: no journal there, or one that cannot be read or fails its checks."""
        from controller.journal.archive import Segments

        self.segments: Segments = Segments(journal=folder / JOURNAL)

    def tables(self) -> list[TableInfo]:
        return [TableInfo(self.segments.table_id, "-", "", "", *self._unit())]

    def _unit(self) -> tuple[str, int]:
        """The unit of account of the table's configuration: its journal's first entry configures it (and a
        table refuses another unit later: controller/table). Where the oldest archive months were pruned
        (deleted by the casino's retention), the first entry left is not that one: then the oldest
        checkpoint's settings, which every checkpoint carries, say it."""
        for part in self.segments.parts:
            if part.last_seq > part.base_seq:
                first = part.entry(part.base_seq + 1)
                if first is not None and first.kind == "configured":
                    return _unit(first.data)
                break
        checkpoint = next(self.segments.checkpoints(), None)
        if checkpoint is not None and "settings" in checkpoint.state:
            return _unit({"settings": checkpoint.state["settings"]})
        return UNKNOWN_CURRENCY, 0

    def entries(self, table_id: str, *, start: str, end: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
        for part in self.segments.parts:
            if part.last_seq <= part.base_seq:
                continue

            def probe(seq: int, part: Any = part) -> Found:
                entry = part.entry(seq)  # seq has no gaps inside a segment
                return None if entry is None else (entry.seq, entry.at)

            first = first_seq_at(probe, part.base_seq + 1, part.last_seq + 1, start)
            stop = first_seq_at(probe, first, part.last_seq + 1, end)
            if first >= stop:
                continue
            for entry in part.entries(after=first - 1):
                if entry.seq >= stop:
                    break
                if entry.kind in KINDS and start <= entry.at < end:
                    yield entry.kind, entry.at, dict(entry.data)

    def close(self) -> None:
        self.segments.close()


def _unit(configured: Mapping[str, Any] | None) -> tuple[str, int]:
    """(currency, minor units) of a "configured" entry's data; :data:`UNKNOWN_CURRENCY` without one. A setting
    the entry does not carry is the configuration's default (controller/config.py)."""
    if configured is None:
        return UNKNOWN_CURRENCY, 0
    from controller.config import TableConfig

    settings = configured.get("settings", {})
    fields = TableConfig.model_fields
    currency = settings.get("currency", fields["currency"].default)
    minor_units = settings.get("minor_units", fields["minor_units"].default)
    return str(currency), int(minor_units)


def compute(
    source: Source,
    *,
    periods: list[Period],
    grouping: str,
    tz: str,
    pits: frozenset[str] = frozenset(),
    table_ids: frozenset[str] = frozenset(),
) -> Report:
    """The report over ``periods`` (consecutive, in order) for every table of ``source``, or only those of
    ``pits`` / ``table_ids`` when given.

    Raises:
        FloorUnavailable: the floor database failed.
        JournalError: a table journal cannot be read.
        ReportError: an entry cannot be read, or no table matches the filters.
    """
    from floor.reports import ReportError

    start, end = periods[0].start, periods[-1].end
    tables = [t for t in source.tables() if (not pits or t.pit in pits) and (not table_ids or t.table_id in table_ids)]
    if not tables and (pits or table_ids):
        raise ReportError("no table on the floor matches --pit/--table")

    def one(table: TableInfo) -> TableAccumulator:
        acc = TableAccumulator(table=table, periods=periods)
        for kind, at, data in source.entries(table.table_id, start=start, end=end):
            acc.add(kind, at, data)
        return acc

    # Tables are independent: a few at a time, so one table's database round trips overlap another's parsing.
    # Only accumulators are kept, never a table's entries, so memory does not grow with the range.
    with ThreadPoolExecutor(max_workers=max(1, min(WORKERS, len(tables)))) as pool:
        accumulators = list(pool.map(one, tables))
    return build_report(accumulators=accumulators, periods=periods, start=start, end=end, grouping=grouping, tz=tz)


class _OwnedFloorSource(FloorSource):
    """A floor source that opened its store itself, and so closes it."""

    def close(self) -> None:
        self.store.close()


def open_source(*, db: str | None = None, data: str | None = None) -> Source:
    """The source a command line names: ``db`` a floor database URL (``postgresql://…``, a SQLite file, or
    ``sqlite:///path``); ``data`` a folder holding the embedded floor store (``floor.sqlite3``: the floor,
    every table) or else one table's journal (``journal.sqlite3`` and its ``archive/``). Opens read-only.

    Raises:
        ReportError: nothing to report on there.
        FloorUnavailable: the floor database cannot be reached.
        FloorConfigError: not a floor database, or one of another schema version.
        JournalError: the table journal cannot be read or fails its checks.
    """
    from floor import EMBEDDED_NAME, open_store
    from floor.reports import ReportError

    url: str
    if db is not None:
        if db.startswith(("postgresql://", "postgres://")):
            url = db
        else:
            path = Path(db.removeprefix("sqlite://"))
            if path.is_dir():
                path = path / EMBEDDED_NAME
            if not path.is_file():
                raise ReportError(f"{path}: no floor store here")
            url = str(path)
    else:
        folder = Path(data or ".")
        if not folder.is_dir():
            what = "not a folder" if folder.exists() else "no such folder"
            raise ReportError(f"{folder}: {what} (give a table's data folder or the floor's)")
        if (folder / EMBEDDED_NAME).is_file():
            url = str(folder / EMBEDDED_NAME)
        elif (folder / JOURNAL).is_file():
            return TableSource(folder)
        else:
            raise ReportError(f"{folder}: no floor store ({EMBEDDED_NAME}) or table journal ({JOURNAL}) here")
    store = open_store(url, migrate=False)
    try:
        store.check_schema()
    except BaseException:
        store.close()
        raise
    return _OwnedFloorSource(store)
