"""An admin edits a table's configuration through the API: between rounds only, validated, journaled, audited."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from controller.config import to_toml
from controller.engine import BoxBet
from controller.table import Actor, TableService
from tests.web_display.kit import login, make_app, make_table

DEALER = Actor("dana", "dealer")
TOML = {"Content-Type": "application/toml"}


@pytest.fixture
def table(tmp_path: Path) -> TableService:
    return make_table(tmp_path / "journal", "oasis", "T1")


@pytest.fixture
def client(tmp_path: Path, table: TableService) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, {"T1": table})) as c:
        yield c


def put_toml(client: TestClient, csrf: str, text: str) -> Response:
    return client.put("/api/tables/T1/config", content=text.encode(), headers={**TOML, "X-CSRF-Token": csrf})


def edited(table: TableService, old: str, new: str) -> str:
    text = to_toml(table.config)
    assert old in text, text
    return text.replace(old, new)


def test_an_admin_changes_the_maximum_payout_between_rounds(client: TestClient, table: TableService) -> None:
    csrf = login(client, "admin")
    shown = client.get("/api/tables/T1/config/toml").json()
    assert shown["game"] == "oasis" and "max_payout = 3000" in shown["toml"]
    response = client.put(
        "/api/tables/T1/config",
        content=edited(table, "max_payout = 3000", "max_payout = 4500").encode(),
        headers={**TOML, "X-CSRF-Token": csrf},
    )
    assert response.status_code == 200, response.text
    assert response.json()["changed"] == ["max_payout"]
    assert "max_payout = 4500" in response.json()["toml"]
    assert table.config.max_payout == 4500
    # Every display sees the new limit (the live snapshot), and the change is journaled with who.
    assert client.get("/api/tables/T1").json()["table"]["max_payout"] == 4500
    entry = list(table._store.entries())[-1]
    assert (entry.kind, entry.actor) == ("configured", "admin:admin")
    assert entry.data["settings"]["max_payout"] == 4500
    audit = client.get("/api/audit").json()
    assert any(e["action"] == "table-configured" and e["detail"] == "T1: max_payout" for e in audit)


def test_the_configuration_may_come_as_json(client: TestClient, table: TableService) -> None:
    csrf = login(client, "admin")
    response = client.put(
        "/api/tables/T1/config", json={"game": "oasis", "max_bet": 200}, headers={"X-CSRF-Token": csrf}
    )
    assert response.status_code == 200, response.text
    assert (table.config.max_bet, table.config.max_payout) == (200, 3000)  # the rest: the game's defaults


@pytest.mark.parametrize("who", ["dealer", "supervisor"])
def test_only_an_admin_may_change_it(client: TestClient, table: TableService, who: str) -> None:
    csrf = login(client, who)
    response = put_toml(client, csrf, edited(table, "max_payout = 3000", "max_payout = 9000"))
    assert response.status_code == 403
    assert response.json() == {"error": "only an admin may do this"}
    assert table.config.max_payout == 3000


def test_an_anonymous_change_is_refused(client: TestClient, table: TableService) -> None:
    response = client.put("/api/tables/T1/config", content=b'game = "oasis"', headers=TOML)
    assert response.status_code == 401
    assert table.config.max_payout == 3000


def test_during_a_round_the_change_is_pending_and_applies_when_the_round_ends(
    client: TestClient, table: TableService
) -> None:
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    csrf = login(client, "admin")
    response = put_toml(client, csrf, edited(table, "max_payout = 3000", "max_payout = 4500"))
    assert response.status_code == 200, response.text
    done = response.json()
    assert (done["pending"], done["round"], done["changed"]) == (True, 1, ["max_payout"])
    assert "max_payout = 4500" in done["toml"]  # what the admin saved, not what applies now
    assert table.config.max_payout == 3000
    view = json.loads(client.get("/api/tables/T1").text)
    assert view["pending_config"]["changes"] == [{"key": "max_payout", "old": 3000, "new": 4500}]
    audit = client.get("/api/audit").json()
    assert any(
        e["action"] == "table-configuration-staged" and e["detail"] == "T1: max_payout (from round 2)" for e in audit
    )
    table.void_round(actor=Actor("sam", "supervisor"), why="ends the round")
    assert table.config.max_payout == 4500
    assert json.loads(client.get("/api/tables/T1").text)["pending_config"] is None


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        ("max_payout = 3000", 'max_payout = "lots"', "max_payout = 'lots'"),
        ("max_payout = 3000", "max_payout = 0", "max_payout = 0"),
        ("max_payout = 3000", "max_payout = 3000\nmax_payuot = 5", "max_payuot"),
        ("max_bet = 100", "max_bet = 1", "min_bet 10 is above max_bet 1"),
    ],
)
def test_a_bad_setting_is_refused_naming_the_key(
    client: TestClient, table: TableService, old: str, new: str, named: str
) -> None:
    csrf = login(client, "admin")
    before = table.version
    response = put_toml(client, csrf, edited(table, old, new))
    assert response.status_code == 422
    assert named in response.json()["error"]
    assert table.version == before and table.config.max_payout == 3000


def test_text_that_is_not_toml_or_another_game_is_refused(client: TestClient, table: TableService) -> None:
    csrf = login(client, "admin")
    broken = put_toml(client, csrf, "max_payout = = 3")
    assert broken.status_code == 422
    assert broken.json()["error"].startswith("configuration TOML: ")
    other = put_toml(client, csrf, 'game = "casino-holdem"')
    assert other.status_code == 409
    assert "needs its own data folder" in other.json()["error"]
    not_object = client.put("/api/tables/T1/config", json=[1, 2], headers={"X-CSRF-Token": csrf})
    assert not_object.status_code == 422
    assert not_object.json() == {"error": "configuration JSON: expected an object of settings"}
    huge = put_toml(client, csrf, "# " + "x" * 300_000)
    assert huge.status_code == 413 and huge.json()["error"].startswith("request body too large")
    assert table.config.game == "oasis" and json.loads(client.get("/api/tables/T1").text)["table"]["max_payout"] == 3000
