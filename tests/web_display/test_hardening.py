"""Issue 12's defects, one test each: logout CSRF, sessions ended by the CLI in another process, nested
JSON and TOML, blank bettor names, body limits, audit rows per failed sign-in, live displays per account."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from controller.table import TableService
from tests.web_display.kit import ORIGIN, PASSWORD, login, make_app, make_table

CLI = str(Path(sys.executable).with_name("dealer-assist"))


@pytest.fixture
def table(tmp_path: Path) -> TableService:
    return make_table(tmp_path / "journal", "oasis", "T1")


@pytest.fixture
def client(tmp_path: Path, table: TableService) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, {"T1": table}, session_check_seconds=0.1)) as c:
        yield c


def test_sign_out_needs_this_sites_origin_and_the_sessions_token(client: TestClient) -> None:
    csrf = login(client, "dealer")
    foreign = client.post("/api/logout", headers={"X-CSRF-Token": csrf, "Origin": "https://evil.example"})
    assert foreign.status_code == 403 and foreign.json() == {"error": "sign-out from another site refused"}
    tokenless = client.post("/api/logout")
    assert tokenless.status_code == 403 and "CSRF token" in tokenless.json()["error"]
    assert client.get("/api/me").status_code == 200  # still signed in: a forged sign-out did nothing
    assert client.post("/api/logout", headers={"X-CSRF-Token": csrf}).status_code == 200
    assert client.get("/api/me").status_code == 401


@pytest.mark.parametrize("verb", ["passwd", "remove"])
def test_an_account_change_from_the_cli_in_another_process_ends_its_sessions(
    client: TestClient, tmp_path: Path, verb: str
) -> None:
    login(client, "dealer")
    with client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws:
        ws.receive_text()
        argv = [CLI, "user", verb, "dealer", "--data", str(tmp_path)]
        if verb == "passwd":
            argv.append("--password-stdin")
        done = subprocess.run(argv, input="a-new-password\n", capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert client.get("/api/me").status_code == 401  # the next request already fails
        with pytest.raises(WebSocketDisconnect) as closed:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                ws.receive_text()  # the sweep closes it within session_check_seconds
        assert closed.value.code == 1013


def test_deeply_nested_json_gets_a_400_in_the_documented_shape(client: TestClient) -> None:
    nested = b"[" * 50_000 + b"]" * 50_000
    for path in ("/api/login", "/api/tables/T1/rounds"):
        response = client.post(path, content=nested[:30_000], headers={"Content-Type": "application/json"})
        assert response.status_code == 400, response.text
        assert response.json() == {"error": "request body: JSON nested too deeply"}


@pytest.mark.parametrize(
    ("content_type", "body", "error"),
    [
        ("application/toml", "a = " + "[" * 20_000 + "]" * 20_000, "configuration TOML: nested more than"),
        ("application/toml", "a = " + "{b = " * 5_000 + "}" * 5_000, "configuration TOML: nested more than"),
        ("application/json", "[" * 20_000 + "]" * 20_000, "configuration JSON: nested more than"),
    ],
)
def test_deeply_nested_configuration_gets_a_422_naming_the_problem(
    client: TestClient, table: TableService, content_type: str, body: str, error: str
) -> None:
    csrf = login(client, "admin")
    headers = {"Content-Type": content_type, "X-CSRF-Token": csrf}
    response = client.put("/api/tables/T1/config", content=body.encode(), headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["error"].startswith(error)
    assert table.config.max_payout == 3000  # nothing applied


def test_bettor_names_of_only_spaces_are_refused_and_names_are_trimmed(client: TestClient, table: TableService) -> None:
    csrf = {"X-CSRF-Token": login(client, "dealer")}
    bettors = [{"name": "Ann", "ante": 10}, {"name": "   ", "ante": 10}]
    bets = {"bets": [{"box": 1, "ante": 20, "bettors": bettors}]}
    blank = client.post("/api/tables/T1/rounds", json=bets, headers=csrf)
    assert blank.status_code == 422
    assert blank.json() == {"error": "bets.0.bettors.1.name: Value error, a bettor needs a name (not only spaces)"}
    assert table.round is None
    bettors[1]["name"] = "  Bob   Lee "
    ok = client.post("/api/tables/T1/rounds", json=bets, headers=csrf)
    assert ok.status_code == 201, ok.text
    assert table.round is not None and [b.name for b in table.round.bets[0].bettors] == ["Ann", "Bob Lee"]


def test_a_body_past_the_limit_is_refused_with_413_declared_or_streamed(client: TestClient) -> None:
    declared = client.post("/api/login", content=b"x" * 40_000, headers={"Content-Type": "application/json"})
    assert declared.status_code == 413
    assert declared.json() == {"error": "request body too large (at most 32768 bytes here)"}

    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b" " * 1000

    streamed = client.post("/api/login", content=chunks(), headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413 and streamed.json() == declared.json()
    # The configuration upload has its own, larger limit.
    csrf = login(client, "admin")
    config = client.put(
        "/api/tables/T1/config",
        content=b"# " + b"x" * 100_000 + b'\ngame = "oasis"\nname = "T1"\n',
        headers={"Content-Type": "application/toml", "X-CSRF-Token": csrf},
    )
    assert config.status_code == 200, config.text


def test_failed_sign_ins_go_to_the_audit_log_as_bursts_not_a_row_each(tmp_path: Path, table: TableService) -> None:
    with TestClient(make_app(tmp_path, {"T1": table}, login_free_failures=50, account_free_failures=50)) as c:
        for _ in range(30):
            assert c.post("/api/login", json={"name": "dealer", "password": "wrong-password"}).status_code == 401
        login(c, "admin")  # a sign-in from the same address ends the burst: its summary is written
        rows = [e for e in c.get("/api/audit?last=1000").json() if e["action"] == "login-failed"]
    assert len(rows) == 2, rows
    assert rows[0]["who"] == "dealer" and rows[0]["detail"] == "from testclient"
    assert rows[1]["detail"].startswith("29 more failed sign-ins from testclient between ")
    assert rows[1]["detail"].endswith("(0 refused by the throttle); names: dealer ×29")


def test_an_account_may_hold_only_so_many_live_displays(tmp_path: Path, table: TableService) -> None:
    with TestClient(make_app(tmp_path, {"T1": table}, ws_per_account=2)) as c:
        login(c, "dealer")
        with (
            c.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as first,
            c.websocket_connect("/ws/floor", headers={"origin": ORIGIN}) as second,
        ):
            first.receive_text()
            second.receive_text()
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                c.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as third,
            ):
                third.receive_text()
            assert refused.value.code == 1008 and "at most 2 live displays" in refused.value.reason
            c.cookies.clear()
            login(c, "supervisor")  # another account is not affected
            with c.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as other:
                assert '"type":"table"' in other.receive_text()


def test_a_password_change_by_the_admin_ends_that_accounts_live_displays(client: TestClient) -> None:
    login(client, "dealer")
    with client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws:
        ws.receive_text()
        client.cookies.clear()
        csrf = login(client, "admin")
        body = {"password": "another-long-password"}
        assert (
            client.post("/api/accounts/dealer/password", json=body, headers={"X-CSRF-Token": csrf}).status_code == 200
        )
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1013
    client.cookies.clear()
    assert client.post("/api/login", json={"name": "dealer", "password": PASSWORD}).status_code == 401
