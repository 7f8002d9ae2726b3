"""``dealer-assist settle``: replay a round record and print its settlement as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.errors import ControllerError

ERRORS: tuple[type[BaseException], ...] = (ControllerError,)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "settle",
        help="replay a round record (docs/round-format.md) and print its settlement as JSON",
        description="Replay a round record and print its settlement as JSON. Bad input: exit 2, "
        "one line on stderr naming the problem, nothing on stdout.",
    )
    parser.add_argument("file", help="the round record, or - for standard input")
    parser.add_argument("--indent", type=int, default=None, help="pretty-print with this indent")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from controller.errors import RecordError
    from controller.record import loads, parse_record, settle_record

    if args.file == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(args.file).read_bytes()
        except OSError as exc:
            raise RecordError(f"{args.file}: cannot read: {exc.strerror or exc}") from None
    settlement = settle_record(parse_record(loads(data)))
    # Everything is computed before anything is printed: never a partial settlement.
    sys.stdout.write(json.dumps(settlement.to_json(), indent=args.indent) + "\n")
    return 0
