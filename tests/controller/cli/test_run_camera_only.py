"""`dealer-assist run` and the configuration's camera: with no shoe it deals the table (or a one-line
error says there is no card source); beside a shoe it checks the deal."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from drivers.shoe.sim import SimConfig, SimulatedShoeProcess

pytestmark = pytest.mark.hil

ZONES = """
[[zones]]
name = "dealer"
kind = "dealer"
polygon_mm = [[200, 10], [500, 10], [500, 120], [200, 120]]

[[zones]]
name = "box1"
polygon_mm = [[20, 260], [220, 260], [220, 390], [20, 390]]
"""


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", *args]


def test_a_table_with_a_camera_and_no_shoe_runs_camera_only(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'game = "casino-holdem"\nmax_bet = 200\n\n[vision]\ncamera = "sim://?frames=100000"\n{ZONES}')
    proc = subprocess.Popen(
        cli("run", "--config", str(config), "--data", str(tmp_path / "data"), "--no-web", "--control", "stdio"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    ready = json.loads(proc.stdout.readline())
    assert ready["ready"] is True and ready["camera"] == "deals"
    proc.stdin.write(json.dumps({"cmd": "open", "bets": [{"box": 1, "ante": 150}]}) + "\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    # The table's own settings came from the same file as the camera's; the deal waits for the camera.
    assert answer["ok"] is True and answer["expected"] == "deal card 1 to box 1, face down"
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('game = "oasis"\n', "no card source"),
        (f'game = "oasis"\n[vision]\ndeck = "x.npz"\n{ZONES}', "vision.camera"),
        ('game = "oasis"\n[vision]\ncamera = "sim://"\n', "zones"),
        (f'game = "oasis"\n[vision]\ncamera = "sim://"\nvote_frames = 0\n{ZONES}', "vote_frames"),
    ],
)
def test_run_without_a_card_source_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "table.toml"
    config.write_text(text)
    done = subprocess.run(
        cli("run", "--config", str(config), "--data", str(tmp_path / "data"), "--no-web"),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_a_camera_configured_beside_a_shoe_checks_the_deal(tmp_path: Path) -> None:
    # The simulated camera's table stays empty (nobody lays the cards): once the shoe has dealt the
    # round's first cards, the camera must find box 1 and the dealer short and raise a tilt.
    config = tmp_path / "table.toml"
    config.write_text(f'game = "casino-holdem"\nmax_bet = 200\n\n[vision]\ncamera = "sim://?frames=100000"\n{ZONES}')
    with SimulatedShoeProcess(config=SimConfig(seed=3)) as sim:
        proc = subprocess.Popen(
            cli(
                "run",
                "--config",
                str(config),
                "--shoe",
                sim.device_path,
                "--data",
                str(tmp_path / "data"),
                "--no-web",
                "--control",
                "stdio",
            ),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None

        def ask(command: dict[str, Any]) -> dict[str, Any]:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(command) + "\n")
            proc.stdin.flush()
            answer: dict[str, Any] = json.loads(proc.stdout.readline())
            return answer

        assert json.loads(proc.stdout.readline()) == {
            "ready": True,
            "round": 0,
            "last_counter": None,
            "camera": "checks",
        }
        # "ready" does not wait for the shoe: a card drawn before the table's first contact with a
        # shoe is not the table's (it resumes after the counter the shoe says hello with).
        linked = time.monotonic() + 60
        while "linked=yes" not in sim.command("status") and time.monotonic() < linked:
            time.sleep(0.05)
        assert ask({"cmd": "open", "bets": [{"box": 1, "ante": 150}]})["ok"] is True
        # Deal until the table waits for the player's decision (two cards to box 1, two to the
        # dealer, the flop): the shoe's cards arrive asynchronously, so follow what it expects.
        tilts: list[dict[str, Any]] = []
        drawn_for = ""
        state: dict[str, Any] = {}
        deadline = time.monotonic() + 90
        while not tilts and time.monotonic() < deadline:
            state = ask({"cmd": "state"})["state"]
            tilts = state["tilts"]
            if state["expected"].startswith("deal ") and state["expected"] != drawn_for:
                sim.draw()
                drawn_for = state["expected"]
            time.sleep(0.05)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    # On failure, what the table waited for and what the process said tell a lost draw from a
    # camera that stopped.
    assert [t["kind"] for t in tilts] == ["deal-sequence"], (state, err)
    assert "camera" in tilts[0]["message"], tilts
