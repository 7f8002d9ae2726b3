"""Benchmark: ``dealer-assist report`` over a busy floor's day and over a busy table's month.

    ./run bench reports [--tables 200] [--rounds 500] [--days 60] [--pg] [--cache DIR]

One real day of a table is played through the table service and the autoplayer (``--rounds`` rounds at
50 an hour, the jackpot on, a tilt every 20 rounds) and cached. Its journal entries — every kind, cards and
actions included, as a floor holds them — are then stored under ``--tables`` table ids in a fresh floor
store (SQLite; PostgreSQL too with ``--pg``, on a throwaway cluster as the tests use), and, for the month,
``--days`` copies shifted a day apart under one table id. The rows are bulk-loaded (the replicator's
per-entry path would only make the setup slow; the report reads the same table either way).

Measured, each as a user runs it (``dealer-assist report …`` in a fresh process, wall time):
- the floor's day: ``--day`` over every table, ``--by pit``, text output;
- the table's month: one day in the middle (``--day``), then the whole month (``--from/--to``).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FORMAT = "reports-bench-1"
DAY = datetime(2026, 11, 1, 6, 0, tzinfo=UTC)


def played_day(cache: Path, rounds: int) -> list[tuple[int, str, str, str, str, str]]:
    """The day's journal rows (seq, kind, data text, actor, at, hash), played once and cached as JSON."""
    path = cache / f"{FORMAT}-{rounds}.json"
    if path.is_file():
        return [tuple(r) for r in json.loads(path.read_text())]  # type: ignore[misc]
    from tests.floor.report_kit import Table

    with tempfile.TemporaryDirectory() as tmp:
        # About 27 clock readings a round: one every 72 s / 27 keeps 50 rounds an hour.
        table = Table(Path(tmp), start=DAY, step=timedelta(seconds=72 / 27), seed=rounds)
        table.play(rounds, tilt_every=20)
        rows = [
            (e.seq, e.kind, json.dumps(e.data, separators=(",", ":"), sort_keys=True), e.actor, e.at, e.hash)
            for e in table.entries()
        ]
        table.close()
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows))
    return rows


def shifted(rows: list[Any], days: int) -> list[Any]:
    if not days:
        return rows
    step = timedelta(days=days)
    return [(s, k, d, a, (datetime.fromisoformat(at) + step).isoformat(), h) for s, k, d, a, at, h in rows]


def load(url: str, tables: list[tuple[str, str, list[Any]]]) -> None:
    """Create the floor store at ``url`` and bulk-load (table id, pit, rows) into its journal."""
    from floor import open_store

    with open_store(url) as store:
        for table_id, pit, _ in tables:
            store.add_table(table_id=table_id, pit=pit, game="oasis")
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url) as conn, conn.cursor() as cur:
            for table_id, _, rows in tables:
                with cur.copy("COPY journal (table_id, seq, kind, data, actor, at, hash) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row((table_id, *row))
            cur.execute("ANALYZE journal")
        return
    db = sqlite3.connect(url)
    with db:
        for table_id, _, rows in tables:
            db.executemany(
                "INSERT INTO journal (table_id, seq, kind, data, actor, at, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
                ((table_id, *row) for row in rows),
            )
    db.close()


def timed(*args: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "report", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"report failed: {done.stderr.strip()}")
    return took, done.stdout


def rounds_in(output: str) -> int:
    data = json.loads(output)
    return sum(int(t["rounds"]) for t in data["totals"])


def measure(url: str, label: str, *, tables: int, days: int, rows: list[Any]) -> None:
    floor_day = [(f"t{n:03d}", f"P{n % 10}", rows) for n in range(tables)]
    month = [shifted(rows, d) for d in range(days)]
    month_rows: list[Any] = []
    for d, part in enumerate(month):
        month_rows.extend((d * len(rows) + s, *rest) for s, *rest in part)
    started = time.perf_counter()
    load(url, [*floor_day, ("month", "M", month_rows)])
    print(f"[{label}] loaded {tables} tables × {len(rows):,} entries + a month of {len(month_rows):,} entries "
          f"in {time.perf_counter() - started:.0f} s")  # fmt: skip
    day = DAY.date().isoformat()
    took, out = timed("--db", url, "--day", day, "--tz", "UTC", "--format", "json", "--by", "pit")
    print(f"[{label}] floor day: {tables} tables, {rounds_in(out):,} rounds: {took:.2f} s")
    took, _ = timed("--db", url, "--day", day, "--tz", "UTC", "--by", "pit")
    print(f"[{label}] floor day, text output: {took:.2f} s")
    middle = (DAY + timedelta(days=days // 2)).date().isoformat()
    took, out = timed("--db", url, "--day", middle, "--tz", "UTC", "--table", "month", "--format", "json")
    print(f"[{label}] one day of the month table ({rounds_in(out):,} rounds): {took:.2f} s")
    end = (DAY + timedelta(days=days + 1)).date().isoformat()
    took, out = timed(
        "--db", url, "--from", "2026-11-01", "--to", end, "--tz", "UTC", "--table", "month", "--format", "json"
    )
    print(f"[{label}] the month table's whole month ({rounds_in(out):,} rounds): {took:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=500, help="rounds in the played day")
    parser.add_argument("--days", type=int, default=60, help="days in the month table")
    parser.add_argument("--pg", action="store_true", help="also on PostgreSQL (a throwaway cluster)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "dealer-assist" / "bench-reports")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = played_day(args.cache, args.rounds)
    print(f"played day: {args.rounds} rounds, {len(rows):,} entries ({time.perf_counter() - started:.0f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        measure(str(Path(tmp) / "floor.sqlite3"), "sqlite", tables=args.tables, days=args.days, rows=rows)
    if args.pg:
        from tests.floor.conftest import PgCluster, _free_port

        folder = Path(tempfile.mkdtemp(prefix="dealer-assist-pg-"))
        if os.geteuid() == 0:
            import shutil

            shutil.chown(folder, user="postgres", group="postgres")
        cluster = PgCluster(folder=folder, port=_free_port())
        cluster.init()
        cluster.start()
        try:
            measure(cluster.create_database(), "postgresql", tables=args.tables, days=args.days, rows=rows)
        finally:
            cluster.stop()
            import shutil

            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
