"""A table started without its shoe says so from the start (a tilt on the displays and a line on the
console), and the shoe's and camera's comings and goings reach the `run` console."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from controller.config import build_config
from controller.live import LiveConfig, LiveTable
from drivers.shoe.sim import SimConfig, SimulatedShoeProcess
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "docs" / "tables" / "oasis.toml"


def test_a_shoe_missing_at_start_raises_the_link_tilt_at_once(tmp_path: Path) -> None:
    missing = str(tmp_path / "ttyUSB0")
    live = LiveTable(config=LiveConfig(data=tmp_path / "data", shoe=missing, table=build_config({"game": "oasis"})))
    live.start()
    try:
        wait_for(lambda: live.table.tilts, "the shoe-link tilt")
        (tilt,) = live.table.tilts.values()
        assert tilt.kind == "shoe-link-lost" and missing in tilt.message
        view = live.table.view()
        assert view["tilts"][0]["kind"] == "shoe-link-lost"
        assert view["expected"].startswith("tilt: lost the link to the shoe")
        time.sleep(0.5)  # the driver keeps trying: still one tilt, not one per attempt
        assert len(live.table.tilts) == 1
    finally:
        live.stop()


def run_table(tmp_path: Path, shoe: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(CONFIG), "--data", str(tmp_path / "data"),
         "--shoe", shoe, "--no-web"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    return err


def test_the_run_console_says_the_shoe_is_missing(tmp_path: Path) -> None:
    process = run_table(tmp_path, str(tmp_path / "ttyUSB0"))
    time.sleep(3)
    err = stop(process)
    assert "shoe link down" in err and "ttyUSB0" in err
    assert "tilt 1 (shoe-link-lost)" in err
    assert "Traceback" not in err


def test_the_run_console_shows_the_shoe_connecting_and_its_faults(tmp_path: Path) -> None:
    sim = SimulatedShoeProcess(config=SimConfig(seed=1, shoe_id="CONSOLE-1"))
    sim.start()
    try:
        process = run_table(tmp_path, sim.device_path)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "linked=yes" not in sim.command("status"):
            time.sleep(0.1)
        time.sleep(1.0)
        sim.command("jam")
        time.sleep(1.0)
        err = stop(process)
    finally:
        sim.stop()
    assert "shoe CONSOLE-1 connected" in err
    assert "shoe reports jam" in err
