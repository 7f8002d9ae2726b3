"""``dealer-assist run`` (a real table) and ``dealer-assist demo`` (a whole simulated table)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.errors import ControllerError
from drivers.errors import DriverError
from floor.errors import FloorError
from vision.errors import VisionError
from web_display.errors import WebError

if TYPE_CHECKING:
    from controller.service import StopFlag

ERRORS: tuple[type[BaseException], ...] = (ControllerError, DriverError, WebError, VisionError, FloorError)
DEFAULT_DATA = Path("dealer-assist-data")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser(
        "run",
        help="run a real table: its shoe, the table service and the displays",
        description="Run one table. Stops cleanly on Ctrl-C or SIGTERM; everything accepted is already "
        "in the journal, and a restart replays it.",
    )
    run.add_argument("--config", help="the table configuration (TOML); default: as the journal last had it")
    run.add_argument(
        "--shoe",
        help="the shoe: a device path (/dev/ttyUSB0) or a URL (socket://host:port); without it the table runs "
        "camera-only, from the [vision] camera and [[zones]] of --config (with it, that camera checks the deal)",
    )
    run.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"data folder (default ./{DEFAULT_DATA})")
    run.add_argument("--port", type=int, default=8000, help="the displays' port (default 8000; 0: any free port)")
    run.add_argument("--host", default="127.0.0.1", help="the displays' address (default 127.0.0.1)")
    run.add_argument("--no-web", action="store_true", help="do not serve the displays (e.g. a test rig)")
    run.add_argument("--tls-cert", type=Path, help="serve the displays over https with this certificate (PEM)")
    run.add_argument("--tls-key", type=Path, help="the certificate's private key (PEM); with --tls-cert")
    run.add_argument(
        "--forwarded-allow-ips",
        help="behind a reverse proxy: its address(es), comma-separated; the client's address and https "
        "then come from its X-Forwarded-For / X-Forwarded-Proto (docs/deployment.md)",
    )
    run.add_argument(
        "--floor",
        metavar="URL",
        help="join a casino floor: its store (postgresql://… or a SQLite file); the journal is replicated "
        "there and the jackpot is the floor's linked progressive (docs/floor.md)",
    )
    run.add_argument("--pit", default="main", help="with --floor: the pit the table stands in (default main)")
    run.add_argument(
        "--jackpot-account", metavar="NAME", help="with --floor: the linked progressive, when the table feeds several"
    )
    run.add_argument(
        "--control",
        choices=["stdio"],
        help="take JSON-line commands on stdin and answer on stdout (test rigs, technicians)",
    )
    run.set_defaults(run=run_table)


def _say(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _tls(args: argparse.Namespace) -> Any:
    """The TLS files asked for, if any. Raises ControllerError: only one of the two given."""
    from web_display.server import Tls

    if args.tls_cert is None and args.tls_key is None:
        return None
    if args.tls_cert is None or args.tls_key is None:
        raise ControllerError("give both --tls-cert and --tls-key (or neither)")
    return Tls(cert=args.tls_cert, key=args.tls_key)


def run_table(args: argparse.Namespace) -> int:
    from controller.config import load_config
    from controller.control import handle
    from controller.live import LiveConfig, LiveTable
    from controller.service import Notifier, StatusLine, Watchdog, configure_logging, entry_logger, stop_on_signals
    from controller.telemetry import TableMetrics, observe_appends

    configure_logging()
    tls = _tls(args)
    config = load_config(args.config) if args.config else None
    live = LiveTable(config=LiveConfig(data=args.data, shoe=args.shoe, table=config))
    try:
        floor = _join_floor(live.table, url=args.floor, pit=args.pit, account=args.jackpot_account)
    except BaseException:
        live.stop()
        raise
    name = live.table.config.name
    metrics = TableMetrics()
    observe_appends(live.store, metrics.journal_observer(name, round_open=lambda: live.table.round is not None))
    observe_appends(live.store, entry_logger(name))
    stop = stop_on_signals()
    web = None
    camera = None
    try:
        camera = _camera(live, args.config, camera_only=not args.shoe)
        if args.shoe:
            metrics.watch_shoe_link(name, live.link_up.is_set)
        if camera is not None:
            metrics.watch_camera_link(name, lambda: not camera.failed.is_set())
        if not args.no_web:
            web = _serve(
                live,
                data=args.data,
                host=args.host,
                port=args.port,
                tls=tls,
                forwarded_allow_ips=args.forwarded_allow_ips,
                metrics=metrics,
                floor_store=None if floor is None else floor.store,
            )
            print(f"dealer display: {_dealer_url(web.url, live)}  floor: {web.url}/floor", file=sys.stderr)
    except BaseException:
        if camera is not None:
            camera.stop()
        if floor is not None:
            floor.close()
        live.stop()
        raise
    live.start()
    if floor is not None:
        floor.start()
    if camera is not None:
        camera.start()
    notifier = Notifier()

    def healthy() -> bool:
        # Taking the table's lock proves no command is stuck holding it; a stuck table stops the pings.
        live.table.inspect(lambda t: t.version)
        return web is None or web.alive

    def status() -> str:
        # Ready means the journal is replayed and the displays listen; whether the shoe is linked yet
        # is a separate fact a technician needs in `systemctl status`, so it is said and kept current.
        shoe = "" if not args.shoe else ", shoe linked" if live.link_up.is_set() else ", shoe not linked"
        return f"{name}: {live.table.config.game}{shoe}, " + (f"serving {web.url}" if web else "no displays")

    watchdog = Watchdog(notifier, healthy)
    status_line = StatusLine(notifier, status)
    notifier.ready(status_line.current())
    try:
        if args.control == "stdio":
            reader = threading.Thread(target=_control_loop, args=(live, stop, handle), daemon=True)
            # What the camera does, if any: "deals" (camera-only) or "checks" (the deal, beside a shoe).
            role = None if camera is None else "checks" if args.shoe else "deals"
            _say({"ready": True, "round": live.table.round_no, "last_counter": live.table.last_counter, "camera": role})
            reader.start()
        else:
            mode = f"shoe {args.shoe}" if args.shoe else "camera-only (no shoe)"
            if args.shoe and camera is not None:
                mode += ", camera checking the deal"
            print(f"{live.table.config.name}: {live.table.config.game}, {mode}, data in {args.data}", file=sys.stderr)
        while not stop.wait(0.2):
            if camera is not None and camera.failed.is_set():
                raise ControllerError(f"stopped: the camera failed: {camera.failure}")
            watchdog.beat()
            status_line.update()
    finally:
        notifier.stopping()
        if camera is not None:
            camera.stop()
        if web is not None:
            web.stop()
        if floor is not None:
            floor.close()
        live.stop()
        notifier.close()
    return 0


class _Floor:
    """A table's floor membership: its store and its link, started and closed together."""

    def __init__(self, store: Any, link: Any) -> None:
        self.store, self.link = store, link

    def start(self) -> None:
        self.link.start()

    def close(self) -> None:
        self.link.stop()
        self.store.close()


def _join_floor(table: Any, *, url: str | None, pit: str, account: str | None) -> _Floor | None:
    """The floor link for ``run --floor URL`` (None without it). A floor unreachable now is joined later.

    Raises:
        FloorConfigError: the table cannot play on this floor (no or several linked accounts, another pit).
    """
    if url is None:
        return None
    from floor import open_store
    from floor.errors import FloorUnavailable
    from floor.link import FloorLink, LinkSettings

    try:
        store = open_store(url, timeout=2.0)
    except FloorUnavailable as exc:
        # The base game plays on: the link joins (and migrates) when the floor answers.
        print(f"--floor: {exc}; the table plays with its progressive closed until the floor answers", file=sys.stderr)
        store = open_store(url, timeout=2.0, migrate=False)
    try:
        return _Floor(store, FloorLink(table=table, store=store, settings=LinkSettings(pit=pit, account=account)))
    except BaseException:
        store.close()
        raise


def _camera(live: Any, config_path: str | None, *, camera_only: bool) -> Any:
    """The camera link of the configuration's ``[vision]`` camera: beside a shoe it checks the deal
    (misdeals become tilts); on a table with no reading shoe it deals and reads the cards. None
    when a shoe is given and no camera is configured.

    Raises:
        ControllerError: camera-only with no configuration file or no ``[vision]`` camera in it
            (no card source).
        vision errors (configuration, camera, calibration, deck) as :meth:`CameraLink.from_config`.
    """
    from vision.camera_only import CameraOnlySettings
    from vision.config import load_table_vision
    from vision.link import CameraLink

    where = "give --shoe, or a [vision] camera and [[zones]] in --config for a camera-only table"
    if config_path is None:
        if not camera_only:
            return None
        raise ControllerError(f"no card source: {where}")
    vision = load_table_vision(Path(config_path))
    # The camera must be named: [vision]'s default (the simulated camera) is for tests and demos.
    if "camera" not in vision.vision.model_fields_set:
        if not camera_only:
            return None
        raise ControllerError(f"{config_path}: no card source: {where} (vision.camera)")
    return CameraLink.from_config(
        table=live.table, vision=vision, camera_only=CameraOnlySettings() if camera_only else None
    )


def _serve(
    live: Any,
    *,
    data: Path,
    host: str,
    port: int,
    tls: Any = None,
    forwarded_allow_ips: str | None = None,
    metrics: Any = None,
    others: dict[str, Any] | None = None,
    floor_store: Any = None,
) -> Any:
    """The dealer and floor displays for this table and ``others`` (name -> table service), and /metrics.
    On a floor (``floor_store``), staff sign in with the floor's central accounts; else the table's own."""
    from web_display.core.config import Settings
    from web_display.main import create_app
    from web_display.server import serve

    # Settings also come from DEALER_ASSIST_WEB_* (e.g. SECURE_COOKIES behind a proxy, METRICS_TOKEN).
    settings = Settings(data_dir=data)
    accounts = None
    if floor_store is not None:
        from floor.accounts import FloorAccountStore

        accounts = FloorAccountStore(store=floor_store, session_ttl=settings.session_hours * 3600)
    tables = {live.table.config.name: live.table, **(others or {})}
    app = create_app(settings=settings, tables=tables, metrics=metrics, accounts=accounts)
    return serve(app, host=host, port=port, tls=tls, forwarded_allow_ips=forwarded_allow_ips)


def _open_browser(url: str) -> None:
    """Open the dealer display in a graphical browser; without a screen, say where it is instead.

    Without a display Python's webbrowser falls back to text browsers that would take over this terminal.
    """
    graphical = sys.platform in ("darwin", "win32") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    if not graphical or not webbrowser.open(url):
        print(f"(no browser opened: open {url} yourself)", flush=True)


def _dealer_url(base: str, live: Any) -> str:
    from urllib.parse import quote

    return f"{base}/tables/{quote(live.table.config.name)}"


def _control_loop(live: Any, stop: StopFlag, handle: Any) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        if line.strip() == '{"cmd": "shoe"}':
            _say({"ok": True, "last_counter": live.table.last_counter, "link_up": live.link_up.is_set()})
            continue
        _say(handle(live.table, line))
    stop.set()
