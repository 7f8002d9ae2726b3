"""A table started without its shoe says so from the start (a tilt on the displays and a line on the
console), and the shoe's and camera's comings and goings reach the `run` console."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
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


class Console:
    """A `run` process whose console (stderr) is read as it is written, so a test waits for a line
    instead of sleeping and hoping the process got that far (a loaded machine starts Python slowly)."""

    def __init__(self, tmp_path: Path, shoe: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(CONFIG), "--data", str(tmp_path / "data"),
             "--shoe", shoe, "--no-web"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def wait_for(self, words: str) -> None:
        wait_for(lambda: words in self.text, f"{words!r} on the console", timeout=60)

    def stop(self) -> str:
        """SIGTERM, then the whole console once the process has ended (it must end cleanly)."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        self._reader.join(timeout=10)
        assert self.process.returncode == 0, self.text
        return self.text


def test_the_run_console_says_the_shoe_is_missing(tmp_path: Path) -> None:
    console = Console(tmp_path, str(tmp_path / "ttyUSB0"))
    try:
        console.wait_for("tilt 1 (shoe-link-lost)")
    finally:
        err = console.stop()
    assert "shoe link down" in err and "ttyUSB0" in err
    assert "tilt 1 (shoe-link-lost)" in err
    assert "Traceback" not in err


def test_the_run_console_shows_the_shoe_connecting_and_its_faults(tmp_path: Path) -> None:
    sim = SimulatedShoeProcess(config=SimConfig(seed=1, shoe_id="CONSOLE-1"))
    sim.start()
    try:
        console = Console(tmp_path, sim.device_path)
        try:
            console.wait_for("shoe CONSOLE-1 connected")
            sim.command("jam")
            console.wait_for("shoe reports jam")
        finally:
            err = console.stop()
    finally:
        sim.stop()
    assert "shoe CONSOLE-1 connected" in err
    assert "shoe reports jam" in err
