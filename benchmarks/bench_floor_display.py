"""Floor service speed: a status change at a table → shown to every floor display, and bursts coalesced.

Run: ./run bench floor_display [--tables 500] [--pits 10] [--clients 20] [--burst 2000] [--postgres]

A real floor service (uvicorn in this process) over a fresh floor store: SQLite by default, a throwaway
PostgreSQL cluster with --postgres (LISTEN/NOTIFY instead of polling). ``--clients`` websocket displays
connect, half showing the whole floor and half one pit.

1. Single changes: one table's status changes every 0.3 s; latency = the moment every display showing
   that table has received its tile − the moment report_status returned (same host, wall clock).
2. A burst: ``--burst`` status changes to ``--burst-tables`` tables from 4 writer threads, as fast as
   the store takes them. Counted:
   the service's store reads (refreshes) and the tile messages each display received, against the
   changes made: coalescing means far fewer of both than changes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from floor import open_store  # noqa: E402
from floor.web.app import create_floor_app  # noqa: E402
from floor.web.config import FloorSettings  # noqa: E402
from web_display.accounts import ACCOUNTS_FILE, open_account_store  # noqa: E402
from web_display.core.config import Settings  # noqa: E402
from web_display.server import serve  # noqa: E402

PASSWORD = "benchmark-password"
PHASES = ("betting", "dealing", "deciding", "showdown", "idle")


async def _display(
    base: str, cookie: str, query: str, inbox: list[tuple[float, dict[str, Any]]], ready: asyncio.Event
) -> None:
    from websockets.asyncio.client import connect

    url = base.replace("http://", "ws://") + "/ws/floor/live" + query
    async with connect(url, origin=base, additional_headers={"Cookie": cookie}, max_size=None) as socket:  # type: ignore[arg-type]
        async for text in socket:
            message = json.loads(text)
            if message["type"] == "reset":
                ready.set()
            inbox.append((time.time(), message))


def _sign_in(base: str) -> str:
    import httpx2

    with httpx2.Client(base_url=base, headers={"Origin": base}) as client:
        client.post("/api/login", json={"name": "bench", "password": PASSWORD}).raise_for_status()
        return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--pits", type=int, default=10)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--burst", type=int, default=2000)
    parser.add_argument(
        "--burst-tables", type=int, default=50, help="the burst changes these many tables, over and over"
    )
    parser.add_argument("--singles", type=int, default=30)
    parser.add_argument(
        "--journal", type=int, default=0, help="replicate this many entries per table first (every 10th ends a round)"
    )
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL cluster instead of SQLite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        folder = Path(tmp)
        cluster = None
        if args.postgres:
            import os
            import shutil

            from tests.floor.conftest import PgCluster, _free_port

            pg = Path(tempfile.mkdtemp(prefix="bench-floor-pg-"))
            if os.geteuid() == 0:
                shutil.chown(pg, user="postgres", group="postgres")
            cluster = PgCluster(folder=pg, port=_free_port())
            cluster.init()
            cluster.start()
            url = cluster.create_database()
        else:
            url = str(folder / "floor.sqlite3")
        try:
            return _run(args, url, folder)
        finally:
            if cluster is not None:
                cluster.stop()
                import shutil

                shutil.rmtree(cluster.folder, ignore_errors=True)


def _run(args: argparse.Namespace, url: str, folder: Path) -> int:
    store = open_store(url, max_connections=12)
    tables = [f"t{i:04d}" for i in range(1, args.tables + 1)]
    for i, table in enumerate(tables):
        store.add_table(table_id=table, pit=f"P{i % args.pits:02d}", game="oasis")
        store.report_status(table_id=table, phase="idle", round_no=1, tilts=[], progressive="open")
    if args.journal:
        _journal(store, tables, args.journal)
    accounts = open_account_store(folder / ACCOUNTS_FILE)
    accounts.add(name="bench", role="supervisor", password=PASSWORD, by="bench")
    web = Settings(data_dir=folder, ws_per_account=args.clients + 4, client_queue=64)
    app = create_floor_app(store=store, accounts=accounts, db_url=url, settings=FloorSettings(), web=web)
    handle = serve(app, port=0)
    cookie = _sign_in(handle.url)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    inboxes: list[list[tuple[float, dict[str, Any]]]] = []
    queries = []
    readies = []
    for c in range(args.clients):
        query = "" if c % 2 == 0 else "?pit=P00"
        inbox: list[tuple[float, dict[str, Any]]] = []
        ready = asyncio.Event()
        inboxes.append(inbox)
        queries.append(query)
        readies.append(ready)
        asyncio.run_coroutine_threadsafe(_display(handle.url, cookie, query, inbox, ready), loop)
    for ready in readies:
        asyncio.run_coroutine_threadsafe(asyncio.wait_for(ready.wait(), 60), loop).result()
    refresher = app.state.floor.refresher
    backend = "PostgreSQL (LISTEN/NOTIFY)" if url.startswith("postgresql") else "SQLite (poller, 0.25 s)"
    print(f"floor service: {args.tables} tables in {args.pits} pits, {args.clients} displays, {backend}")

    # 1. single changes, to a table in pit P00 (every display shows it)
    latencies = []
    for n in range(args.singles):
        table = tables[args.pits * (n % 5)]
        round_no = 1000 + n
        store.report_status(table_id=table, phase="dealing", round_no=round_no, tilts=[], progressive="open")
        done = time.time()
        deadline = done + 30
        while time.time() < deadline:
            got = [_first(inbox, table, round_no) for inbox in inboxes]
            if all(g is not None for g in got):
                latencies.append(max(g for g in got if g is not None) - done)
                break
            time.sleep(0.005)
        time.sleep(0.3)
    ms = sorted(1000 * x for x in latencies)
    print(
        f"single change → every display: median {statistics.median(ms):.0f} ms, "
        f"p90 {ms[int(0.9 * (len(ms) - 1))]:.0f} ms, "
        f"max {ms[-1]:.0f} ms over {len(ms)} changes"
    )

    # 2. a burst from 4 writers
    before_reads = refresher.refreshes
    before_msgs = [sum(1 for _, m in inbox if m["type"] == "tile") for inbox in inboxes]
    counter = iter(range(args.burst))
    lock = threading.Lock()

    def writer() -> None:
        while True:
            with lock:
                n = next(counter, None)
            if n is None:
                return
            table = tables[n % args.burst_tables]
            store.report_status(
                table_id=table, phase=PHASES[n % len(PHASES)], round_no=2000 + n, tilts=[], progressive="open"
            )

    start = time.time()
    writers = [threading.Thread(target=writer) for _ in range(4)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    took = time.time() - start
    time.sleep(max(2.0, 4 * 0.25))  # let the last refresh land
    reads = refresher.refreshes - before_reads
    full = [
        sum(1 for _, m in inbox if m["type"] == "tile") - b
        for inbox, b, q in zip(inboxes, before_msgs, queries, strict=True)
        if not q
    ]
    pit = [
        sum(1 for _, m in inbox if m["type"] == "tile") - b
        for inbox, b, q in zip(inboxes, before_msgs, queries, strict=True)
        if q
    ]
    in_pit = sum(1 for n in range(args.burst) if (n % args.burst_tables) % args.pits == 0)
    print(
        f"burst: {args.burst} changes to {args.burst_tables} tables in {took:.2f} s "
        f"({args.burst / took:.0f}/s), 4 writers"
    )
    print(f"  store reads by the service during the burst: {reads}")
    print(f"  tile messages per whole-floor display: {statistics.median(full):.0f} (of {args.burst} changes)")
    print(f"  tile messages per one-pit display: {statistics.median(pit):.0f} (of {in_pit} changes in that pit)")
    handle.stop()
    loop.call_soon_threadsafe(loop.stop)
    accounts.close()
    store.close()
    return 0


def _journal(store: Any, tables: list[str], per_table: int) -> None:
    """Entries spread over the last two hours, every 10th a settled round; then time the full read."""
    from datetime import UTC, datetime, timedelta

    from controller.journal.base import Entry

    now = datetime.now(UTC)
    start = time.time()
    for table in tables:
        entries = [
            Entry(
                seq=n,
                kind="round-settled" if n % 10 == 0 else "card",
                data={"n": n},
                actor="shoe:shoe",
                at=(now - timedelta(seconds=7200 * (per_table - n) / per_table)).isoformat(),
                hash=f"h{n}",
            )
            for n in range(1, per_table + 1)
        ]
        store.replicate(table_id=table, entries=entries)
    print(f"journal: {per_table * len(tables)} entries replicated in {time.time() - start:.1f} s")
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        statuses = store.statuses()
        times.append(time.perf_counter() - t0)
    per_hour = statuses[0].rounds_last_hour
    print(f"full read of {len(statuses)} tables (rounds/h {per_hour} each): best {1000 * min(times):.0f} ms")
    t0 = time.perf_counter()
    store.statuses(tables=tables[:1])
    print(f"one table's read: {1000 * (time.perf_counter() - t0):.1f} ms")


def _first(inbox: list[tuple[float, dict[str, Any]]], table: str, round_no: int) -> float | None:
    for at, message in list(inbox):
        if message["type"] == "tile" and message["tile"]["table"] == table and message["tile"]["round"] == round_no:
            return at
    return None


if __name__ == "__main__":
    sys.exit(main())
