"""Settings of the simulated shoe, shared by the ``shoe-sim`` command and the Python helper."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.cards import Card, card
from controller.errors import CardError
from drivers.errors import DriverConfigError
from drivers.shoe import protocol as p

FAULT_KINDS = ("corrupt", "drop", "duplicate", "garbage")


@dataclass(frozen=True, kw_only=True)
class Faults:
    """Per-frame probabilities of line faults on what the shoe sends (0 ≤ each ≤ 1).

    corrupt: one bit of the frame flipped · drop: the frame never arrives · duplicate: it arrives twice ·
    garbage: 1-16 random bytes arrive before it.

    Raises:
        DriverConfigError: on construction, a probability outside 0..1.
    """

    corrupt: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0
    garbage: float = 0.0

    def __post_init__(self) -> None:
        for kind in FAULT_KINDS:
            value = getattr(self, kind)
            if not 0.0 <= value <= 1.0:
                raise DriverConfigError(f"fault {kind}={value} is not a probability in 0..1")

    @classmethod
    def parse(cls, text: str) -> Faults:
        """Parse ``corrupt=0.1,drop=0.05`` (kinds may be omitted; empty text means none).

        Raises:
            DriverConfigError: an unknown kind or a value that is not a number in 0..1.
        """
        values: dict[str, float] = {}
        for part in filter(None, (s.strip() for s in text.split(","))):
            kind, sep, raw = part.partition("=")
            kind = kind.strip()
            if not sep or kind not in FAULT_KINDS:
                raise DriverConfigError(
                    f"bad fault {part!r}: expected KIND=RATE with KIND one of {', '.join(FAULT_KINDS)}"
                )
            try:
                values[kind] = float(raw)
            except ValueError:
                raise DriverConfigError(f"bad fault rate {raw!r} for {kind}: not a number") from None
        return cls(**values)

    def to_text(self) -> str:
        """The ``--faults`` form of these settings."""
        return ",".join(f"{k}={getattr(self, k):g}" for k in FAULT_KINDS if getattr(self, k))

    def apply(self, frame: bytes, rng: random.Random) -> bytes:
        """What arrives at the far end when ``frame`` is sent over this faulty line (maybe nothing)."""
        if self.drop and rng.random() < self.drop:
            return b""
        data = frame
        if self.corrupt and rng.random() < self.corrupt:
            damaged = bytearray(frame)
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            data = bytes(damaged)
        if self.garbage and rng.random() < self.garbage:
            data = rng.randbytes(rng.randint(1, 16)) + data
        if self.duplicate and rng.random() < self.duplicate:
            data += data
        return data

    @property
    def any(self) -> bool:
        """Whether any fault can happen."""
        return any(getattr(self, k) for k in FAULT_KINDS)


def parse_cards(text: str) -> tuple[Card, ...]:
    """A stacked deck from ``As,Kd,...`` (repeats allowed: a stacked deck may provoke duplicates).

    Raises:
        DriverConfigError: an unknown card code or no cards at all.
    """
    try:
        stacked = tuple(card(code) for code in text.split(",") if code.strip())
    except CardError as exc:
        raise DriverConfigError(f"--cards: {exc}") from None
    if not stacked:
        raise DriverConfigError("--cards names no cards")
    return stacked


@dataclass(frozen=True, kw_only=True)
class SimConfig:
    """Everything ``dealer-assist shoe-sim`` can be told; ``to_args`` gives its command line.

    Raises:
        DriverConfigError: on construction, a value out of range.
    """

    link: str | None = None
    cards: tuple[Card, ...] | None = None
    seed: int | None = None
    draw_interval: float | None = None
    faults: Faults = field(default_factory=Faults)
    fault_seed: int | None = None
    disconnect_every: int | None = None
    disconnect_for: float = 0.5
    baud: int = p.DEFAULT_BAUDRATE
    heartbeat: float = p.HEARTBEAT_INTERVAL
    ack_timeout: float = p.ACK_TIMEOUT
    shoe_id: str = "SIM-1"
    draw_counter: int = 0
    trace: str | None = None

    def __post_init__(self) -> None:
        if self.draw_interval is not None and not self.draw_interval > 0:
            raise DriverConfigError(f"--draw-interval must be positive, got {self.draw_interval}")
        if self.disconnect_every is not None and self.disconnect_every < 1:
            raise DriverConfigError(f"--disconnect-every must be at least 1, got {self.disconnect_every}")
        if self.disconnect_for < 0:
            raise DriverConfigError(f"--disconnect-for must not be negative, got {self.disconnect_for}")
        if self.baud < 0:
            raise DriverConfigError(f"--baud must not be negative, got {self.baud}")
        if not self.heartbeat > 0 or not self.ack_timeout > 0:
            raise DriverConfigError("--heartbeat and --ack-timeout must be positive")
        if not 1 <= len(self.shoe_id) <= 16 or not self.shoe_id.isascii():
            raise DriverConfigError(f"--shoe-id {self.shoe_id!r} must be 1-16 ASCII characters")
        if not 0 <= self.draw_counter <= p.MAX_COUNTER:
            raise DriverConfigError(f"--draw-counter {self.draw_counter} is out of range")

    def to_args(self) -> list[str]:
        """The ``shoe-sim`` options that reproduce this configuration."""
        args: list[str] = []
        if self.link is not None:
            args += ["--link", self.link]
        if self.cards is not None:
            args += ["--cards", ",".join(c.code for c in self.cards)]
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        if self.draw_interval is not None:
            args += ["--draw-interval", repr(self.draw_interval)]
        if self.faults.any:
            args += ["--faults", self.faults.to_text()]
        if self.fault_seed is not None:
            args += ["--fault-seed", str(self.fault_seed)]
        if self.disconnect_every is not None:
            args += ["--disconnect-every", str(self.disconnect_every)]
        args += ["--disconnect-for", repr(self.disconnect_for), "--baud", str(self.baud)]
        args += ["--heartbeat", repr(self.heartbeat), "--ack-timeout", repr(self.ack_timeout)]
        args += ["--shoe-id", self.shoe_id, "--draw-counter", str(self.draw_counter)]
        if self.trace is not None:
            args += ["--trace", self.trace]
        return args
