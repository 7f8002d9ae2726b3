"""`dealer-assist demo` and `run` used from a terminal: they play, stop cleanly, and keep the journal."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.hil


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", *args]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_demo_plays_rounds_on_its_own_and_stops_cleanly_on_a_signal(tmp_path: Path, sig: signal.Signals) -> None:
    proc = subprocess.Popen(
        cli(
            "demo",
            "--data",
            str(tmp_path),
            "--pace",
            "0",
            "--no-browser",
            "--seed",
            "2",
            "--game",
            "holdem-bonus",
            "--port",
            "0",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    showdowns = 0
    display = ""
    deadline = time.monotonic() + 60
    while showdowns < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr else ""
        showdowns += "· showdown ·" in line
        if line.startswith("dealer display: "):
            display = line.split()[2]
    # The dealer display is served: it answers (the login page for a browser without a session).
    with urllib.request.urlopen(display, timeout=10) as page:
        assert page.status == 200
        assert "<html" in page.read().decode().lower()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    # The simulated camera watched the layout and saw no misdeal in normal play.
    assert re.search(r"camera: stopped, [1-9]\d* frames, .*, 0 tilt\(s\) raised", err), err
    history = subprocess.run(cli("history", "--data", str(tmp_path)), capture_output=True, text=True, check=True)
    rounds = [json.loads(line) for line in history.stdout.splitlines()]
    assert len(rounds) >= 1 and all(r["game"] == "holdem-bonus" for r in rounds)


def test_ctrl_c_at_a_terminal_stops_the_demo_without_a_shoe_tilt(tmp_path: Path) -> None:
    # A terminal's Ctrl-C goes to the whole foreground process group, the simulated shoe included.
    proc = subprocess.Popen(
        cli("demo", "--data", str(tmp_path), "--pace", "0", "--no-browser", "--no-camera", "--port", "0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    showdowns = 0
    deadline = time.monotonic() + 60
    while showdowns < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr else ""
        showdowns += "· showdown ·" in line
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "demo stopped" in err
    assert "shoe-link-lost" not in out + err


def test_demo_continues_the_same_journal_after_a_restart(tmp_path: Path) -> None:
    for camera in ([], ["--no-camera"]):
        done = subprocess.run(
            cli(
                "demo", "--data", str(tmp_path), "--pace", "0", "--no-browser", "--rounds", "2", "--port", "0", *camera
            ),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert ("camera:" in done.stdout) == (not camera)
    history = subprocess.run(cli("history", "--data", str(tmp_path)), capture_output=True, text=True, check=True)
    rounds = [json.loads(line) for line in history.stdout.splitlines()]
    numbers = [r["round"] for r in rounds]
    assert numbers == sorted(set(numbers))
    # Two settled rounds per run; a round left open by the first run is void, not continued.
    assert sum(1 for r in rounds if "void" not in r) >= 4
    assert all("new deck" in r["void"] for r in rounds if "void" in r)


def test_run_with_a_bad_configuration_or_shoe_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('game = "oasis"\nmax_bet = -1\n')
    done = subprocess.run(
        cli("run", "--config", str(bad), "--data", str(tmp_path)), capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "max_bet" in done.stderr
    empty = subprocess.run(cli("run", "--data", str(tmp_path / "new")), capture_output=True, text=True, check=False)
    assert empty.returncode == 2 and "give a configuration" in empty.stderr


def test_demo_tables_share_one_linked_jackpot_and_replicate_every_entry(tmp_path: Path) -> None:
    from controller.journal.sqlite import SqliteJournal
    from floor import open_store
    from tests.floor.kit import floor_agrees

    args = ["demo", "--data", str(tmp_path), "--tables", "3", "--pace", "0", "--no-browser", "--no-camera"]
    args += ["--rounds", "3", "--port", "0", "--seed", "5"]
    done = subprocess.run(cli(*args), capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Table 2: casino-holdem in pit A" in done.stdout
    journals = [SqliteJournal(path=tmp_path / f"table-0{n}" / "journal.sqlite3", read_only=True) for n in (1, 2, 3)]
    with open_store(str(tmp_path / "floor.sqlite3"), migrate=False) as store:
        # Every entry on the floor once, as the table wrote it (the last pass ran at the stop).
        floor_agrees(store, "demo-progressive", journals)
    for journal in journals:
        journal.close()
    show = subprocess.run(cli("jackpot", "show", "--data", str(tmp_path)), capture_output=True, text=True, check=True)
    assert json.loads(show.stdout)["accounts"][0]["name"] == "demo-progressive"
