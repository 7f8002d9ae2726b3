"""Reports from real rounds: tables play, the journals replicate to the floor (SQLite and PostgreSQL), and every
figure is checked against the rounds' own settlements; range boundaries, shifts, tilts, CSV and JSON."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from controller.journal import SqliteJournal
from floor import FloorStore, open_store
from floor.replicator import Replicator
from floor.report_cli import make_report
from floor.report_csv import CSV_COLUMNS
from floor.report_sources import FloorSource, TableSource
from floor.reports import SCHEMA
from tests.floor.report_kit import START, Table, independent_sums

# Three tables in two pits, two games; the rounds run from 05:00 to past 06:00 UTC (a shift start).
LAYOUT = (("A", "oasis", 1), ("A", "casino-holdem", 2), ("B", "oasis", 3))
ROUNDS = 36
WHOLE = ("2026-11-24T00:00:00+00:00", "2026-11-25T00:00:00+00:00")


@dataclass
class Played:
    folder: Path
    table_id: str
    pit: str
    game: str
    entries: list[Any]
    tilts: list[tuple[str, float]]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[Played]:
    out = []
    for pit, game, seed in LAYOUT:
        folder = tmp_path_factory.mktemp(f"table{seed}")
        table = Table(folder, game=game, seed=seed, step=timedelta(seconds=7))
        table.play(ROUNDS, tilt_every=5)
        out.append(Played(folder, table.store.table_id, pit, game, table.entries(), table.tilts))
        table.close()
    return out


@pytest.fixture
def floor(floor_url: str, played: list[Played]) -> Iterator[FloorStore]:
    with open_store(floor_url) as store:
        for p in played:
            store.add_table(table_id=p.table_id, pit=p.pit, game=p.game)
            journal = SqliteJournal(path=p.folder / "journal.sqlite3", read_only=True)
            Replicator(journal=journal, store=store, batch=200).ship()
            journal.close()
        yield store


def _report(store: FloorStore, start: str = WHOLE[0], end: str = WHOLE[1], by: Any = None, **kw: Any) -> dict[str, Any]:
    result: dict[str, Any] = make_report(FloorSource(store), start=start, end=end, tz="UTC", **kw).to_json(by=by)
    return result


def _hold(win: int, drop: int) -> str:
    return str((Decimal(win) * 100 / Decimal(drop)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _check(row: dict[str, Any], sums: dict[str, Any]) -> None:
    assert row["rounds"] == sums["rounds"]
    assert row["drop"] == sums["drop"] and row["drop_by_bet"] == dict(sorted(sums["by_bet"].items()))
    assert row["win"] == sums["win"]
    assert row["payouts"] == sums["payouts"]
    assert row["voided"] == sums["voided"]
    assert row["jackpot"] == {"contributions": sums["jp_contrib"], "hits": sums["jp_hits"], "won": sums["jp_won"]}
    assert row["hold_pct"] == (_hold(sums["win"], sums["drop"]) if sums["drop"] else None)


def _add(sums: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {k: 0 for k in sums[0] if k != "by_bet"} | {"by_bet": {}}
    for s in sums:
        for k, v in s.items():
            if k == "by_bet":
                for bet, amount in v.items():
                    out["by_bet"][bet] = out["by_bet"].get(bet, 0) + amount
            else:
                out[k] += v
    return out


def test_every_figure_is_the_sum_of_the_rounds_settlements_per_table_pit_and_floor(
    floor: FloorStore, played: list[Played]
) -> None:
    report = _report(floor)
    assert report["schema"] == SCHEMA
    rows = {(r["level"], r["table"] or r["pit"] or ""): r for r in report["rows"]}
    sums = {p.table_id: independent_sums(p.entries, start=WHOLE[0], end=WHOLE[1]) for p in played}
    for p in played:
        row = rows[("table", p.table_id)]
        assert (row["pit"], row["game"]) == (p.pit, p.game)
        assert sums[p.table_id]["rounds"] == ROUNDS and sums[p.table_id]["jp_hits"] > 0
        _check(row, sums[p.table_id])
    for pit in ("A", "B"):
        _check(rows[("pit", pit)], _add([sums[p.table_id] for p in played if p.pit == pit]))
    whole = _add(list(sums.values()))
    _check(rows[("floor", "")], whole)
    _check(report["totals"][0], whole)
    assert rows[("pit", "A")]["game"] == "casino-holdem,oasis"
    # Drop groups split the same total: ante, play bets, fees, bonus.
    groups = rows[("floor", "")]["drop_groups"]
    assert sum(groups.values()) == whole["drop"] and groups["ante"] == whole["by_bet"]["ante"]
    assert groups["fees"] == whole["by_bet"].get("exchange-fee", 0)
    assert groups["play"] == whole["by_bet"].get("raise", 0) + whole["by_bet"].get("call", 0)


def test_a_round_settled_exactly_at_from_is_in_and_exactly_at_to_is_out(
    floor: FloorStore, played: list[Played]
) -> None:
    p = played[0]
    settled = [e for e in p.entries if e.kind == "round-settled"]
    at = settled[10].at
    before = _report(floor, start=WHOLE[0], end=at, tables=[p.table_id])
    after = _report(floor, start=at, end=WHOLE[1], tables=[p.table_id])
    assert before["totals"][0]["rounds"] == 10 and after["totals"][0]["rounds"] == ROUNDS - 10
    _check(after["totals"][0], independent_sums(p.entries, start=at, end=WHOLE[1]))
    # A bound a microsecond later moves that one round across.
    later = (datetime.fromisoformat(at) + timedelta(microseconds=1)).isoformat()
    assert _report(floor, start=WHOLE[0], end=later, tables=[p.table_id])["totals"][0]["rounds"] == 11


def test_shifts_cut_the_range_at_their_starts_and_add_up_to_it(floor: FloorStore, played: list[Played]) -> None:
    report = _report(floor, group="shift", shifts="06:00,14:00,22:00")
    floors = [r for r in report["rows"] if r["level"] == "floor"]
    assert [(r["period_start"], r["period_end"]) for r in floors] == [
        ("2026-11-24T00:00:00+00:00", "2026-11-24T06:00:00+00:00"),
        ("2026-11-24T06:00:00+00:00", "2026-11-24T14:00:00+00:00"),
        ("2026-11-24T14:00:00+00:00", "2026-11-24T22:00:00+00:00"),
        ("2026-11-24T22:00:00+00:00", "2026-11-25T00:00:00+00:00"),
    ]
    assert floors[0]["period"] == "2026-11-24 00:00–06:00 UTC"
    for floor_row in floors:
        start, end = floor_row["period_start"], floor_row["period_end"]
        _check(floor_row, _add([independent_sums(p.entries, start=start, end=end) for p in played]))
    assert floors[0]["rounds"] > 0 and floors[1]["rounds"] > 0  # the play crosses 06:00
    assert sum(r["rounds"] for r in floors) == report["totals"][0]["rounds"] == ROUNDS * len(played)
    # A gaming day starts at the first shift: --day is 06:00 to 06:00, in the zone given.
    day = make_report(FloorSource(floor), start=None, end=None, day="2026-11-24", tz="UTC").to_json()
    assert (day["from"], day["to"]) == ("2026-11-24T06:00:00+00:00", "2026-11-25T06:00:00+00:00")
    assert day["totals"][0]["rounds"] == floors[1]["rounds"]
    prague = make_report(FloorSource(floor), start=None, end=None, shift="2026-11-24T07:30", tz="Europe/Prague")
    assert (prague.start, prague.end) == ("2026-11-24T05:00:00+00:00", "2026-11-24T13:00:00+00:00")


def test_tilts_by_kind_with_their_time_to_clear(floor: FloorStore, played: list[Played]) -> None:
    report = _report(floor)
    by_kind = report["totals"][0]["tilts_by_kind"]
    expected: dict[str, list[float]] = {}
    for p in played:
        for kind, took in p.tilts:
            expected.setdefault(kind, []).append(took)
    assert set(by_kind) == set(expected) == {"dealer-card-exposed", "missing-card"}
    for kind, times in expected.items():
        ms = [round(t * 1000) for t in times]
        assert by_kind[kind]["raised"] == by_kind[kind]["cleared"] == len(times)
        assert by_kind[kind]["open"] == 0
        assert by_kind[kind]["max_clear_s"] == str(
            (Decimal(max(ms)) / 1000).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        )
        avg = Decimal(sum(ms) // len(ms)) / 1000
        assert by_kind[kind]["avg_clear_s"] == str(avg.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    # Cancelled rounds (dealer-card-exposed → cancel) count as voided.
    assert report["totals"][0]["voided"] == len(expected["dealer-card-exposed"])


def test_a_tilt_still_open_at_the_end_of_the_range_is_counted_open(floor: FloorStore, played: list[Played]) -> None:
    p = played[0]
    raised = next(e for e in p.entries if e.kind == "tilt-raised")
    end = (datetime.fromisoformat(raised.at) + timedelta(seconds=1)).isoformat()
    tilts = _report(floor, start=WHOLE[0], end=end, tables=[p.table_id])["totals"][0]["tilts"]
    assert tilts == {"raised": 1, "cleared": 0, "open": 1, "avg_clear_s": None, "max_clear_s": None}


def test_csv_parses_back_to_the_json_figures(floor: FloorStore) -> None:
    report = make_report(FloorSource(floor), start=WHOLE[0], end=WHOLE[1], tz="UTC", group="shift")
    lines = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert list(lines[0]) == list(CSV_COLUMNS)
    main = [r for r in lines if not r["tilt_kind"]]
    data = report.to_json()
    assert len(main) == len(data["rows"]) + 1 and main[-1]["level"] == "total"
    for line, row in zip(main, [*data["rows"], data["totals"][0]], strict=True):
        assert (line["period_start"], line["table"] or None) == (row["period_start"], row["table"])
        assert int(line["drop"]) == row["drop"] and int(line["win"]) == row["win"]
        assert int(line["rounds"]) == row["rounds"] and int(line["jackpot_won"]) == row["jackpot"]["won"]
        assert line["hold_pct"] == (row["hold_pct"] or "")
        assert sum(int(line[f"drop_{g}"]) for g in ("ante", "play", "fees", "bonus")) == row["drop"]
    kinds = [r for r in lines if r["tilt_kind"] and r["level"] == "total"]
    assert {r["tilt_kind"]: int(r["tilts"]) for r in kinds} == {
        k: v["raised"] for k, v in data["totals"][0]["tilts_by_kind"].items()
    }
    assert all(r["rounds"] == "" for r in kinds)
    # by=pit keeps the pits' rows and the total.
    assert {r["level"] for r in csv.DictReader(io.StringIO(report.to_csv(by="pit")))} == {"pit", "total"}


ROW_KEYS = [
    "level", "period_start", "period_end", "period", "table", "name", "pit", "game", "currency", "minor_units",
    "rounds", "voided", "redeals",
    "table_hours", "rounds_per_hour", "drop", "drop_groups", "drop_by_bet", "win", "hold_pct", "payouts", "cap_cut",
    "paid_short", "corrections", "corrections_handed", "jackpot", "tilts", "tilts_by_kind",
]  # fmt: skip


def test_json_schema_is_stable(floor: FloorStore) -> None:
    report = _report(floor, by="pit")
    assert list(report) == ["schema", "from", "to", "group", "tz", "rows", "totals"]
    assert [(t["currency"], t["minor_units"]) for t in report["totals"]] == [("EUR", 0)]  # one currency: one total
    assert {r["level"] for r in report["rows"]} == {"pit"}
    for row in [*report["rows"], report["totals"][0]]:
        assert list(row) == ROW_KEYS
        assert list(row["drop_groups"]) == ["ante", "play", "fees", "bonus"]
        assert list(row["jackpot"]) == ["contributions", "hits", "won"]
        assert list(row["tilts"]) == ["raised", "cleared", "open", "avg_clear_s", "max_clear_s"]
    assert report["totals"][0]["rounds_per_hour"] is not None


def test_a_table_folder_reports_the_same_as_the_floor_including_archived_months(tmp_path: Path) -> None:
    # September's rounds, then November's: the September ones move to an archive segment.
    table = Table(tmp_path / "t", start=datetime(2026, 9, 10, 20, 0, tzinfo=UTC), keep_months=2, seed=9)
    table.play(30, tilt_every=4)
    table.clock.now = START
    table.play(60, tilt_every=4)
    entries = table.entries()
    table.close()
    assert list((tmp_path / "t" / "archive").glob("*.sqlite3")), "nothing was archived"
    source = TableSource(tmp_path / "t")
    try:
        report = make_report(source, start="2026-09-01", end="2026-12-01", tz="UTC").to_json()
        september = make_report(source, start="2026-09-01", end="2026-10-01", tz="UTC").to_json()
    finally:
        source.close()
    _check(
        report["totals"][0],
        independent_sums(entries, start="2026-09-01T00:00:00+00:00", end="2026-12-01T00:00:00+00:00"),
    )
    assert report["totals"][0]["rounds"] == 90 and september["totals"][0]["rounds"] == 30
    (row,) = [r for r in report["rows"] if r["level"] == "table"]
    assert (row["pit"], row["game"]) == ("-", "oasis")
