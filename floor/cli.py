"""``dealer-assist jackpot show``: every linked progressive's parameters and meters, as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from floor.errors import FloorConfigError, FloorError

if TYPE_CHECKING:
    from floor.base import FloorStore

ERRORS: tuple[type[BaseException], ...] = (FloorError,)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "jackpot",
        help="the floor's linked progressive jackpots (show, open, set)",
        description="Supervisors' and casino IT's view of the floor's linked progressive accounts.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser(
        "show",
        help="print every account's parameters and meters as JSON",
        description="Print one JSON object: the schema version and, for every account, its parameters "
        "(scope, reset, increment, cap), its meters (meter, seeded, contributions, overflow, hits, won, "
        "corrections), its currency and minor units, the tables that feed it (of its scope and in its unit), "
        "those of its scope in another unit and its pending hits. Amounts are integers in the account's minor "
        "units. Only reads.",
    )
    where = show.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", metavar="URL", help="the floor database: postgresql://… or a SQLite file")
    where.add_argument("--data", metavar="DIR", help="a folder holding the embedded floor store (floor.sqlite3)")
    show.set_defaults(run=run_show)

    opening = actions.add_parser(
        "open",
        help="open a linked progressive account at its reset (creates the floor store if needed)",
        description="Open a linked progressive: which tables feed it (--scope floor, or pit/game with "
        "--scope-value), its reset (base), its increment (what each losing box contributes) and its cap "
        "(limit), all in minor units of its currency. Its currency and decimals are --currency and --minor-units; "
        "without them, those of the tables of its scope already on the floor when they all agree (refused when "
        "they disagree, when one has not reported its unit yet, or when none is there). Only tables in that "
        "currency and with those decimals feed it. Opening the same account again with the same parameters "
        "changes nothing.",
    )
    opening.add_argument("--name", required=True)
    opening.add_argument("--scope", required=True, choices=("floor", "pit", "game"))
    opening.add_argument("--scope-value", default="", help="the pit or the game (not for --scope floor)")
    opening.add_argument("--reset", type=int, required=True, help="the meter after a hit (and at opening)")
    opening.add_argument("--increment", type=int, required=True, help="each losing box's contribution")
    opening.add_argument("--cap", type=int, required=True, help="the meter's limit (contributions past it overflow)")
    opening.add_argument("--currency", help="the meter's currency, e.g. EUR (with --minor-units)")
    opening.add_argument("--minor-units", type=int, help="its decimals, 0..4 (with --currency)")
    opening.set_defaults(run=run_open)

    change = actions.add_parser(
        "set",
        help="change an account's reset, increment or cap (logged with who and why)",
        description="Change a linked progressive's parameters. The meter does not move. Tables take the new "
        "increment and reset between rounds (a round in play keeps the ones it opened with); the change is "
        "logged with who and why, and each table journals it as a configuration change. --currency with "
        "--minor-units (alone) sets the unit of an account that has none (one opened before the floor kept "
        "currencies whose tables did not settle it); an account's unit is never changed. "
        "--second-approval-above (alone) sets the amount, in the account's minor units, above which a hit of "
        "this jackpot needs two supervisors; 'floor' gives it back to the floor service's amount.",
    )
    change.add_argument("--name", required=True)
    change.add_argument("--reset", type=int)
    change.add_argument("--increment", type=int)
    change.add_argument("--cap", type=int)
    change.add_argument("--currency", help="set the unit of an account that has none (with --minor-units)")
    change.add_argument("--minor-units", type=int, help="its decimals, 0..4 (with --currency)")
    change.add_argument(
        "--second-approval-above",
        metavar="AMOUNT|floor",
        help="this jackpot's own two-supervisor amount (minor units), or 'floor' for the floor service's",
    )
    change.add_argument("--by", required=True, help="who makes the change (kept in the log)")
    change.add_argument("--why", required=True, help="why (kept in the log)")
    change.set_defaults(run=run_set)
    for verb in (opening, change):
        place = verb.add_mutually_exclusive_group(required=True)
        place.add_argument("--db", metavar="URL", help="the floor database: postgresql://… or a SQLite file")
        place.add_argument("--data", metavar="DIR", help="a folder for the embedded floor store (floor.sqlite3)")


def _url(args: argparse.Namespace, *, create: bool = False) -> str:
    from floor import EMBEDDED_NAME

    if args.db is not None and args.db.startswith(("postgresql://", "postgres://")):
        return str(args.db)
    path = Path(args.db.removeprefix("sqlite://")) if args.db is not None else Path(args.data) / EMBEDDED_NAME
    if path.is_dir():
        path = path / EMBEDDED_NAME
    if not path.is_file() and not (create and path.parent.is_dir()):
        raise FloorConfigError(f"{path}: no floor store here")
    return str(path)


def run_show(args: argparse.Namespace) -> int:
    from floor import open_store

    with open_store(_url(args), migrate=False) as store:
        store.check_schema()
        tables, units = store.tables(), store.units()
        accounts = []
        for account in store.accounts():
            row = account.to_json()
            scoped = [t for t, pit, game in tables if _feeds(account.scope, account.scope_value, pit, game)]
            unit = (account.currency, account.minor_units)
            row["tables"] = [t for t in scoped if units.get(t) == unit]
            row["other_unit_tables"] = [t for t in scoped if units.get(t) != unit]
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


def _given_unit(args: argparse.Namespace) -> tuple[str, int] | None:
    """--currency and --minor-units, or None when neither is given.

    Raises:
        FloorConfigError: only one of them is given.
    """
    if (args.currency is None) != (args.minor_units is None):
        raise FloorConfigError("give --currency and --minor-units together (e.g. --currency EUR --minor-units 0)")
    return None if args.currency is None else (str(args.currency), int(args.minor_units))


def _approval_amount(text: str) -> int | None:
    """--second-approval-above: an amount (0 or more), or None for 'floor'.

    Raises:
        FloorConfigError: neither a whole amount nor 'floor'.
    """
    if text.strip().lower() == "floor":
        return None
    try:
        amount = int(text)
    except ValueError:
        amount = -1
    if amount < 0:
        raise FloorConfigError(
            f"--second-approval-above: a whole amount in the jackpot's minor units (0 or more) or 'floor', not {text!r}"
        )
    return amount


def _scope_unit(store: FloorStore, args: argparse.Namespace) -> tuple[str, int]:
    """The unit of the tables of the account's scope on the floor (an account reopened: its own).

    Raises:
        FloorConfigError: no table of the scope is on the floor, one has not reported its unit, or they disagree.
    """
    from floor.units import unit_text

    try:
        existing = store.account(args.name)
    except FloorConfigError:
        existing = None
    if existing is not None and existing.currency:
        return existing.currency, existing.minor_units
    units = store.scope_units(scope=args.scope, scope_value=args.scope_value)
    scope = "the floor" if args.scope == "floor" else f"{args.scope} {args.scope_value}"
    if not units:
        raise FloorConfigError(
            f"no table of {scope} is on the floor yet to take the jackpot's currency from: "
            "give --currency and --minor-units"
        )
    unknown = sorted(t for t, (currency, _) in units.items() if not currency)
    if unknown:
        raise FloorConfigError(
            f"table {', '.join(unknown)} of {scope} has not reported its currency yet: "
            "give --currency and --minor-units"
        )
    found: dict[tuple[str, int], list[str]] = {}
    for table, unit in sorted(units.items()):
        found.setdefault(unit, []).append(table)
    if len(found) > 1:
        listed = "; ".join(f"{unit_text(*unit)}: {', '.join(tables)}" for unit, tables in sorted(found.items()))
        raise FloorConfigError(
            f"the tables of {scope} keep their money in different units ({listed}): a jackpot is in one; give "
            "--currency and --minor-units (only its tables feed it) or a narrower --scope"
        )
    return next(iter(found))


def run_open(args: argparse.Namespace) -> int:
    from floor import open_store

    given = _given_unit(args)
    with open_store(_url(args, create=True)) as store:
        currency, minor_units = given if given is not None else _scope_unit(store, args)
        account = store.open_account(
            name=args.name,
            scope=args.scope,
            scope_value=args.scope_value,
            reset=args.reset,
            increment=args.increment,
            cap=args.cap,
            currency=currency,
            minor_units=minor_units,
        )
        others = sorted(
            t
            for t, unit in store.scope_units(scope=args.scope, scope_value=args.scope_value).items()
            if unit[0] and unit != (currency, minor_units)
        )
    if others:
        from floor.units import unit_text

        sys.stderr.write(
            f"note: table {', '.join(others)} of this scope keep their money in another unit: they cannot play "
            f"jackpot {args.name} ({unit_text(currency, minor_units)})\n"
        )
    sys.stdout.write(json.dumps(account.to_json(), indent=2) + "\n")
    return 0


def run_set(args: argparse.Namespace) -> int:
    from floor import open_store

    given = _given_unit(args)
    alone = (args.reset, args.increment, args.cap, given) == (None, None, None, None)
    if args.second_approval_above is not None and not alone:
        raise FloorConfigError("--second-approval-above is set alone, not with other parameters")
    with open_store(_url(args)) as store:
        if args.second_approval_above is not None:
            above = _approval_amount(args.second_approval_above)
            account = store.set_second_approval(account=args.name, above=above, by=args.by, reason=args.why)
            sys.stdout.write(json.dumps(account.to_json(), indent=2) + "\n")
            return 0
        if given is not None:
            if (args.reset, args.increment, args.cap) != (None, None, None):
                raise FloorConfigError("--currency is set alone, not with --reset, --increment or --cap")
            account = store.set_unit(
                account=args.name, currency=given[0], minor_units=given[1], by=args.by, reason=args.why
            )
            sys.stdout.write(json.dumps(account.to_json(), indent=2) + "\n")
            return 0
        account = store.set_parameters(
            account=args.name, reset=args.reset, increment=args.increment, cap=args.cap, by=args.by, reason=args.why
        )
    sys.stdout.write(json.dumps(account.to_json(), indent=2) + "\n")
    return 0
