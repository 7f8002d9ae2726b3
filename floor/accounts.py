"""Central accounts: staff accounts, their sessions, the audit log and the server secret in the floor's database.

One account signs in at every table of the floor and at the floor display. Every table process and the
floor service read sessions from these tables on every request, so a password change or a removal made
anywhere (an admin page, ``dealer-assist user … --db URL``) ends the account's sessions everywhere at the
next request. The rules are ``web_display.accounts.SqlAccountStore``'s, the same as a table's own file;
only the transactions are the floor store's (``FloorStore.transaction``), on SQLite or PostgreSQL.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from floor import open_store
from floor.base import FloorStore
from floor.errors import FloorError, FloorUnavailable
from web_display.accounts import AccountTables, Cursor, SqlAccountStore
from web_display.errors import AccountError, AccountStoreUnavailable

ACCOUNTS_VERSION = 2  # the floor schema migration that made the tables below
FLOOR_TABLES = AccountTables(
    accounts="staff_accounts", sessions="staff_sessions", audit="staff_audit", secret="staff_secret"
)


class FloorAccountStore(SqlAccountStore):
    """The central account store on an open floor store (its connection pool, or its SQLite file).

    Floor errors become the web display's: ``AccountStoreUnavailable`` (HTTP 503, "floor unavailable: …")
    when the database cannot be reached, nothing applied; ``AccountError`` otherwise.
    """

    def __init__(
        self,
        *,
        store: FloorStore,
        session_ttl: float = 12 * 3600.0,
        clock: Callable[[], float] = time.time,
        owns_store: bool = False,
    ) -> None:
        """Use ``store`` (migrated to at least schema version 2); ``owns_store``: ``close()`` closes it too.

        Raises:
            AccountStoreUnavailable: the floor database cannot be reached.
            AccountError: the floor database has no central accounts yet (schema before version 2).
        """
        super().__init__(tables=FLOOR_TABLES, session_ttl=session_ttl, clock=clock)
        self.floor = store
        self._owns_store = owns_store
        try:
            version = store.schema_version()
        except FloorUnavailable as exc:
            raise AccountStoreUnavailable(str(exc)) from None
        if version < ACCOUNTS_VERSION:
            raise AccountError(
                f"the floor database is at schema version {version}: central accounts need version "
                f"{ACCOUNTS_VERSION} (floor.open_store migrates it)"
            )

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        try:
            with self.floor.transaction(write=write) as cur:
                yield cur
        except FloorUnavailable as exc:
            raise AccountStoreUnavailable(str(exc)) from None
        except FloorError as exc:
            raise AccountError(str(exc)) from None

    def _serialise_audit(self, cur: Cursor) -> None:
        self.floor.lock_table(cur, FLOOR_TABLES.audit)

    def close(self) -> None:
        if self._owns_store:
            self.floor.close()


def open_floor_accounts(url: str, *, session_ttl: float = 12 * 3600.0) -> FloorAccountStore:
    """The central accounts of the floor database at ``url`` (as ``floor.open_store`` reads it: ``postgresql://…``
    or a SQLite floor file or folder), migrating its schema first; closing it closes its connections.

    Raises:
        AccountStoreUnavailable: the floor database cannot be reached (the message starts "floor unavailable: ").
        AccountError: the URL names no floor database the floor store can open.
    """
    try:
        store = open_store(url)
    except FloorUnavailable as exc:
        raise AccountStoreUnavailable(str(exc)) from None
    except FloorError as exc:
        raise AccountError(str(exc)) from None
    try:
        return FloorAccountStore(store=store, session_ttl=session_ttl, owns_store=True)
    except BaseException:
        store.close()
        raise
