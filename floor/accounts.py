"""Central accounts: staff accounts, their sessions, the audit log and the server secret in the floor's database.

One account signs in at every table of the floor and at the floor display. Every table process and the
floor service read sessions from these tables on every request, so a password change or a removal made
anywhere (an admin page, ``dealer-assist user … --db URL``) ends the account's sessions everywhere at the
next request. The rules are ``web_display.accounts.SqlAccountStore``'s, the same as a table's own file;
only the transactions are the floor store's (``FloorStore.transaction``), on SQLite or PostgreSQL.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from controller.sql import Cursor
from floor import open_store
from floor.base import FloorStore
from floor.errors import FloorError, FloorUnavailable
from web_display.accounts import AccountTables, SqlAccountStore, session_key
from web_display.core.security import Role, Session
from web_display.errors import AccountError, AccountStoreUnavailable

ACCOUNTS_VERSION = 2  # the floor schema migration that made the tables below
PRUNE_FLOOR = 256  # sessions remembered before the first pruning of expired ones
FLOOR_TABLES = AccountTables(
    accounts="staff_accounts", sessions="staff_sessions", audit="staff_audit", secret="staff_secret"
)


@contextmanager
def _floor_errors() -> Iterator[None]:
    """The floor's errors as the web display's: unreachable is ``AccountStoreUnavailable`` (503)."""
    try:
        yield
    except FloorUnavailable as exc:
        raise AccountStoreUnavailable(str(exc)) from None
    except FloorError as exc:
        raise AccountError(str(exc)) from None


class FloorAccountStore(SqlAccountStore):
    """The central account store on an open floor store (its connection pool, or its SQLite file).

    Floor errors become the web display's: ``AccountStoreUnavailable`` (HTTP 503, "floor unavailable: …")
    when the database cannot be reached, nothing applied; ``AccountError`` otherwise.

    A table must play on while its floor is unreachable (the base game needs no floor). So while the
    floor cannot be reached, a session this process confirmed live is taken as still live (until
    ``session_ttl`` after that confirmation): its dealer keeps working. Nothing else is answered from
    memory: sign-ins, sign-outs and account changes wait for the floor, and as soon as it answers every
    check reads it again (a session ended meanwhile ends here at the next request).
    """

    def __init__(
        self,
        *,
        store: FloorStore,
        session_ttl: float = 12 * 3600.0,
        clock: Callable[[], float] = time.time,
        owns_store: bool = False,
    ) -> None:
        """Use ``store``, migrated to the central accounts' schema when first reached (now, or when the
        floor answers: a table may start while its floor is down); ``owns_store``: ``close()`` closes it too.

        Raises:
            AccountError: the floor database cannot hold central accounts (a schema this code cannot
                migrate to version 2).
        """
        super().__init__(tables=FLOOR_TABLES, session_ttl=session_ttl, clock=clock)
        self.floor = store
        self._owns_store = owns_store
        self._schema_ready = False
        self._lock = threading.Lock()
        self._confirmed: dict[str, tuple[Session, float]] = {}  # session key -> session, when last confirmed
        self._prune_at = PRUNE_FLOOR
        # The floor may be down as the table starts: then the schema is checked when it answers.
        with contextlib.suppress(AccountStoreUnavailable), _floor_errors():
            self._ensure_schema()

    def _ensure_schema(self) -> None:
        """Migrate the floor database to the central accounts if it is older (once per process).

        Raises:
            FloorUnavailable: the floor cannot be reached.
            AccountError: migration 2 is still missing after migrating (this code has none).
        """
        if ACCOUNTS_VERSION not in self.floor.applied_migrations():
            self.floor.migrate()
            if ACCOUNTS_VERSION not in self.floor.applied_migrations():
                raise AccountError(
                    f"the floor database is at schema version {self.floor.schema_version()} without migration "
                    f"{ACCOUNTS_VERSION}: this dealer-assist cannot add the central accounts"
                )
        self._schema_ready = True

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        with _floor_errors():
            if not self._schema_ready:
                self._ensure_schema()
            with self.floor.transaction(write=write) as cur:
                yield cur

    def _serialise_audit(self, cur: Cursor) -> None:
        self.floor.lock_table(cur, FLOOR_TABLES.audit)

    # -- sessions through a floor outage --------------------------------------------------------------

    def session(self, session_id: str | None) -> Session | None:
        try:
            found = super().session(session_id)
        except AccountStoreUnavailable:
            kept = self._kept(session_id)
            if kept is None:
                raise
            return kept
        if session_id:
            self._confirm(session_key(session_id), found)
        return found

    def create_session(self, *, user: str, role: Role) -> Session:
        session = super().create_session(user=user, role=role)
        self._confirm(session_key(session.id), session)
        return session

    def end_session(self, session_id: str | None) -> Session | None:
        ended = super().end_session(session_id)
        if session_id:
            self._confirm(session_key(session_id), None)
        return ended

    def live_sessions(self, session_ids: Iterable[str]) -> set[str]:
        ids = list(session_ids)
        try:
            live = super().live_sessions(ids)
        except AccountStoreUnavailable:
            return {sid for sid in ids if self._kept(sid) is not None}
        for sid in ids:
            if sid not in live:
                self._confirm(session_key(sid), None)
        return live

    def _kept(self, session_id: str | None) -> Session | None:
        """A session this process confirmed live less than the session lifetime ago, else None."""
        if not session_id:
            return None
        with self._lock:
            kept = self._confirmed.get(session_key(session_id))
        if kept is None or self._clock() - kept[1] > self._ttl:
            return None
        return kept[0]

    def _confirm(self, key: str, session: Session | None) -> None:
        """Remember (or, with None, forget) what the floor said of a session; expired ones are pruned
        whenever the memory doubles, so it stays bounded by the sessions used within their lifetime."""
        now = self._clock()
        with self._lock:
            if session is None:
                self._confirmed.pop(key, None)
                return
            self._confirmed[key] = (session, now)
            if len(self._confirmed) >= self._prune_at:
                for old in [k for k, (_, at) in self._confirmed.items() if now - at > self._ttl]:
                    del self._confirmed[old]
                self._prune_at = max(PRUNE_FLOOR, 2 * len(self._confirmed))

    def close(self) -> None:
        if self._owns_store:
            self.floor.close()


def open_floor_accounts(url: str, *, session_ttl: float = 12 * 3600.0, timeout: float = 5.0) -> FloorAccountStore:
    """The central accounts of the floor database at ``url`` (as ``floor.open_store`` reads it: ``postgresql://…``
    or a SQLite floor file or folder), its schema migrated when first reached; closing it closes its
    connections. A floor that cannot be reached now is not an error here (a table starts while its floor is
    down): each operation that needs it raises ``AccountStoreUnavailable`` until it answers.
    ``timeout``: how long an operation waits for a PostgreSQL connection.

    Raises:
        AccountStoreUnavailable: a SQLite floor whose folder does not exist.
        AccountError: the floor database cannot hold central accounts.
    """
    with _floor_errors():
        store = open_store(url, migrate=False, timeout=timeout)
    try:
        return FloorAccountStore(store=store, session_ttl=session_ttl, owns_store=True)
    except BaseException:
        store.close()
        raise
