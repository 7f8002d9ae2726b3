"""Recall through the API: the last rounds for anyone signed in, older ones for a supervisor (or by
override), and in every game only the cards that were face up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.table import Actor
from tests.web_display.kit import PASSWORD, leaked, login, make_app, make_table, play_rounds
from tests.web_display.rounds import SCRIPTS, fed_cards, play_round

DEALER = Actor("dana", "dealer")


@pytest.mark.parametrize("game", list(SCRIPTS))
def test_recall_shows_a_rounds_face_up_cards_and_nothing_else(tmp_path: Path, game: str) -> None:
    script = SCRIPTS[game]
    table = make_table(tmp_path / "journal", game, "T1", **script.settings)
    shown = play_round(table, script, actor=DEALER)
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        for who in ("dealer", "supervisor"):
            client.cookies.clear()
            login(client, who)
            response = client.get("/api/tables/T1/rounds/1")
            assert response.status_code == 200, response.text
            text = response.text
            assert not leaked(text, [c for c in fed_cards(script) if c not in shown]), text
            assert set(leaked(text, sorted(shown))) == shown  # every face-up card is there
            detail = response.json()
            assert len(detail["cards"]) == len(fed_cards(script))
            assert [c["code"] for c in detail["cards"] if c["face_up"]] == [c for c in fed_cards(script) if c in shown]


def test_older_rounds_for_a_supervisor_or_by_override(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    play_rounds(table, 11, actor=DEALER)
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        csrf = login(client, "dealer")
        assert client.get("/api/tables/T1/rounds/2").status_code == 200
        old = client.get("/api/tables/T1/rounds/1")
        assert old.status_code == 403 and "only a supervisor" in old.json()["error"]
        assert client.get("/api/tables/T1/rounds/12").status_code == 404
        # The dealer's terminal, a supervisor's credentials: one recall.
        issued = client.post(
            "/api/tables/T1/override",
            json={"action": {"kind": "recall-round", "round": 1}},
            headers={"X-CSRF-Token": csrf},
        )
        done = client.post(
            f"/api/tables/T1/override/{issued.json()['grant']}",
            json={"name": "supervisor", "password": PASSWORD},
            headers={"X-CSRF-Token": csrf},
        )
        assert done.status_code == 200, done.text
        assert done.json()["recall"]["round"] == 1
        assert client.get("/api/tables/T1/rounds/1").status_code == 403  # the elevation ended with it
        client.cookies.clear()
        login(client, "supervisor")
        direct = client.get("/api/tables/T1/rounds/1")
        assert direct.status_code == 200
        assert json.loads(direct.text) == done.json()["recall"]
        assert client.get("/api/tables/T1/rounds/99").json() == {"error": "there is no finished round 99 at this table"}
