"""Accounts (argon2-hashed passwords, roles) and the audit log, in SQLite under the data folder."""

from __future__ import annotations

import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from web_display.core.security import ROLES, Role, hash_password, needs_rehash, verify_password
from web_display.errors import AccountError, WrongCredentials

ACCOUNTS_FILE = "accounts.sqlite3"
DEMO_USERS: tuple[tuple[str, Role], ...] = (("dealer", "dealer"), ("supervisor", "supervisor"), ("admin", "admin"))
MIN_PASSWORD = 8
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,31}$")
WRONG_CREDENTIALS = "wrong name or password"

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
"""


@dataclass(frozen=True, slots=True)
class Account:
    """A user who may sign in; the password hash never leaves this module."""

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


class AccountStore:
    """Accounts and audit log in one SQLite file. Thread-safe (one connection behind a lock)."""

    def __init__(self, *, path: str | Path, max_failed: int = 5, lockout_seconds: float = 60.0) -> None:
        """Open (or create) the accounts file.

        Raises:
            AccountError: the file cannot be opened or is not an accounts file.
        """
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise AccountError(f"{self.path}: cannot open the accounts file: {exc}") from None
        self._lock = threading.Lock()
        self._max_failed = max_failed
        self._lockout = lockout_seconds
        self._failed: dict[str, list[float]] = {}

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -------------------------------------------------------------- audit

    def audit(self, *, who: str, action: str, detail: str = "") -> None:
        """Append one line to the audit log."""
        with self._lock:
            self._db.execute(
                "INSERT INTO audit (at, who, action, detail) VALUES (?, ?, ?, ?)", (_now(), who, action, detail)
            )

    def audit_log(self, *, last: int = 100) -> list[AuditEntry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, at, who, action, detail FROM audit ORDER BY seq DESC LIMIT ?", (last,)
            ).fetchall()
        return [AuditEntry(*row) for row in reversed(rows)]

    # ----------------------------------------------------------- accounts

    def list(self) -> list[Account]:
        with self._lock:
            rows = self._db.execute("SELECT name, role, created_at FROM accounts ORDER BY name").fetchall()
        return [Account(name=n, role=check_role(r), created_at=c) for n, r, c in rows]

    def get(self, name: str) -> Account | None:
        with self._lock:
            row = self._db.execute("SELECT name, role, created_at FROM accounts WHERE name = ?", (name,)).fetchone()
        return None if row is None else Account(name=row[0], role=check_role(row[1]), created_at=row[2])

    def add(self, *, name: str, role: str, password: str, by: str) -> Account:
        """Create an account.

        Raises:
            AccountError: bad name, role or password, or the name is taken.
        """
        check_name(name)
        checked = check_role(role)
        check_password(password)
        hashed = hash_password(password)
        at = _now()
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO accounts (name, role, password, created_at) VALUES (?, ?, ?, ?)",
                    (name, checked, hashed, at),
                )
            except sqlite3.IntegrityError:
                raise AccountError(f"there is already an account {name!r}") from None
        self.audit(who=by, action="account-added", detail=f"{name} as {checked}")
        return Account(name=name, role=checked, created_at=at)

    def set_password(self, *, name: str, password: str, by: str) -> None:
        """Change a password.

        Raises:
            AccountError: no such account, or the password is too short.
        """
        check_password(password)
        hashed = hash_password(password)
        with self._lock:
            changed = self._db.execute("UPDATE accounts SET password = ? WHERE name = ?", (hashed, name)).rowcount
        if not changed:
            raise AccountError(f"there is no account {name!r}")
        self.audit(who=by, action="password-changed", detail=name)

    def set_role(self, *, name: str, role: str, by: str) -> None:
        """Change an account's role.

        Raises:
            AccountError: no such account or role.
        """
        checked = check_role(role)
        with self._lock:
            changed = self._db.execute("UPDATE accounts SET role = ? WHERE name = ?", (checked, name)).rowcount
        if not changed:
            raise AccountError(f"there is no account {name!r}")
        self.audit(who=by, action="role-changed", detail=f"{name} to {checked}")

    def remove(self, *, name: str, by: str) -> None:
        """Remove an account.

        Raises:
            AccountError: no such account.
        """
        with self._lock:
            removed = self._db.execute("DELETE FROM accounts WHERE name = ?", (name,)).rowcount
        if not removed:
            raise AccountError(f"there is no account {name!r}")
        self.audit(who=by, action="account-removed", detail=name)

    def authenticate(self, *, name: str, password: str, where: str = "") -> Account:
        """The account, if the password is right; every attempt is audited.

        Raises:
            WrongCredentials: unknown name, wrong password, or too many recent failures; the
                message is the same for all of them, so it does not tell which names exist.
        """
        now = time.monotonic()
        with self._lock:
            recent = [t for t in self._failed.get(name, []) if now - t < self._lockout]
            self._failed[name] = recent
            row = self._db.execute("SELECT role, password, created_at FROM accounts WHERE name = ?", (name,)).fetchone()
        locked = len(recent) >= self._max_failed
        ok = verify_password(password, row[1] if row else None)
        if locked or not ok or row is None:
            with self._lock:
                self._failed.setdefault(name, []).append(now)
            reason = "locked out" if locked else "wrong name or password"
            self.audit(who=name, action="login-failed", detail=f"{reason}{f' from {where}' if where else ''}")
            raise WrongCredentials(WRONG_CREDENTIALS)
        with self._lock:
            self._failed.pop(name, None)
            if needs_rehash(row[1]):
                self._db.execute("UPDATE accounts SET password = ? WHERE name = ?", (hash_password(password), name))
        return Account(name=name, role=check_role(row[0]), created_at=row[2])


def ensure_demo_accounts(data_dir: str | Path, password: str | None = None) -> str:
    """Create (or reset the password of) the demo's ``dealer``, ``supervisor`` and ``admin`` accounts.

    With no password a random one is made; the password used is returned so the demo can print it.

    Raises:
        AccountError: the password is too short, or the accounts file cannot be opened.
    """
    password = password if password is not None else secrets.token_urlsafe(9)
    check_password(password)
    store = AccountStore(path=Path(data_dir) / ACCOUNTS_FILE)
    try:
        for name, role in DEMO_USERS:
            if store.get(name) is None:
                store.add(name=name, role=role, password=password, by="system:demo")
            else:
                store.set_role(name=name, role=role, by="system:demo")
                store.set_password(name=name, password=password, by="system:demo")
    finally:
        store.close()
    return password
