"""The reports router on a tiny app of our own: the page, the JSON and CSV downloads, and clear refusals."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.journal import SqliteJournal
from floor import FloorStore, open_store
from floor.replicator import Replicator
from floor.report_cli import make_report
from floor.report_sources import FloorSource
from floor.web_reports import reports_router
from tests.floor.report_kit import Table

RANGE = {"from": "2026-11-24T00:00", "to": "2026-11-25T00:00", "tz": "UTC"}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, str, str]]:
    out = []
    for pit, seed in (("A", 21), ("B", 22)):
        folder = tmp_path_factory.mktemp(f"t{seed}")
        table = Table(folder, seed=seed, step=timedelta(seconds=5))
        table.play(15, tilt_every=4)
        out.append((folder, table.store.table_id, pit))
        table.close()
    return out


@pytest.fixture
def store(floor_url: str, folders: list[tuple[Path, str, str]]) -> Iterator[FloorStore]:
    with open_store(floor_url) as floor:
        for folder, table_id, pit in folders:
            floor.add_table(table_id=table_id, pit=pit, game="oasis")
            journal = SqliteJournal(path=folder / "journal.sqlite3", read_only=True)
            Replicator(journal=journal, store=floor).ship()
            journal.close()
        yield floor


def _client(store: FloorStore, prefix: str = "") -> TestClient:
    app = FastAPI()
    app.include_router(reports_router(store=lambda: store), prefix=prefix)
    return TestClient(app)


def test_api_gives_the_same_report_as_the_command_in_json_and_csv(store: FloorStore) -> None:
    expected = make_report(FloorSource(store), start=RANGE["from"], end=RANGE["to"], tz="UTC")
    client = _client(store)
    got = client.get("/api/reports", params=RANGE)
    assert got.status_code == 200 and got.json() == expected.to_json(by="table")
    assert got.json()["totals"][0]["rounds"] == 30
    by_pit = client.get("/api/reports", params={**RANGE, "by": "pit"}).json()
    assert [r["pit"] for r in by_pit["rows"]] == ["A", "B"]
    download = client.get("/api/reports", params={**RANGE, "format": "csv"})
    assert download.status_code == 200 and download.headers["content-type"].startswith("text/csv")
    assert download.headers["content-disposition"].startswith('attachment; filename="report-')
    assert download.text == expected.to_csv(by="table")
    lines = list(csv.DictReader(io.StringIO(download.text)))
    (total,) = [r for r in lines if r["level"] == "total" and not r["tilt_kind"]]
    assert int(total["drop"]) == expected.totals[0].figures.drop


def test_the_page_shows_the_figures_with_totals_and_download_links(store: FloorStore) -> None:
    report = make_report(FloorSource(store), start=RANGE["from"], end=RANGE["to"], tz="UTC").to_json()
    client = _client(store, prefix="/floor")
    page = client.get("/floor/reports", params={**RANGE, "by": "pit"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    text = page.text
    assert "<td>pit A</td>" in text and "<td>pit B</td>" in text
    assert '<tr class=total><td>Total</td><td class="game">oasis</td>' in text
    total = report["totals"][0]
    assert f"<td>{total['drop']:,}</td>" in text and f"<td>{total['win']:,}</td>" in text
    assert "Tilts by kind" in text and "dealer-card-exposed" in text
    # The links keep the query and are relative, so they work under the service's prefix.
    assert 'href="api/reports?from=2026-11-24T00%3A00&amp;to=2026-11-25T00%3A00&amp;group=range&amp;by=pit' in text
    link = text.split('href="api/reports?')[1].split('"')[0].replace("&amp;", "&")
    assert '<link rel="stylesheet" href="reports.css">' in text  # no inline style: the CSP forbids it
    assert link.endswith("format=csv")
    assert client.get(f"/floor/api/reports?{link}").text.startswith("level,period_start")
    assert client.get("/floor/reports.css").headers["content-type"].startswith("text/css")
    # The form sends its from/to fields along with a day chosen: the day wins.
    both = client.get("/floor/reports", params={**RANGE, "day": "2026-11-24"})
    assert both.status_code == 200 and "2026-11-24T06:00:00+00:00 to 2026-11-25T06:00:00+00:00" in both.text
    # No range given: today's gaming day, still a page.
    assert client.get("/floor/reports").status_code == 200


def test_refusals_are_one_line_and_never_a_traceback(store: FloorStore, pg_cluster: Any) -> None:
    client = _client(store)
    bad = client.get("/api/reports", params={"from": "soon"})
    assert bad.status_code == 400
    assert bad.json() == {"detail": "--from 'soon': give a date or time, e.g. 2026-11-24 or 2026-11-24T06:00"}
    backwards = client.get("/api/reports", params={"from": "2026-11-25", "to": "2026-11-24"})
    assert backwards.status_code == 400 and "is not after" in backwards.json()["detail"]
    assert client.get("/api/reports", params={**RANGE, "format": "xml"}).status_code == 400
    assert client.get("/api/reports", params={**RANGE, "by": "casino"}).json() == {
        "detail": "by 'casino': one of table, pit, floor"
    }
    page = client.get("/reports", params={"from": "soon"})
    assert page.status_code == 400 and "give a date or time" in page.text and "<form" in page.text
    gone = open_store("postgresql://postgres@127.0.0.1:1/none?connect_timeout=1", migrate=False, timeout=1)
    try:
        down = _client(gone).get("/api/reports", params=RANGE)
    finally:
        gone.close()
    assert down.status_code == 503 and down.json()["detail"].startswith("floor unavailable: ")
