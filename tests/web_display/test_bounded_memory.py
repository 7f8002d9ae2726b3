"""The server's memory stays bounded whatever anonymous clients send: a huge body, many sign-ins at once.

Measured on a server in its own process as its peak resident size (VmHWM), with a wide margin: before
the limits, one 400 MB body took the server from 92 MB to 1.3 GB and 16 parallel sign-ins to 1 GB.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from tests.web_display.kit import PASSWORD

MB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc = proc
        self.url = url
        parts = urlsplit(url)
        self.address = (parts.hostname or "127.0.0.1", parts.port or 80)

    def peak(self) -> int:
        """The server process's peak resident memory so far, in bytes."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.web_display.app_process", str(tmp_path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://"), url
    srv = Server(proc, url)
    # Warm up: pages, the API and one sign-in (one password hash: its 64 MiB are in the baseline peak).
    with httpx2.Client(base_url=url, timeout=60) as web:
        assert web.post("/api/login", json={"name": "dealer", "password": PASSWORD}).status_code == 200
        for path in ("/api/tables/T1", "/api/floor", "/login", "/static/dealer.js"):
            web.get(path)
    try:
        yield srv
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def send_body(server: Server, *, declared: bool, size: int) -> str:
    """POST an anonymous sign-in with a ``size``-byte body; returns the status line (or how it ended)."""
    head = "POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {size}\r\n" if declared else "Transfer-Encoding: chunked\r\n"
    chunk = b" " * MB
    with socket.create_connection(server.address, timeout=30) as sock:
        sock.sendall((head + "\r\n").encode())
        try:
            for _ in range(size // MB):
                sock.sendall(chunk if declared else b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            if not declared:
                sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed: it will not read 100 MB to refuse them
        with contextlib.suppress(OSError):
            return sock.recv(4096).decode(errors="replace").split("\r\n", 1)[0]
    return "closed"


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_huge_anonymous_body_does_not_grow_the_server(server: Server, declared: bool) -> None:
    before = server.peak()
    status = send_body(server, declared=declared, size=200 * MB)
    grown = server.peak() - before
    assert grown < 48 * MB, f"peak memory grew {grown / MB:.0f} MB for one request ({status})"
    assert status.startswith("HTTP/1.1 413") or status in ("closed", ""), status
    with httpx2.Client(base_url=server.url, timeout=30) as web:  # and it still serves
        assert web.get("/login").status_code == 200


def test_many_sign_ins_at_once_do_not_grow_the_server(server: Server) -> None:
    """16 anonymous sign-ins at once from 16 addresses, three times over: argon2 takes 64 MiB each."""
    terminal = httpx2.Client(base_url=server.url, transport=httpx2.HTTPTransport(local_address="127.0.0.3"))
    assert terminal.post("/api/login", json={"name": "dealer", "password": PASSWORD}).status_code == 200
    before = server.peak()
    statuses: list[int] = []
    lock = threading.Lock()

    def attempt(i: int) -> None:
        transport = httpx2.HTTPTransport(local_address=f"127.0.0.{10 + i}")
        with httpx2.Client(base_url=server.url, transport=transport, timeout=120) as web:
            for _ in range(3):
                status = web.post("/api/login", json={"name": "dealer", "password": f"guess-{i}"}).status_code
                with lock:
                    statuses.append(status)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    grown = server.peak() - before
    assert len(statuses) == 48 and set(statuses) <= {401, 503}, statuses
    assert statuses.count(401) >= 3  # hashing went on, bounded, and refused the wrong passwords
    assert grown < 200 * MB, f"peak memory grew {grown / MB:.0f} MB for 16 sign-ins at once"
    # The guesses from 16 addresses slow the name down for new browsers; the dealer's own terminal,
    # which signed in before, still gets in at once.
    again = terminal.post("/api/login", json={"name": "dealer", "password": PASSWORD})
    terminal.close()
    assert again.status_code == 200, again.text
