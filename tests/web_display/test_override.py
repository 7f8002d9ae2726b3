"""Supervisor override on the dealer's terminal: one action, journaled under the supervisor, the dealer
still signed in; a grant used once, bound to its action and its terminal, lapsing; credentials
checked as a sign-in is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.engine import BoxBet
from controller.table import Actor, TableService
from tests.web_display.kit import PASSWORD, deal, login, make_app, make_table
from tests.web_display.rounds import OASIS, play_round
from web_display.override import OverrideGrants, OverrideRefused

DEALER = Actor("dana", "dealer")


@pytest.fixture
def table(tmp_path: Path) -> TableService:
    return make_table(tmp_path / "journal", "oasis", "T1", **OASIS.settings)


@pytest.fixture
def client(tmp_path: Path, table: TableService) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, {"T1": table}, login_free_failures=3)) as c:
        yield c


def grant(client: TestClient, csrf: str, action: dict[str, Any]) -> Any:
    return client.post("/api/tables/T1/override", json={"action": action}, headers={"X-CSRF-Token": csrf})


def authorise(client: TestClient, csrf: str, grant_id: str, name: str = "supervisor", password: str = PASSWORD) -> Any:
    return client.post(
        f"/api/tables/T1/override/{grant_id}", json={"name": name, "password": password}, headers={"X-CSRF-Token": csrf}
    )


def duplicate_tilt(table: TableService) -> int:
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(table, ["Kc", "8c"])
    table.on_card("Kc", counter=3)
    (tilt,) = table.tilts
    return tilt


def test_a_supervisor_clears_a_tilt_on_the_dealers_terminal_and_the_dealer_stays_signed_in(
    client: TestClient, table: TableService
) -> None:
    tilt = duplicate_tilt(table)
    csrf = login(client, "dealer")
    action = {"kind": "clear-tilt", "tilt": tilt, "resolution": "burn", "why": "misread, set aside"}
    # The dealer alone may not.
    refused = client.post(f"/api/tables/T1/tilts/{tilt}/clear", json=action, headers={"X-CSRF-Token": csrf})
    assert refused.status_code == 403
    issued = grant(client, csrf, action)
    assert issued.status_code == 201, issued.text
    assert issued.json()["action"] == f"clear tilt {tilt} (burn)"
    done = authorise(client, csrf, issued.json()["grant"])
    assert done.status_code == 200, done.text
    assert done.json()["by"] == "supervisor:supervisor"
    assert not table.tilts
    entry = list(table.journal_store.entries())[-1]
    assert (entry.kind, entry.actor, entry.data["why"]) == (
        "tilt-cleared",
        "supervisor:supervisor",
        "misread, set aside",
    )
    # The dealer is still the dealer: signed in, with a dealer's rights and no more.
    me = client.get("/api/me").json()
    assert (me["name"], me["role"]) == ("dealer", "dealer")
    table.on_card("8c", counter=4)  # read again: another duplicate
    (again,) = table.tilts
    again_action = {**action, "tilt": again}
    direct = client.post(f"/api/tables/T1/tilts/{again}/clear", json=again_action, headers={"X-CSRF-Token": csrf})
    assert direct.status_code == 403
    # Replaying the same grant does nothing.
    replay = authorise(client, csrf, issued.json()["grant"])
    assert replay.status_code == 409 and "used already" in replay.json()["error"]
    assert again in table.tilts
    client.cookies.clear()
    login(client, "admin")
    audit = client.get("/api/audit").json()
    assert any(
        e["who"] == "supervisor:supervisor"
        and e["action"] == "override"
        and e["detail"] == f"T1: clear tilt {tilt} (burn), on the terminal of dealer:dealer"
        for e in audit
    )


def test_void_and_jackpot_confirmation_by_override(client: TestClient, table: TableService) -> None:
    # The scripted Oasis round hits the jackpot; the next round is voided by a supervisor.
    play_round(table, OASIS, actor=DEALER)
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    csrf = login(client, "dealer")
    hit = grant(client, csrf, {"kind": "confirm-jackpot", "hit": 1})
    assert authorise(client, csrf, hit.json()["grant"]).status_code == 200
    account = table.jackpot_account()
    assert account is not None and account.hits[0].confirmed_by == "supervisor:supervisor"
    assert grant(client, csrf, {"kind": "confirm-jackpot", "hit": 1}).status_code == 409  # paid already
    empty = grant(client, csrf, {"kind": "void-round", "why": "  "})
    assert empty.status_code == 409 and "say why" in empty.json()["error"]  # before any password is typed
    void = grant(client, csrf, {"kind": "void-round", "why": "player dispute"})
    assert authorise(client, csrf, void.json()["grant"], name="admin").status_code == 200
    assert table.round is None
    entry = list(table.journal_store.entries())[-1]
    assert (entry.kind, entry.actor) == ("round-voided", "admin:admin")


def test_wrong_credentials_use_up_the_grant_and_count_as_failed_sign_ins(
    client: TestClient, table: TableService
) -> None:
    tilt = duplicate_tilt(table)
    csrf = login(client, "dealer")
    action = {"kind": "clear-tilt", "tilt": tilt, "resolution": "burn", "why": "misread"}
    first = grant(client, csrf, action).json()["grant"]
    wrong = authorise(client, csrf, first, password="not-the-password")
    assert wrong.status_code == 401 and wrong.json()["error"] == "wrong name or password"
    assert authorise(client, csrf, first).status_code == 409  # the grant went with the wrong attempt
    # A dealer's own credentials do not authorise anything.
    mine = authorise(client, csrf, grant(client, csrf, action).json()["grant"], name="dealer")
    assert mine.status_code == 403 and "not a supervisor's" in mine.json()["error"]
    # The sign-in throttle counts override attempts: after 3 failures from this terminal (the dealer's
    # right credentials just above reset the count) the next one waits (429 with Retry-After),
    # whatever password it brings, before any password is hashed.
    for _ in range(3):
        authorise(client, csrf, grant(client, csrf, action).json()["grant"], password="guess-guess")
    throttled = authorise(client, csrf, grant(client, csrf, action).json()["grant"])
    assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) >= 1
    assert tilt in table.tilts
    assert all(e.kind != "tilt-cleared" for e in table.journal_store.entries())


def test_a_grant_is_bound_to_its_terminal_and_lapses(tmp_path: Path, table: TableService) -> None:
    tilt = duplicate_tilt(table)
    action = {"kind": "clear-tilt", "tilt": tilt, "resolution": "burn", "why": "misread"}
    with TestClient(make_app(tmp_path, {"T1": table})) as dealer, TestClient(make_app(tmp_path, {"T1": table})) as x:
        csrf = login(dealer, "dealer")
        issued = grant(dealer, csrf, action).json()["grant"]
        # Another terminal (another session) cannot use it, and trying does not consume it.
        other = login(x, "dealer")
        assert authorise(x, other, issued).status_code == 409
        assert authorise(dealer, csrf, issued).status_code == 200


def test_grants_lapse_and_are_bounded_per_session() -> None:
    now = [100.0]
    grants = OverrideGrants(per_session=2, clock=lambda: now[0])
    a = grants.issue(session="s", table="T1", action={"kind": "x"}, ttl=30)
    now[0] += 31
    with pytest.raises(OverrideRefused, match="lapsed"):
        grants.take(a.id, session="s", table="T1")
    ids = [grants.issue(session="s", table="T1", action={"n": n}, ttl=30).id for n in range(3)]
    assert len(grants) == 2  # the oldest went
    with pytest.raises(OverrideRefused):
        grants.take(ids[0], session="s", table="T1")
    with pytest.raises(OverrideRefused):
        grants.take(ids[2], session="s", table="T2")  # another table's terminal
    assert grants.take(ids[2], session="s", table="T1").action == {"n": 2}
