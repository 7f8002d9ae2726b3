"""Hold'em with exchange: the dealer shows his hand early through the API (box 0), the boxes still to
decide may only fold or withdraw, and a withdrawn box gets its ante back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.engine import BoxBet
from controller.table import Actor, TableService
from tests.controller.roundkit import passes
from tests.web_display.kit import deal, login, make_app, make_table

DEALER = Actor("dana", "dealer")
# Box 1 Ac Kd, box 2 7h 2s, dealer Qc Jd; board 4 and 5 (face down) Qs 2d, flop Ah 5c 9d.
CARDS = [*passes({1: "Ac Kd", 2: "7h 2s"}, "Qc Jd", n=2), "Qs", "2d", "Ah", "5c", "9d"]


@pytest.fixture
def table(tmp_path: Path) -> TableService:
    table = make_table(tmp_path / "journal", "holdem-exchange", "T1")
    table.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=20)], actor=DEALER)
    deal(table, CARDS)
    return table


@pytest.fixture
def client(tmp_path: Path, table: TableService) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, {"T1": table})) as c:
        yield c


def test_a_withdrawn_box_gets_its_ante_back(client: TestClient, table: TableService) -> None:
    csrf = login(client, "dealer")
    headers = {"X-CSRF-Token": csrf}
    assert client.post("/api/tables/T1/actions", json={"box": 1, "action": "bet"}, headers=headers).status_code == 200
    view = client.get("/api/tables/T1").json()
    assert view["decide"]["box"] == 2 and view["decide"]["options"] == ["fold", "bet", "buy"]
    assert [c["face_up"] for c in view["dealer"]] == [False, False]
    shown = client.post("/api/tables/T1/actions", json={"box": 0, "action": "dealer-shown"}, headers=headers)
    assert shown.status_code == 200, shown.text
    view = client.get("/api/tables/T1").json()
    assert view["decide"]["box"] == 2 and view["decide"]["options"] == ["fold", "withdraw"]
    assert [c["code"] for c in view["dealer"]] == ["Qc", "Jd"]  # shown: face up for everyone now
    again = client.post("/api/tables/T1/actions", json={"box": 0, "action": "dealer-shown"}, headers=headers)
    assert again.status_code == 422 and "already shown" in again.json()["error"]
    betting = client.post("/api/tables/T1/actions", json={"box": 2, "action": "bet"}, headers=headers)
    assert betting.status_code == 422  # only fold or withdraw once the dealer's hand is seen
    withdraw = client.post("/api/tables/T1/actions", json={"box": 2, "action": "withdraw"}, headers=headers)
    assert withdraw.status_code == 200, withdraw.text
    settlement = client.get("/api/tables/T1").json()["settlement"]
    box2 = next(b for b in settlement["boxes"] if b["box"] == 2)
    assert (box2["outcome"], box2["net"]) == ("withdrawn", 0)  # the ante of 20 comes back
    assert box2["cards"] == [None, None]  # withdrawn unseen: its cards stay face down
    entry = [e for e in table._store.entries() if e.kind == "action"][1]
    assert (entry.data["box"], entry.data["action"], entry.actor) == (0, "dealer-shown", "dealer:dealer")


def test_box_zero_is_only_for_the_dealers_own_actions(client: TestClient) -> None:
    csrf = login(client, "dealer")
    headers = {"X-CSRF-Token": csrf}
    fold = client.post("/api/tables/T1/actions", json={"box": 0, "action": "fold"}, headers=headers)
    assert fold.status_code == 422
    assert fold.json()["error"] == (
        "'fold' is not a dealer action of Hold'em with exchange (rule holdem-exchange.table-actions)"
    )
    negative = client.post("/api/tables/T1/actions", json={"box": -1, "action": "fold"}, headers=headers)
    assert negative.status_code == 422 and negative.json()["error"].startswith("box: ")
