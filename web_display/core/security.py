"""Password hashing (argon2id), random tokens, and the server-side session store."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

Role = Literal["dealer", "supervisor", "admin"]
ROLES: tuple[Role, ...] = ("dealer", "supervisor", "admin")

_hasher = PasswordHasher()
# Verifying against this when the name is unknown makes a wrong name cost as much as a wrong
# password, so timing does not tell which names exist.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


def hash_password(password: str) -> str:
    """An argon2id hash (salt and parameters inside the string)."""
    return _hasher.hash(password)


def verify_password(password: str, hashed: str | None) -> bool:
    """True when ``password`` matches ``hashed``; None (no such account) is verified against a dummy."""
    try:
        return _hasher.verify(hashed or _DUMMY_HASH, password) and hashed is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(hashed: str) -> bool:
    return _hasher.check_needs_rehash(hashed)


def new_token() -> str:
    """32 random bytes, URL-safe: session ids and CSRF tokens."""
    return secrets.token_urlsafe(32)


def same_token(given: str | None, expected: str) -> bool:
    """Constant-time comparison of a token sent by the client with the one the server holds."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


@dataclass(slots=True)
class Session:
    """A signed-in user's session; the CSRF token is per session (synchronizer token pattern)."""

    id: str
    user: str
    role: Role
    csrf: str
    last_used: float = field(default=0.0)


class SessionStore:
    """Sessions in memory, thread-safe. A restart signs everyone out, which is acceptable at a table."""

    def __init__(self, *, ttl_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, Session] = {}

    def create(self, *, user: str, role: Role) -> Session:
        """A new session with a fresh id and CSRF token (a fresh id at every sign-in: no fixation)."""
        session = Session(id=new_token(), user=user, role=role, csrf=new_token(), last_used=self._clock())
        with self._lock:
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id, touched; None if unknown or expired."""
        if not session_id:
            return None
        now = self._clock()
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return None
            if now - session.last_used > self._ttl:
                del self._sessions[session_id]
                return None
            session.last_used = now
            return session

    def end(self, session_id: str | None) -> Session | None:
        """End one session; returns it if it existed."""
        if not session_id:
            return None
        with self._lock:
            return self._sessions.pop(session_id, None)

    def end_user(self, user: str) -> list[str]:
        """End every session of a user (account removed or password changed); returns their ids."""
        with self._lock:
            ids = [sid for sid, s in self._sessions.items() if s.user == user]
            for sid in ids:
                del self._sessions[sid]
        return ids
