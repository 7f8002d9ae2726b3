"""Logins, roles, CSRF, session fixation, cookies, websocket admission, errors and the audit log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from controller.engine import BoxBet
from controller.table import Actor, TableService
from tests.web_display.kit import ORIGIN, PASSWORD, deal, login, make_app, make_table
from web_display.main import ROUTERS

# Every state-changing endpoint, with a body it would accept, and who may call it.
ENDPOINTS: list[tuple[str, str, dict[str, Any] | None, str]] = [
    ("POST", "/api/tables/T1/rounds", {"bets": [{"box": 1, "ante": 10}]}, "dealer"),
    ("POST", "/api/tables/T1/rounds/repeat", None, "dealer"),
    ("POST", "/api/tables/T1/actions", {"box": 1, "action": "raise"}, "dealer"),
    ("POST", "/api/tables/T1/settlement/confirm", None, "dealer"),
    ("POST", "/api/tables/T1/reports", {"kind": "missing-card"}, "dealer"),
    ("POST", "/api/tables/T1/deck/shuffled", None, "dealer"),
    ("POST", "/api/tables/T1/tilts/1/clear", {"resolution": "burn", "why": "x"}, "supervisor"),
    ("POST", "/api/tables/T1/rounds/void", {"why": "x"}, "supervisor"),
    ("POST", "/api/tables/T1/rounds/1/payments/2", {"paid": 10, "handed": 5, "why": "x"}, "supervisor"),
    ("POST", "/api/tables/T1/jackpot/1/confirm", None, "supervisor"),
    ("PUT", "/api/tables/T1/config", {"game": "oasis", "max_payout": 4000}, "admin"),
    ("POST", "/api/tables/T1/override", {"action": {"kind": "void-round", "why": "x"}}, "dealer"),
    ("POST", "/api/tables/T1/override/x", {"name": "supervisor", "password": PASSWORD}, "dealer"),
    ("POST", "/api/accounts", {"name": "newbie", "role": "dealer", "password": "long-enough-pw"}, "admin"),
    ("POST", "/api/accounts/dealer/password", {"password": "long-enough-pw"}, "admin"),
    ("DELETE", "/api/accounts/dealer", None, "admin"),
]
RANK = {"dealer": 0, "supervisor": 1, "admin": 2}
# Open to anyone: signing in, and signing out (it only takes rights away).
UNGUARDED = {("POST", "/api/login"), ("POST", "/api/logout")}


@pytest.fixture
def table(tmp_path: Path) -> TableService:
    return make_table(tmp_path / "journal", "oasis", "T1")


@pytest.fixture
def client(tmp_path: Path, table: TableService) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, {"T1": table})) as c:
        yield c


def call(client: TestClient, method: str, path: str, body: dict[str, Any] | None, csrf: str | None) -> Any:
    headers = {"X-CSRF-Token": csrf} if csrf is not None else {}
    return client.request(method, path, json=body, headers=headers)


def test_the_endpoint_list_covers_every_state_changing_route() -> None:
    routes = {
        (method, route.path)
        for router in ROUTERS
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in route.methods - {"GET", "HEAD"}
    }
    listed = {(m, p.replace("T1", "{name}").replace("/1/", "/{tilt}/")) for m, p, _, _ in ENDPOINTS}
    listed = {
        (
            m,
            p.replace("jackpot/{tilt}", "jackpot/{hit}")
            .replace("accounts/dealer", "accounts/{account}")
            .replace("override/x", "override/{grant}")
            .replace("rounds/{tilt}/payments/2", "rounds/{number}/payments/{box}"),
        )
        for m, p in listed
    }
    assert routes - UNGUARDED == listed


@pytest.mark.parametrize(("method", "path", "body", "role"), ENDPOINTS)
def test_anonymous_requests_are_refused(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None, role: str
) -> None:
    response = call(client, method, path, body, csrf="anything")
    assert response.status_code == 401
    assert response.json() == {"error": "sign in first"}


@pytest.mark.parametrize(("method", "path", "body", "role"), [e for e in ENDPOINTS if e[3] != "dealer"])
def test_wrong_role_requests_are_refused(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None, role: str
) -> None:
    for who in ("dealer", "supervisor"):
        if RANK[who] >= RANK[role]:
            continue
        client.cookies.clear()
        csrf = login(client, who)
        response = call(client, method, path, body, csrf)
        assert response.status_code == 403, (who, response.text)
        assert "only a" in response.json()["error"]


@pytest.mark.parametrize(("method", "path", "body", "role"), ENDPOINTS)
def test_missing_or_wrong_csrf_token_is_refused(
    client: TestClient, method: str, path: str, body: dict[str, Any] | None, role: str
) -> None:
    login(client, "admin")
    missing = call(client, method, path, body, csrf=None)
    assert missing.status_code == 403 and "missing CSRF token" in missing.json()["error"]
    wrong = call(client, method, path, body, csrf="not-the-token")
    assert wrong.status_code == 403 and "wrong CSRF token" in wrong.json()["error"]


def test_a_request_from_another_site_is_refused_even_with_the_token(client: TestClient, table: TableService) -> None:
    csrf = login(client, "dealer")
    response = client.post(
        "/api/tables/T1/rounds",
        json={"bets": [{"box": 1, "ante": 10}]},
        headers={"X-CSRF-Token": csrf, "Origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert table.round is None
    ok = client.post("/api/tables/T1/rounds", json={"bets": [{"box": 1, "ante": 10}]}, headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 201 and table.round is not None


def sid_of(response: Any) -> str:
    cookie: str = response.headers["set-cookie"]
    return cookie.split(";", maxsplit=1)[0].split("=", 1)[1]


def test_sign_in_issues_a_new_session_id_and_ends_the_one_the_browser_brought(client: TestClient) -> None:
    body = {"name": "dealer", "password": PASSWORD}

    def as_session(sid: str) -> None:
        client.cookies.clear()
        client.cookies.set("da_session", sid, domain="testserver.local")

    as_session("attacker-chosen-id")
    first = sid_of(client.post("/api/login", json=body))
    assert first != "attacker-chosen-id"
    as_session(first)
    second = sid_of(client.post("/api/login", json=body))
    assert second != first
    as_session(first)
    assert client.get("/api/me").status_code == 401  # the old session is gone
    as_session(second)
    assert client.get("/api/me").json()["name"] == "dealer"


def test_session_cookie_is_httponly_and_samesite_strict(client: TestClient) -> None:
    response = client.post("/api/login", json={"name": "dealer", "password": PASSWORD})
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert "secure" not in cookie  # plain http here


def test_session_cookie_is_secure_over_https(tmp_path: Path, table: TableService) -> None:
    with TestClient(make_app(tmp_path, {"T1": table}), base_url="https://testserver") as c:
        response = c.post("/api/login", json={"name": "dealer", "password": PASSWORD})
        assert "secure" in response.headers["set-cookie"].lower()


def test_wrong_password_and_unknown_name_get_the_same_clear_refusal(client: TestClient) -> None:
    wrong = client.post("/api/login", json={"name": "dealer", "password": "not-the-password"})
    unknown = client.post("/api/login", json={"name": "nobody", "password": "not-the-password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": "wrong name or password"}
    assert "da_session" not in client.cookies


def test_repeated_failures_slow_that_address_down_with_a_clear_answer(tmp_path: Path, table: TableService) -> None:
    with TestClient(make_app(tmp_path, {"T1": table}, login_free_failures=2, login_first_delay=60)) as c:
        for _ in range(2):
            assert c.post("/api/login", json={"name": "dealer", "password": "bad-password"}).status_code == 401
        slowed = c.post("/api/login", json={"name": "dealer", "password": PASSWORD})
        assert slowed.status_code == 429 and slowed.json() == {
            "error": "too many failed sign-ins: wait 60 s and try again"
        }
        assert slowed.headers["retry-after"] == "60"
        # Unknown names are slowed the same way: the answer never tells which names exist.
        other = c.post("/api/login", json={"name": "nobody", "password": PASSWORD})
        assert other.status_code == 429 and other.json() == slowed.json()


def test_sign_out_ends_the_session(client: TestClient) -> None:
    csrf = login(client, "dealer")
    sid = client.cookies["da_session"]
    assert client.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 200
    client.cookies.clear()
    client.cookies.set("da_session", sid, domain="testserver.local")
    assert client.get("/api/me").status_code == 401


def test_pages_send_anonymous_visitors_to_sign_in(client: TestClient) -> None:
    response = client.get("/tables/T1", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/login?next=/tables/T1"
    assert client.get("/floor", follow_redirects=False).status_code == 303
    login(client, "dealer")
    page = client.get("/tables/T1")
    assert page.status_code == 200 and "dealer.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]


def test_websocket_needs_a_session_and_this_sites_origin(client: TestClient) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as anonymous,
        client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws,
    ):
        ws.receive_text()
    assert anonymous.value.code == 1008
    login(client, "dealer")
    for origin in ({"origin": "https://evil.example"}, {}):
        with pytest.raises(WebSocketDisconnect) as foreign, client.websocket_connect("/ws/floor", headers=origin) as ws:
            ws.receive_text()
        assert foreign.value.code == 1008
    with client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws:
        assert '"type":"table"' in ws.receive_text()


def test_sign_out_closes_that_sessions_websockets(client: TestClient, table: TableService) -> None:
    csrf = login(client, "dealer")
    with client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws:
        ws.receive_text()
        assert client.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 200
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1013


def test_table_refusals_come_back_as_clear_json_errors(client: TestClient, table: TableService) -> None:
    csrf = {"X-CSRF-Token": login(client, "dealer")}
    too_big = client.post("/api/tables/T1/rounds", json={"bets": [{"box": 1, "ante": 5000}]}, headers=csrf)
    assert too_big.status_code == 422 and "maximum bet" in too_big.json()["error"]
    no_round = client.post("/api/tables/T1/actions", json={"box": 1, "action": "raise"}, headers=csrf)
    assert no_round.status_code == 409 and no_round.json() == {"error": "no round is open"}
    bad = client.post("/api/tables/T1/rounds", json={"bets": [{"box": "one", "ante": 1.5}]}, headers=csrf)
    assert bad.status_code == 422
    assert "bets.0.box" in bad.json()["error"] and "bets.0.ante" in bad.json()["error"]
    missing = client.post("/api/tables/T1/actions", json={"box": 1}, headers=csrf)
    assert missing.status_code == 422 and missing.json() == {"error": "action: Field required"}
    kind = client.post("/api/tables/T1/reports", json={"kind": "aliens"}, headers=csrf)
    assert kind.status_code == 422 and kind.json()["error"].startswith("kind: Input should be")
    assert client.get("/api/tables/T9").status_code == 404
    assert "no table 'T9'" in client.get("/api/tables/T9").json()["error"]


def test_an_exchange_names_its_discard_by_position(client: TestClient, table: TableService) -> None:
    csrf = {"X-CSRF-Token": login(client, "dealer")}
    table.open_round([BoxBet(box=1, ante=10)], actor=Actor("d", "dealer"))
    deal(table, ["2c", "9s", "3c", "9h", "4c", "Jc", "5c", "Jd", "7d", "3s"])
    too_far = client.post("/api/tables/T1/actions", json={"box": 1, "action": "exchange", "discard": [7]}, headers=csrf)
    assert too_far.status_code == 409 and "no card 8" in too_far.json()["error"]
    ok = client.post("/api/tables/T1/actions", json={"box": 1, "action": "exchange", "discard": [4]}, headers=csrf)
    assert ok.status_code == 200, ok.text
    assert table.round is not None and [c.code for c in table.round.state.boxes[1].discards] == ["7d"]


def test_supervisor_commands_are_journaled_with_who(client: TestClient, table: TableService) -> None:
    table.on_card("As", counter=1)  # no round open: a tilt
    csrf = {"X-CSRF-Token": login(client, "supervisor")}
    response = client.post(
        "/api/tables/T1/tilts/1/clear", json={"resolution": "burn", "why": "early draw"}, headers=csrf
    )
    assert response.status_code == 200, response.text
    last = list(table._store.entries())[-1]
    assert (last.kind, last.actor, last.data["why"]) == ("tilt-cleared", "supervisor:supervisor", "early draw")


def test_sign_ins_sign_outs_and_account_changes_are_audited(client: TestClient) -> None:
    client.post("/api/login", json={"name": "dealer", "password": "wrong-password"})
    csrf = {"X-CSRF-Token": login(client, "admin")}
    created = client.post("/api/accounts", json={"name": "eve", "role": "dealer", "password": "short"}, headers=csrf)
    assert created.status_code == 400 and "at least 8" in created.json()["error"]
    created = client.post(
        "/api/accounts", json={"name": "eve", "role": "dealer", "password": "long-enough-pw"}, headers=csrf
    )
    assert created.status_code == 201
    assert client.delete("/api/accounts/eve", headers=csrf).status_code == 200
    audit = client.get("/api/audit").json()
    client.post("/api/logout", headers=csrf)
    seen = [(e["who"], e["action"]) for e in audit]
    assert ("dealer", "login-failed") in seen
    assert ("admin:admin", "login") in seen
    assert ("admin:admin", "account-added") in seen and ("admin:admin", "account-removed") in seen
    assert all(e["at"] for e in audit)
    login(client, "admin")
    assert ("admin:admin", "logout") in [(e["who"], e["action"]) for e in client.get("/api/audit").json()]


def test_a_table_name_with_spaces_works_in_pages_api_and_feed(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "Table 1")
    with TestClient(make_app(tmp_path, {"Table 1": table})) as c:
        login(c, "dealer")
        assert c.get("/", follow_redirects=False).headers["location"] == "/tables/Table%201"
        assert c.get("/tables/Table%201").status_code == 200
        assert c.get("/api/tables/Table%201").json()["table"]["name"] == "Table 1"
        with c.websocket_connect("/ws/tables/Table%201", headers={"origin": ORIGIN}) as ws:
            assert '"name":"Table 1"' in ws.receive_text()
