"""Issue 12's hidden-card leaks: replies and errors naming a tilt's card, and a folded round's board.

Every reply, error, snapshot and recalled round goes through ``controller.redaction``; these tests
hold the web display to it where it once leaked.
"""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from controller.engine import BoxBet
from controller.table import Actor
from tests.controller.roundkit import passes
from tests.web_display.kit import ORIGIN, deal, leaked, login, make_app, make_table

DEALER = Actor("dealer", "dealer")


def test_replies_and_errors_never_name_the_duplicate_of_a_face_down_card(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        csrf = {"X-CSRF-Token": login(client, "dealer")}
        table.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=10)], actor=DEALER)
        deal(table, ["9s", "8c", "Kd"])  # box 1, box 2, the dealer: all face down
        table.on_card("9s", counter=4)  # read again: a duplicate-card tilt naming 9s
        tilt = next(iter(table.tilts.values()))
        assert "9s" in tilt.message  # the journal and the technician's log keep the card
        texts = []
        refused = client.post("/api/tables/T1/actions", json={"box": 1, "action": "raise"}, headers=csrf)
        assert refused.status_code == 409 and "play is stopped by tilt" in refused.json()["error"]
        texts.append(refused.text)
        reported = client.post("/api/tables/T1/reports", json={"kind": "missing-card"}, headers=csrf)
        assert reported.status_code == 201 and reported.json()["expected"].startswith("tilt: ")
        texts.append(reported.text)
        texts.append(client.get("/api/tables/T1").text)
        with client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws:
            texts.append(ws.receive_text())
    assert any("a card was already dealt" in text for text in texts)
    for text in texts:
        assert not leaked(text, ["9s", "8c", "Kd"]), text


def test_a_card_drawn_with_no_round_open_is_not_named_in_replies(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        csrf = {"X-CSRF-Token": login(client, "dealer")}
        table.on_card("Qh", counter=1)
        refused = client.post("/api/tables/T1/rounds", json={"bets": [{"box": 1, "ante": 10}]}, headers=csrf)
        repeat = client.post("/api/tables/T1/rounds/repeat", headers=csrf)
        reported = client.post("/api/tables/T1/reports", json={"kind": "dealer-card-exposed"}, headers=csrf)
    assert refused.status_code == 409 and "a card was drawn with no round open" in refused.json()["error"]
    assert repeat.status_code == 409
    assert reported.status_code == 201
    for response in (refused, repeat, reported):
        assert not leaked(response.text, ["Qh"]), response.text


def test_a_folded_round_keeps_the_unturned_board_cards_hidden_live_and_in_recall(tmp_path: Path) -> None:
    """Hold'em with exchange: every box folds; the 4th and 5th board cards were never turned."""
    table = make_table(tmp_path / "journal", "holdem-exchange", "T1")
    hidden = ["Ac", "Kd", "7h", "2s", "Qc", "Jd", "Qs", "2d"]
    flop = ["Ah", "5c", "9d"]
    with TestClient(make_app(tmp_path, {"T1": table})) as client:
        csrf = {"X-CSRF-Token": login(client, "dealer")}
        table.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=10)], actor=DEALER)
        deal(table, [*passes({1: "Ac Kd", 2: "7h 2s"}, "Qc Jd", n=2), "Qs", "2d", *flop])
        for box in (1, 2):
            response = client.post("/api/tables/T1/actions", json={"box": box, "action": "fold"}, headers=csrf)
            assert response.status_code == 200, response.text
        assert table.phase() == "showdown"
        live = client.get("/api/tables/T1")
        assert live.json()["settlement"]["board"] == [*flop, None, None]
        with client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws:
            feed = ws.receive_text()
        confirmed = client.post("/api/tables/T1/settlement/confirm", headers=csrf)
        assert confirmed.status_code == 200
        rounds = client.get("/api/tables/T1/rounds")
        floor = client.get("/api/floor")
    assert rounds.json()[0]["settlement"]["board"] == [*flop, None, None]
    for text in (live.text, feed, confirmed.text, rounds.text, floor.text):
        assert not leaked(text, hidden), text
    assert set(leaked(rounds.text, flop)) == set(flop)  # the face-up flop is shown: the check can fail
