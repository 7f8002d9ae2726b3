"""Benchmark: restart cost, memory and history at a day, a month and a year of play; durable appends;
``journal verify`` throughput.

    ./run bench journal [--ages 1200,36000,438000] [--cache DIR] [--verify-year]

Each age's journal is played through the real table code (the table service, the autoplayer's bets and
decisions, a shoe drawing random cards) on a fake clock at 50 rounds an hour, with fsync off while it
is generated (the format and the code path are the production ones; only the durability of the
generation is skipped). Journals are kept in ``--cache`` (default ~/.cache/dealer-assist/bench-journal)
and reused: the year takes a while to play once.

Measured, each in a fresh process so that peak memory is the process's own:
- restart: open the journal (lock, head and chain checks), restore the newest checkpoint, replay the
  entries after it — wall time and peak RSS (targets: ≤ 2 s and ≤ 300 MB at every age);
- ``dealer-assist history --last 10``, the command as a user runs it (target ≤ 1 s at a year);
- the journal's size on disk (live file, archives);
- durable appends per second (WAL, synchronous=FULL: one fsync'd transaction each; target ≥ 1,000/s);
- ``dealer-assist journal verify`` throughput (entries per second) on the day and the month, and on
  the year with ``--verify-year``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FORMAT = "journal-bench-2"  # bump when the journal format or the generator changes
ROUND_SECONDS = 72.0  # 50 rounds an hour


class Clock:
    """Moves ahead by a fixed step at every reading: about ROUND_SECONDS per round."""

    def __init__(self, start: datetime, step: float) -> None:
        self.now = start
        self.step = timedelta(seconds=step)

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def generate(folder: Path, rounds: int) -> None:
    """Play ``rounds`` rounds into ``folder`` (a table's data folder)."""
    import random

    from controller.autoplay import AutoplayConfig, AutoPlayer
    from controller.cards import DECK
    from controller.config import build_config
    from controller.journal import SqliteJournal
    from controller.table import TableService

    folder.mkdir(parents=True, exist_ok=True)
    # About 26 clock readings a round: a reading every ROUND_SECONDS / 26 keeps 50 rounds an hour.
    start = datetime(2025, 11, 1, 10, 0, tzinfo=UTC)
    clock = Clock(start, ROUND_SECONDS / 26)
    config = build_config({"game": "oasis", "jackpot": {"enabled": True, "reset": 10_000, "contribution": 1}})
    store = SqliteJournal(path=folder / "journal.sqlite3", durable=False)
    table = TableService(config=config, store=store, clock=clock)
    rng = random.Random(rounds)
    codes = [c.code for c in DECK]

    def draw() -> None:
        rnd = table.round
        dealt = {card.code for card, _ in rnd.dealt()} if rnd is not None else set()
        table.on_card(rng.choice([c for c in codes if c not in dealt]), counter=(table.last_counter or 0) + 1)

    player = AutoPlayer(table=table, draw=draw, config=AutoplayConfig(pace=0, seed=rounds))
    started = time.perf_counter()
    while table.round_no < rounds or table.round is not None:
        done = player.step()
        if done.startswith(("refused", "waiting")):
            raise SystemExit(f"generation stuck at round {table.round_no}: {done}")
        if table.round is None and table.round_no % 5000 == 0 and table.round_no:
            rate = table.round_no / (time.perf_counter() - started)
            print(f"  ... {table.round_no:,} rounds ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    store.close()


def journal(cache: Path, rounds: int) -> Path:
    folder = cache / f"{FORMAT}-{rounds}"
    if not (folder / "done").exists():
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        print(f"playing {rounds:,} rounds into {folder} (once; reused afterwards)", file=sys.stderr, flush=True)
        started = time.perf_counter()
        generate(folder, rounds)
        (folder / "done").write_text(f"{time.perf_counter() - started:.1f} s\n")
    return folder


RESTART = """
import json, resource, sys, time
started = time.perf_counter()
from controller.journal import SqliteJournal
from controller.table import TableService
imported = time.perf_counter()
store = SqliteJournal(path=sys.argv[1])
table = TableService(store=store)
done = time.perf_counter()
store.close()
print(json.dumps({"restart": done - imported, "imports": imported - started, "round": table.round_no,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure_restart(folder: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", RESTART, str(folder / "journal.sqlite3")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def timed_cli(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "controller.cli", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if out.returncode not in (0, 1):
        raise SystemExit(f"dealer-assist {' '.join(args)} failed: {out.stderr.strip()}")
    return elapsed, out


def size(folder: Path) -> tuple[int, int]:
    live = sum(p.stat().st_size for p in folder.glob("journal.sqlite3*") if p.is_file())
    archive = folder / "archive"
    archived = sum(p.stat().st_size for p in archive.glob("*.sqlite3")) if archive.is_dir() else 0
    return live, archived


def appends_per_second(count: int) -> float:
    from controller.journal import SqliteJournal

    with tempfile.TemporaryDirectory(dir=ROOT) as tmp:
        store = SqliteJournal(path=Path(tmp) / "appends.sqlite3")
        data = {"card": "As", "counter": 1, "shoe": "BENCH"}
        started = time.perf_counter()
        for i in range(count):
            store.append("card", {**data, "counter": i}, actor="shoe:shoe", at="2026-11-22T00:00:00+00:00")
        elapsed = time.perf_counter() - started
        store.close()
    return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ages", default="1200,36000,438000", help="rounds played, comma-separated")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "dealer-assist" / "bench-journal")
    parser.add_argument("--appends", type=int, default=3000, help="durable appends to time")
    parser.add_argument("--verify-year", action="store_true", help="also verify the largest journal (slow)")
    args = parser.parse_args()
    ages = [int(a) for a in args.ages.split(",")]
    load = os.getloadavg()[0]
    print(f"load average {load:.2f}; cache {args.cache}")
    rows = []
    for rounds in ages:
        folder = journal(args.cache, rounds)
        restarts = [measure_restart(folder) for _ in range(3)]
        best = min(restarts, key=lambda r: r["restart"])
        history_s = min(timed_cli("history", "--data", str(folder), "--last", "10")[0] for _ in range(3))
        live, archived = size(folder)
        verify = None
        if rounds != max(ages) or args.verify_year:
            elapsed, out = timed_cli("journal", "verify", "--data", str(folder))
            report = json.loads(out.stdout)
            verify = (report["entries"] / report["seconds"], report["ok"], elapsed)
        rows.append((rounds, best, max(r["rss_mb"] for r in restarts), history_s, live, archived, verify))
    print()
    print(f"{'rounds':>9} {'restart s':>10} {'peak RSS MB':>12} {'history --last 10 s':>20} "
          f"{'live MB':>8} {'archived MB':>12} {'verify entries/s':>17}")  # fmt: skip
    for rounds, best, rss, history_s, live, archived, verify in rows:
        verified = f"{verify[0]:,.0f}{'' if verify[1] else ' (PROBLEMS)'}" if verify else "-"
        print(
            f"{rounds:>9,} {best['restart']:>10.3f} {rss:>12.0f} {history_s:>20.3f} "
            f"{live / 2**20:>8.1f} {archived / 2**20:>12.1f} {verified:>17}"
        )
    print("(restart excludes the interpreter's start and imports; history is the whole command, interpreter included)")
    rate = appends_per_second(args.appends)
    print(f"\ndurable appends (WAL, synchronous=FULL, fsync each): {rate:,.0f}/s")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
