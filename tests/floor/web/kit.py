"""A running floor service over a fresh floor store (SQLite or PostgreSQL), staff accounts, signed-in clients."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from floor import FloorStore, open_store
from floor.accounts import FloorAccountStore
from floor.web.app import create_floor_app
from floor.web.config import FloorSettings
from web_display.accounts import AccountStore
from web_display.core.config import Settings
from web_display.server import ServerHandle, serve

PASSWORD = "correct-horse-battery"
STAFF = (("dana", "dealer"), ("sam", "supervisor"), ("tess", "supervisor"))
FAST = FloorSettings(
    second_approval_above=500_000,
    coalesce_seconds=0.05,
    heartbeat_seconds=0.2,
    full_refresh_seconds=5.0,
    poll_seconds=0.05,
    link_lost_seconds=30.0,
)


@dataclass
class Running:
    store: FloorStore
    accounts: AccountStore
    handle: ServerHandle
    app: Any

    @property
    def url(self) -> str:
        return self.handle.url


def staff(store: FloorStore) -> AccountStore:
    """The floor's central accounts (as every table of the floor and the floor service sign in with them)."""
    accounts = FloorAccountStore(store=store)
    for name, role in STAFF:
        if accounts.get(name) is None:
            accounts.add(name=name, role=role, password=PASSWORD, by="test")
    return accounts


def floor_of(store: FloorStore, *, pits: int, per_pit: int) -> list[str]:
    """Tables t001… in pits A, B, …; games alternate; each reports idle at round 1."""
    tables = []
    for p in range(pits):
        for i in range(per_pit):
            table = f"t{len(tables) + 1:03d}"
            store.add_table(table_id=table, pit=chr(ord("A") + p), game="oasis" if i % 2 == 0 else "holdem-bonus")
            store.report_status(table_id=table, phase="idle", round_no=1, tilts=[], progressive="open")
            tables.append(table)
    return tables


@contextmanager
def running(url: str, data: Path, *, settings: FloorSettings = FAST) -> Iterator[Running]:
    """The floor service on a free port, as ``dealer-assist floor`` runs it."""
    data.mkdir(exist_ok=True)
    store = open_store(url)
    accounts = staff(store)
    app = create_floor_app(store=store, accounts=accounts, db_url=url, settings=settings, web=Settings(data_dir=data))
    handle = serve(app, port=0)
    try:
        yield Running(store=store, accounts=accounts, handle=handle, app=app)
    finally:
        handle.stop()
        accounts.close()
        store.close()


@contextmanager
def signed_in(base: str, name: str) -> Iterator[httpx2.Client]:
    """An HTTP client signed in as ``name``, sending its CSRF token with every change."""
    with httpx2.Client(base_url=base, timeout=10.0, headers={"Origin": base}) as client:
        answer = client.post("/api/login", json={"name": name, "password": PASSWORD})
        answer.raise_for_status()
        me = answer.json()
        client.headers[me["csrf_header"]] = me["csrf"]
        yield client


def until(check: Callable[[], Any], *, what: str, tries: int = 400) -> Any:
    """Poll ``check`` (every 50 ms) until it returns something true; fail naming ``what``."""
    import time

    for _ in range(tries):
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what}")
