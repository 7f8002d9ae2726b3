"""Password hashing (argon2id), random tokens, sessions, and trusted-device tokens."""

from __future__ import annotations

import hmac
import secrets
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


def device_token(secret: bytes, user: str) -> str:
    """A trusted-device token for ``user``: given to a browser at a successful sign-in, it lets that
    browser sign in as that user while the name is throttled for everyone else."""
    nonce = secrets.token_urlsafe(12)
    mac = hmac.new(secret, f"{user}|{nonce}".encode(), "sha256").hexdigest()[:32]
    return f"{user}|{nonce}|{mac}"


def device_user(secret: bytes, token: str | None) -> str | None:
    """The user a trusted-device token was given to, if it is genuine."""
    if not token or token.count("|") != 2:
        return None
    user, nonce, mac = token.split("|")
    want = hmac.new(secret, f"{user}|{nonce}".encode(), "sha256").hexdigest()[:32]
    return user if hmac.compare_digest(mac.encode(), want.encode()) else None
