"""Many real tables on one floor at once: each account's meters are exactly the sum of the tables' journals."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from controller.autoplay import AutoplayConfig, AutoPlayer
from controller.cards import DECK
from controller.config import build_config
from controller.journal.sqlite import SqliteJournal
from controller.table import TableService
from floor import open_store
from floor.link import FloorLink, LinkSettings
from tests.floor.kit import floor_agrees

CODES = [c.code for c in DECK]
TABLES = 12
ROUNDS = 8


def _table(folder: Path, n: int) -> TableService:
    folder.mkdir(parents=True)
    jackpot = {"enabled": True, "reset": 1000, "contribution": 3, "hit_hands": {"two-pair": 5, "royal-flush": 100}}
    config = build_config({"game": "oasis", "name": f"Oasis {n}", "jackpot": jackpot})
    return TableService(config=config, store=SqliteJournal(path=folder / "journal.sqlite3", durable=False))


def _play(table: TableService, link: FloorLink, seed: int, errors: list[str]) -> None:
    rng = random.Random(seed)

    def draw() -> None:
        rnd = table.round
        dealt = {card.code for card, _ in rnd.dealt()} if rnd is not None else set()
        table.on_card(rng.choice([c for c in CODES if c not in dealt]), counter=(table.last_counter or 0) + 1)

    player = AutoPlayer(table=table, draw=draw, config=AutoplayConfig(pace=0, seed=seed, showdown_steps=0))
    try:
        while table.round_no < ROUNDS or table.round is not None:
            player.step()
            if table.round is None:
                link.pass_once()  # a pass between rounds, racing the other tables' passes
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")


def test_a_dozen_tables_contributing_and_hitting_at_once_keep_the_meter_exact(floor_url: str, tmp_path: Path) -> None:
    with open_store(floor_url) as store:
        store.open_account(name="linked", scope="game", scope_value="oasis", reset=1000, increment=3, cap=10**9)
        tables = [_table(tmp_path / f"t{n}", n) for n in range(TABLES)]
        links = [FloorLink(table=t, store=store, settings=LinkSettings(pit=f"P{n % 3}")) for n, t in enumerate(tables)]
        for link in links:
            link.pass_once()  # caught up: the progressive opens
        errors: list[str] = []
        threads = [
            threading.Thread(target=_play, args=(t, link, n, errors))
            for n, (t, link) in enumerate(zip(tables, links, strict=True))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        for link in links:
            link.pass_once()
            link.pass_once()  # ships the floor-hit entries the previous pass journaled
        account = store.account("linked")
        assert account.contributions > 0 and account.hits > 0, "the tables neither contributed nor hit: nothing tested"
        floor_agrees(store, "linked", [t.journal_store for t in tables])
        for table in tables:
            table.journal_store.close()
        # Hits are numbered in the order their transactions took the account, each with its time and table.
        numbered = store.hits("linked")
        assert [h.hit_no for h in numbered] == list(range(1, len(numbered) + 1))
        assert [h.at for h in numbered] == sorted(h.at for h in numbered)
