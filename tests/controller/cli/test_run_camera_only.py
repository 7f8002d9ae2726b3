"""`dealer-assist run` with no shoe: the configuration's camera deals the table, or a one-line error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert ready["ready"] is True
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
