"""The floor store: schema, tables and replicated journals, with the status and jackpot halves, on one interface.

Backends differ only in how a transaction is opened and the account row locked (``_transaction``);
every rule lives here, so SQLite and PostgreSQL behave the same and pass the same tests.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from controller.journal.base import Entry
from controller.sql import Cursor
from floor.errors import FloorConfigError, FloorIntegrityError
from floor.jackpots import JackpotStore
from floor.migrations import FILL_ACCOUNT_UNITS, MIGRATIONS
from floor.units import check_unit, unit_text


class FloorStore(JackpotStore, ABC):
    """The floor's store. Every public method runs in one transaction and raises ``FloorUnavailable``
    when the database fails (nothing applied), ``FloorConfigError`` for unknown names or bad
    parameters and ``FloorIntegrityError`` when a replay differs from what was recorded."""

    @abstractmethod
    def _transaction(self, *, lock: bool) -> AbstractContextManager[Cursor]:
        """One transaction; ``lock`` = it will write (SQLite takes the write lock up front)."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> FloorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema -----------------------------------------------------------------------------------

    def migrate(self) -> int:
        """Apply every migration not yet applied, in order; returns the schema version. Idempotent.

        A number missing below the highest applied one is applied too: numbers are handed out to work
        done side by side (each migration touches only its own tables), so a database made before one of
        them was merged still gets it."""
        with self._transaction(lock=True) as cur:
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            self._lock_schema(cur)
            cur.execute("SELECT version FROM schema_version")
            applied = {int(row[0]) for row in cur.fetchall()}
            for version, statements in MIGRATIONS:
                if version in applied:
                    continue
                for sql in statements:
                    cur.execute(sql)
                cur.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES (%s, %s)",
                    (version, datetime.now(UTC).isoformat()),
                )
                applied.add(version)
            return max(applied, default=0)

    def applied_migrations(self) -> set[int]:
        """The migration numbers this database has applied (none for a database the floor never used)."""
        with self._transaction(lock=False) as cur:
            if not self._has_table(cur, "schema_version"):
                return set()
            cur.execute("SELECT version FROM schema_version")
            return {int(row[0]) for row in cur.fetchall()}

    def _lock_schema(self, cur: Cursor) -> None:  # a hook: only PostgreSQL needs it
        """Serialise concurrent migrations (SQLite's write lock already does)."""

    def transaction(self, *, write: bool) -> AbstractContextManager[Cursor]:
        """One transaction on the floor database for a store that keeps its own tables in it (the central
        accounts, ``floor.accounts``): ``%s`` placeholders on both backends, rolled back whole if the block
        raises; ``write``: it will write (SQLite takes the write lock up front).

        Raises:
            FloorUnavailable: the database cannot be reached or failed (nothing applied).
        """
        return self._transaction(lock=write)

    def lock_table(self, cur: Cursor, table: str) -> None:
        """Make this transaction the only writer of ``table`` until it ends; readers go on (SQLite's write
        lock already does). ``table`` is a name from the code, never from input."""

    @abstractmethod
    def _has_table(self, cur: Cursor, name: str) -> bool: ...

    def schema_version(self) -> int:
        """The schema version applied (0 for a database the floor never used)."""
        with self._transaction(lock=False) as cur:
            if not self._has_table(cur, "schema_version"):
                return 0
            cur.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version")
            return int(cur.fetchone()[0])

    def check_schema(self) -> None:
        """Refuse a database whose schema is not the one this code reads (before reading it without migrating).

        Raises:
            FloorConfigError: not a floor database yet, or one of another version.
        """
        found, wanted = self.schema_version(), MIGRATIONS[-1][0]
        if found == 0:
            raise FloorConfigError("this database holds no floor store yet (no schema_version)")
        if found != wanted:
            raise FloorConfigError(f"the floor store's schema is version {found}; this dealer-assist reads {wanted}")

    def table_names(self) -> dict[str, str]:
        """Table id -> the name staff know it by."""
        with self._transaction(lock=False) as cur:
            cur.execute("SELECT table_id, name FROM floor_tables")
            return {str(r[0]): str(r[1]) for r in cur.fetchall()}

    def tables(self) -> list[tuple[str, str, str]]:
        """Every table on the floor: (table id, pit, game), by id."""
        with self._transaction(lock=False) as cur:
            cur.execute("SELECT table_id, pit, game FROM floor_tables ORDER BY table_id")
            return [(str(r[0]), str(r[1]), str(r[2])) for r in cur.fetchall()]

    # -- tables and accounts ----------------------------------------------------------------------

    def add_table(
        self, *, table_id: str, pit: str, game: str, name: str = "", currency: str = "EUR", minor_units: int = 0
    ) -> None:
        """Register a table (idempotent; ``name``, what staff call it, may change) with the unit of account its
        amounts are in: ``currency`` and ``minor_units`` as its configuration gives them (the defaults are the
        configuration's). A table registered before the floor kept units (migration 6) gets them now.

        Raises:
            FloorConfigError: an empty id, pit, game or currency, or minor units outside 0..4; the table id is
                registered with another pit or game, or with another currency or minor units (the floor's
                money of the table is in those: relabelling it would change what it says; a table with a new
                unit of account is a new table, with its own data folder and id). Nothing is changed then.
        """
        if not table_id or not pit or not game:
            raise FloorConfigError("a table needs a non-empty id, pit and game")
        check_unit(currency, minor_units, what=f"table {table_id}")
        with self._transaction(lock=True) as cur:
            cur.execute(
                "INSERT INTO floor_tables (table_id, pit, game, name, currency, minor_units) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (table_id, pit, game, name or table_id, currency, minor_units),
            )
            inserted = cur.rowcount == 1
            renamed = False
            if name:
                cur.execute(
                    "UPDATE floor_tables SET name = %s WHERE table_id = %s AND name <> %s", (name, table_id, name)
                )
                renamed = cur.rowcount == 1
            # Registered before the floor kept units: its first registration since says what they are.
            cur.execute(
                "UPDATE floor_tables SET currency = %s, minor_units = %s WHERE table_id = %s AND currency = ''",
                (currency, minor_units, table_id),
            )
            if cur.rowcount == 1:  # a jackpot waiting for this table's unit may be settled by it now
                cur.execute(FILL_ACCOUNT_UNITS)
            if inserted or renamed:
                self._notify(cur, table_id)
            cur.execute("SELECT pit, game, currency, minor_units FROM floor_tables WHERE table_id = %s", (table_id,))
            row = cur.fetchone()
            if (row[0], row[1]) != (pit, game):
                raise FloorConfigError(f"table {table_id} is already on the floor in pit {row[0]} playing {row[1]}")
            if (row[2], int(row[3])) != (currency, minor_units):
                raise FloorConfigError(
                    f"table {name or table_id} ({table_id}) is on the floor in {unit_text(row[2], int(row[3]))}; "
                    f"its configuration now says {unit_text(currency, minor_units)}: the floor keeps its money in "
                    f"{row[2]} (a table changing its currency or decimals is a new table: its own data folder)"
                )

    def units(self) -> dict[str, tuple[str, int]]:
        """Table id -> (currency, minor units) its amounts are in; currency '' for a table registered before the
        floor kept units that has not registered since (migration 6)."""
        with self._transaction(lock=False) as cur:
            cur.execute("SELECT table_id, currency, minor_units FROM floor_tables")
            return {str(r[0]): (str(r[1]), int(r[2])) for r in cur.fetchall()}

    def journal_of_kind(self, table_id: str, kind: str) -> list[Entry]:
        """One table's replicated entries of one kind, in order."""
        with self._transaction(lock=False) as cur:
            cur.execute(
                "SELECT seq, kind, data, actor, at, hash FROM journal WHERE table_id = %s AND kind = %s ORDER BY seq",
                (table_id, kind),
            )
            rows = cur.fetchall()
        return [Entry(seq=int(r[0]), kind=r[1], data=json.loads(r[2]), actor=r[3], at=r[4], hash=r[5]) for r in rows]

    # -- replicated journals ----------------------------------------------------------------------

    def replicate(self, *, table_id: str, entries: Sequence[Entry]) -> int:
        """Store a table's journal entries, each once by (table, seq); returns how many were new.

        An entry already on the floor with the same hash is skipped; with another hash it is refused
        (``FloorIntegrityError``) and nothing of this batch is stored."""
        added = 0
        with self._transaction(lock=True) as cur:
            # Only that it is there (a floor store at an older schema replicates too: the migration tests).
            cur.execute("SELECT 1 FROM floor_tables WHERE table_id = %s", (table_id,))
            if cur.fetchone() is None:
                raise FloorConfigError(f"table {table_id} is not on the floor")
            for entry in entries:
                data = json.dumps(entry.data, separators=(",", ":"), sort_keys=True)
                cur.execute(
                    "INSERT INTO journal (table_id, seq, kind, data, actor, at, hash) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT DO NOTHING",
                    (table_id, entry.seq, entry.kind, data, entry.actor, entry.at, entry.hash),
                )
                if cur.rowcount == 1:
                    added += 1
                    continue
                cur.execute("SELECT hash, data FROM journal WHERE table_id = %s AND seq = %s", (table_id, entry.seq))
                row = cur.fetchone()
                if (row[0], row[1]) != (entry.hash, data):
                    raise FloorIntegrityError(
                        f"table {table_id} entry {entry.seq} on the floor differs from the one replicated now "
                        "(the floor never changes an entry)"
                    )
        return added

    def last_seq(self, table_id: str) -> int:
        """The highest entry of ``table_id`` on the floor (0 for none): where replication resumes."""
        with self._transaction(lock=False) as cur:
            cur.execute("SELECT COALESCE(MAX(seq), 0) FROM journal WHERE table_id = %s", (table_id,))
            return int(cur.fetchone()[0])

    def journal(self, table_id: str, *, after: int = 0) -> Iterator[Entry]:
        with self._transaction(lock=False) as cur:
            cur.execute(
                "SELECT seq, kind, data, actor, at, hash FROM journal WHERE table_id = %s AND seq > %s ORDER BY seq",
                (table_id, after),
            )
            rows = cur.fetchall()
        for seq, kind, data, actor, at, hsh in rows:
            yield Entry(seq=int(seq), kind=kind, data=json.loads(data), actor=actor, at=at, hash=hsh)
