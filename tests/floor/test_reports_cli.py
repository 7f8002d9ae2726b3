"""``dealer-assist report`` on --db (both backends) and --data (a table's folder, a folder with the embedded
floor), its three formats, and its one-line refusals."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.journal import SqliteJournal
from floor import open_store
from floor.replicator import Replicator
from tests.floor.report_kit import Table, independent_sums

WHOLE = ["--from", "2026-11-24T00:00Z", "--to", "2026-11-25T00:00Z"]
ONE_OF = "give one of --from TIME [--to TIME], --day DATE or --shift TIME"
SPAN = ("2026-11-24T00:00:00+00:00", "2026-11-25T00:00:00+00:00")


@pytest.fixture(scope="module")
def table_folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any], str]:
    folder = tmp_path_factory.mktemp("table")
    table = Table(folder, seed=4, step=timedelta(seconds=5))
    table.play(25, tilt_every=6)
    entries, table_id = table.entries(), table.store.table_id
    table.close()
    return folder, entries, table_id


def _replicate(url: str, folder: Path, table_id: str) -> None:
    with open_store(url) as store:
        store.add_table(table_id=table_id, pit="P1", game="oasis")
        journal = SqliteJournal(path=folder / "journal.sqlite3", read_only=True)
        Replicator(journal=journal, store=store).ship()
        journal.close()


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["report", *argv, "--format", "json"]) == 0, capsys.readouterr().err
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_report_on_db_and_on_a_table_folder_agree_with_the_settlements(
    floor_url: str, table_folder: tuple[Path, list[Any], str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, entries, table_id = table_folder
    _replicate(floor_url, folder, table_id)
    sums = independent_sums(entries, start=SPAN[0], end=SPAN[1])
    on_db = _json(capsys, "--db", floor_url, *WHOLE)
    on_folder = _json(capsys, "--data", str(folder), *WHOLE)
    for report in (on_db, on_folder):
        total = report["totals"][0]
        assert (total["rounds"], total["drop"], total["win"], total["payouts"]) == (
            sums["rounds"],
            sums["drop"],
            sums["win"],
            sums["payouts"],
        )
        assert total["jackpot"]["won"] == sums["jp_won"] and total["tilts"]["raised"] > 0
    (db_row,) = [r for r in on_db["rows"] if r["level"] == "table"]
    (folder_row,) = [r for r in on_folder["rows"] if r["level"] == "table"]
    assert db_row["pit"] == "P1" and folder_row["pit"] == "-"
    assert {k: v for k, v in db_row.items() if k != "pit"} == {k: v for k, v in folder_row.items() if k != "pit"}
    # --by pit and --by floor keep one level's rows.
    assert {r["level"] for r in _json(capsys, "--db", floor_url, *WHOLE, "--by", "pit")["rows"]} == {"pit"}
    assert main(["report", "--db", floor_url, *WHOLE, "--format", "csv", "--by", "floor"]) == 0
    lines = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    (total_line,) = [r for r in lines if r["level"] == "total" and not r["tilt_kind"]]
    assert {r["level"] for r in lines} == {"floor", "total"} and int(total_line["drop"]) == sums["drop"]


def test_data_folder_with_the_embedded_floor_reads_the_floor(
    tmp_path: Path, table_folder: tuple[Path, list[Any], str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, entries, table_id = table_folder
    _replicate(str(tmp_path), folder, table_id)  # a folder: its floor.sqlite3
    report = _json(capsys, "--data", str(tmp_path), *WHOLE)
    assert [r["pit"] for r in report["rows"] if r["level"] == "table"] == ["P1"]
    assert report["totals"][0]["rounds"] == independent_sums(entries, start=SPAN[0], end=SPAN[1])["rounds"]


def test_text_output_is_a_readable_table_with_totals(
    table_folder: tuple[Path, list[Any], str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, entries, table_id = table_folder
    sums = independent_sums(entries, start=SPAN[0], end=SPAN[1])
    assert main(["report", "--data", str(folder), *WHOLE, "--group", "shift", "--tz", "UTC"]) == 0
    text = capsys.readouterr().out
    assert "2026-11-24 00:00–06:00 UTC" in text and "2026-11-24 06:00–14:00 UTC" in text
    header = next(line for line in text.splitlines() if "Rounds" in line)
    for title in (
        "Game",
        "Currency",
        "Rounds",
        "Void",
        "R/h",
        "Drop",
        "Win",
        "Hold %",
        "Payouts",
        "JP contrib",
        "Tilts",
    ):
        assert title in header
    whole = text.split("Whole range\n")[1].splitlines()[1].split()
    assert whole[:4] == ["floor", "oasis", "EUR", str(sums["rounds"])]  # the table folder's configured currency
    assert f"{sums['drop']:,}" in whole and f"{sums['win']:,}" in whole
    assert table_id in text
    assert "Tilts by kind" in text and "dealer-card-exposed" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from", "yesterday"], "--from 'yesterday': give a date or time, e.g. 2026-11-24 or 2026-11-24T06:00"),
        (["--from", "2026-11-24", "--to", "2026-11-23"], "--to 2026-11-23 is not after --from 2026-11-24"),
        (["--from", "2026-11-24", "--to", "2026-11-24"], "--to 2026-11-24 is not after --from 2026-11-24"),
        ([], ONE_OF),
        (["--day", "2026-11-24", "--from", "2026-11-24"], ONE_OF),
        (["--day", "24.11.2026"], "--day '24.11.2026': give a date, e.g. 2026-11-24"),
        (["--day", "2026-11-24", "--tz", "Mars/Olympus"], "--tz 'Mars/Olympus': not a time zone name "
         "(e.g. Europe/Prague or UTC)"),
        (["--day", "2026-11-24", "--shifts", "6h"], "--shifts '6h': give local start times, e.g. 06:00,14:00,22:00"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line(
    argv: list[str], message: str, table_folder: tuple[Path, list[Any], str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--data", str(table_folder[0]), *argv]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"dealer-assist report: {message}\n" and captured.out == ""


def test_no_floor_here_and_unreachable_database_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_cluster: Any
) -> None:
    assert main(["report", "--data", str(tmp_path), "--day", "2026-11-24"]) == 2
    assert capsys.readouterr().err == (
        f"dealer-assist report: {tmp_path}: no floor store (floor.sqlite3) or table journal (journal.sqlite3) here\n"
    )
    (tmp_path / "file").write_text("x")
    assert main(["report", "--data", str(tmp_path / "file"), "--day", "2026-11-24"]) == 2
    assert capsys.readouterr().err == (
        f"dealer-assist report: {tmp_path / 'file'}: not a folder (give a table's data folder or the floor's)\n"
    )
    assert main(["report", "--db", str(tmp_path / "none.sqlite3"), "--day", "2026-11-24"]) == 2
    assert capsys.readouterr().err == f"dealer-assist report: {tmp_path / 'none.sqlite3'}: no floor store here\n"
    assert main(["report", "--db", pg_cluster.create_database(), "--day", "2026-11-24"]) == 2
    assert "holds no floor store yet" in capsys.readouterr().err
    url = "postgresql://postgres@127.0.0.1:1/none?connect_timeout=1"
    assert main(["report", "--db", url, "--day", "2026-11-24"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dealer-assist report: floor unavailable: ") and err.count("\n") == 1
    assert not (tmp_path / "floor.sqlite3").exists()  # reports never create a store
