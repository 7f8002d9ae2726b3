"""``dealer-assist jackpot show``: every linked progressive's parameters and meters, as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from floor.errors import FloorConfigError, FloorError

ERRORS: tuple[type[BaseException], ...] = (FloorError,)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "jackpot",
        help="the floor's linked progressive jackpots (show)",
        description="Supervisors' and casino IT's view of the floor's linked progressive accounts.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser(
        "show",
        help="print every account's parameters and meters as JSON",
        description="Print one JSON object: the schema version and, for every account, its parameters "
        "(scope, reset, increment, cap), its meters (meter, seeded, contributions, overflow, hits, won, "
        "corrections), the tables that feed it and its pending hits. Amounts are in cents. Only reads.",
    )
    where = show.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", metavar="URL", help="the floor database: postgresql://… or a SQLite file")
    where.add_argument("--data", metavar="DIR", help="a folder holding the embedded floor store (floor.sqlite3)")
    show.set_defaults(run=run_show)


def _url(args: argparse.Namespace) -> str:
    from floor import EMBEDDED_NAME

    if args.db is not None and args.db.startswith(("postgresql://", "postgres://")):
        return str(args.db)
    path = Path(args.db.removeprefix("sqlite://")) if args.db is not None else Path(args.data) / EMBEDDED_NAME
    if path.is_dir():
        path = path / EMBEDDED_NAME
    if not path.is_file():
        raise FloorConfigError(f"{path}: no floor store here")
    return str(path)


def run_show(args: argparse.Namespace) -> int:
    from floor import open_store

    with open_store(_url(args), migrate=False) as store:
        store.check_schema()
        tables = store.tables()
        accounts = []
        for account in store.accounts():
            row = account.to_json()
            row["tables"] = [t for t, pit, game in tables if _feeds(account.scope, account.scope_value, pit, game)]
            row["pending_hits"] = [
                {"hit_no": h.hit_no, "table": h.table_id, "seq": h.seq, "at": h.at, "amount": h.amount}
                for h in store.hits(account.name)
                if h.status == "pending"
            ]
            accounts.append(row)
        version = store.schema_version()
    sys.stdout.write(json.dumps({"schema_version": version, "accounts": accounts}, indent=2) + "\n")
    return 0


def _feeds(scope: str, value: str, pit: str, game: str) -> bool:
    return scope == "floor" or (scope == "pit" and value == pit) or (scope == "game" and value == game)
