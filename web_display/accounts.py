"""Accounts, sessions and the audit log behind one store interface: a table's own SQLite file, or the floor's.

The web display keeps nothing about who is signed in in its own memory: sessions live in the store, so
that every account change ends that account's sessions wherever it is made (the admin page, or
``dealer-assist user passwd|remove`` in another process while the server runs) and a restart keeps
staff signed in. The rules live in ``SqlAccountStore``; ``SqliteAccountStore`` keeps them in the table's
``accounts.sqlite3``, ``floor.accounts.FloorAccountStore`` in the floor's database (central accounts, issue
13), and ``open_accounts`` picks one from the configuration.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.sql import Cursor, QmarkCursor
from web_display.core.security import ROLES, Role, Session, hash_password, needs_rehash, new_token, verify_password
from web_display.errors import AccountError

ACCOUNTS_FILE = "accounts.sqlite3"
DEMO_USERS: tuple[tuple[str, Role], ...] = (("dealer", "dealer"), ("supervisor", "supervisor"), ("admin", "admin"))
MIN_PASSWORD = 8
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,31}$")
WRONG_CREDENTIALS = "wrong name or password"
# A session's last use is written at most this often: a request reads its session, it rarely writes.
TOUCH_SECONDS = 60.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('dealer', 'supervisor', 'admin')),
    password TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    who TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,
    user TEXT NOT NULL,
    role TEXT NOT NULL,
    csrf TEXT NOT NULL,
    created_at REAL NOT NULL,
    last_used REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (user);
CREATE TABLE IF NOT EXISTS server_secret (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret TEXT NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Account:
    """A user who may sign in; the password hash never leaves the store."""

    name: str
    role: Role
    created_at: str


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One line of the audit log: who did what, when."""

    seq: int
    at: str
    who: str
    action: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "who": self.who, "action": self.action, "detail": self.detail}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def check_name(name: str) -> str:
    """A valid account name (lower case letters, digits, . _ -; up to 32).

    Raises:
        AccountError: the name is not valid.
    """
    if not _NAME.match(name):
        raise AccountError(f"account name {name!r}: use 1-32 lower-case letters, digits, '.', '_' or '-'")
    return name


def check_role(role: str) -> Role:
    """Raises AccountError unless ``role`` is dealer, supervisor or admin."""
    for known in ROLES:
        if role == known:
            return known
    raise AccountError(f"role {role!r}: one of {', '.join(ROLES)}")


def check_password(password: str) -> str:
    """Raises AccountError when the password is too short to be a password."""
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password needs at least {MIN_PASSWORD} characters")
    return password


def session_key(session_id: str) -> str:
    """How a session id is stored: hashed, so a copy of the store holds no live session."""
    return hashlib.sha256(session_id.encode()).hexdigest()


class AccountStore(ABC):
    """Accounts, their sessions and the audit log. Every method is thread-safe.

    Every change to an account (password, role, removal) ends that account's sessions in the same
    transaction, so no process holding a session can outlive the change by more than one request.
    """

    # ------------------------------------------------------------ accounts

    @abstractmethod
    def accounts(self) -> list[Account]: ...

    @abstractmethod
    def get(self, name: str) -> Account | None: ...

    @abstractmethod
    def add(self, *, name: str, role: str, password: str, by: str) -> Account:
        """Create an account. Raises AccountError: bad name, role or password, or the name is taken."""

    @abstractmethod
    def set_password(self, *, name: str, password: str, by: str) -> None:
        """Change a password; the account's sessions end. Raises AccountError: no such account, short password."""

    @abstractmethod
    def set_role(self, *, name: str, role: str, by: str) -> None:
        """Change a role; the account's sessions end. Raises AccountError: no such account or role."""

    @abstractmethod
    def remove(self, *, name: str, by: str) -> None:
        """Remove an account and end its sessions. Raises AccountError: no such account."""

    @abstractmethod
    def verify(self, *, name: str, password: str) -> Account | None:
        """The account if the password is right, else None. Costs one password hash whatever the name
        (an unknown name is checked against a dummy hash), so timing does not tell which names exist."""

    # ------------------------------------------------------------ sessions

    @abstractmethod
    def create_session(self, *, user: str, role: Role) -> Session:
        """A new session with a fresh id and CSRF token (a fresh id at every sign-in: no fixation)."""

    @abstractmethod
    def session(self, session_id: str | None) -> Session | None:
        """The live session with this id, its last use updated; None if unknown, ended or expired."""

    @abstractmethod
    def end_session(self, session_id: str | None) -> Session | None:
        """End one session; returns it if it was live."""

    @abstractmethod
    def live_sessions(self, session_ids: Iterable[str]) -> set[str]:
        """Which of these session ids are still live (the rest were ended, here or by another process)."""

    # --------------------------------------------------------------- audit

    @abstractmethod
    def audit(self, *, who: str, action: str, detail: str = "") -> None:
        """Append one line to the audit log."""

    @abstractmethod
    def audit_log(self, *, last: int = 100) -> list[AuditEntry]: ...

    # ---------------------------------------------------------------- misc

    @abstractmethod
    def server_secret(self) -> bytes:
        """A random key made once per store, for what the server signs (trusted-device cookies)."""

    @abstractmethod
    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class AccountTables:
    """Where an SQL account store keeps its rows (the floor's database already has an ``accounts`` table)."""

    accounts: str
    sessions: str
    audit: str
    secret: str


_FILE_TABLES = AccountTables(accounts="accounts", sessions="sessions", audit="audit", secret="server_secret")


class SqlAccountStore(AccountStore):
    """Every rule of an SQL account store, on any database: a subclass only opens transactions.

    The SQL is common to SQLite and PostgreSQL (``%s`` placeholders, ``ON CONFLICT``); the session's
    user column is quoted (``"user"``) because PostgreSQL reserves the word.
    """

    def __init__(self, *, tables: AccountTables, session_ttl: float, clock: Callable[[], float]) -> None:
        self._t = tables
        self._ttl = session_ttl
        self._clock = clock

    @abstractmethod
    def _transaction(self, *, write: bool) -> AbstractContextManager[Cursor]:
        """One transaction, rolled back whole if the block raises.

        Raises:
            AccountError: the database cannot be read or written (the message names it).
        """

    def _serialise_audit(self, cur: Cursor) -> None:
        """Make this transaction the only one numbering audit lines until it ends (a hook: a SQLite
        write transaction already holds the whole database; PostgreSQL's needs a lock)."""

    def _append_audit(self, cur: Cursor, *, at: str, who: str, action: str, detail: str) -> None:
        """One audit line, numbered after the last; taken last in every transaction (no lock cycles)."""
        self._serialise_audit(cur)
        cur.execute(
            f"INSERT INTO {self._t.audit} (seq, at, who, action, detail) "
            f"SELECT COALESCE(MAX(seq), 0) + 1, %s, %s, %s, %s FROM {self._t.audit}",
            (at, who, action, detail),
        )

    # -------------------------------------------------------------- audit

    def audit(self, *, who: str, action: str, detail: str = "") -> None:
        with self._transaction(write=True) as cur:
            self._append_audit(cur, at=_now(), who=who, action=action, detail=detail)

    def audit_log(self, *, last: int = 100) -> list[AuditEntry]:
        with self._transaction(write=False) as cur:
            cur.execute(f"SELECT seq, at, who, action, detail FROM {self._t.audit} ORDER BY seq DESC LIMIT %s", (last,))
            rows = cur.fetchall()
        return [AuditEntry(int(seq), at, who, action, detail) for seq, at, who, action, detail in reversed(rows)]

    # ----------------------------------------------------------- accounts

    def accounts(self) -> list[Account]:
        with self._transaction(write=False) as cur:
            cur.execute(f"SELECT name, role, created_at FROM {self._t.accounts} ORDER BY name")
            rows = cur.fetchall()
        return [Account(name=n, role=check_role(r), created_at=c) for n, r, c in rows]

    def get(self, name: str) -> Account | None:
        with self._transaction(write=False) as cur:
            cur.execute(f"SELECT name, role, created_at FROM {self._t.accounts} WHERE name = %s", (name,))
            row = cur.fetchone()
        return None if row is None else Account(name=row[0], role=check_role(row[1]), created_at=row[2])

    def add(self, *, name: str, role: str, password: str, by: str) -> Account:
        check_name(name)
        checked = check_role(role)
        check_password(password)
        if self.get(name) is not None:  # before hashing: a taken name costs no hash
            raise AccountError(f"there is already an account {name!r}")
        hashed = hash_password(password)
        at = _now()
        with self._transaction(write=True) as cur:
            cur.execute(
                f"INSERT INTO {self._t.accounts} (name, role, password, created_at) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (name, checked, hashed, at),
            )
            if cur.rowcount != 1:  # added by another process in between: nothing of this one is kept
                raise AccountError(f"there is already an account {name!r}")
            cur.execute(f'DELETE FROM {self._t.sessions} WHERE "user" = %s', (name,))
            self._append_audit(cur, at=at, who=by, action="account-added", detail=f"{name} as {checked}")
        return Account(name=name, role=checked, created_at=at)

    def _change(self, name: str, sql: str, args: tuple[Any, ...], *, action: str, detail: str, by: str) -> None:
        """An account change, the end of its sessions and its audit line, in one transaction.

        Raises:
            AccountError: no such account (then nothing is written, the audit line neither).
        """
        with self._transaction(write=True) as cur:
            cur.execute(sql, args)
            if cur.rowcount != 1:  # removed by another process between the check and the change
                raise AccountError(f"there is no account {name!r}")
            cur.execute(f'DELETE FROM {self._t.sessions} WHERE "user" = %s', (name,))
            self._append_audit(cur, at=_now(), who=by, action=action, detail=detail)

    def set_password(self, *, name: str, password: str, by: str) -> None:
        check_password(password)
        if self.get(name) is None:
            raise AccountError(f"there is no account {name!r}")
        hashed = hash_password(password)
        self._change(
            name,
            f"UPDATE {self._t.accounts} SET password = %s WHERE name = %s",
            (hashed, name),
            action="password-changed",
            detail=name,
            by=by,
        )

    def set_role(self, *, name: str, role: str, by: str) -> None:
        checked = check_role(role)
        if self.get(name) is None:
            raise AccountError(f"there is no account {name!r}")
        self._change(
            name,
            f"UPDATE {self._t.accounts} SET role = %s WHERE name = %s",
            (checked, name),
            action="role-changed",
            detail=f"{name} to {checked}",
            by=by,
        )

    def remove(self, *, name: str, by: str) -> None:
        if self.get(name) is None:
            raise AccountError(f"there is no account {name!r}")
        self._change(
            name,
            f"DELETE FROM {self._t.accounts} WHERE name = %s",
            (name,),
            action="account-removed",
            detail=name,
            by=by,
        )

    def verify(self, *, name: str, password: str) -> Account | None:
        with self._transaction(write=False) as cur:
            cur.execute(f"SELECT role, password, created_at FROM {self._t.accounts} WHERE name = %s", (name,))
            row = cur.fetchone()
        if not verify_password(password, row[1] if row else None) or row is None:
            return None
        if needs_rehash(row[1]):
            # Only if the hash is still the one checked: a password changed meanwhile is not overwritten.
            with self._transaction(write=True) as cur:
                cur.execute(
                    f"UPDATE {self._t.accounts} SET password = %s WHERE name = %s AND password = %s",
                    (hash_password(password), name, row[1]),
                )
        return Account(name=name, role=check_role(row[0]), created_at=row[2])

    # ----------------------------------------------------------- sessions

    def create_session(self, *, user: str, role: Role) -> Session:
        now = self._clock()
        session = Session(id=new_token(), user=user, role=role, csrf=new_token(), last_used=now)
        with self._transaction(write=True) as cur:
            cur.execute(
                f'INSERT INTO {self._t.sessions} (id_hash, "user", role, csrf, created_at, last_used) '
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (session_key(session.id), user, role, session.csrf, now, now),
            )
            cur.execute(f"DELETE FROM {self._t.sessions} WHERE last_used < %s", (now - self._ttl,))
        return session

    def session(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        key = session_key(session_id)
        now = self._clock()
        with self._transaction(write=False) as cur:
            cur.execute(f'SELECT "user", role, csrf, last_used FROM {self._t.sessions} WHERE id_hash = %s', (key,))
            row = cur.fetchone()
        if row is None or now - row[3] > self._ttl:
            return None
        if now - row[3] > TOUCH_SECONDS:
            with self._transaction(write=True) as cur:
                cur.execute(f"UPDATE {self._t.sessions} SET last_used = %s WHERE id_hash = %s", (now, key))
        return Session(id=session_id, user=row[0], role=check_role(row[1]), csrf=row[2], last_used=now)

    def end_session(self, session_id: str | None) -> Session | None:
        session = self.session(session_id)
        if session is None:
            return None
        with self._transaction(write=True) as cur:
            cur.execute(f"DELETE FROM {self._t.sessions} WHERE id_hash = %s", (session_key(session.id),))
        return session

    def live_sessions(self, session_ids: Iterable[str]) -> set[str]:
        ids = {session_key(sid): sid for sid in session_ids}
        if not ids:
            return set()
        cutoff = self._clock() - self._ttl
        with self._transaction(write=False) as cur:
            cur.execute(
                f"SELECT id_hash FROM {self._t.sessions} "
                f"WHERE last_used >= %s AND id_hash IN ({', '.join(['%s'] * len(ids))})",
                (cutoff, *ids),
            )
            rows = cur.fetchall()
        return {ids[key] for (key,) in rows}

    # --------------------------------------------------------------- misc

    def server_secret(self) -> bytes:
        with self._transaction(write=True) as cur:
            cur.execute(
                f"INSERT INTO {self._t.secret} (id, secret) VALUES (1, %s) ON CONFLICT DO NOTHING",
                (secrets.token_hex(32),),
            )
            cur.execute(f"SELECT secret FROM {self._t.secret} WHERE id = 1")
            (secret,) = cur.fetchone()
        return bytes.fromhex(secret)


class SqliteAccountStore(SqlAccountStore):
    """The table's own store in one SQLite file (WAL), shared safely with other processes (the ``user`` CLI)."""

    def __init__(
        self, *, path: str | Path, session_ttl: float = 12 * 3600.0, clock: Callable[[], float] = time.time
    ) -> None:
        """Open (or create) the accounts file.

        Raises:
            AccountError: the file cannot be opened, its folder is not a folder, or it is not an accounts file.
        """
        super().__init__(tables=_FILE_TABLES, session_ttl=session_ttl, clock=clock)
        self.path = Path(path)
        if self.path.parent.exists() and not self.path.parent.is_dir():
            raise AccountError(f"{self.path.parent}: not a folder (give the table's data folder)")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise AccountError(f"{self.path}: cannot open the accounts file: {exc}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[Cursor]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield QmarkCursor(self._db.cursor())
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                verb = "write" if write else "read"
                raise AccountError(f"{self.path}: cannot {verb} the accounts file: {exc}") from None
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise


def open_account_store(path: str | Path, *, session_ttl: float = 12 * 3600.0) -> AccountStore:
    """The account store at ``path`` (an SQLite file).

    Raises:
        AccountError: it cannot be opened.
    """
    return SqliteAccountStore(path=path, session_ttl=session_ttl)


def open_accounts(*, data: str | Path | None, floor_url: str | None, session_ttl: float = 12 * 3600.0) -> AccountStore:
    """The account store the configuration names: the floor's central accounts when a floor URL is given
    (``postgresql://…`` or a SQLite floor file, as ``floor.open_store`` reads it; its schema migrated when
    first reached), else the table's own ``DATA/accounts.sqlite3``. A floor that cannot be reached now is
    no error here: what needs it answers ``AccountStoreUnavailable`` (503) until it is back.

    Raises:
        AccountError: no data folder and no floor URL, an empty URL, or the store cannot be opened.
    """
    if floor_url is not None:
        if not floor_url.strip():
            raise AccountError("the floor URL is empty: give postgresql://… or the floor's SQLite file")
        # Imported here: the floor imports web_display.accounts, never the other way round at load time.
        from floor.accounts import open_floor_accounts

        return open_floor_accounts(floor_url, session_ttl=session_ttl)
    if data is None:
        raise AccountError("give the table's data folder or the floor's database URL")
    return open_account_store(Path(data) / ACCOUNTS_FILE, session_ttl=session_ttl)


def seed_demo_accounts(store: AccountStore, password: str | None = None) -> str:
    """Create (or reset the role and password of) the demo's ``dealer``, ``supervisor`` and ``admin`` in
    ``store``. With no password a random one is made; the password used is returned so the demo can print it.

    Raises:
        AccountError: the password is too short, or the store cannot be written.
    """
    password = password if password is not None else secrets.token_urlsafe(9)
    check_password(password)
    for name, role in DEMO_USERS:
        if store.get(name) is None:
            store.add(name=name, role=role, password=password, by="system:demo")
        else:
            store.set_role(name=name, role=role, by="system:demo")
            store.set_password(name=name, password=password, by="system:demo")
    return password


def ensure_demo_accounts(data_dir: str | Path, password: str | None = None) -> str:
    """``seed_demo_accounts`` in the table's own accounts file under ``data_dir``.

    Raises:
        AccountError: the password is too short, or the accounts file cannot be opened.
    """
    if password is not None:
        check_password(password)  # before the file is made
    store = open_account_store(Path(data_dir) / ACCOUNTS_FILE)
    try:
        return seed_demo_accounts(store, password)
    finally:
        store.close()
