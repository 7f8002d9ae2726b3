"""Benchmark: a casino floor of 200 tables against one PostgreSQL.

    ./run bench floor [--tables 200] [--processes 4] [--seconds 30] [--rate 20] [--skip-tiles]

Starts a throwaway PostgreSQL cluster (Debian's postgresql, as the tests do), then measures:

1. Jackpot operations: every table contributes to one floor-wide account as fast as it can (the hottest
   row a floor has: every contribution takes its lock), ``--tables`` threads over ``--processes``
   processes: operations per second and the p50/p99 of one contribution's transaction.
2. A played floor: ``--tables`` real tables (table service, SQLite journal, autoplayer's bets and
   decisions, a simulated deck), each joined to the floor by its real link (floor/link.py: replication,
   contributions and hits, status), playing ``--rate`` times faster than a busy table (50 rounds an hour).
   Measured: replication lag (an entry's time at the table to its commit on the floor) p50/p99, the
   contribution transaction p99 under that load, entries per second, and PostgreSQL's CPU seconds per
   table-hour, from which the cost of 2,000 tables is estimated.
3. During 2, unless ``--skip-tiles``: the floor service (its app, served by uvicorn in this process) with
   20 live displays of the whole floor: a round opened at a table (its journal entry's time) to the
   moment every display shows the tile with that round, p50/p99 — the whole path: the table's link pass
   (every 0.2 s), its status report, NOTIFY, the service's coalesced refresh, the websocket.
   ``bench_floor_display.py`` measures the service alone (500 tables, bursts, SQLite and PostgreSQL).

The journals are written with fsync off (the floor is measured, not the tables' disks). Everything runs
on this one machine: the tables' processes compete with PostgreSQL for the same cores, so the figures
are a floor, not a ceiling, for a dedicated database server.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BUSY_ROUNDS_PER_HOUR = 50


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ------------------------------------------------------------------ 1. raw jackpot operations


def _hammer(url: str, span: tuple[int, int], seconds: float, queue: Any) -> None:
    from floor import open_store

    first, count = span
    store = open_store(url, max_connections=count, migrate=False)
    latencies: list[float] = []
    lock = threading.Lock()
    done = [0]

    def table(n: int) -> None:
        table_id = f"bench-{n:04d}"
        seq = 0
        mine: list[float] = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            seq += 1
            t0 = time.perf_counter()
            store.contribute(account="floor-wide", table_id=table_id, seq=seq, amount=1)
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)
            done[0] += seq

    threads = [threading.Thread(target=table, args=(n,)) for n in range(first, first + count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    queue.put((done[0], latencies))


def _in_processes(target: Any, tables: int, processes: int, *args: Any) -> tuple[list[Any], float]:
    """Run ``target(*args[:1], span, *args[1:], queue)`` for the tables cut into ``processes`` spans of
    (first, count); each puts its result on the queue. Returns the results and the wall time."""
    queue: Any = mp.Queue()
    per = tables // processes
    spans = [(p * per, per if p < processes - 1 else tables - p * per) for p in range(processes)]
    procs = [mp.Process(target=target, args=(*args[:1], span, *args[1:], queue)) for span in spans]
    started = time.perf_counter()
    for proc in procs:
        proc.start()
    results = [queue.get() for _ in procs]
    for proc in procs:
        proc.join()
    return results, time.perf_counter() - started


def jackpot_ops(url: str, *, tables: int, processes: int, seconds: float) -> dict[str, Any]:
    from floor import open_store

    with open_store(url) as store:
        for n in range(tables):
            store.add_table(table_id=f"bench-{n:04d}", pit=f"P{n // 50}", game="oasis")
        store.open_account(name="floor-wide", scope="floor", reset=1_000_000, increment=1, cap=10**12)
    results, elapsed = _in_processes(_hammer, tables, processes, url, seconds)
    ops = sum(r[0] for r in results)
    latencies = [x for r in results for x in r[1]]
    with open_store(url, migrate=False) as store:
        account = store.account("floor-wide")
        exact = account.contributions == ops and account.meter == account.seeded + account.contributions
    return {
        "ops": ops,
        "ops_per_s": ops / elapsed,
        "p50_ms": pct(latencies, 0.5) * 1000,
        "p99_ms": pct(latencies, 0.99) * 1000,
        "meter_exact": exact,
    }


# ------------------------------------------------------------------ 2. a played floor


class _TimedStore:
    """Wraps the link's store: times each contribution and each replicated batch's lag."""

    def __init__(self, inner: Any, sink: dict[str, list[float]], lock: threading.Lock) -> None:
        self._inner = inner
        self._sink = sink
        self._lock = lock

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def contribute(self, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        result = self._inner.contribute(**kwargs)
        with self._lock:
            self._sink["contribution"].append(time.perf_counter() - t0)
        return result

    def replicate(self, *, table_id: str, entries: Any) -> int:
        added = self._inner.replicate(table_id=table_id, entries=entries)
        now = datetime.now(UTC)
        with self._lock:
            self._sink["lag"].extend((now - datetime.fromisoformat(e.at)).total_seconds() for e in entries)
            self._sink["entries"].append(float(added))
        return added


def _play_tables(url: str, span: tuple[int, int], folder: str, timing: tuple[float, float], queue: Any) -> None:
    import random

    from controller.autoplay import AutoplayConfig, AutoPlayer
    from controller.cards import DECK
    from controller.config import build_config
    from controller.journal import SqliteJournal
    from controller.table import TableService
    from floor import open_store
    from floor.link import FloorLink, LinkSettings

    (first, count), (seconds, rate) = span, timing
    games = ("oasis", "casino-holdem", "holdem-exchange", "holdem-bonus")
    store = open_store(url, max_connections=min(count, 20), migrate=False)
    sink: dict[str, list[float]] = {"contribution": [], "lag": [], "entries": []}
    lock = threading.Lock()
    timed = _TimedStore(store, sink, lock)
    codes = [c.code for c in DECK]
    # A busy table deals about 26 steps a round at 50 rounds an hour; ``rate`` times faster here.
    pace = 3600 / BUSY_ROUNDS_PER_HOUR / 26 / rate
    parts = []
    for n in range(first, first + count):
        path = Path(folder) / f"table-{n:04d}"
        path.mkdir(parents=True, exist_ok=True)
        jackpot = {"enabled": True, "reset": 10_000, "contribution": 1}
        config = build_config({"game": games[n % 4], "name": f"Table {n + 1}", "jackpot": jackpot})
        table = TableService(config=config, store=SqliteJournal(path=path / "journal.sqlite3", durable=False))
        rng = random.Random(n)

        def draw(table: TableService = table, rng: random.Random = rng) -> None:
            rnd = table.round
            dealt = {card.code for card, _ in rnd.dealt()} if rnd is not None else set()
            table.on_card(rng.choice([c for c in codes if c not in dealt]), counter=(table.last_counter or 0) + 1)

        link = FloorLink(table=table, store=timed, settings=LinkSettings(pit=f"P{n // 50}", timeout=5.0))  # type: ignore[arg-type]
        player = AutoPlayer(table=table, draw=draw, config=AutoplayConfig(pace=pace, seed=n, showdown_steps=2))
        parts.append((table, link, player))
    for _, link, player in parts:
        link.start()
        player.start()
    time.sleep(seconds)
    rounds = sum(t.round_no for t, _, _ in parts)
    for table, link, player in parts:
        player.stop()
        link.stop()
        table.journal_store.close()
    store.close()
    queue.put((rounds, sink))


def _postgres_cpu(folder: Path) -> float:
    """CPU seconds (user + system) used so far by the cluster's processes (its postmaster and children)."""
    pid_file = folder / "data" / "postmaster.pid"
    master = int(pid_file.read_text().split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        pid, ppid = int(proc.name), int(fields[1])
        if master in (pid, ppid):
            total += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / tick
    return total


class _Displays:
    """The floor service with ``clients`` websocket displays of the whole floor, each keeping what it got."""

    def __init__(self, url: str, *, clients: int) -> None:
        import asyncio

        sys.path.insert(0, str(ROOT / "benchmarks"))
        import bench_floor_display as display

        from floor import open_store
        from floor.web.app import create_floor_app
        from floor.web.config import FloorSettings
        from web_display.accounts import ACCOUNTS_FILE, open_account_store
        from web_display.core.config import Settings
        from web_display.server import serve

        self.folder = Path(tempfile.mkdtemp(prefix="bench-floor-service-"))
        self.store = open_store(url, max_connections=8, migrate=False)
        self.accounts = open_account_store(self.folder / ACCOUNTS_FILE)
        self.accounts.add(name="bench", role="supervisor", password=display.PASSWORD, by="bench")
        web = Settings(data_dir=self.folder, ws_per_account=clients + 4, client_queue=256)
        app = create_floor_app(store=self.store, accounts=self.accounts, db_url=url, settings=FloorSettings(), web=web)
        self.handle = serve(app, port=0)
        cookie = display._sign_in(self.handle.url)
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.inboxes: list[list[tuple[float, dict[str, Any]]]] = []
        readies = []
        for _ in range(clients):
            inbox: list[tuple[float, dict[str, Any]]] = []
            ready = asyncio.Event()
            self.inboxes.append(inbox)
            readies.append(ready)
            asyncio.run_coroutine_threadsafe(display._display(self.handle.url, cookie, "", inbox, ready), self.loop)
        for ready in readies:
            asyncio.run_coroutine_threadsafe(asyncio.wait_for(ready.wait(), 60), self.loop).result()

    def latencies(self, opened: list[tuple[str, int, float]]) -> list[float]:
        """For each (table, round, opened at): when the last display first showed that round (or a later one)."""
        seen: list[dict[tuple[str, int], float]] = []
        for inbox in self.inboxes:
            first: dict[tuple[str, int], float] = {}
            for at, message in inbox:
                if message.get("type") == "tile":
                    key = (message["tile"]["table"], message["tile"]["round"])
                    first.setdefault(key, at)
            seen.append(first)
        out = []
        for table, round_no, at in opened:
            times = [
                min((t for (tb, r), t in first.items() if tb == table and r >= round_no), default=None)
                for first in seen
            ]
            if all(t is not None for t in times):
                out.append(max(t for t in times if t is not None) - at)
        return out

    def close(self) -> None:
        self.handle.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.accounts.close()
        self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def played_floor(
    url: str, cluster_folder: Path, *, tables: int, processes: int, seconds: float, rate: float, clients: int = 0
) -> dict[str, Any]:
    from floor import open_store

    with open_store(url) as store:
        store.open_account(name="floor-link", scope="floor", reset=10_000, increment=1, cap=60_000_000)
    displays = _Displays(url, clients=clients) if clients else None
    started_at = time.time()
    work = Path(tempfile.mkdtemp(prefix="bench-floor-tables-"))
    cpu0 = _postgres_cpu(cluster_folder)
    results, elapsed = _in_processes(_play_tables, tables, processes, url, str(work), (seconds, rate))
    cpu = _postgres_cpu(cluster_folder) - cpu0
    shutil.rmtree(work, ignore_errors=True)
    lag = [x for _, s in results for x in s["lag"]]
    contribution = [x for _, s in results for x in s["contribution"]]
    entries = sum(sum(s["entries"]) for _, s in results)
    rounds = sum(r for r, _ in results)
    # Played table-hours, in busy-table hours: what a real floor of ``tables`` would do in ``elapsed * rate``.
    table_hours = rounds / BUSY_ROUNDS_PER_HOUR
    tiles: list[float] = []
    with open_store(url, migrate=False) as store:
        account = store.account("floor-link")
        exact = account.meter == account.seeded + account.contributions - account.won + account.corrections
        if displays is not None:
            time.sleep(1.0)  # the last reports' tiles land
            names = store.table_names()
            opened = [
                (table_id, int(e.data["round"]), datetime.fromisoformat(e.at).timestamp())
                for table_id in names
                for e in store.journal(table_id)
                if e.kind == "round-opened" and datetime.fromisoformat(e.at).timestamp() > started_at + 5
            ]
            tiles = displays.latencies(opened)
            displays.close()
    return {
        "tile_p50_ms": pct(tiles, 0.5) * 1000,
        "tile_p99_ms": pct(tiles, 0.99) * 1000,
        "tile_samples": len(tiles),
        "tables": tables,
        "rounds": rounds,
        "entries": int(entries),
        "entries_per_s": entries / elapsed,
        "lag_p50_ms": pct(lag, 0.5) * 1000,
        "lag_p99_ms": pct(lag, 0.99) * 1000,
        "contribution_p99_ms": pct(contribution, 0.99) * 1000,
        "contributions": len(contribution),
        "pg_cpu_s": cpu,
        "pg_cpu_s_per_table_hour": cpu / table_hours if table_hours else float("nan"),
        "meter_exact": exact,
    }


def estimate(per_table_hour: float, entries_per_table_hour: float) -> str:
    """What 2,000 busy tables would ask of the database, from the measured per-table cost."""
    cores = per_table_hour * 2000 / 3600
    writes = entries_per_table_hour * 2000 / 3600
    return (
        f"2,000 busy tables: about {cores:.2f} CPU cores of PostgreSQL and {writes:,.0f} journal rows/s "
        f"({writes * 0.4 * 86400 / 1e6:.0f} M rows a day at 40 % occupancy)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0, help="how long each phase runs")
    parser.add_argument("--rate", type=float, default=20.0, help="times faster than a busy table (50 rounds/h)")
    parser.add_argument("--skip-tiles", action="store_true", help="do not measure the floor service's tiles")
    args = parser.parse_args()

    from tests.floor.conftest import PgCluster, _free_port

    folder = Path(tempfile.mkdtemp(prefix="bench-floor-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, user="postgres", group="postgres")
    cluster = PgCluster(folder=folder, port=_free_port())
    cluster.init()
    cluster.start()
    figures: dict[str, Any] = {"machine_cores": os.cpu_count()}
    try:
        print(f"PostgreSQL at {cluster.url()}; {args.tables} tables in {args.processes} processes", flush=True)
        ops = jackpot_ops(cluster.create_database(), tables=args.tables, processes=args.processes, seconds=args.seconds)
        figures["jackpot"] = ops
        print(
            f"1. jackpot operations on one floor-wide account: {ops['ops_per_s']:,.0f} contributions/s "
            f"({args.tables} tables at once), transaction p50 {ops['p50_ms']:.1f} ms, p99 {ops['p99_ms']:.1f} ms, "
            f"meter exact: {ops['meter_exact']}",
            flush=True,
        )
        played = played_floor(
            cluster.create_database(),
            folder,
            tables=args.tables,
            processes=args.processes,
            seconds=args.seconds,
            rate=args.rate,
            clients=0 if args.skip_tiles else 20,
        )
        figures["floor"] = played
        hours = played["rounds"] / BUSY_ROUNDS_PER_HOUR
        print(
            f"2. played floor, {args.tables} tables at {args.rate:g}x a busy table: {played['rounds']:,} rounds, "
            f"{played['entries_per_s']:,.0f} entries/s replicated, replication lag p50 {played['lag_p50_ms']:.0f} ms "
            f"p99 {played['lag_p99_ms']:.0f} ms, contribution p99 {played['contribution_p99_ms']:.1f} ms, "
            f"PostgreSQL {played['pg_cpu_s']:.1f} CPU s = {played['pg_cpu_s_per_table_hour']:.3f} s per busy "
            f"table-hour, meter exact: {played['meter_exact']}",
            flush=True,
        )
        if hours:
            print("   " + estimate(played["pg_cpu_s_per_table_hour"], played["entries"] / hours), flush=True)
        if not args.skip_tiles:
            print(
                "3. a round opened at a table -> its tile at all 20 floor displays: "
                f"p50 {played['tile_p50_ms']:.0f} ms, "
                f"p99 {played['tile_p99_ms']:.0f} ms over {played['tile_samples']:,} rounds",
                flush=True,
            )
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(figures, indent=2, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
