"""``dealer-assist history``: recorded rounds as JSON lines, each settleable again on its own."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
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
        "'dealer-assist settle' prints for it). Archived rounds are read too; the journal is only read "
        "(a running table, or a copy on read-only media, is fine).",
    )
    parser.add_argument("--data", required=True, help="the table's data folder")
    parser.add_argument("--last", type=int, default=None, metavar="N", help="only the last N rounds")
    parser.add_argument("--from", dest="start", metavar="TIME", help="rounds that ended at or after TIME (ISO, UTC)")
    parser.add_argument("--to", dest="end", metavar="TIME", help="rounds that ended before TIME (ISO, UTC)")
    parser.set_defaults(run=run)


def utc_bound(text: str | None, option: str) -> str | None:
    """An ISO date or time as the journal writes times (UTC, ISO), for comparing; None stays None.

    Raises:
        ControllerError: not a date or time.
    """
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ControllerError(f"{option} {text!r}: give a date or time, e.g. 2026-11-01 or 2026-11-01T06:00") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat()


def run(args: argparse.Namespace) -> int:
    from controller.journal.archive import Segments
    from controller.table import TableError, TableService

    path = Path(args.data) / JOURNAL
    if not path.is_file():
        raise TableError(f"{args.data}: no table journal here ({JOURNAL} not found)")
    if args.last is not None and args.last < 1:
        raise TableError("--last takes a whole number of rounds, 1 or more")
    start, end = utc_bound(args.start, "--from"), utc_bound(args.end, "--to")
    if args.last is not None and (start or end):
        raise TableError("give --last or --from/--to, not both")
    store = Segments(journal=path)
    out = sys.stdout
    try:
        # Rounds that ended after the round index (a table stopped just after a round): replayed from
        # the newest checkpoint, which is what a restart would do.
        tail = TableService(store=store, recall=0).take_finished()
        indexed = store.finished(last=args.last) if not (start or end) else store.finished_between(start=start, end=end)
        last_indexed = 0
        lines = []
        for item in indexed:
            last_indexed = item.round
            lines.append(item.line)
            if start or end:  # streamed: write as we go
                out.write(json.dumps(item.line) + "\n")
                lines.clear()
        late = [
            item.line
            for item in tail
            if item.round > last_indexed and (start is None or item.at >= start) and (end is None or item.at < end)
        ]
        lines.extend(json.loads(json.dumps(line)) for line in late)
        if args.last is not None:
            lines = lines[-args.last :]
        out.write("".join(json.dumps(line) + "\n" for line in lines))
    finally:
        store.close()
    return 0
