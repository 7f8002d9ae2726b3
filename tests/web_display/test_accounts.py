"""Accounts: argon2 hashes, one refusal for every kind of wrong sign-in, demo accounts, the server handle."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import httpx2
import pytest

from tests.web_display.kit import make_app, make_table
from web_display.accounts import ACCOUNTS_FILE, ensure_demo_accounts, open_account_store
from web_display.errors import AccountError, ServerError
from web_display.server import serve


def test_passwords_are_stored_as_argon2id_hashes(tmp_path: Path) -> None:
    store = open_account_store(tmp_path / ACCOUNTS_FILE)
    store.add(name="kim", role="dealer", password="plain-text-pw", by="test")
    store.close()
    (stored,) = sqlite3.connect(tmp_path / ACCOUNTS_FILE).execute("SELECT password FROM accounts").fetchone()
    assert stored.startswith("$argon2id$") and "plain-text-pw" not in stored


def test_demo_accounts_get_the_given_password_or_a_random_one(tmp_path: Path) -> None:
    assert ensure_demo_accounts(tmp_path, "demo-password") == "demo-password"
    store = open_account_store(tmp_path / ACCOUNTS_FILE)
    assert [(a.name, a.role) for a in store.accounts()] == [
        ("admin", "admin"),
        ("dealer", "dealer"),
        ("supervisor", "supervisor"),
    ]
    store.close()
    generated = ensure_demo_accounts(tmp_path)  # again: same accounts, a new random password
    assert len(generated) >= 12 and generated != "demo-password"
    store = open_account_store(tmp_path / ACCOUNTS_FILE)
    account = store.verify(name="dealer", password=generated)
    assert account is not None and account.role == "dealer"
    assert store.verify(name="dealer", password="demo-password") is None
    store.close()
    with pytest.raises(AccountError, match="at least 8"):
        ensure_demo_accounts(tmp_path, "short")


def test_serve_listens_on_a_free_port_and_stops(tmp_path: Path) -> None:
    app = make_app(tmp_path, {"T1": make_table(tmp_path / "journal", "oasis", "T1")})
    handle = serve(app, host="127.0.0.1", port=0)
    try:
        response = httpx2.get(f"{handle.url}/login")
        assert response.status_code == 200 and "Sign in" in response.text
        with pytest.raises(ServerError, match="cannot listen"):
            serve(app, host="127.0.0.1", port=handle.port)
    finally:
        handle.stop()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", handle.port), timeout=1).close()


def test_a_tables_own_sessions_survive_reopening_its_file_and_end_with_a_change_from_another_instance(
    tmp_path: Path,
) -> None:
    first = open_account_store(tmp_path / ACCOUNTS_FILE)
    first.add(name="kim", role="dealer", password="plain-text-pw", by="test")
    session = first.create_session(user="kim", role="dealer")
    first.close()
    again, cli = open_account_store(tmp_path / ACCOUNTS_FILE), open_account_store(tmp_path / ACCOUNTS_FILE)
    try:
        back = again.session(session.id)
        assert back is not None and (back.user, back.csrf) == ("kim", session.csrf)
        cli.set_password(name="kim", password="another-pw-1", by="cli:root")
        assert again.session(session.id) is None and again.live_sessions([session.id]) == set()
        assert [(e.seq, e.action) for e in again.audit_log()] == [(1, "account-added"), (2, "password-changed")]
    finally:
        again.close()
        cli.close()
