"""``dealer-assist config``: print a game's default table configuration, or check a file."""

from __future__ import annotations

import argparse
import sys

from controller.errors import ControllerError

ERRORS: tuple[type[BaseException], ...] = (ControllerError,)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "config",
        help="print a game's default table configuration (TOML) or check a configuration file",
        description="Table configuration (docs/configuration.md).",
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    show = verbs.add_parser("show", help="print the complete default configuration of a game as TOML")
    show.add_argument("--game", required=True, help="oasis, casino-holdem, holdem-exchange or holdem-bonus")
    show.set_defaults(run=run_show)
    check = verbs.add_parser("check", help="validate a configuration file and print it with every default filled in")
    check.add_argument("file", help="a table configuration in TOML")
    check.set_defaults(run=run_check)


def run_show(args: argparse.Namespace) -> int:
    from controller.config import defaults_for, to_toml

    sys.stdout.write(to_toml(defaults_for(args.game)))
    return 0


def run_check(args: argparse.Namespace) -> int:
    from controller.config import load_config, to_toml

    config = load_config(args.file)
    sys.stdout.write(to_toml(config))
    print(f"{args.file}: valid {config.game} configuration", file=sys.stderr)
    return 0
