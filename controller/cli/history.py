"""``dealer-assist history``: recorded rounds as JSON lines, each settleable again on its own."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.errors import ControllerError

ERRORS: tuple[type[BaseException], ...] = (ControllerError,)
JOURNAL = "journal.sqlite3"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "history",
        help="print recorded rounds as JSON lines (round record + round + settlement)",
        description="Print a table's finished rounds, oldest first, one JSON line each: the round "
        "record (docs/round-format.md) plus 'round' (its number) and 'settlement' (what "
        "'dealer-assist settle' prints for it).",
    )
    parser.add_argument("--data", required=True, help="the table's data folder")
    parser.add_argument("--last", type=int, default=None, metavar="N", help="only the last N rounds")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from controller.journal import SqliteJournal
    from controller.table import TableError, TableService

    path = Path(args.data) / JOURNAL
    if not path.is_file():
        raise TableError(f"{args.data}: no table journal here ({JOURNAL} not found)")
    if args.last is not None and args.last < 1:
        raise TableError("--last takes a whole number of rounds, 1 or more")
    store = SqliteJournal(path=path)
    try:
        table = TableService(store=store, recall=args.last)
        lines = [json.dumps(item.to_json()) for item in table.recall]
    finally:
        store.close()
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0
