"""``dealer-assist floor``: serves until stopped, and refuses bad settings or an unreachable floor in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from controller.cli import main
from floor import open_store
from tests.floor.web.kit import staff

ROOT = Path(__file__).resolve().parents[3]


def test_the_floor_command_serves_the_floor_and_stops_on_sigterm(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "floor.sqlite3")) as store:
        staff(store).close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "controller.cli", "floor", "--data", str(tmp_path), "--port", "0"]
    argv += ["--second-approval-above", "100000"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            assert line.startswith("floor service on http://127.0.0.1:"), (
                line,
                proc.stderr.read() if proc.stderr else "",
            )
            base = line.split()[3].removesuffix("/floor")
            page = httpx2.get(f"{base}/floor", follow_redirects=False)
            assert (page.status_code, page.headers["location"]) == (303, "/login?next=/floor")
            assert httpx2.get(f"{base}/login").status_code == 200
        finally:
            proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert (tmp_path / "floor.sqlite3").is_file()  # the embedded store, made and migrated


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["floor", "--port", "8100"], "give the floor database (--db URL) or a data folder (--data DIR)"),
        (["floor", "--data", "{tmp}/none"], "--data {tmp}/none: no such folder"),
        (["floor", "--data", "{tmp}", "--port", "70000"], "--port 70000: a port is 0..65535"),
        (
            ["floor", "--data", "{tmp}", "--second-approval-above", "-1"],
            "--second-approval-above: an amount, 0 or more",
        ),
        (
            ["floor", "--data", "{tmp}", "--db", "{tmp}/no/floor.sqlite3"],
            "{tmp}/no: no such folder for the floor store",
        ),
        (
            ["floor", "--data", "{tmp}", "--db", "mysql://floor@db/floor"],
            "--db mysql://…: use postgresql://… or a SQLite file",
        ),
        (["floor", "--data", "{tmp}", "--tls-cert", "{tmp}/c.pem"], "give both --tls-cert and --tls-key (or neither)"),
        (
            ["floor", "--data", "{tmp}", "--port", "0", "--tls-cert", "{tmp}/c.pem", "--tls-key", "{tmp}/k.pem"],
            "TLS: {tmp}/c.pem: no such file",
        ),
    ],
)
def test_bad_settings_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    assert capsys.readouterr().err == f"dealer-assist floor: {message.format(tmp=tmp_path)}\n"


def test_an_unreachable_floor_database_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://postgres@127.0.0.1:1/none?connect_timeout=1"
    assert main(["floor", "--db", url, "--data", str(tmp_path), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dealer-assist floor: floor unavailable: ") and err.count("\n") == 1


def test_a_port_in_use_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["floor", "--data", str(tmp_path), "--port", str(port)]) == 2
    assert capsys.readouterr().err.startswith(f"dealer-assist floor: cannot listen on 127.0.0.1:{port}: ")
