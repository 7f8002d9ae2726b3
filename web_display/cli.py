"""``dealer-assist user add|list|passwd|remove (--data DIR | --db URL)``: a table's or the floor's accounts."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING

from web_display.errors import WebError

if TYPE_CHECKING:
    from web_display.accounts import AccountStore

ERRORS: tuple[type[BaseException], ...] = (WebError,)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "user",
        help="manage the web display's accounts (dealer, supervisor, admin)",
        description="A table's own accounts live in DATA/accounts.sqlite3 (--data); a floor's central "
        "accounts, valid at every table of the floor and at the floor display, in the floor database (--db). "
        "Every change goes in the audit log and ends the account's sessions everywhere. "
        "Passwords are asked for without echo, or read from standard input with --password-stdin; "
        "never from the command line.",
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    add = verbs.add_parser("add", help="create an account")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=("dealer", "supervisor", "admin"))
    passwd = verbs.add_parser("passwd", help="set an account's password (its sessions end)")
    passwd.add_argument("name")
    for verb in (add, passwd):
        verb.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    remove = verbs.add_parser("remove", help="remove an account (its sessions end)")
    remove.add_argument("name")
    listing = verbs.add_parser("list", help="list the accounts and their roles")
    for verb, run in ((add, run_add), (passwd, run_passwd), (remove, run_remove), (listing, run_list)):
        where = verb.add_mutually_exclusive_group(required=True)
        where.add_argument("--data", metavar="DIR", help="the table's data folder (its own accounts)")
        where.add_argument(
            "--db", metavar="URL", help="the floor database (central accounts): postgresql://… or its SQLite file"
        )
        verb.set_defaults(run=run)


def _store(args: argparse.Namespace, *, create: bool = False) -> AccountStore:
    """The account store named on the command line. Changes made here end the account's sessions in
    running servers too. ``create``: a floor SQLite file that does not exist yet may be made (the first
    account of a new floor); otherwise a missing one is refused rather than made by a typo.

    Raises:
        AccountError: the data folder is not a folder, no floor store at that path, or the store cannot
            be opened (``AccountStoreUnavailable``: the floor database cannot be reached).
    """
    from pathlib import Path

    from web_display.accounts import open_accounts
    from web_display.errors import AccountError

    if args.db is not None and not create and not args.db.startswith(("postgresql://", "postgres://")):
        from floor import EMBEDDED_NAME

        path = Path(args.db.removeprefix("sqlite://"))
        if not path.is_file() and not (path / EMBEDDED_NAME).is_file():
            raise AccountError(f"{path}: no floor store here")
    return open_accounts(data=None if args.db is not None else Path(args.data), floor_url=args.db)


def _password(args: argparse.Namespace) -> str:
    """The new password, from stdin or asked twice without echo.

    Raises:
        AccountError: the two entries differ, or nothing was given.
    """
    from web_display.errors import AccountError

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass("password: ")
        if getpass.getpass("again: ") != password:
            raise AccountError("the two passwords differ")
    if not password:
        raise AccountError("no password given")
    return password


def _who() -> str:
    return f"cli:{getpass.getuser()}"


def run_add(args: argparse.Namespace) -> int:
    from web_display.accounts import check_name

    check_name(args.name)
    password = _password(args)
    store = _store(args, create=True)
    try:
        store.add(name=args.name, role=args.role, password=password, by=_who())
    finally:
        store.close()
    print(f"added {args.name} ({args.role})")
    return 0


def run_passwd(args: argparse.Namespace) -> int:
    password = _password(args)
    store = _store(args)
    try:
        store.set_password(name=args.name, password=password, by=_who())
    finally:
        store.close()
    print(f"password of {args.name} changed")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        store.remove(name=args.name, by=_who())
    finally:
        store.close()
    print(f"removed {args.name}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        for account in store.accounts():
            print(f"{account.name}\t{account.role}\t{account.created_at}")
    finally:
        store.close()
    return 0
