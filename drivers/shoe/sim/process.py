"""Run ``dealer-assist shoe-sim`` as a child process and drive it through its stdin commands."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time

from drivers.errors import SimulatorError
from drivers.shoe.sim.config import SimConfig


class SimulatedShoeProcess:
    """A simulated shoe in its own process, on a real pseudo-terminal.

    ::

        with SimulatedShoeProcess(config=SimConfig(seed=7)) as sim:
            driver = ShoeDriver(config=ShoeConfig(url=sim.device_path))
            sim.command("draw As")       # "draw 1 As"
            sim.command("jam")

    Replies (``ok ...``/``error ...``) answer commands; every other stdout line is a notice
    (``drew N CODE``, ``disconnected``, ``connected PATH``, ``empty``) kept in ``notices``.
    """

    def __init__(self, *, config: SimConfig | None = None, python: str = sys.executable) -> None:
        self.config = config or SimConfig()
        self._python = python
        self._proc: subprocess.Popen[str] | None = None
        self._replies: queue.Queue[str] = queue.Queue()
        self._notices: list[str] = []
        self._notice_cond = threading.Condition()
        self._reader: threading.Thread | None = None
        self._command_lock = threading.Lock()  # replies are matched to commands in order
        self.pty_path = ""

    @property
    def device_path(self) -> str:
        """What a driver should open: the stable link when configured, else the pty path."""
        return self.config.link or self.pty_path

    @property
    def notices(self) -> list[str]:
        """Notices printed so far (a copy)."""
        with self._notice_cond:
            return list(self._notices)

    def argv(self) -> list[str]:
        """The command line used to start the simulator."""
        return [self._python, "-m", "controller.cli", "shoe-sim", *self.config.to_args()]

    def start(self, *, timeout: float = 15.0) -> str:
        """Start the process and return the device path once it has printed it.

        Raises:
            SimulatorError: the process exited or printed nothing in time.
        """
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self._proc = subprocess.Popen(
            self.argv(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # inherited: the simulator's rare diagnostics show where the caller's do
            text=True,
            bufsize=1,
            env=env,
            # Its own session: Ctrl-C at a terminal signals the whole foreground group, and the
            # shoe must not vanish before its owner has stopped reading it (a false link-lost tilt).
            # It still ends with its owner: end of stdin means quit.
            start_new_session=True,
        )
        first: queue.Queue[str] = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(first,), name="shoe-sim-stdout", daemon=True)
        self._reader.start()
        try:
            line = first.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise SimulatorError(f"shoe-sim printed no device path within {timeout:g} s") from None
        if not line:
            status = self.stop()
            raise SimulatorError(f"shoe-sim exited (status {status}) before printing its device path")
        self.pty_path = line
        return self.device_path

    def _read(self, first: queue.Queue[str]) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        got_first = False
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            if not got_first:
                got_first = True
                first.put(line)
            elif line.startswith(("ok ", "error ")) or line in ("ok", "error"):
                self._replies.put(line)
            else:
                with self._notice_cond:
                    self._notices.append(line)
                    self._notice_cond.notify_all()
        if not got_first:
            first.put("")
        self._replies.put("")  # the process ended: wake a waiting command()

    def command(self, line: str, *, timeout: float = 10.0) -> str:
        """Send one stdin command and return its reply without the ``ok `` prefix (thread-safe).

        Raises:
            SimulatorError: the simulator answered ``error``, did not answer in time, or is not running.
        """
        proc = self._proc
        if proc is None or proc.stdin is None or proc.poll() is not None:
            raise SimulatorError("shoe-sim is not running")
        if "\n" in line:
            raise SimulatorError(f"one command per call, got {line!r}")
        with self._command_lock:
            try:
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                raise SimulatorError(f"shoe-sim stopped reading commands: {exc}") from exc
            try:
                reply = self._replies.get(timeout=timeout)
            except queue.Empty:
                raise SimulatorError(f"no reply from shoe-sim to {line!r} within {timeout:g} s") from None
        if reply.startswith("error"):
            raise SimulatorError(f"shoe-sim refused {line!r}: {reply[6:]}")
        if not reply.startswith("ok"):
            raise SimulatorError(f"shoe-sim ended while answering {line!r}")
        return reply[3:]

    def draw(self, code: str | None = None) -> tuple[int, str]:
        """Draw the next card (or ``code``); returns (draw counter, card code).

        Raises:
            SimulatorError: the shoe is jammed or empty, or the code is not a card.
        """
        reply = self.command("draw" if code is None else f"draw {code}")
        _, counter, drawn = reply.split()
        return int(counter), drawn

    def wait_notice(self, prefix: str, *, count: int = 1, timeout: float = 30.0) -> list[str]:
        """Wait until at least ``count`` notices start with ``prefix``; returns them.

        Raises:
            SimulatorError: not enough such notices within ``timeout``.
        """
        deadline = time.monotonic() + timeout
        with self._notice_cond:
            while True:
                found = [n for n in self._notices if n.startswith(prefix)]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SimulatorError(f"shoe-sim printed {len(found)} of {count} {prefix!r} notices")
                self._notice_cond.wait(left)

    def stop(self, *, timeout: float = 5.0) -> int | None:
        """Ask the simulator to quit (then terminate, then kill); returns its exit status."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None and proc.stdin is not None:
            try:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._reader is not None:
            self._reader.join(timeout)
        if proc.stdout is not None:
            proc.stdout.close()
        return proc.returncode

    def __enter__(self) -> SimulatedShoeProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
