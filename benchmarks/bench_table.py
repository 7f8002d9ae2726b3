"""Benchmark: durable journal appends per second, and card drawn at the simulated shoe -> state published.

    ./run bench table [--appends N] [--cards N]

Pins itself to one core. The journal is a real SQLite file in WAL mode with synchronous=FULL, on
the disk the data folder would use (a temporary folder beside the project by default).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def bench_appends(count: int, folder: Path) -> None:
    from controller.journal import SqliteJournal

    store = SqliteJournal(path=folder / "appends.sqlite3")
    data = {"card": "As", "counter": 1, "shoe": "BENCH"}
    latencies = []
    start = time.perf_counter()
    for i in range(count):
        t0 = time.perf_counter()
        store.append("card", {**data, "counter": i}, actor="shoe:shoe", at="2026-11-22T00:00:00+00:00")
        latencies.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - start
    store.close()
    print(f"journal appends (WAL, synchronous=FULL, one fsync'd transaction each): {count} in {elapsed:.2f} s")
    print(
        f"  {count / elapsed:,.0f} appends/s; per append p50 {percentile(latencies, 50) * 1e3:.2f} ms, "
        f"p99 {percentile(latencies, 99) * 1e3:.2f} ms, max {max(latencies) * 1e3:.2f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=None, help="folder for the journal files")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    with tempfile.TemporaryDirectory(dir=args.data or ROOT) as tmp:
        bench_appends(args.appends, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
