"""``dealer-assist floor --db URL|--data DIR --port P``: the floor service (live floor display, jackpot panel)."""

from __future__ import annotations

import argparse
from pathlib import Path

from floor.errors import FloorConfigError, FloorError
from web_display.errors import WebError

ERRORS: tuple[type[BaseException], ...] = (FloorError, WebError)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "floor",
        help="run the floor service: every table live, the jackpot panel",
        description="Serve the floor display (every table's phase, rounds, tilts, pending jackpots and link, "
        "by pit, live; /floor/wall for a wall screen) and the jackpot panel where supervisors approve and "
        "confirm hits, and the reports (/reports). Staff sign in with the floor's central accounts, the same "
        "at every table of the floor (dealer-assist user add --db URL).",
    )
    parser.add_argument("--db", metavar="URL", help="the floor database: postgresql://… or a SQLite file")
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="without --db: the folder of the embedded floor store (floor.sqlite3)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8100, help="port to listen on (default 8100; 0: any free one)")
    parser.add_argument(
        "--second-approval-above",
        type=int,
        metavar="AMOUNT",
        help="a hit above this amount (in its jackpot's minor units) needs two different supervisors: one approves, "
        "another confirms; a jackpot's own amount (jackpot set --second-approval-above) comes first "
        "(default: one supervisor confirms the hits of a jackpot without its own)",
    )
    parser.add_argument(
        "--link-lost-after", type=float, default=10.0, metavar="S", help="a table silent this long shows link lost"
    )
    parser.add_argument("--tls-cert", type=Path, help="serve over https with this certificate (PEM)")
    parser.add_argument("--tls-key", type=Path, help="the certificate's private key (PEM); with --tls-cert")
    parser.add_argument(
        "--forwarded-allow-ips",
        help="behind a reverse proxy: its address(es), comma-separated; the client's address and https "
        "then come from its X-Forwarded-For / X-Forwarded-Proto (docs/deployment.md)",
    )
    parser.set_defaults(run=run_floor)


def _paths(args: argparse.Namespace) -> tuple[str, Path]:
    """(the floor store's URL, the service's data folder).

    Raises:
        FloorConfigError: neither --db nor --data, no such folder, or a bad port or amount.
    """
    from floor import EMBEDDED_NAME

    if args.db is None and args.data is None:
        raise FloorConfigError("give the floor database (--db URL) or a data folder (--data DIR)")
    data = Path(args.data) if args.data is not None else Path.cwd()
    if not data.is_dir():
        raise FloorConfigError(f"--data {data}: no such folder")
    if not 0 <= args.port <= 65535:
        raise FloorConfigError(f"--port {args.port}: a port is 0..65535")
    if args.second_approval_above is not None and args.second_approval_above < 0:
        raise FloorConfigError("--second-approval-above: an amount, 0 or more")
    if args.link_lost_after <= 0:
        raise FloorConfigError("--link-lost-after: seconds, more than 0")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise FloorConfigError("give both --tls-cert and --tls-key (or neither)")
    url = args.db or str(data / EMBEDDED_NAME)
    if "://" in url and not url.startswith(("postgresql://", "postgres://", "sqlite://")):
        raise FloorConfigError(f"--db {url.split('://')[0]}://…: use postgresql://… or a SQLite file")
    if not url.startswith(("postgresql://", "postgres://")):
        path = Path(url.removeprefix("sqlite://"))
        if not path.parent.is_dir():
            raise FloorConfigError(f"{path.parent}: no such folder for the floor store")
    return url, data


def run_floor(args: argparse.Namespace) -> int:
    from controller.service import stop_on_signals
    from floor import open_store
    from floor.accounts import FloorAccountStore
    from floor.web.app import create_floor_app
    from floor.web.config import FloorSettings
    from web_display.core.config import Settings
    from web_display.server import Tls, serve

    url, data = _paths(args)
    settings = FloorSettings(second_approval_above=args.second_approval_above, link_lost_seconds=args.link_lost_after)
    store = open_store(url)  # migrates: the floor service may be the first to open a new database
    try:
        web = Settings(data_dir=data)
        # The floor's central accounts: staff sign in here as at any table of the floor.
        accounts = FloorAccountStore(store=store, session_ttl=web.session_hours * 3600)
        try:
            app = create_floor_app(store=store, accounts=accounts, db_url=url, settings=settings, web=web)
            tls = Tls(cert=args.tls_cert, key=args.tls_key) if args.tls_cert is not None else None
            handle = serve(app, host=args.host, port=args.port, tls=tls, forwarded_allow_ips=args.forwarded_allow_ips)
            print(f"floor service on {handle.url}/floor (wall screen: {handle.url}/floor/wall)", flush=True)
            stop = stop_on_signals()
            while not stop.wait(0.5) and handle.alive:
                pass
            handle.stop()
        finally:
            accounts.close()
    finally:
        store.close()
    return 0
