"""The ``dealer-assist`` command line: one parser, subcommands contributed by each package."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from typing import Protocol

from controller.errors import ControllerError

# The camera's recognizer multiplies small matrices every frame (the face check); OpenBLAS's worker
# threads then spin on the other cores for each of them, which doubled the CPU time a frame costs and
# took it from the rest of the table computer. Nothing here wants them. Set before anything loads
# numpy (this module is the entry point's first import); a technician's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Each module has register(subparsers) and ERRORS, the exception bases it turns into one-line
# messages. Modules are imported only to build the parser, so keep their top level light.
COMMAND_MODULES: tuple[str, ...] = (
    "controller.cli.settle",
    "controller.cli.config",
    "controller.cli.history",
    "controller.cli.journal",
    "controller.cli.table",
    "controller.cli.demo",
    "floor.cli",
    "floor.web.cli",
    "drivers.cli",
    "web_display.cli",
    "vision.cli",
    "floor.report_cli",
)


class _CommandModule(Protocol):
    ERRORS: tuple[type[BaseException], ...]

    def register(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...


def build_parser() -> tuple[argparse.ArgumentParser, tuple[type[BaseException], ...]]:
    """The full parser and the exception types that are the user's fault, not ours."""
    parser = argparse.ArgumentParser(
        prog="dealer-assist",
        description="Controller for live casino poker tables.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    errors: list[type[BaseException]] = [ControllerError]
    for name in COMMAND_MODULES:
        module: _CommandModule = importlib.import_module(name)
        module.register(subparsers)
        errors.extend(module.ERRORS)
    return parser, tuple(errors)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; user errors print one line and exit 2, never a traceback."""
    parser, user_errors = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.run(args)
    except user_errors as exc:
        print(f"dealer-assist {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); nothing useful left to say.
        return 0
    except Exception as exc:
        if os.environ.get("DEALER_ASSIST_DEBUG"):
            traceback.print_exc()
        print(
            f"dealer-assist {args.command}: internal error: {type(exc).__name__}: {exc} "
            "(set DEALER_ASSIST_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return 70
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
