"""``dealer-assist demo``: a whole simulated floor — N tables of mixed games sharing one linked jackpot."""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.cli.table import DEFAULT_DATA, _dealer_url, _open_browser, _serve
from controller.errors import ControllerError
from controller.service import StopFlag, stop_on_signals
from drivers.errors import DriverError
from floor.errors import FloorError
from vision.errors import VisionError
from web_display.errors import WebError

ERRORS: tuple[type[BaseException], ...] = (ControllerError, DriverError, WebError, VisionError, FloorError)
GAMES = ("oasis", "casino-holdem", "holdem-exchange", "holdem-bonus")
MAX_TABLES = 64
TABLES_PER_PIT = 8
# The demo's linked progressive (floor-wide): the Oasis text's 10,000 base, growing to at most 60,000.
ACCOUNT = {"name": "demo-progressive", "scope": "floor", "reset": 10_000, "increment": 1, "cap": 60_000}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="a whole simulated floor: tables with simulated shoes, players and camera, one linked jackpot",
        description="A complete simulated casino floor on the embedded store (SQLite under --data), or on "
        "PostgreSQL with --floor URL: --tables N tables of mixed games (default 1), each with its simulated "
        "shoe on a pseudo-terminal, its table service and simulated players and dealer dealing rounds on "
        "their own, all feeding one linked progressive jackpot; the dealer displays and the floor display on "
        "--port (opened in the browser). A simulated camera watches the first table's layout and checks the "
        "deal (misdeals become tilts) unless --no-camera. Accounts dealer, supervisor and admin get "
        "--demo-password (or a random password, printed). Stops cleanly on Ctrl-C or SIGTERM.",
    )
    demo.add_argument("--game", default="oasis", help="the first table's game: oasis, casino-holdem, …")
    demo.add_argument("--tables", type=int, default=1, help=f"how many tables (1 to {MAX_TABLES}; default 1)")
    demo.add_argument(
        "--floor", metavar="URL", help="the floor store: postgresql://… (default: DATA/floor.sqlite3, embedded)"
    )
    demo.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"data folder (default ./{DEFAULT_DATA})")
    demo.add_argument("--port", type=int, default=8000, help="the dealer display's port (default 8000; 0: any)")
    demo.add_argument(
        "--floor-port",
        type=int,
        default=None,
        help="the floor service's port (floor display, jackpot panel, reports; default: --port + 1, "
        "or any with --port 0)",
    )
    demo.add_argument("--host", default="127.0.0.1", help="the displays' address (default 127.0.0.1)")
    demo.add_argument("--pace", type=float, default=1.0, help="seconds between steps; 0 = as fast as it goes")
    demo.add_argument(
        "--showdown",
        type=float,
        default=6.0,
        help="seconds each showdown stays on the displays before the simulated dealer confirms it (default 6; "
        "in steps of --pace, none at --pace 0)",
    )
    demo.add_argument("--no-browser", action="store_true", help="do not open a browser")
    demo.add_argument("--demo-password", help="password of the demo accounts (default: a random one, printed)")
    demo.add_argument("--seed", type=int, default=None, help="shuffle and play reproducibly")
    demo.add_argument("--rounds", type=int, default=None, help="stop after this many rounds (at the first table)")
    demo.add_argument(
        "--no-camera", action="store_true", help="no simulated camera over the table (and no camera checks)"
    )
    demo.add_argument(
        "--camera-fps",
        type=float,
        default=3.0,
        help="frames the simulated camera reads per second (default 3; each 1920x1080 frame costs tens of ms)",
    )
    demo.set_defaults(run=run_demo)


@dataclass
class DemoTable:
    """One simulated table: its folder, simulated shoe process, live table, floor link and players."""

    folder: Path
    name: str
    game: str
    pit: str
    seed: int | None
    parts: list[Any] = field(default_factory=list)  # what to stop, in reverse order
    sim: Any = None
    live: Any = None
    link: Any = None
    player: Any = None
    camera: Any = None

    def start_table(self, *, store: Any, pace: float, showdown_steps: int, camera_fps: float | None) -> None:
        """Start the shoe, the table (a round left open by the last run is void: a new shoe has a new deck),
        its floor link and, with ``camera_fps``, the simulated camera.

        Raises:
            ControllerError: the simulated shoe did not connect.
            FloorConfigError, vision and driver errors from the parts.
        """
        from controller.autoplay import AutoplayConfig, AutoPlayer
        from controller.config import build_config
        from controller.live import LiveConfig, LiveTable
        from controller.table import Actor
        from drivers.shoe.sim import SimConfig, SimulatedShoeProcess
        from floor.link import FloorLink, LinkSettings

        self.folder.mkdir(parents=True, exist_ok=True)
        jackpot = {"enabled": True, "reset": ACCOUNT["reset"], "contribution": ACCOUNT["increment"]}
        config = build_config({"game": self.game, "name": self.name, "jackpot": jackpot})
        live = LiveTable(config=LiveConfig(data=self.folder, shoe=None, table=config))
        resume = live.table.last_counter or 0
        if live.table.round is not None:
            live.table.void_round(
                actor=Actor("demo", "supervisor"), why="demo restarted: the simulated shoe has a new deck"
            )
        live.stop()
        self.sim = SimulatedShoeProcess(
            config=SimConfig(seed=self.seed, draw_counter=resume, shoe_id=f"DEMO-{self.name.upper()}")
        )
        self.sim.start()
        self.parts.append(self.sim)
        self.live = LiveTable(config=LiveConfig(data=self.folder, shoe=self.sim.device_path, table=config))
        self.parts.append(self.live)
        self.link = FloorLink(table=self.live.table, store=store, settings=LinkSettings(pit=self.pit))
        self.parts.append(self.link)
        self.live.start()
        if not self.live.link_up.wait(15):
            raise ControllerError(f"{self.name}: the simulated shoe did not connect within 15 s")
        if camera_fps is not None:
            from vision.director import DemoCamera, DirectorSettings

            self.camera = DemoCamera(table=self.live.table, fps=camera_fps, director=DirectorSettings(seed=self.seed))

        def shuffle() -> None:
            self.sim.command("shuffle")
            if self.camera is not None:
                # A dealer opens the next round on a clear layout: the camera must have seen the
                # last round's cards go, or the new ones on the same spots would pass for them.
                self.camera.wait_until_clear()

        self.player = AutoPlayer(
            table=self.live.table,
            draw=self.sim.draw,
            new_round=shuffle,
            shoe_signals_new_deck=True,
            config=AutoplayConfig(pace=pace, seed=self.seed, showdown_steps=showdown_steps),
        )

    def start_play(self) -> None:
        self.link.start()
        if self.camera is not None:
            self.camera.start()
        self.player.start()

    def stop(self) -> str | None:
        """Stop every part, players first; the camera's last health line, if it watched this table."""
        line = None
        if self.player is not None:
            self.player.stop()
        if self.camera is not None:
            self.camera.stop()
            line = _camera_line(self.camera.health())
        if self.live is not None and self.live.driver is not None:
            self.live.driver.stop()  # no card after the link's last pass: the floor gets the whole journal
        for part in reversed(self.parts):
            part.stop()
        self.parts.clear()
        return line


def _validate(args: argparse.Namespace) -> None:
    if args.pace < 0:
        raise ControllerError("--pace must be 0 or more seconds")
    if not 0 <= args.showdown <= 600:
        raise ControllerError("--showdown must be between 0 and 600 seconds")
    if not 0.1 <= args.camera_fps <= 30:
        raise ControllerError("--camera-fps must be between 0.1 and 30")
    if not 1 <= args.tables <= MAX_TABLES:
        raise ControllerError(f"--tables must be between 1 and {MAX_TABLES}")
    if args.game not in GAMES:
        raise ControllerError(f"--game must be one of {', '.join(GAMES)}, not {args.game!r}")


def _tables(args: argparse.Namespace) -> list[DemoTable]:
    """One table: as before, in DATA itself. Several: DATA/table-NN, games in turn from --game, 8 to a pit."""
    if args.tables == 1:
        return [DemoTable(folder=args.data, name="Demo table", game=args.game, pit="A", seed=args.seed)]
    first = GAMES.index(args.game)
    return [
        DemoTable(
            folder=args.data / f"table-{n + 1:02d}",
            name=f"Table {n + 1}",
            game=GAMES[(first + n) % len(GAMES)],
            pit=chr(ord("A") + n // TABLES_PER_PIT),
            seed=None if args.seed is None else args.seed + n,
        )
        for n in range(args.tables)
    ]


def _open_floor(args: argparse.Namespace) -> Any:
    """The floor store with the demo's linked progressive open on it.

    Raises:
        FloorUnavailable: --floor cannot be reached. FloorConfigError: a bad URL.
    """
    from floor import EMBEDDED_NAME, open_store

    args.data.mkdir(parents=True, exist_ok=True)
    store = open_store(args.floor or str(args.data / EMBEDDED_NAME))
    try:
        if ACCOUNT["name"] not in {a.name for a in store.accounts()}:
            store.open_account(**ACCOUNT)  # type: ignore[arg-type]
    except BaseException:
        store.close()
        raise
    return store


def run_demo(args: argparse.Namespace) -> int:
    from controller.console import render
    from controller.view import snapshot
    from floor.accounts import FloorAccountStore
    from web_display.accounts import seed_demo_accounts

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    _validate(args)
    stop = stop_on_signals()
    store = _open_floor(args)
    tables = _tables(args)
    web = floor_web = None
    steps = round(args.showdown / args.pace) if args.pace else 0
    try:
        for n, table in enumerate(tables):
            fps = None if args.no_camera or n > 0 else args.camera_fps
            table.start_table(store=store, pace=args.pace, showdown_steps=steps, camera_fps=fps)
        # Staff sign in with the floor's central accounts, at every table and at the floor display.
        password = seed_demo_accounts(FloorAccountStore(store=store), args.demo_password)
        web = _serve(
            tables[0].live,
            data=args.data,
            host=args.host,
            port=args.port,
            others={t.name: t.live.table for t in tables[1:]},
            floor_store=store,
        )
        floor_web = _serve_floor(store, args)
        first = tables[0]
        last_round = [first.live.table.round_no]

        def show(view: dict[str, Any]) -> None:
            if view["phase"] == "showdown" or view["tilts"] or view["round"] != last_round[0]:
                if first.camera is not None and view["phase"] == "showdown":
                    print(_camera_line(first.camera.health()), flush=True)
                last_round[0] = view["round"]
                print(render(view) + "\n", flush=True)

        first.live.table.subscribe(show)
        url = _dealer_url(web.url, first.live)
        where = args.floor or f"{args.data}/floor.sqlite3"
        print(
            f"demo: {len(tables)} table(s) sharing the linked jackpot {ACCOUNT['name']} on {where}; "
            f"{first.name} plays {first.live.table.config.game}, data in {first.folder}, shoe {first.sim.device_path}"
        )
        for table in tables[1:]:
            print(f"  {table.name}: {table.game} in pit {table.pit}, data in {table.folder}")
        print(f"dealer display: {url}   admin: {web.url}/admin")
        print(f"floor display: {floor_web.url}/floor   jackpots and reports: {floor_web.url}/reports")
        shown = "(given with --demo-password)" if args.demo_password else password
        print(f"sign in as dealer, supervisor or admin with the password {shown}")
        if first.camera is not None:
            renderer = first.camera.camera.renderer
            print(
                f"camera: simulated {renderer.view.width_px}x{renderer.view.height_px} at {args.camera_fps:g} "
                f"frames/s over zones {', '.join(first.camera.link.places)}; misdeals it sees become tilts "
                "(--no-camera to turn it off)"
            )
        print(render(snapshot(first.live.table)) + "\n", flush=True)
        if not args.no_browser:
            _open_browser(url)
        started = first.live.table.now()
        for table in tables:
            table.start_play()
        _wait(stop, first, rounds=args.rounds, started=started)
    finally:
        if floor_web is not None:
            floor_web.stop()
        if web is not None:
            web.stop()
        for table in reversed(tables):
            line = table.stop()
            if line is not None:
                print(line, file=sys.stderr)
        store.close()
    print(f"demo stopped after round {tables[0].live.table.round_no}; journal in {tables[0].folder}", file=sys.stderr)
    return 0


def _serve_floor(store: Any, args: argparse.Namespace) -> Any:
    """The floor service over the demo's floor store, signing staff in with its central accounts."""
    from floor.accounts import FloorAccountStore
    from floor.web.app import create_floor_app
    from floor.web.config import FloorSettings
    from web_display.core.config import Settings
    from web_display.server import serve

    port = args.floor_port if args.floor_port is not None else (args.port + 1 if args.port else 0)
    web = Settings(data_dir=args.data)
    app = create_floor_app(
        store=store,
        accounts=FloorAccountStore(store=store, session_ttl=web.session_hours * 3600),
        db_url=args.floor or str(args.data / "floor.sqlite3"),
        settings=FloorSettings(),
        web=web,
    )
    return serve(app, host=args.host, port=port)


def _wait(stop: StopFlag, first: DemoTable, *, rounds: int | None, started: Any) -> None:
    camera_down = False
    while not stop.wait(0.2):
        camera = first.camera
        if camera is not None and camera.link.failed.is_set() and not camera_down:
            # The camera raised its tilt; the console says so loudly too (a supervisor may play on).
            camera_down = True
            print(_camera_line(camera.health()), file=sys.stderr, flush=True)
        if rounds is not None and first.live.table.rounds_since(started) >= rounds:
            return


def _camera_line(health: Any) -> str:
    """The camera's health in one line, for the console and the log."""
    if health.state == "failed":
        return f"camera: FAILED after {health.frames} frames: {health.failure}"
    cards = sum(health.cards.values())
    covered = ", ".join(sorted(health.covered)) or "none"
    return (
        f"camera: {health.state}, {health.frames} frames, {cards} card(s) on the layout, "
        f"covered zones: {covered}, {health.tilts} tilt(s) raised"
    )
