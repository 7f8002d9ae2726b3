"""`dealer-assist run` as a systemd service: https with HSTS and Secure cookies, READY / WATCHDOG /
STOPPING on a NOTIFY_SOCKET of the test's own, and /metrics scraped while it runs."""

from __future__ import annotations

import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from drivers.shoe.sim import SimConfig, SimulatedShoeProcess

pytestmark = pytest.mark.hil
PASSWORD = "a-dealer-password"


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller.cli", *args]


def certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "table.crt", folder / "table.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def messages(sock: socket.socket, *, until: str, timeout: float = 30) -> list[str]:
    """Datagrams received on the fake NOTIFY_SOCKET until one contains ``until``."""
    got: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got.append(sock.recv(4096).decode())
        except TimeoutError:
            continue
        if until in got[-1]:
            return got
    raise AssertionError(f"no {until!r} within {timeout} s; got {got}")


@pytest.fixture
def notify(tmp_path: Path) -> Iterator[socket.socket]:
    """A NOTIFY_SOCKET of the test's own, at ``tmp_path / "notify.sock"``."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.settimeout(0.5)
    yield sock
    sock.close()


def stopped(proc: subprocess.Popen[str], notify: socket.socket) -> str:
    """SIGTERM, systemd told STOPPING=1, the process ended: its standard error."""
    proc.send_signal(signal.SIGTERM)
    assert any("STOPPING=1" in m for m in messages(notify, until="STOPPING=1"))
    _, err = proc.communicate(timeout=60)
    return str(err)


def reaped(proc: subprocess.Popen[str]) -> None:
    """A process a failed test left running, killed."""
    if proc.poll() is None:
        proc.kill()
        proc.communicate(timeout=30)


def test_run_serves_https_tells_systemd_and_is_scraped(tmp_path: Path, notify: socket.socket) -> None:
    data = tmp_path / "data"
    config = tmp_path / "table.toml"
    config.write_text('game = "oasis"\nname = "T7"\n')
    added = subprocess.run(
        cli("user", "add", "dana", "--role", "dealer", "--password-stdin", "--data", str(data)),
        input=PASSWORD + "\n", capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    cert, key = certificate(tmp_path)
    env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "WATCHDOG_USEC": "300000"}
    with SimulatedShoeProcess(config=SimConfig(seed=5)) as sim:
        proc = subprocess.Popen(
            cli("run", "--config", str(config), "--shoe", sim.device_path, "--data", str(data), "--port", "0",
                "--tls-cert", str(cert), "--tls-key", str(key)),
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
        )  # fmt: skip
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
            url = re.search(r"floor: (https://127\.0\.0\.1:\d+)/floor", line)
            assert url, line
            base = url.group(1)
            ready = messages(notify, until="READY=1")
            assert any(f"MAINPID={proc.pid}" in m for m in ready)
            # `systemctl status` says whether the shoe is linked, and follows it once it links.
            assert re.search(r"STATUS=T7: oasis, shoe (not )?linked, serving https://127\.0\.0\.1:\d+", ready[-1])
            if "shoe linked" not in ready[-1]:
                assert messages(notify, until="STATUS=T7: oasis, shoe linked")
            pings = [m for m in messages(notify, until="WATCHDOG=1") if m == "WATCHDOG=1"]
            pings += [m for m in messages(notify, until="WATCHDOG=1") if m == "WATCHDOG=1"]
            assert len(pings) >= 2

            trust = ssl.create_default_context(cafile=str(cert))
            with httpx2.Client(base_url=base, verify=trust, timeout=30) as web:
                page = web.get("/login")
                assert page.status_code == 200
                assert page.headers["strict-transport-security"] == "max-age=31536000"
                signed = web.post("/api/login", json={"name": "dana", "password": PASSWORD})
                assert signed.status_code == 200, signed.text
                cookie = signed.headers["set-cookie"].lower()
                assert "secure" in cookie and "httponly" in cookie
                csrf = {"X-CSRF-Token": signed.json()["csrf"]}
                opened = web.post("/api/tables/T7/rounds", json={"bets": [{"box": 1, "ante": 10}]}, headers=csrf)
                assert opened.status_code == 201, opened.text
                reported = web.post("/api/tables/T7/reports", json={"kind": "missing-card"}, headers=csrf)
                assert reported.status_code == 201, reported.text
                deadline = time.monotonic() + 30
                scraped = ""
                while time.monotonic() < deadline and 'dealer_assist_shoe_link_up{table="T7"} 1.0' not in scraped:
                    scraped = web.get("/metrics").text
                    time.sleep(0.2)
            for line in (
                'dealer_assist_shoe_link_up{table="T7"} 1.0',
                'dealer_assist_journal_write_seconds_count{table="T7"} 2.0',
                'dealer_assist_tilts_total{kind="missing-card",table="T7"} 1.0',
                'dealer_assist_open_tilts{kind="missing-card",table="T7"} 1.0',
                'dealer_assist_round{table="T7"} 1.0',
                'dealer_assist_sign_ins_total{outcome="ok"} 1.0',
                'dealer_assist_websocket_clients{feed="table"} 0.0',
            ):
                assert line in scraped, scraped
            assert "dealer_assist_camera_link_up" not in scraped.replace("# HELP", "").split("# TYPE")[0]
            err = stopped(proc, notify)
        finally:
            reaped(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_a_table_whose_shoe_does_not_answer_is_ready_and_says_so(tmp_path: Path, notify: socket.socket) -> None:
    config = tmp_path / "table.toml"
    config.write_text('game = "oasis"\nname = "T8"\n')
    with socket.socket() as closed:  # a free port nothing listens on: the shoe's link cannot come up
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock")}
    proc = subprocess.Popen(
        cli("run", "--config", str(config), "--shoe", f"socket://127.0.0.1:{port}", "--data", str(tmp_path / "d"),
            "--no-web"),
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    try:
        ready = messages(notify, until="READY=1")
        assert "STATUS=T8: oasis, shoe not linked, no displays" in ready[-1]
        err = stopped(proc, notify)
    finally:
        reaped(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_run_refuses_half_a_tls_configuration_or_unusable_files(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('game = "oasis"\n')
    (tmp_path / "x.pem").write_text("not a certificate")
    for extra, message in (
        (["--tls-cert", str(tmp_path / "x.pem")], "give both --tls-cert and --tls-key"),
        (["--tls-cert", str(tmp_path / "x.pem"), "--tls-key", str(tmp_path / "none.pem")], "none.pem: no such file"),
        (["--tls-cert", str(tmp_path / "x.pem"), "--tls-key", str(tmp_path / "x.pem")], "TLS: cannot use certificate"),
    ):
        done = subprocess.run(
            cli("run", "--config", str(config), "--shoe", "socket://127.0.0.1:9", "--data", str(tmp_path / "d"),
                "--port", "0", *extra),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
