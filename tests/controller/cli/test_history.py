"""`dealer-assist history`: recorded rounds as JSON lines that `settle` reproduces exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.config import build_config
from controller.engine import Action, BoxBet
from controller.journal import SqliteJournal
from controller.table import Actor, TableService
from tests.controller.roundkit import passes

DEALER = Actor("dana", "dealer")


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_history_lines_settle_again_to_their_own_settlement(tmp_path: Path) -> None:
    store = SqliteJournal(path=tmp_path / "journal.sqlite3")
    table = TableService(config=build_config({"game": "casino-holdem"}), store=store)
    for n, (player, dealer) in enumerate([("Ah Kh", "9c 9d"), ("2c 7d", "4c 4d"), ("Qs Qd", "3h 2s")]):
        table.open_round([BoxBet(box=2, ante=10, bonus=5)], actor=DEALER)
        cards = [*passes({2: player}, dealer, n=2), "Jh", "5h", "8s", "Tc", "6d"]
        for i, code in enumerate(cards[:7]):
            table.on_card(code, counter=n * 9 + i)
        table.act(Action(2, "call"), actor=DEALER)
        table.on_card(cards[7], counter=n * 9 + 7)
        table.on_card(cards[8], counter=n * 9 + 8)
        table.confirm_settlement(actor=DEALER)
    store.close()

    done = cli("history", "--data", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [json.loads(line)["round"] for line in lines] == [1, 2, 3]
    for line in lines:
        again = cli("settle", "-", stdin=line)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout) == json.loads(line)["settlement"]
    last = cli("history", "--data", str(tmp_path), "--last", "2")
    assert [json.loads(line)["round"] for line in last.stdout.splitlines()] == [2, 3]


def test_history_of_a_folder_without_a_table_is_one_line(tmp_path: Path) -> None:
    done = cli("history", "--data", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no table journal" in done.stderr
