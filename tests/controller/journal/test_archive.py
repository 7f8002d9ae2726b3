"""Old rounds move to archive segments beside the journal; the live file stays small, restarts and
history read across, and the chain runs on from one segment into the next."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.journal.archive import Segments, month_start, segment_paths
from controller.recall import find_round
from controller.table import Actor

from .kit import Clock, open_table, play


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_month_start_counts_back_calendar_months() -> None:
    assert month_start("2026-03-15T10:00:00+00:00", months_back=0) == "2026-03-01T00:00:00+00:00"
    assert month_start("2026-03-15T10:00:00+00:00", months_back=1) == "2026-02-01T00:00:00+00:00"
    assert month_start("2026-01-02T00:00:00+00:00", months_back=2) == "2025-11-01T00:00:00+00:00"


def test_rounds_older_than_two_months_are_archived_and_still_read(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    clock = Clock(step=3600.0)  # about a day per round
    table = open_table(folder / "journal.sqlite3", clock=clock)
    play(table, 160)
    recall = [item.to_json() for item in table.recall]
    table._store.close()

    segments = segment_paths(folder / "journal.sqlite3")
    assert len(segments) >= 3, segments  # at least two archive segments and the live file
    live = Segments(journal=folder / "journal.sqlite3")
    try:
        first_live = live.live.base_seq
        assert first_live > 0
        oldest_live = next(live.live.entries())
        assert oldest_live.at >= month_start(clock.now.isoformat(), months_back=2)
        assert [r.round for r in live.finished()] == list(range(1, 161))
    finally:
        live.close()

    # A restart reads only the live file; the table is the same.
    again = open_table(folder / "journal.sqlite3", clock=clock)
    assert [item.to_json() for item in again.recall] == recall
    # A supervisor's recall of an archived round reads it from its month's segment.
    archived = find_round(again.journal_store, 3)
    assert archived is not None and archived.round == 3 and archived.record.to_json()["boxes"]
    assert find_round(again.journal_store, 161) is None
    # A payment dispute over an archived round is recorded too (its due read from the archive).
    paying = [
        (n, b["box"])
        for n in range(1, 30)
        if (item := find_round(again.journal_store, n)) is not None and item.record.void is None
        for b in item.to_json()["settlement"]["boxes"]
        if b["main"] + b["bonus"] > 0
    ]
    assert paying, "no box won in the first 29 rounds"
    number, box = paying[0]
    again.correct_payment(number, box, paid=0, handed=0, actor=Actor("sam", "supervisor"), why="dispute")
    assert again.payments[f"{number}:{box}"]["corrections"][0]["why"] == "dispute"
    again._store.close()

    # history across the segments, by count and by time.
    every = [json.loads(line) for line in cli("history", "--data", str(folder)).stdout.splitlines()]
    assert [r["round"] for r in every] == list(range(1, 161))
    last = cli("history", "--data", str(folder), "--last", "3")
    assert [json.loads(line)["round"] for line in last.stdout.splitlines()] == [158, 159, 160]
    start, end = "2026-02-01", "2026-03-01"
    window = cli("history", "--data", str(folder), "--from", start, "--to", end)
    assert window.returncode == 0, window.stderr
    rounds = [json.loads(line)["round"] for line in window.stdout.splitlines()]
    assert rounds and rounds == sorted(rounds) and len(rounds) < 40

    # The whole chain, across every segment, verifies.
    verified = cli("journal", "verify", "--data", str(folder))
    assert verified.returncode == 0, verified.stdout
    assert json.loads(verified.stdout)["segments"] == len(segments)


def test_a_missing_archive_segment_is_reported_by_verify(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    table = open_table(folder / "journal.sqlite3", clock=Clock(step=3600.0))
    play(table, 120)
    table._store.close()
    first = segment_paths(folder / "journal.sqlite3")[0]
    first.unlink()
    report = json.loads(cli("journal", "verify", "--data", str(folder)).stdout)
    assert not report["ok"] and "an archive segment is missing" in report["problems"][0]
