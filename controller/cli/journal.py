"""``dealer-assist journal verify`` and ``journal export``: check a table's journal whole, salvage a damaged one."""

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
        "journal",
        help="check a table's journal (verify) or salvage its rounds (export)",
        description="Technicians' tools for a table's journal (docs/journal.md). Both only read it.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "verify",
        help="check the whole hash chain and replay from the first entry against every checkpoint",
        description="Check every entry's hash (archives included), replay the table from its first entry "
        "and compare with every checkpoint and every indexed round. Prints one JSON object; exit status 0 "
        "when all is well, 1 when problems were found.",
    )
    check.add_argument("--data", required=True, help="the table's data folder")
    check.set_defaults(run=run_verify)
    salvage = actions.add_parser(
        "export",
        help="salvage every readable round of a (damaged) journal as JSON lines",
        description="Print every round that can be read back, as history does (one JSON line per round, "
        "settleable with 'dealer-assist settle'), reading around damaged pages; a summary goes to stderr. "
        "Exit status 0 when everything was readable, 1 when some entries were not.",
    )
    salvage.add_argument("--data", required=True, help="the table's data folder")
    salvage.add_argument("--out", type=Path, help="write the rounds to this file instead of stdout")
    salvage.set_defaults(run=run_export)


def _journal(args: argparse.Namespace) -> Path:
    path = Path(args.data) / JOURNAL
    if not path.is_file():
        raise ControllerError(f"{args.data}: no table journal here ({JOURNAL} not found)")
    return path


def run_verify(args: argparse.Namespace) -> int:
    from controller.journal.audit import verify

    found = verify(_journal(args))
    sys.stdout.write(json.dumps(found.to_json()) + "\n")
    return 0 if found.ok else 1


def run_export(args: argparse.Namespace) -> int:
    from controller.journal.audit import export

    salvage = export(_journal(args))
    text = "".join(json.dumps(line) + "\n" for line in salvage.rounds)
    if args.out is not None:
        try:
            args.out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ControllerError(f"{args.out}: cannot write the rounds: {exc.strerror}") from None
    else:
        sys.stdout.write(text)
    print(f"dealer-assist journal export: {salvage.summary()}", file=sys.stderr)
    return 1 if salvage.unreadable or salvage.problems else 0
