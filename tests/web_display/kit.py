"""Test kit for the web display: tables on temporary journals, the app, signed-in clients, a live server."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.config import build_config
from controller.engine import Action, BoxBet
from controller.journal import SqliteJournal
from controller.table import Actor, TableService
from tests.clock import Clock
from web_display.accounts import ACCOUNTS_FILE, ensure_demo_accounts
from web_display.core.config import Settings
from web_display.main import create_app
from web_display.server import ServerHandle, serve

PASSWORD = "correct-horse-battery"
ORIGIN = "http://testserver"


def make_table(
    folder: Path, game: str, name: str, *, clock: Callable[[], datetime] | None = None, **settings: Any
) -> TableService:
    config = build_config({"game": game, "name": name, **settings})
    folder.mkdir(parents=True, exist_ok=True)
    store = SqliteJournal(path=folder / f"{name}.sqlite3")
    return TableService(config=config, store=store, clock=clock or Clock())


_TEMPLATE: list[Path] = []


def make_app(data: Path, tables: dict[str, TableService], **settings: Any) -> FastAPI:
    """The app over these tables, with the demo accounts (password PASSWORD) in ``data``."""
    # Hashing with argon2 is slow on purpose: make the accounts file once, copy it for each app.
    if not _TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="da-accounts-"))
        ensure_demo_accounts(folder, PASSWORD)
        _TEMPLATE.append(folder / ACCOUNTS_FILE)
    data.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_TEMPLATE[0], data / ACCOUNTS_FILE)
    return create_app(settings=Settings(data_dir=data, **settings), tables=tables)


# The CSRF token is random URL-safe base64 (``_`` and ``-`` are its letters), so ``..._4h_...`` turns up in
# about one token in a few hundred: it is a secret of its own, never a card, and is left out of the search.
_CSRF_VALUE = re.compile(r'("csrf"\s*:\s*)"[A-Za-z0-9_-]*"')


def leaked(text: str, hidden: Iterable[str]) -> list[str]:
    """Hidden card codes that appear in ``text`` as a token of their own (quoted or in a message)."""
    text = _CSRF_VALUE.sub(r'\1"csrf"', text)
    return [c for c in hidden if re.search(rf"(?<![A-Za-z0-9]){c}(?![A-Za-z0-9])", text)]


def login(client: TestClient, name: str, password: str = PASSWORD) -> str:
    """Sign in; returns the CSRF token the client must send with changes."""
    response = client.post("/api/login", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    csrf: str = response.json()["csrf"]
    return csrf


def deal(table: TableService, cards: list[str], *, start: int = 1) -> int:
    """Feed cards as the shoe would; returns the next draw counter."""
    for i, code in enumerate(cards):
        table.on_card(code, counter=start + i, shoe="SIM")
    return start + len(cards)


def play_rounds(table: TableService, rounds: int, *, actor: Actor) -> None:
    """Oasis rounds of one box (ante 10, raised, settled) with the same cards, each drawn from a new
    deck as the shoe would: enough of them (11) puts round 1 past the recall's list of the last ten."""
    counter = 1
    for _ in range(rounds):
        table.open_round([BoxBet(box=1, ante=10)], actor=actor)
        counter = deal(table, ["Kc", "9s", "Kd", "9h", "Kh", "Jc", "4s", "Jd", "4c", "3c"], start=counter)
        table.act(Action(1, "raise"), actor=actor)
        table.confirm_settlement(actor=actor)


@contextmanager
def live_server(app: FastAPI) -> Iterator[ServerHandle]:
    handle = serve(app, host="127.0.0.1", port=0)
    try:
        yield handle
    finally:
        handle.stop()
