"""`dealer-assist demo --tables N --floor URL`: the simulated floor on PostgreSQL instead of the embedded store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.journal.sqlite import SqliteJournal
from floor import open_store
from tests.floor.kit import floor_agrees

pytestmark = pytest.mark.hil


def test_the_demo_floor_runs_on_postgresql(pg_cluster: Any, tmp_path: Path) -> None:
    url = pg_cluster.create_database()
    argv = [sys.executable, "-m", "controller.cli", "demo", "--tables", "2", "--floor", url, "--data", str(tmp_path)]
    argv += ["--pace", "0", "--rounds", "2", "--no-browser", "--no-camera", "--port", "0", "--seed", "4"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    assert f"sharing the linked jackpot demo-progressive on {url}" in done.stdout
    assert "floor display: http://" in done.stdout
    assert not (tmp_path / "floor.sqlite3").exists()  # nothing on the embedded store
    with open_store(url, migrate=False) as store:
        assert sorted(store.table_names().values()) == ["Table 1", "Table 2"]
        journals = [SqliteJournal(path=tmp_path / f"table-0{n}" / "journal.sqlite3", read_only=True) for n in (1, 2)]
        floor_agrees(store, "demo-progressive", journals)
        for journal in journals:
            journal.close()
        # The demo's staff are central accounts on the floor store.
        from floor.accounts import FloorAccountStore

        assert {a.name for a in FloorAccountStore(store=store).accounts()} >= {"dealer", "supervisor", "admin"}
