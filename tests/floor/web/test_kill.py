"""The floor service killed with SIGKILL while a linked table plays: nothing lost, the session survives."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx2
import pytest

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.cards import DECK
from controller.config import build_config
from controller.journal.sqlite import SqliteJournal
from controller.table import TableService
from floor import open_store
from floor.accounts import FloorAccountStore
from floor.link import FloorLink, LinkSettings
from tests.floor.kit import floor_agrees
from tests.floor.web.kit import PASSWORD, until

pytestmark = pytest.mark.hil
ROOT = Path(__file__).resolve().parents[3]
CODES = [c.code for c in DECK]


class Service:
    """``dealer-assist floor`` in its own process."""

    def __init__(self, url: str, port: int = 0) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        argv = [sys.executable, "-m", "controller.cli", "floor", "--db", url, "--port", str(port)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        assert line.startswith("floor service on http://"), (line, self.proc.stderr and self.proc.stderr.read())
        self.url = line.split()[3].removesuffix("/floor")
        self.port = int(self.url.rsplit(":", 1)[1])

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)


def _pending(client: httpx2.Client) -> list[dict[str, Any]]:
    answer = client.get("/api/floor/jackpots")
    return list(answer.json()["hits"]) if answer.status_code == 200 else []


def test_sigkill_of_the_floor_service_loses_nothing_and_its_sessions_survive(pg_cluster: Any, tmp_path: Path) -> None:
    url = pg_cluster.create_database()
    with open_store(url) as store:
        store.open_account(name="linked", scope="game", scope_value="oasis", reset=1000, increment=2, cap=10**9)
        FloorAccountStore(store=store).add(name="sam", role="supervisor", password=PASSWORD, by="test")
    # Hits common enough that three come within seconds (a pair wins 1 % of the meter).
    jackpot = {"enabled": True, "reset": 1000, "contribution": 2, "hit_hands": {"pair": 1, "two-pair": 5}}
    config = build_config({"game": "oasis", "name": "Oasis 9", "jackpot": jackpot})
    table = TableService(config=config, store=SqliteJournal(path=tmp_path / "journal.sqlite3", durable=False))
    rng = random.Random(3)

    def draw() -> None:
        rnd = table.round
        dealt = {card.code for card, _ in rnd.dealt()} if rnd is not None else set()
        table.on_card(rng.choice([c for c in CODES if c not in dealt]), counter=(table.last_counter or 0) + 1)

    table_store = open_store(url, migrate=False)
    link = FloorLink(table=table, store=table_store, settings=LinkSettings(pit="A", interval=0.05))
    player = AutoPlayer(table=table, draw=draw, config=AutoplayConfig(pace=0.002, seed=3, showdown_steps=0))
    service = Service(url)
    link.start()
    player.start()
    confirmed = 0
    try:
        with httpx2.Client(base_url=service.url, timeout=10.0, headers={"Origin": service.url}) as sam:
            me = sam.post("/api/login", json={"name": "sam", "password": PASSWORD}).json()
            sam.headers[me["csrf_header"]] = me["csrf"]
            for _ in range(3):
                hit = until(lambda: _pending(sam), what="a pending hit on the floor panel", tries=2400)[0]
                answer = sam.post(f"/api/floor/jackpots/linked/{hit['hit_no']}/confirm")
                assert answer.status_code == 200, answer.text
                confirmed += 1
                # Killed mid-play; the tables play on; a restart on the same port keeps the signed-in session.
                service.kill()
                threading.Event().wait(0.5)
                service = Service(url, port=service.port)
                until(
                    lambda: sam.get("/api/floor/tables").status_code == 200,
                    what="the same session after the kill",
                    tries=1200,
                )
    finally:
        player.stop()
        service.kill()
        link.stop()
    with open_store(url, migrate=False) as store:
        journal = table.journal_store
        floor_agrees(store, "linked", [journal])
        hits = store.hits("linked")
        assert sum(1 for h in hits if h.status == "confirmed" and h.confirmed_by == "sam") == confirmed == 3
    table_store.close()
    journal.close()
