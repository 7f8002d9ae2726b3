"""The simulated shoe process: a pseudo-terminal speaking the protocol, a deck, stdin commands, faults.

stdout is line-oriented: the first line is the pty path; then one reply per command (``ok ...`` or
``error ...``) and notices (``drew N CODE``, ``disconnected``, ``connected PATH``, ``empty``).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import signal
import sys
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from controller.cards import DECK, Card, card
from controller.errors import CardError
from drivers.errors import SimulatorError
from drivers.shoe import protocol as p
from drivers.shoe.sim.config import SimConfig
from drivers.shoe.sim.device import DeviceTiming, ShoeDevice


@dataclass(slots=True)
class _Pty:
    master: int
    slave: int
    path: str


class _Line:
    """The pty pair plus the simulated line: baud-rate pacing, faults and the latency trace."""

    def __init__(self, *, config: SimConfig, rng: random.Random, trace: IO[str] | None) -> None:
        self.config = config
        self._rng = rng
        self._trace = trace
        self._byte_time = 10.0 / config.baud if config.baud else 0.0  # 8N1: 10 bit times per byte
        self._free_at = 0.0
        self._queue: deque[tuple[float, bytes, tuple[int, float] | None]] = deque()
        self._rx_free_at = 0.0
        self._inbound: deque[tuple[float, bytes]] = deque()
        self.pty: _Pty | None = None

    def open(self) -> str:
        master, slave = os.openpty()
        tty.setraw(slave)  # a binary line: no echo, no line editing, no CR/LF translation
        os.set_blocking(master, False)
        path = os.ttyname(slave)
        self.pty = _Pty(master=master, slave=slave, path=path)
        if self.config.link:
            tmp = f"{self.config.link}.{os.getpid()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(path, tmp)
            os.replace(tmp, self.config.link)  # atomic: a reader sees the old or the new pty
        self._queue.clear()
        self._inbound.clear()
        self._free_at = self._rx_free_at = 0.0
        return path

    def close(self) -> None:
        if self.config.link:
            # Gone first, as an unplugged device's node is: a link left on a closed pty names a number
            # the kernel hands to the next pty opened, another process's, which a driver reconnecting
            # meanwhile would open (and lock) instead.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.config.link)
        if self.pty is not None:
            os.close(self.pty.master)
            os.close(self.pty.slave)
            self.pty = None
        self._queue.clear()

    def send(self, frames: list[bytes], now: float) -> None:
        """Put frames on the line, through the fault injector, paced at the baud rate."""
        for frame in frames:
            data = self.config.faults.apply(frame, self._rng)
            if data:
                self._enqueue(data, now, frame)

    def _enqueue(self, data: bytes, now: float, frame: bytes) -> None:
        # The pty delivers instantly; a UART delivers the frame's last byte len×byte-time after its
        # first. Holding the write until then makes latency figures honest for the configured baud.
        start = max(now, self._free_at)
        due = start + len(data) * self._byte_time
        self._free_at = due
        counter = None
        if self._trace is not None and frame[3] == p.MsgType.CARD:
            counter = int.from_bytes(frame[4:8], "big")
        self._queue.append((due, data, (counter, start) if counter is not None else None))

    def flush_due(self, now: float) -> None:
        while self._queue and self._queue[0][0] <= now:
            due, data, traced = self._queue.popleft()
            if self.pty is None:
                continue
            # Nobody reading and the pty buffer full: bytes on a dead line are lost.
            with contextlib.suppress(BlockingIOError):
                os.write(self.pty.master, data)
            if traced is not None and self._trace is not None:
                # Traced after the write so that tracing never delays the frame it measures.
                written = time.monotonic()
                counter, start = traced
                record = {"draw_counter": counter, "start": start, "end": due, "written": written}
                self._trace.write(json.dumps(record) + "\n")
                self._trace.flush()

    def arrive(self, data: bytes, now: float) -> None:
        """Bytes the controller wrote: the shoe sees them only after their time on the line."""
        due = max(now, self._rx_free_at) + len(data) * self._byte_time
        self._rx_free_at = due
        self._inbound.append((due, data))

    def take_arrived(self, now: float) -> bytes:
        out = b""
        while self._inbound and self._inbound[0][0] <= now:
            out += self._inbound.popleft()[1]
        return out

    def next_due(self) -> float | None:
        dues = [q[0][0] for q in (self._queue, self._inbound) if q]
        return min(dues) if dues else None


class ShoeSimulator:
    """The simulator's state and main loop; ``run()`` returns when told to quit or stdin ends."""

    def __init__(self, *, config: SimConfig, out: Callable[[str], None], stdin_fd: int) -> None:
        self.config = config
        self._out = out
        self._stdin_fd = stdin_fd
        self._stdin_buf = b""
        self._deck_rng = random.Random(config.seed)
        fault_seed = config.fault_seed if config.fault_seed is not None else self._deck_rng.randrange(2**32)
        self._trace: IO[str] | None = open(config.trace, "a", encoding="ascii") if config.trace else None  # noqa: SIM115
        self._line = _Line(config=config, rng=random.Random(fault_seed), trace=self._trace)
        self.device = ShoeDevice(
            shoe_id=config.shoe_id,
            draw_counter=config.draw_counter,
            timing=DeviceTiming(heartbeat_interval=config.heartbeat, ack_timeout=config.ack_timeout),
        )
        self._deck: deque[Card] = deque()
        self._last_card: Card | None = None
        self._draws_since_disconnect = 0
        self._next_draw: float | None = None
        self._reconnect_at: float | None = None
        self._unmute_at: float | None = None
        self._muted = False
        self._running = True
        self._announce_empty = False
        self._new_deck()

    # --- deck --------------------------------------------------------------------------------------

    def _new_deck(self) -> None:
        if self.config.cards is not None:
            self._deck = deque(self.config.cards)
        else:
            order = list(DECK)
            self._deck_rng.shuffle(order)
            self._deck = deque(order)

    # --- the loop ----------------------------------------------------------------------------------

    def run(self) -> int:
        path = self._line.open()
        self._out(path)
        if self.config.draw_interval is not None:
            self._next_draw = time.monotonic() + self.config.draw_interval
        try:
            while self._running:
                self._step()
        finally:
            self._line.close()
            if self.config.link:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.config.link)
            if self._trace is not None:
                self._trace.close()
        return 0

    def _step(self) -> None:
        now = time.monotonic()
        pty = self._line.pty
        online = pty is not None and not self._muted
        deadlines = [now + 0.05]
        if online:
            deadlines.append(self.device.next_deadline(now))
        for t in (self._line.next_due(), self._next_draw, self._reconnect_at, self._unmute_at):
            if t is not None:
                deadlines.append(t)
        wait = max(0.0, min(deadlines) - now)
        fds = [self._stdin_fd] if self._stdin_fd >= 0 else []
        if pty is not None:
            fds.append(pty.master)
        readable, _, _ = select.select(fds, [], [], wait)
        now = time.monotonic()
        if pty is not None and pty.master in readable:
            try:
                data = os.read(pty.master, 4096)
            except (BlockingIOError, OSError):
                data = b""
            if data and not self._muted:
                self._line.arrive(data, now)
        arrived = self._line.take_arrived(now)
        if arrived and self._line.pty is not None:
            self._line.send(self.device.receive(arrived, now), now)
        if self._stdin_fd in readable:
            self._read_stdin()
        self._timers(now)
        self._line.flush_due(time.monotonic())
        if self._announce_empty:
            self._announce_empty = False
            self._out("empty")

    def _timers(self, now: float) -> None:
        if self._reconnect_at is not None and now >= self._reconnect_at:
            self._reconnect_at = None
            path = self._line.open()
            self._out(f"connected {path}")
        if self._unmute_at is not None and now >= self._unmute_at:
            self._unmute_at = None
            self._muted = False
        if self._next_draw is not None and now >= self._next_draw and self.config.draw_interval:
            self._next_draw = now + self.config.draw_interval
            if self._deck and not self.device.flags & p.FLAG_JAMMED:
                counter, drawn = self._draw(self._deck.popleft(), now)
                self._out(f"drew {counter} {drawn}")
        if self._line.pty is not None:
            sent = self.device.poll(now)
            if not self._muted:
                self._line.send(sent, now)

    def _read_stdin(self) -> None:
        try:
            chunk = os.read(self._stdin_fd, 4096)
        except BlockingIOError:
            return
        if not chunk:
            # End of stdin: a stdin-driven shoe has nothing more to do; an auto-drawing one goes on.
            self._stdin_fd = -1
            if self.config.draw_interval is None:
                self._running = False
            return
        self._stdin_buf += chunk
        while b"\n" in self._stdin_buf:
            raw, self._stdin_buf = self._stdin_buf.split(b"\n", 1)
            line = raw.decode("utf-8", "replace").strip()
            try:
                self._out("ok " + self.command(line, time.monotonic()))
            except SimulatorError as exc:
                self._out(f"error {exc}")

    # --- commands ----------------------------------------------------------------------------------

    def command(self, line: str, now: float) -> str:
        """Carry out one stdin command; returns the reply after ``ok``.

        Raises:
            SimulatorError: an unknown command or one the shoe's state does not allow.
        """
        words = line.split()
        name = words[0].lower() if words else "draw"
        args = words[1:]
        device = self.device
        if name == "draw":
            if args:
                try:
                    wanted = card(args[0])
                except CardError as exc:
                    raise SimulatorError(str(exc)) from None
                with contextlib.suppress(ValueError):
                    self._deck.remove(wanted)
                counter, drawn = self._draw(wanted, now)
                return f"draw {counter} {drawn}"
            self._check_can_draw()
            counter, drawn = self._draw(self._deck.popleft(), now)
            return f"draw {counter} {drawn}"
        if name == "unreadable":
            self._check_can_draw()
            self._deck.popleft()
            counter, _ = self._draw(None, now)
            return f"unreadable {counter}"
        if name == "duplicate":
            if self._last_card is None:
                raise SimulatorError("no card drawn yet to duplicate")
            counter, drawn = self._draw(self._last_card, now)
            return f"duplicate {counter} {drawn}"
        simple = {
            "jam": p.WireStatus.JAM,
            "clear": p.WireStatus.JAM_CLEARED,
            "lid-open": p.WireStatus.LID_OPEN,
            "lid-close": p.WireStatus.LID_CLOSED,
        }
        if name in simple:
            device.status(simple[name])
            return name
        if name == "empty":
            self._deck.clear()
            device.status(p.WireStatus.EMPTY)
            return "empty"
        if name == "shuffle":
            self._new_deck()
            device.status(p.WireStatus.NEW_DECK)
            return f"shuffle {len(self._deck)}"
        if name == "disconnect":
            seconds = self._seconds(args, self.config.disconnect_for)
            self._disconnect(now, seconds)
            return f"disconnect {seconds:g}"
        if name == "mute":
            self._muted = True
            if not args:
                self._unmute_at = None
                return "mute"
            seconds = self._seconds(args, None)
            self._unmute_at = now + seconds
            return f"mute {seconds:g}"
        if name == "unmute":
            self._muted = False
            self._unmute_at = None
            return "unmute"
        if name == "status":
            return (
                f"status counter={device.draw_counter} remaining={len(self._deck)} "
                f"linked={'yes' if device.linked else 'no'} backlog={device.backlog} flags={device.flags}"
            )
        if name == "quit":
            self._running = False
            return "quit"
        raise SimulatorError(f"unknown command {name!r} (see dealer-assist shoe-sim --help)")

    def _check_can_draw(self) -> None:
        if self.device.flags & p.FLAG_JAMMED:
            raise SimulatorError("the shoe is jammed (send clear)")
        if not self._deck:
            raise SimulatorError("the shoe is empty (send shuffle)")

    @staticmethod
    def _seconds(args: list[str], default: float | None) -> float:
        if not args:
            if default is None:
                raise SimulatorError("expected a number of seconds")
            return default
        try:
            value = float(args[0])
        except ValueError:
            raise SimulatorError(f"expected a number of seconds, got {args[0]!r}") from None
        if value < 0:
            raise SimulatorError("seconds must not be negative")
        return value

    def _draw(self, drawn: Card | None, now: float) -> tuple[int, str]:
        counter = self.device.draw(drawn)
        if drawn is not None:
            self._last_card = drawn
        if not self._deck and not self.device.flags & p.FLAG_EMPTY:
            self.device.status(p.WireStatus.EMPTY)
            self._announce_empty = True  # printed after the draw's own line
        if self._line.pty is not None and not self._muted:
            self._line.send(self.device.poll(now), now)  # on the wire now, not at the next loop turn
        if self._line.pty is not None:
            self._draws_since_disconnect += 1  # count cards drawn while connected only
        every = self.config.disconnect_every
        if every is not None and self._line.pty is not None and self._draws_since_disconnect >= every:
            self._disconnect(now, self.config.disconnect_for)
        return counter, drawn.code if drawn is not None else "??"

    def _disconnect(self, now: float, seconds: float) -> None:
        self._draws_since_disconnect = 0
        if self._line.pty is None:
            self._reconnect_at = now + seconds
            return
        # Let what is already on the wire arrive first, as on a real line that is then cut.
        self._line.flush_due(float("inf"))
        self._line.close()
        self.device.line_lost()
        self._reconnect_at = now + seconds
        self._out("disconnected")


def run_simulator(config: SimConfig, *, stdin_fd: int | None = None) -> int:
    """Run ``shoe-sim`` until ``quit`` or end of stdin; returns the exit status.

    Raises:
        OSError: the pseudo-terminal or the link path could not be created.
    """

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(0)  # unwinds through run()'s cleanup: pty closed, link removed

    signal.signal(signal.SIGTERM, terminate)
    fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
    return ShoeSimulator(config=config, out=out, stdin_fd=fd).run()
