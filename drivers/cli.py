"""Shoe commands for technicians: ``shoe-sim`` (a simulated shoe on a pty) and ``shoe-listen``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from drivers.errors import DriverError

if TYPE_CHECKING:  # the CLI's top level stays light: the real import happens in the handler
    from drivers.shoe.sim.config import SimConfig

ERRORS: tuple[type[BaseException], ...] = (DriverError,)

COMMAND_HELP = """\
stdin commands (one per line; each gets one reply line, "ok ..." or "error ..."):
  (empty line) | draw     draw the next card of the deck
  draw CODE               draw that card (e.g. draw As), whatever the deck holds
  unreadable              the next card leaves the shoe unread (a draw without identity)
  duplicate               re-send the identity of the last card as a new draw
  jam | clear             a card jams in the exit / the jam is cleared (no draws while jammed)
  lid-open | lid-close    the lid is opened / closed
  empty                   the shoe reports itself empty (the rest of the deck is discarded)
  shuffle                 new round: a freshly shuffled deck (--seed) or the stacked deck again
  disconnect [SECONDS]    close the pty and come back after SECONDS (default --disconnect-for)
  mute [SECONDS] | unmute the line goes silent both ways (cut cable) / comes back
  status                  print counter, deck and link state
  quit                    exit (so does end of stdin, unless --draw-interval keeps it drawing)"""

SIM_EPILOG = (
    COMMAND_HELP
    + """

stdout: the first line is the pty path (open it, or --link, with shoe-listen or the driver); then one
reply per command and notices: "drew N CODE" (automatic draws), "disconnected", "connected PATH",
"empty". Each stdin line is a command, with or without --draw-interval; an empty line draws a card."""
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``shoe-sim`` and ``shoe-listen``."""
    sim = subparsers.add_parser(
        "shoe-sim",
        help="a simulated card shoe on a pseudo-terminal (prints the device path first)",
        description="A simulated card-reading shoe speaking the reference protocol "
        "(docs/shoe-protocol.md) on a pseudo-terminal.",
        epilog=SIM_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument("--link", metavar="PATH", help="a symlink to the current pty, kept across disconnects")
    deck = sim.add_mutually_exclusive_group()
    deck.add_argument("--cards", metavar="As,Kd,...", help="a stacked deck, drawn in this order")
    deck.add_argument("--seed", type=int, metavar="N", help="shuffle with this seed (reshuffled each round)")
    sim.add_argument("--draw-interval", type=float, metavar="SECONDS", help="draw a card automatically this often")
    sim.add_argument(
        "--faults",
        default="",
        metavar="corrupt=R,drop=R,duplicate=R,garbage=R",
        help="per-frame probabilities of line faults on what the shoe sends",
    )
    sim.add_argument("--fault-seed", type=int, metavar="N", help="seed of the fault injector (default: from --seed)")
    sim.add_argument(
        "--disconnect-every",
        type=int,
        metavar="N",
        help="drop the line after every N cards drawn while connected",
    )
    sim.add_argument(
        "--disconnect-for",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="how long a disconnect lasts (0.5)",
    )
    sim.add_argument("--baud", type=int, default=115200, help="pace writes to this baud rate's byte time (0: unpaced)")
    sim.add_argument("--heartbeat", type=float, default=0.25, metavar="SECONDS", help="heartbeat period (0.25)")
    sim.add_argument(
        "--ack-timeout",
        type=float,
        default=0.05,
        metavar="SECONDS",
        help="first retransmission timeout (0.05)",
    )
    sim.add_argument("--shoe-id", default="SIM-1", help="the shoe id in HELLO (SIM-1)")
    sim.add_argument("--draw-counter", type=int, default=0, metavar="N", help="draws before this run (0)")
    sim.add_argument("--trace", metavar="FILE", help="append a JSON line per card frame put on the line (timing)")
    sim.set_defaults(run=_run_sim)

    listen = subparsers.add_parser(
        "shoe-listen",
        help="connect to a shoe and print every event as one JSON line",
        description="Connect to a card shoe and print each event (card, status, link) as one JSON line.",
    )
    listen.add_argument("--shoe", required=True, metavar="PATH", help="device path or URL (socket://host:port)")
    listen.add_argument("--count", type=int, metavar="N", help="exit after N cards")
    listen.add_argument("--baud", type=int, default=115200, help="baud rate (115200)")
    listen.add_argument(
        "--link-timeout",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="report the link down after this silence",
    )
    listen.set_defaults(run=_run_listen)


def _sim_config(args: argparse.Namespace) -> SimConfig:
    """The ``SimConfig`` for parsed ``shoe-sim`` options.

    Raises:
        DriverConfigError: a malformed option value (faults, cards, ranges).
    """
    from drivers.shoe.sim.config import Faults, SimConfig, parse_cards

    return SimConfig(
        link=args.link,
        cards=parse_cards(args.cards) if args.cards is not None else None,
        seed=args.seed,
        draw_interval=args.draw_interval,
        faults=Faults.parse(args.faults),
        fault_seed=args.fault_seed,
        disconnect_every=args.disconnect_every,
        disconnect_for=args.disconnect_for,
        baud=args.baud,
        heartbeat=args.heartbeat,
        ack_timeout=args.ack_timeout,
        shoe_id=args.shoe_id,
        draw_counter=args.draw_counter,
        trace=args.trace,
    )


def _run_sim(args: argparse.Namespace) -> int:
    from drivers.shoe.sim.runner import run_simulator

    config = _sim_config(args)
    try:
        return run_simulator(config)
    except OSError as exc:
        raise DriverError(f"cannot create the pseudo-terminal or link: {exc}") from exc


def _run_listen(args: argparse.Namespace) -> int:
    import json
    import signal
    import sys
    import threading

    from drivers.shoe import CardDrawn, ShoeConfig, ShoeDriver, event_to_dict

    if args.count is not None and args.count < 1:
        raise DriverError(f"--count must be at least 1, got {args.count}")
    driver = ShoeDriver(config=ShoeConfig(url=args.shoe, baudrate=args.baud, link_timeout=args.link_timeout))
    # Ctrl-C and SIGTERM only set a flag: a KeyboardInterrupt raised at an arbitrary point could
    # leave the event queue's lock held, and stop() would then wait on an I/O thread that cannot
    # hand over its next event.
    interrupted = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: interrupted.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    cards = 0
    try:
        driver.start(require_device=True)
        while not interrupted.is_set():
            event = driver.get(timeout=0.1)
            if event is None:
                if driver.running:
                    continue
                break
            record: dict[str, Any] = event_to_dict(event)
            sys.stdout.write(json.dumps(record) + "\n")
            sys.stdout.flush()
            if isinstance(event, CardDrawn):
                cards += 1
                if args.count is not None and cards >= args.count:
                    break
    finally:
        driver.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 130 if interrupted.is_set() else 0
