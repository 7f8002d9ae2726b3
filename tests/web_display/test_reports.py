"""The dealer's reports from the display: each irregularity the dealer can see becomes a tilt journaled
under the dealer (docs/irregularities.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.engine import BoxBet
from controller.table import Actor
from tests.controller.test_table_payments import paying_showdown
from tests.web_display.kit import deal, login, make_app, make_table

DEALER = Actor("dealer", "dealer")


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("wrong-box", "a card went to the wrong box"),
        ("extra-card", "a box got an extra card"),
        ("skipped-box", "a playing box was skipped"),
        ("missing-card", "a card is missing"),
        ("dealer-card-exposed", "a dealer card was exposed"),
    ],
)
def test_each_report_is_a_tilt_under_the_dealer(tmp_path: Path, kind: str, message: str) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        csrf = {"X-CSRF-Token": login(client, "dealer")}
        table.open_round([BoxBet(box=1, ante=10), BoxBet(box=3, ante=10)], actor=DEALER)
        deal(table, ["9s", "8c"])
        reported = client.post("/api/tables/T1/reports", json={"kind": kind}, headers=csrf)
        assert reported.status_code == 201, reported.text
        (tilt,) = client.get("/api/tables/T1").json()["tilts"]
    assert tilt["message"] == message
    last = list(table.journal_store.entries())[-1]
    assert (last.kind, last.actor) == ("tilt-raised", "dealer:dealer")


def test_a_deal_out_of_order_with_no_round_open_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        csrf = {"X-CSRF-Token": login(client, "dealer")}
        before = table.version
        refused = client.post("/api/tables/T1/reports", json={"kind": "skipped-box"}, headers=csrf)
        unknown = client.post("/api/tables/T1/reports", json={"kind": "box-on-fire"}, headers=csrf)
    assert refused.status_code == 409 and "no round is open" in refused.json()["error"]
    assert unknown.status_code == 422
    assert table.version == before


def test_a_short_payment_through_the_api_is_owed_until_a_supervisor_corrects_it(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        dealer = {"X-CSRF-Token": login(client, "dealer")}
        box, due = paying_showdown(table)
        bad = client.post("/api/tables/T1/settlement/confirm", json={"paid": {"1": -5}}, headers=dealer)
        assert bad.status_code == 422
        confirmed = client.post("/api/tables/T1/settlement/confirm", json={"paid": {str(box): due - 5}}, headers=dealer)
        assert confirmed.status_code == 200, confirmed.text
        owed = client.get("/api/tables/T1").json()["payments_owed"]
        assert owed == [{"round": 1, "box": box, "due": due, "paid": due - 5, "short": 5}]
        body = {"paid": due, "handed": 5, "why": "paid the rest"}
        refused = client.post(f"/api/tables/T1/rounds/1/payments/{box}", json=body, headers=dealer)
        assert refused.status_code == 403
        client.post("/api/logout", headers=dealer)
        supervisor = {"X-CSRF-Token": login(client, "supervisor")}
        corrected = client.post(f"/api/tables/T1/rounds/1/payments/{box}", json=body, headers=supervisor)
        assert corrected.status_code == 200, corrected.text
        assert client.get("/api/tables/T1").json()["payments_owed"] == []
        recalled = client.get("/api/tables/T1/rounds/1").json()["payments"]
        assert recalled[0]["corrections"][0] | {"at": None} == {
            "paid": due,
            "handed": 5,
            "why": "paid the rest",
            "by": "supervisor:supervisor",
            "at": None,
        }
        # An old-style confirmation with no body still works.
        assert client.post("/api/tables/T1/settlement/confirm", headers=supervisor).status_code == 409
