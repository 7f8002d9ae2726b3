"""Central accounts in the floor database: the same test functions on SQLite and on a real PostgreSQL cluster."""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

import floor.base
from controller.cli import main
from floor import open_store
from floor.accounts import FloorAccountStore, open_floor_accounts
from floor.migrations import MIGRATIONS
from tests.web_display.kit import ORIGIN, login, make_table
from web_display.accounts import ACCOUNTS_FILE, SqliteAccountStore, open_accounts, seed_demo_accounts
from web_display.core.config import Settings
from web_display.errors import AccountError, AccountStoreUnavailable
from web_display.main import create_app

PASSWORD = "floor-password-1"
CLI = str(Path(sys.executable).with_name("dealer-assist"))


@pytest.fixture
def accounts(floor_url: str) -> Iterator[FloorAccountStore]:
    store = open_floor_accounts(floor_url)
    try:
        yield store
    finally:
        store.close()


def _stored_hash(store: FloorAccountStore, name: str) -> str:
    with store.floor.transaction(write=False) as cur:
        cur.execute("SELECT password FROM staff_accounts WHERE name = %s", (name,))
        (hashed,) = cur.fetchone()
    return str(hashed)


def test_add_verify_passwd_role_remove_each_audited_with_who_and_what(accounts: FloorAccountStore) -> None:
    added = accounts.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
    assert (added.name, added.role) == ("kim", "dealer")
    assert _stored_hash(accounts, "kim").startswith("$argon2id$") and PASSWORD not in _stored_hash(accounts, "kim")
    verified = accounts.verify(name="kim", password=PASSWORD)
    assert verified is not None and verified.role == "dealer"
    assert accounts.verify(name="kim", password="wrong-password") is None
    assert accounts.verify(name="nobody", password=PASSWORD) is None
    # Refusals name the problem and write nothing, not even an audit line.
    with pytest.raises(AccountError, match="already an account 'kim'"):
        accounts.add(name="kim", role="admin", password=PASSWORD, by="admin:ann")
    with pytest.raises(AccountError, match="account name 'Kim Lee'"):
        accounts.add(name="Kim Lee", role="dealer", password=PASSWORD, by="admin:ann")
    with pytest.raises(AccountError, match="role 'boss'"):
        accounts.add(name="lee", role="boss", password=PASSWORD, by="admin:ann")
    with pytest.raises(AccountError, match="at least 8"):
        accounts.set_password(name="kim", password="short", by="admin:ann")
    with pytest.raises(AccountError, match="no account 'lee'"):
        accounts.set_password(name="lee", password=PASSWORD, by="admin:ann")
    with pytest.raises(AccountError, match="no account 'lee'"):
        accounts.remove(name="lee", by="admin:ann")
    accounts.set_password(name="kim", password="another-password", by="supervisor:sam")
    assert accounts.verify(name="kim", password=PASSWORD) is None
    assert accounts.verify(name="kim", password="another-password") is not None
    accounts.set_role(name="kim", role="supervisor", by="admin:ann")
    assert [(a.name, a.role) for a in accounts.accounts()] == [("kim", "supervisor")]
    accounts.remove(name="kim", by="cli:root")
    assert accounts.get("kim") is None and accounts.accounts() == []
    assert accounts.verify(name="kim", password="another-password") is None
    log = [(e.seq, e.who, e.action, e.detail) for e in accounts.audit_log()]
    assert log == [
        (1, "admin:ann", "account-added", "kim as dealer"),
        (2, "supervisor:sam", "password-changed", "kim"),
        (3, "admin:ann", "role-changed", "kim to supervisor"),
        (4, "cli:root", "account-removed", "kim"),
    ]
    assert [e.action for e in accounts.audit_log(last=2)] == ["role-changed", "account-removed"]


def test_migration_2_upgrades_a_floor_made_by_migration_1(floor_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(floor.base, "MIGRATIONS", MIGRATIONS[:1])
    with open_store(floor_url) as old:  # a floor as the release before central accounts made it
        assert old.schema_version() == 1
        with old.transaction(write=True) as cur:  # in migration 1's own terms: later code may need more
            cur.execute("INSERT INTO floor_tables (table_id, pit, game) VALUES ('t1', 'A', 'oasis')")
        with pytest.raises(AccountError, match="schema version 1 without migration 2"):
            FloorAccountStore(store=old)
    monkeypatch.undo()
    store = open_floor_accounts(floor_url)  # upgrades it
    try:
        assert store.floor.schema_version() == MIGRATIONS[-1][0] >= 2
        assert store.floor.tables() == [("t1", "A", "oasis")]  # what was there is kept
        store.add(name="ann", role="admin", password=PASSWORD, by="cli:root")
        assert store.verify(name="ann", password=PASSWORD) is not None
    finally:
        store.close()


def test_a_floor_migrated_to_a_later_number_first_still_gets_migration_2(
    floor_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Numbers are handed out to work done side by side: a database may have met a later one first.
    later = (99, ("CREATE TABLE later_work (x INTEGER)",))
    monkeypatch.setattr(floor.base, "MIGRATIONS", (MIGRATIONS[0], later))
    with open_store(floor_url) as old:
        assert old.applied_migrations() == {1, 99} and old.schema_version() == 99
    monkeypatch.setattr(floor.base, "MIGRATIONS", (*MIGRATIONS, later))
    store = open_floor_accounts(floor_url)
    try:
        assert store.floor.applied_migrations() == {version for version, _ in MIGRATIONS} | {99}
        store.add(name="ann", role="admin", password=PASSWORD, by="cli:root")
        assert store.verify(name="ann", password=PASSWORD) is not None
        assert store.floor.migrate() == 99  # nothing left to apply
    finally:
        store.close()


def test_a_session_made_at_one_table_is_valid_at_another_and_a_change_at_either_ends_it(floor_url: str) -> None:
    table_a, table_b = open_floor_accounts(floor_url), open_floor_accounts(floor_url)  # two processes' stores
    try:
        table_a.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
        at_a = table_a.create_session(user="kim", role="dealer")
        seen = table_b.session(at_a.id)
        assert seen is not None and (seen.user, seen.role, seen.csrf) == ("kim", "dealer", at_a.csrf)
        assert table_b.live_sessions([at_a.id, "forged"]) == {at_a.id}
        assert table_a.server_secret() == table_b.server_secret()  # trusted devices are floor-wide too

        table_b.set_password(name="kim", password="another-password", by="admin:ann")
        assert table_a.session(at_a.id) is None and table_a.live_sessions([at_a.id]) == set()

        at_b = table_b.create_session(user="kim", role="dealer")
        other = table_b.create_session(user="kim", role="dealer")
        assert table_a.session(at_b.id) is not None
        assert table_a.end_session(at_b.id) is not None  # signing out at A ends it at B
        assert table_b.session(at_b.id) is None and table_b.session(other.id) is not None
        table_a.set_role(name="kim", role="supervisor", by="admin:ann")
        assert table_b.session(other.id) is None

        last = table_a.create_session(user="kim", role="supervisor")
        table_b.remove(name="kim", by="admin:ann")
        assert table_a.session(last.id) is None
    finally:
        table_a.close()
        table_b.close()


def test_sessions_survive_closing_and_reopening_the_store_and_expire_after_their_last_use(floor_url: str) -> None:
    first = open_floor_accounts(floor_url)
    first.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
    session = first.create_session(user="kim", role="dealer")
    secret = first.server_secret()
    first.close()
    now = [time.time()]
    again = FloorAccountStore(store=open_store(floor_url), session_ttl=600, clock=lambda: now[0], owns_store=True)
    try:
        back = again.session(session.id)
        assert back is not None and (back.user, back.csrf) == ("kim", session.csrf)
        assert again.server_secret() == secret
        now[0] += 500  # used: its last use moves on
        assert again.session(session.id) is not None
        now[0] += 500
        assert again.session(session.id) is not None
        now[0] += 601  # idle past the limit
        assert again.session(session.id) is None and again.live_sessions([session.id]) == set()
    finally:
        again.close()


def test_audit_lines_written_at_once_from_two_tables_are_numbered_without_gaps_or_losses(floor_url: str) -> None:
    stores = [open_floor_accounts(floor_url), open_floor_accounts(floor_url)]
    errors: list[BaseException] = []

    def write(store: FloorAccountStore, who: str) -> None:
        try:
            for i in range(20):
                store.audit(who=who, action="login", detail=str(i))
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(store, f"dealer:t{n}")) for n, store in enumerate(stores) for _ in (1, 2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        log = stores[0].audit_log(last=1000)
        assert [e.seq for e in log] == list(range(1, 81))
        for who in ("dealer:t0", "dealer:t1"):
            assert sorted(e.detail for e in log if e.who == who) == sorted([str(i) for i in range(20)] * 2)
    finally:
        for store in stores:
            store.close()


def test_open_accounts_picks_the_floor_when_a_url_is_given_else_the_tables_file(floor_url: str, tmp_path: Path) -> None:
    central = open_accounts(data=tmp_path / "data", floor_url=floor_url)
    own = open_accounts(data=tmp_path / "data", floor_url=None)
    try:
        assert isinstance(central, FloorAccountStore) and isinstance(own, SqliteAccountStore)
        assert own.path == tmp_path / "data" / ACCOUNTS_FILE
        central.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
        assert own.get("kim") is None  # separate stores
    finally:
        central.close()
        own.close()
    for data, url in ((tmp_path, " "), (None, None)):
        with pytest.raises(AccountError, match=r"floor URL is empty|data folder or the floor"):
            open_accounts(data=data, floor_url=url)


# ------------------------------------------------------------------------------ the user CLI on the floor


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(argv)


def test_the_user_cli_manages_the_central_accounts_with_db(
    floor_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", floor_url]
    assert (
        run(["user", "add", "sam", "--role", "supervisor", "--password-stdin", *db], PASSWORD + "\n", monkeypatch) == 0
    )
    assert run(["user", "list", *db], "", monkeypatch) == 0
    assert "sam\tsupervisor" in capsys.readouterr().out
    assert run(["user", "passwd", "sam", "--password-stdin", *db], "another-pass\n", monkeypatch) == 0
    store = open_floor_accounts(floor_url)
    try:
        assert store.verify(name="sam", password="another-pass") is not None
        assert [(e.action, e.who.startswith("cli:")) for e in store.audit_log()] == [
            ("account-added", True),
            ("password-changed", True),
        ]
    finally:
        store.close()
    assert run(["user", "remove", "sam", *db], "", monkeypatch) == 0
    assert run(["user", "remove", "sam", *db], "", monkeypatch) == 2
    assert "there is no account 'sam'" in capsys.readouterr().err


def test_a_password_changed_by_the_cli_in_another_process_ends_the_sessions_of_this_one(floor_url: str) -> None:
    store = open_floor_accounts(floor_url)
    try:
        store.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
        session = store.create_session(user="kim", role="dealer")
        argv = [CLI, "user", "passwd", "kim", "--password-stdin", "--db", floor_url]
        done = subprocess.run(argv, input="a-new-password\n", capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert store.session(session.id) is None
        assert store.verify(name="kim", password="a-new-password") is not None
    finally:
        store.close()


def test_the_user_cli_refuses_a_missing_floor_file_and_an_unreachable_floor_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "typo.sqlite3")
    assert run(["user", "list", "--db", missing], "", monkeypatch) == 2
    assert capsys.readouterr().err.strip().endswith("typo.sqlite3: no floor store here")
    assert not Path(missing).exists()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once closed
    assert run(["user", "list", "--db", f"postgresql://postgres@127.0.0.1:{port}/floor"], "", monkeypatch) == 2
    err = capsys.readouterr().err
    assert "floor unavailable: " in err and err.count("\n") == 1 and "Traceback" not in err


# ------------------------------------------------------------------------------ the web display on the floor


def _app(data: Path, accounts: FloorAccountStore, name: str, **settings: Any) -> TestClient:
    table = make_table(data / "journal", "oasis", name)
    settings = {"session_check_seconds": 0.1, **settings}
    app = create_app(settings=Settings(data_dir=data, **settings), tables={name: table}, accounts=accounts)
    return TestClient(app)


@pytest.mark.parametrize("verb", ["passwd", "remove"])
def test_a_change_from_the_cli_ends_the_session_in_a_running_app_at_every_table(
    floor_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verb: str
) -> None:
    store_a, store_b = open_floor_accounts(floor_url), open_floor_accounts(floor_url)
    seed_demo_accounts(store_a, PASSWORD)
    try:
        with _app(tmp_path / "a", store_a, "T1") as table_a, _app(tmp_path / "b", store_b, "T2") as table_b:
            login(table_a, "dealer", PASSWORD)
            table_b.cookies.update(table_a.cookies)  # the same browser's session cookie, at another table
            assert table_b.get("/api/me").json()["name"] == "dealer"
            with table_b.websocket_connect("/ws/tables/T2", headers={"origin": ORIGIN}) as ws:
                ws.receive_text()
                argv = ["user", verb, "dealer", "--db", floor_url]
                assert (
                    run([*argv, "--password-stdin"] if verb == "passwd" else argv, "a-new-password\n", monkeypatch) == 0
                )
                assert table_a.get("/api/me").status_code == 401  # the next request is refused, at both tables
                assert table_b.get("/api/me").status_code == 401
                with pytest.raises(WebSocketDisconnect) as closed:
                    deadline = time.monotonic() + 10
                    while time.monotonic() < deadline:
                        ws.receive_text()  # the sweep closes it within session_check_seconds
                assert closed.value.code == 1013
            assert not (tmp_path / "a" / ACCOUNTS_FILE).exists()  # the tables' own files were never used
            login(table_b, "admin", PASSWORD)
            assert [e["action"] for e in table_b.get("/api/audit").json()][-3:] == [
                "login",
                "password-changed" if verb == "passwd" else "account-removed",
                "login",
            ]
    finally:
        store_a.close()
        store_b.close()


def test_wrong_passwords_are_refused_and_throttled_as_with_the_tables_own_accounts(
    floor_url: str, tmp_path: Path
) -> None:
    store = open_floor_accounts(floor_url)
    store.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
    try:
        with _app(tmp_path, store, "T1", login_free_failures=2, login_first_delay=60) as client:
            answers = [client.post("/api/login", json={"name": "kim", "password": "guess-1234"}) for _ in range(3)]
            assert [a.status_code for a in answers] == [401, 401, 429]
            assert answers[0].json() == {"error": "wrong name or password"}
            assert answers[2].json()["error"].startswith("too many failed sign-ins: wait")
            refused = client.post("/api/login", json={"name": "kim", "password": PASSWORD})
            assert refused.status_code == 429  # even the right password waits out the delay
        failed = [e for e in store.audit_log() if e.action == "login-failed"]
        assert failed and failed[0].detail == "from testclient", failed
    finally:
        store.close()


def _until_floor_answers(attempt: Any) -> Any:
    """Retry while the floor is still unreachable (the pool reconnects in the background)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return attempt()
        except AccountStoreUnavailable:
            assert time.monotonic() < deadline, "the floor never answered again"
            time.sleep(0.1)


def test_through_a_floor_outage_confirmed_sessions_play_on_and_nothing_else_is_answered_from_memory(
    pg_cluster: Any,
) -> None:
    url = pg_cluster.create_database()
    here, elsewhere = open_floor_accounts(url, timeout=1), open_floor_accounts(url, timeout=1)
    try:
        here.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
        mine = here.create_session(user="kim", role="dealer")
        assert here.session(mine.id) is not None  # confirmed live by this process
        theirs = elsewhere.create_session(user="kim", role="dealer")  # never seen here
        pg_cluster.stop()
        try:
            kept = here.session(mine.id)
            assert kept is not None and (kept.user, kept.csrf) == ("kim", mine.csrf)
            assert here.live_sessions([mine.id, theirs.id]) == {mine.id}
            for attempt in (
                lambda: here.session(theirs.id),
                lambda: here.verify(name="kim", password=PASSWORD),
                lambda: here.create_session(user="kim", role="dealer"),
                lambda: here.set_password(name="kim", password="another-password", by="admin:ann"),
                lambda: here.audit(who="admin:ann", action="test"),
            ):
                with pytest.raises(AccountStoreUnavailable, match=r"^floor unavailable: "):
                    attempt()
        finally:
            pg_cluster.start()
        _until_floor_answers(lambda: elsewhere.set_password(name="kim", password="another-password", by="admin:ann"))
        assert here.session(mine.id) is None  # the floor answers again: read, not remembered
        assert here.live_sessions([mine.id]) == set()
        pg_cluster.stop()
        try:  # and forgotten: an ended session is not revived by the next outage
            with pytest.raises(AccountStoreUnavailable):
                here.session(mine.id)
        finally:
            pg_cluster.start()
        assert [e.action for e in _until_floor_answers(here.audit_log)] == ["account-added", "password-changed"]
    finally:
        here.close()
        elsewhere.close()


def test_a_table_starts_while_its_floor_is_down_and_signs_in_once_it_answers(pg_cluster: Any, tmp_path: Path) -> None:
    url = pg_cluster.create_database()  # never migrated: the table's store migrates it when it answers
    pg_cluster.stop()
    try:
        store = open_accounts(data=tmp_path, floor_url=url)
        assert isinstance(store, FloorAccountStore)
        client = _app(tmp_path, store, "T1")
        client.__enter__()
        refused = client.post("/api/login", json={"name": "kim", "password": PASSWORD})
        assert refused.status_code == 503 and refused.json()["error"].startswith("floor unavailable: ")
    finally:
        pg_cluster.start()
    try:
        _until_floor_answers(lambda: store.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann"))
        assert store.floor.schema_version() == MIGRATIONS[-1][0]
        assert login(client, "kim", PASSWORD)
        assert client.get("/api/me").json()["name"] == "kim"
    finally:
        client.__exit__(None, None, None)
        store.close()


def test_floor_down_sign_ins_get_503_naming_it_and_sessions_survive_its_restart(
    pg_cluster: Any, tmp_path: Path
) -> None:
    url = pg_cluster.create_database()
    store, other_table = open_floor_accounts(url, timeout=1), open_floor_accounts(url, timeout=1)
    store.add(name="kim", role="dealer", password=PASSWORD, by="admin:ann")
    elsewhere = other_table.create_session(user="kim", role="dealer")  # a session this table never saw
    try:
        with _app(tmp_path, store, "T1") as client, _app(tmp_path / "b", store, "T1") as stranger:
            login(client, "kim", PASSWORD)
            stranger.cookies.set("da_session", elsewhere.id)
            pg_cluster.stop()
            try:
                assert client.get("/api/me").json()["name"] == "kim"  # the dealer plays on
                for answer in (
                    stranger.get("/api/me"),
                    stranger.post("/api/login", json={"name": "kim", "password": PASSWORD}),
                ):
                    assert answer.status_code == 503, answer.text
                    assert answer.json()["error"].startswith("floor unavailable: ")
                with (
                    pytest.raises(WebSocketDisconnect) as refused,
                    stranger.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}),
                ):
                    pass
                assert refused.value.code == 1013  # try again later (not 1008: the page must not sign out)
            finally:
                pg_cluster.start()
            _until_floor_answers(other_table.accounts)
            deadline = time.monotonic() + 60
            while (me := stranger.get("/api/me")).status_code == 503:  # the app's pool reconnects too
                assert time.monotonic() < deadline, "the store never reconnected"
                time.sleep(0.1)
            assert me.status_code == 200 and me.json()["name"] == "kim"  # the session outlived the outage
            assert client.get("/api/me").status_code == 200
    finally:
        store.close()
        other_table.close()
