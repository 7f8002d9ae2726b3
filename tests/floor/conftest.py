"""A throwaway PostgreSQL cluster for the floor tests (real server, never a mock), the two store backends, and a
check that no test leaves a thread or a child process running."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def _pg_tool(name: str) -> str | None:
    for folder in PG_BIN_DIRS:
        if (folder / name).is_file():
            return str(folder / name)
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgCluster:
    """One cluster in a temporary folder: ``url(db)`` to connect, ``stop()``/``start()`` to cut the link."""

    def __init__(self, *, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.data = folder / "data"
        self._as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self._as_postgres, *argv], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stdout}{done.stderr}")

    def init(self) -> None:
        self._run(str(_pg_tool("initdb")), "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off"
        log = str(self.folder / "server.log")
        self._run(str(_pg_tool("pg_ctl")), "-D", str(self.data), "-l", log, "-o", options, "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run(str(_pg_tool("pg_ctl")), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh, empty database on the cluster, so each test starts from nothing."""
        import psycopg

        name = "floor_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    if _pg_tool("initdb") is None or _pg_tool("pg_ctl") is None:
        pytest.skip("PostgreSQL's initdb/pg_ctl not found: install Debian's postgresql package (./run test does)")
    folder = Path(tempfile.mkdtemp(prefix="dealer-assist-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, user="postgres", group="postgres")
    cluster = PgCluster(folder=folder, port=_free_port())
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(RuntimeError):  # already stopped: a test stopped it and failed before restarting
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def floor_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty floor store's URL on each backend: the same tests run on both."""
    if request.param == "sqlite":
        return str(tmp_path / "floor.sqlite3")
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database()


# -- nothing left running ------------------------------------------------------------------------------
# A floor link, an autoplayer, a server or a service process a test forgets to stop keeps playing, writing
# to PostgreSQL and taking CPU from the tests after it (on a shared 2-core machine). Each test's new threads
# and child processes still running after its teardown are noted; the module's verdict waits until its own
# fixtures (a module's browser, whose event loop keeps worker threads) are gone too, then gives what is
# winding down LEFT_RUNNING_GRACE seconds before it fails naming the test that started it.
LEFT_RUNNING_GRACE = 10.0


def _children() -> dict[int, str]:
    """This process's child processes still running (pid: command line), from /proc; zombies are done."""
    found = {}
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            state, ppid = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[:2]
            if int(ppid) == me and state != "Z":
                argv = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                found[int(entry.name)] = argv.strip()[:160]
        except (OSError, ValueError):  # gone meanwhile
            continue
    return found


Leftover = tuple[str, threading.Thread | tuple[int, str]]


def _still_running(what: threading.Thread | tuple[int, str]) -> bool:
    if isinstance(what, threading.Thread):
        return what.is_alive()
    pid, argv = what
    return _children().get(pid) == argv


def _describe(what: threading.Thread | tuple[int, str]) -> str:
    if isinstance(what, threading.Thread):
        return f"thread {what.name!r}" + (" (daemon)" if what.daemon else "")
    return f"child process {what[0]} ({what[1]})"


@pytest.fixture(scope="module", autouse=True)
def _module_leaves_nothing_running() -> Iterator[list[Leftover]]:
    leftovers: list[Leftover] = []
    yield leftovers
    deadline = time.monotonic() + LEFT_RUNNING_GRACE
    running = leftovers
    while running:
        running = [(test, what) for test, what in running if _still_running(what)]
        if not running or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if running:
        pytest.fail(
            f"still running {LEFT_RUNNING_GRACE:.0f} s after the module's tests ended (stop what a test starts, "
            "in a finally or a fixture's teardown): "
            + "; ".join(f"{_describe(what)} started by {test}" for test, what in running)
        )


@pytest.fixture(autouse=True)
def _test_leaves_nothing_running(
    request: pytest.FixtureRequest, _module_leaves_nothing_running: list[Leftover]
) -> Iterator[None]:
    threads, children = set(threading.enumerate()), _children()
    yield
    test = request.node.nodeid
    for thread in set(threading.enumerate()) - threads:
        _module_leaves_nothing_running.append((test, thread))
    for pid, argv in _children().items():
        if children.get(pid) != argv:
            _module_leaves_nothing_running.append((test, (pid, argv)))
