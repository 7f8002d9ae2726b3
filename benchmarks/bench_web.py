"""Web display speed: card drawn at the shoe → shown in the browser; and 20 tables with 50 floor clients.

Run: ./run bench web [--rounds N] [--cards N]

1. Dealer display latency: a real uvicorn server in this process, Debian's Chromium through Playwright
   on the dealer page, an Oasis table with seven boxes. Each card is fed at the service boundary
   (table.on_card, as the shoe driver does); a MutationObserver in the page stamps the moment the
   new card appears in the DOM. Latency = DOM timestamp − feed timestamp (both wall clock, same host).
2. Floor load: 20 tables and 50 floor websocket clients. Cards are fed round-robin to the tables
   with 0 clients, then with 50 clients connected. The table's cost of a card (on_card, which
   journals durably and publishes) must not grow with the clients; card → received by every floor
   client is measured too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.config import build_config  # noqa: E402
from controller.engine import BoxBet  # noqa: E402
from controller.journal import SqliteJournal  # noqa: E402
from controller.table import Actor, TableService  # noqa: E402
from web_display.accounts import ensure_demo_accounts  # noqa: E402
from web_display.core.config import Settings  # noqa: E402
from web_display.main import create_app  # noqa: E402
from web_display.server import serve  # noqa: E402

DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
DEALER = Actor("bench", "dealer")
SUPERVISOR = Actor("bench", "supervisor")
PASSWORD = "benchmark-password"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OBSERVER = """
() => {
  window.__shown = {};
  const count = () => document.querySelectorAll('#boxes .card, #dealer-cards .card').length;
  new MutationObserver(() => {
    const n = count();
    if (!(n in window.__shown)) window.__shown[n] = performance.timeOrigin + performance.now();
  }).observe(document.body, { childList: true, subtree: true });
}
"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(values: list[float]) -> str:
    return (
        f"n={len(values)} p50={percentile(values, 50):.1f} ms p99={percentile(values, 99):.1f} ms "
        f"max={max(values):.1f} ms mean={statistics.fmean(values):.1f} ms"
    )


def new_table(folder: Path, name: str) -> TableService:
    config = build_config({"game": "oasis", "name": name})
    return TableService(config=config, store=SqliteJournal(path=folder / f"{name}.sqlite3"))


def open_round(table: TableService, rng: random.Random) -> list[str]:
    """A fresh round on seven boxes; returns its 40 cards in shoe order."""
    if table.round is not None:
        table.void_round(actor=SUPERVISOR, why="benchmark: next round")
    table.open_round([BoxBet(box=b, ante=10) for b in range(1, 8)], actor=DEALER)
    return rng.sample(DECK, 40)


# ------------------------------------------------------------------ dealer display


def dealer_latency(folder: Path, *, rounds: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    table = new_table(folder, "T1")
    app = create_app(settings=Settings(data_dir=folder), tables={"T1": table})
    server = serve(app, host="127.0.0.1", port=0)
    latencies: list[float] = []
    rng = random.Random(5)
    counter = 0
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.url}/login?next=/tables/T1")
            page.fill("#name", "dealer")
            page.fill("#password", PASSWORD)
            page.click("#sign-in")
            page.wait_for_url(f"{server.url}/tables/T1")
            for _ in range(rounds):
                cards = open_round(table, rng)
                page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=table.version)
                page.evaluate(OBSERVER)
                for n, code in enumerate(cards, start=1):
                    counter += 1
                    fed = time.time() * 1000
                    table.on_card(code, counter=counter, shoe="BENCH")
                    page.wait_for_function("n => window.__shown[n] !== undefined", arg=n, polling=5)
                    latencies.append(page.evaluate("n => window.__shown[n]", n) - fed)
                page.reload()  # a fresh observer and page per round, as after a reconnect
            browser.close()
    finally:
        server.stop()
    return latencies


# ------------------------------------------------------------------ floor under load


async def _floor_clients(url: str, cookie: str, n: int) -> None:
    """Child process: n floor clients; prints "ready", then on stdin EOF a JSON report of what arrived."""
    from websockets.asyncio.client import connect

    first_seen: dict[str, float] = {}
    last: list[dict[str, int]] = [{} for _ in range(n)]
    received = 0
    stop = asyncio.Event()
    opened = 0

    async def client(i: int) -> None:
        nonlocal received, opened
        async with connect(
            url.replace("http", "ws", 1) + "/ws/floor",
            origin=url,  # type: ignore[arg-type]
            additional_headers={"Cookie": cookie},
            compression=None,
        ) as ws:
            opened += 1
            while not stop.is_set():
                try:
                    text = await asyncio.wait_for(ws.recv(), timeout=0.2)
                except TimeoutError:
                    continue
                now = time.time() * 1000
                message = json.loads(text)
                name, version = message["name"], message["table"]["version"]
                first_seen.setdefault(f"{name}:{version}", now)
                last[i][name] = version
                received += 1

    tasks = [asyncio.create_task(client(i)) for i in range(n)]
    while opened < n:
        await asyncio.sleep(0.01)
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.read)  # the parent closes stdin when it is done feeding
    await asyncio.sleep(1.0)  # let the last states arrive
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({"first_seen": first_seen, "last": last, "received": received}), flush=True)


def feed(
    tables: list[TableService], *, cards: int, rate: float, rng: random.Random, counters: dict[str, int]
) -> tuple[list[float], dict[tuple[str, int], float]]:
    """Deal ``cards`` cards to each table at ``rate`` cards per second per table, round-robin.

    Returns the table's cost of each card (on_card) and when each resulting version was fed.
    """
    decks = {t.config.name: open_round(t, rng) for t in tables}
    durations: list[float] = []
    fed_at: dict[tuple[str, int], float] = {}
    gap = 1.0 / (rate * len(tables))
    next_at = time.perf_counter()
    for i in range(cards):
        for t in tables:
            next_at += gap
            time.sleep(max(0.0, next_at - time.perf_counter()))
            name = t.config.name
            counters[name] += 1
            wall = time.time() * 1000
            start = time.perf_counter()
            t.on_card(decks[name][i], counter=counters[name], shoe="BENCH")
            durations.append((time.perf_counter() - start) * 1000)
            fed_at[(name, t.version)] = wall
    return durations, fed_at


def floor_load(folder: Path, *, tables_n: int, clients_n: int, cards: int, rate: float) -> dict[str, Any]:
    import subprocess

    from web_display import live

    tables = [new_table(folder, f"T{i:02d}") for i in range(1, tables_n + 1)]
    app = create_app(settings=Settings(data_dir=folder), tables={t.config.name: t for t in tables})
    # Measure card -> published: when the hub has serialised a state and offered it to every client.
    published: dict[tuple[str, int], float] = {}
    original = live.Hub._publish

    def timed(hub: live.Hub, name: str, view: dict[str, Any]) -> None:
        original(hub, name, view)
        published[(name, view["version"])] = time.time() * 1000

    live.Hub._publish = timed  # type: ignore[method-assign]
    server = serve(app, host="127.0.0.1", port=0)
    rng = random.Random(7)
    counters = {t.config.name: 0 for t in tables}
    try:
        alone, fed_alone = feed(tables, cards=cards, rate=rate, rng=rng, counters=counters)
        time.sleep(0.5)
        published_alone = [published[k] - at for k, at in fed_alone.items() if k in published]
        response = httpx2.post(f"{server.url}/api/login", json={"name": "supervisor", "password": PASSWORD})
        response.raise_for_status()
        cookie = f"da_session={response.cookies['da_session']}"
        child = subprocess.Popen(
            [sys.executable, __file__, "--floor-clients", server.url, cookie, str(clients_n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdin is not None and child.stdout is not None
        try:
            if child.stdout.readline().strip() != "ready":
                raise RuntimeError("the floor clients did not connect")
            loaded, fed_loaded = feed(tables, cards=cards, rate=rate, rng=rng, counters=counters)
            child.stdin.close()
            report = json.loads(child.stdout.readline())
        finally:
            child.wait(30)
        published_loaded = [published[k] - at for k, at in fed_loaded.items() if k in published]
        final = {t.config.name: t.version for t in tables}
        caught_up = sum(all(seen.get(n, -1) >= v for n, v in final.items()) for seen in report["last"])
        seen = report["first_seen"]
        delivered = [seen[f"{n}:{v}"] - at for (n, v), at in fed_loaded.items() if f"{n}:{v}" in seen]
    finally:
        server.stop()
        live.Hub._publish = original  # type: ignore[method-assign]
    return {
        "alone": alone,
        "loaded": loaded,
        "published_alone": published_alone,
        "published_loaded": published_loaded,
        "delivered": delivered,
        "coalesced": len(fed_loaded) - len(delivered),
        "caught_up": caught_up,
        "received": report["received"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="dealer-display rounds of 40 cards (default 5)")
    parser.add_argument("--cards", type=int, default=20, help="cards per table in each floor phase (default 20)")
    parser.add_argument("--rate", type=float, default=2.0, help="cards per second per table (default 2)")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--floor-clients", nargs=3, metavar=("URL", "COOKIE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor_clients:
        url, cookie, n = args.floor_clients
        asyncio.run(_floor_clients(url, cookie, int(n)))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        folder = Path(tmp)
        ensure_demo_accounts(folder, PASSWORD)
        print("dealer display: card fed to the table -> card in the browser's DOM (Chromium)")
        latencies = dealer_latency(folder, rounds=args.rounds)
        print(f"  {summary(latencies)}  (target p99 <= 100 ms)")
        print(
            f"floor: {args.tables} tables dealt {args.rate:g} cards/s each ({args.rate * args.tables:g} cards/s), "
            f"{args.cards} cards per table per phase; then {args.clients} floor websocket clients (another process)"
        )
        r = floor_load(folder, tables_n=args.tables, clients_n=args.clients, cards=args.cards, rate=args.rate)
        n = args.clients
        print(f"  table's cost of a card (on_card: journal fsync + publish),  0 clients: {summary(r['alone'])}")
        print(f"  table's cost of a card (on_card: journal fsync + publish), {n} clients: {summary(r['loaded'])}")
        print(f"  card -> published to every client (hub, on the loop),  0 clients: {summary(r['published_alone'])}")
        print(f"  card -> published to every client (hub, on the loop), {n} clients: {summary(r['published_loaded'])}")
        print(f"  card -> received by the first floor client,           {n} clients: {summary(r['delivered'])}")
        print(
            f"  states coalesced away (a newer one sent instead): {r['coalesced']}; messages received: "
            f"{r['received']}; clients that reached every table's final state: {r['caught_up']}/{n}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
