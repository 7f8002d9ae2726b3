"""Reports add money up per unit of account: tables in two currencies (or two numbers of decimals) in one pit
give a line per currency at pit and floor level, never one sum; the CSV, the text and the page show each amount
with its currency and decimals. SQLite and PostgreSQL, as the other report tests."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.journal import SqliteJournal
from floor import FloorStore, open_store
from floor.replicator import Replicator
from floor.report_cli import make_report, render_text, text_cells
from floor.report_csv import AMOUNT_COLUMNS
from floor.report_sources import FloorSource, TableSource
from floor.reports import amount_text
from floor.web_reports import reports_router
from tests.floor.report_kit import Table, independent_sums

# Pit A holds a euro table in whole euros and a dollar table in cents; pit B a second euro table.
LAYOUT = (("A", "EUR", 0, 31), ("A", "USD", 2, 32), ("B", "EUR", 0, 33))
WHOLE = ("2026-11-24T00:00:00+00:00", "2026-11-25T00:00:00+00:00")


@dataclass
class Played:
    folder: Path
    table_id: str
    pit: str
    currency: str
    minor_units: int
    sums: dict[str, Any]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[Played]:
    out = []
    for pit, currency, minor_units, seed in LAYOUT:
        folder = tmp_path_factory.mktemp(f"t{seed}")
        table = Table(folder, seed=seed, step=timedelta(seconds=5), currency=currency, minor_units=minor_units)
        table.play(12)
        sums = independent_sums(table.entries(), start=WHOLE[0], end=WHOLE[1])
        out.append(Played(folder, table.store.table_id, pit, currency, minor_units, sums))
        table.close()
    return out


@pytest.fixture
def floor(floor_url: str, played: list[Played]) -> Iterator[FloorStore]:
    with open_store(floor_url) as store:
        for p in played:
            store.add_table(
                table_id=p.table_id, pit=p.pit, game="oasis", currency=p.currency, minor_units=p.minor_units
            )
            journal = SqliteJournal(path=p.folder / "journal.sqlite3", read_only=True)
            Replicator(journal=journal, store=store).ship()
            journal.close()
        yield store


def _figures(row: dict[str, Any]) -> tuple[int, ...]:
    return (row["rounds"], row["drop"], row["win"], row["payouts"], row["jackpot"]["contributions"])


def _sums(parts: list[Played]) -> tuple[int, ...]:
    keys = ("rounds", "drop", "win", "payouts", "jp_contrib")
    return tuple(sum(p.sums[k] for p in parts) for k in keys)


def test_a_pit_with_two_currencies_has_a_line_per_currency_and_the_floor_a_total_per_currency(
    floor: FloorStore, played: list[Played]
) -> None:
    report = make_report(FloorSource(floor), start=WHOLE[0], end=WHOLE[1], tz="UTC").to_json()
    euro, dollar = [p for p in played if p.currency == "EUR"], [p for p in played if p.currency == "USD"]
    assert all(p.sums["drop"] > 0 for p in played)
    for p in played:
        (row,) = [r for r in report["rows"] if r["table"] == p.table_id]
        assert (row["currency"], row["minor_units"]) == (p.currency, p.minor_units)
        assert _figures(row) == _sums([p])
    pits = {(r["pit"], r["currency"]): r for r in report["rows"] if r["level"] == "pit"}
    assert set(pits) == {("A", "EUR"), ("A", "USD"), ("B", "EUR")}
    assert _figures(pits[("A", "EUR")]) == _sums([p for p in euro if p.pit == "A"])
    assert _figures(pits[("A", "USD")]) == _sums(dollar)
    assert pits[("A", "USD")]["minor_units"] == 2 and pits[("A", "EUR")]["minor_units"] == 0
    floors = {r["currency"]: r for r in report["rows"] if r["level"] == "floor"}
    assert set(floors) == {"EUR", "USD"}
    assert _figures(floors["EUR"]) == _sums(euro) and _figures(floors["USD"]) == _sums(dollar)
    assert [(t["currency"], t["minor_units"], _figures(t)) for t in report["totals"]] == [
        ("EUR", 0, _sums(euro)),
        ("USD", 2, _sums(dollar)),
    ]


def test_the_csv_shows_each_amount_in_its_currency_with_its_decimals(floor: FloorStore, played: list[Played]) -> None:
    report = make_report(FloorSource(floor), start=WHOLE[0], end=WHOLE[1], tz="UTC")
    lines = [line for line in csv.DictReader(io.StringIO(report.to_csv())) if not line["tilt_kind"]]
    data = report.to_json()
    assert len(lines) == len(data["rows"]) + 2  # a total line per currency
    for line, row in zip(lines, [*data["rows"], *data["totals"]], strict=True):
        assert (line["currency"], int(line["minor_units"])) == (row["currency"], row["minor_units"])
        for column in AMOUNT_COLUMNS:
            text = line[column]
            # Exactly the currency's decimals, and back to the exact integer.
            assert ("." in text) == (row["minor_units"] > 0) and "," not in text
            if row["minor_units"]:
                assert len(text.split(".")[1]) == row["minor_units"]
        assert Decimal(line["drop"]).scaleb(row["minor_units"]) == row["drop"]
        assert Decimal(line["win"]).scaleb(row["minor_units"]) == row["win"]
    dollar = next(p for p in played if p.currency == "USD")
    (usd_total,) = [line for line in lines if line["level"] == "total" and line["currency"] == "USD"]
    drop = dollar.sums["drop"]
    assert usd_total["drop"] == f"{drop // 100}.{drop % 100:02d}"


def test_the_text_and_the_page_show_a_line_per_currency(floor: FloorStore, played: list[Played]) -> None:
    report = make_report(FloorSource(floor), start=WHOLE[0], end=WHOLE[1], tz="UTC")
    dollar = next(p for p in played if p.currency == "USD")
    euro_drop = sum(p.sums["drop"] for p in played if p.currency == "EUR")
    usd_drop = f"{dollar.sums['drop'] // 100:,}.{dollar.sums['drop'] % 100:02d}"
    text = render_text(report, by="pit")
    # "pit A", the game, then the currency, rounds, voided, rounds per hour and the drop.
    pit_a = [line.split() for line in text.splitlines() if line.startswith("pit A")]
    assert [(cells[3], cells[7]) for cells in pit_a] == [("EUR", f"{_pit_a_eur(played):,}"), ("USD", usd_drop)]
    assert f"Drop by bet (USD): ante {amount_text(_by_bet(report, 'USD'), 2)}" in text
    page = _page(floor)
    assert f"<td>USD</td><td>{dollar.sums['rounds']}</td>" in page
    assert f"<td>{usd_drop}</td>" in page and f"<td>{euro_drop:,}</td>" in page


def _pit_a_eur(played: list[Played]) -> int:
    return sum(p.sums["drop"] for p in played if (p.pit, p.currency) == ("A", "EUR"))


def _by_bet(report: Any, currency: str) -> int:
    total = next(t for t in report.totals if t.currency == currency)
    return int(total.figures.drop_by_bet["ante"])


def _page(store: FloorStore) -> str:
    app = FastAPI()
    app.include_router(reports_router(store=lambda: store))
    with TestClient(app) as client:
        got = client.get("/reports", params={"from": WHOLE[0][:16], "to": WHOLE[1][:16], "tz": "UTC", "by": "pit"})
    assert got.status_code == 200
    return got.text


def test_amounts_are_written_with_the_units_decimals_exactly() -> None:
    assert [amount_text(a, 0) for a in (0, 7, -7, 1234567)] == ["0", "7", "-7", "1,234,567"]
    assert [amount_text(a, 2) for a in (0, 5, -5, 99, 100, 123456, -123456)] == [
        "0.00",
        "0.05",
        "-0.05",
        "0.99",
        "1.00",
        "1,234.56",
        "-1,234.56",
    ]
    assert amount_text(123456789, 3, thousands=False) == "123456.789"
    row: dict[str, Any] = {"currency": "USD", "minor_units": 2, "rounds": 3, "voided": 0, "rounds_per_hour": "3.0"}
    row |= {"drop": 1050, "win": -5, "hold_pct": "-0.48", "payouts": 20000}
    row |= {
        "jackpot": {"contributions": 6, "hits": 0, "won": 0},
        "tilts": {"raised": 0, "open": 0, "avg_clear_s": None},
    }
    cells = text_cells(row)
    assert (cells["currency"], cells["drop"], cells["win"], cells["payouts"], cells["jp_contrib"]) == (
        "USD",
        "10.50",
        "-0.05",
        "200.00",
        "0.06",
    )


def test_a_table_folder_reports_in_the_currency_its_journal_was_configured_with(played: list[Played]) -> None:
    dollar = next(p for p in played if p.currency == "USD")
    source = TableSource(dollar.folder)
    try:
        report = make_report(source, start=WHOLE[0], end=WHOLE[1], tz="UTC").to_json()
    finally:
        source.close()
    (total,) = report["totals"]
    assert (total["currency"], total["minor_units"], _figures(total)) == ("USD", 2, _sums([dollar]))


def test_a_table_folder_whose_oldest_months_were_pruned_still_reports_in_its_currency(tmp_path: Path) -> None:
    # September's rounds go to an archive segment, which the casino's retention then deletes: the first
    # entry left is no longer the one that configured the table.
    table = Table(
        tmp_path / "t", start=datetime(2026, 9, 10, 20, 0, tzinfo=UTC), keep_months=2, seed=4, currency="USD",
        minor_units=2,
    )  # fmt: skip
    table.play(26)  # a checkpoint every 25 rounds: September's is where the archive is cut
    table.clock.now = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)
    table.play(26)
    table.close()
    (archived,) = (tmp_path / "t" / "archive").glob("*.sqlite3")
    archived.unlink()
    source = TableSource(tmp_path / "t")
    try:
        (info,) = source.tables()
        report = make_report(source, start="2026-11-01", end="2026-12-01", tz="UTC").to_json()
    finally:
        source.close()
    assert (info.currency, info.minor_units) == ("USD", 2)
    (total,) = report["totals"]
    assert (total["currency"], total["minor_units"], total["rounds"]) == ("USD", 2, 26)
