"""The floor service's JSON API on both backends: filters, jackpot approval by two supervisors, errors, restarts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2

from tests.floor.web.kit import FAST, floor_of, running, signed_in, until


def _tiles(client: httpx2.Client, **query: str) -> list[dict[str, Any]]:
    answer = client.get("/api/floor/tables", params=query)
    assert answer.status_code == 200, answer.text
    tiles: list[dict[str, Any]] = answer.json()["tiles"]
    return tiles


def test_the_tables_api_filters_by_pit_game_text_and_flags(floor_url: str, tmp_path: Path) -> None:
    with running(floor_url, tmp_path / "data") as floor:
        tables = floor_of(floor.store, pits=3, per_pit=4)
        floor.store.report_status(table_id="t002", phase="tilt", round_no=4, tilts=["shoe-fault"], progressive="closed")
        floor.store.open_account(name="floor-wide", scope="floor", reset=1_000, increment=10, cap=9_000)
        floor.store.hit(account="floor-wide", table_id="t010", seq=1)
        with signed_in(floor.url, "dana") as dana:
            until(lambda: len(_tiles(dana)) == 12 and _tiles(dana, filter="jackpot"), what="the board read")
            assert [t["table"] for t in _tiles(dana)] == tables  # by pit, then id
            assert [t["table"] for t in _tiles(dana, pit="B")] == ["t005", "t006", "t007", "t008"]
            assert {t["game"] for t in _tiles(dana, game="oasis")} == {"oasis"}
            assert [t["table"] for t in _tiles(dana, q="T01")] == ["t010", "t011", "t012"]
            until(lambda: [t["table"] for t in _tiles(dana, filter="tilt")] == ["t002"], what="the tilt shown")
            tilted = _tiles(dana, filter="tilt")[0]
            assert (tilted["phase"], tilted["tilts"], tilted["progressive"], tilted["link"]) == (
                "tilt",
                ["shoe-fault"],
                "closed",
                "ok",
            )
            assert [t["table"] for t in _tiles(dana, filter="jackpot")] == ["t010"]
            assert _tiles(dana, filter="tilt,jackpot") == []  # flags all hold
            assert _tiles(dana, filter="lost") == []
            assert set(tilted) == {
                "table", "name", "pit", "game", "phase", "round", "tilts", "progressive", "updated_at", "version",
                "last_seq", "rounds_last_hour", "pending_hits", "link", "camera", "camera_state",
            }  # fmt: skip
            assert (tilted["camera"], tilted["camera_state"]) == (None, "none")  # this table reports no camera
            summary = dana.get("/api/floor/tables").json()["summary"]
            assert (summary["tables"], summary["tilts"], summary["pending"], summary["pits"]) == (
                12,
                1,
                1,
                ["A", "B", "C"],
            )
            bad = dana.get("/api/floor/tables", params={"filter": "tilt,cards"})
            assert (bad.status_code, bad.json()) == (
                422,
                {"error": "filter: unknown filter 'cards' (one of tilt, jackpot, lost, camera)"},
            )
        anonymous = httpx2.get(f"{floor.url}/api/floor/tables")
        assert (anonymous.status_code, anonymous.json()) == (401, {"error": "sign in first"})


def _panel(client: httpx2.Client) -> dict[str, Any]:
    answer = client.get("/api/floor/jackpots")
    assert answer.status_code == 200
    panel: dict[str, Any] = answer.json()
    return panel


def test_a_large_hit_needs_two_different_supervisors_and_dealers_cannot_confirm(floor_url: str, tmp_path: Path) -> None:
    with running(floor_url, tmp_path / "data") as floor:
        floor_of(floor.store, pits=1, per_pit=2)
        floor.store.open_account(name="big", scope="floor", reset=1_000_000, increment=100, cap=5_000_000)
        floor.store.hit(account="big", table_id="t002", seq=7)  # 1,000,000 > 500,000
        with (
            signed_in(floor.url, "dana") as dana,
            signed_in(floor.url, "sam") as sam,
            signed_in(floor.url, "tess") as tess,
        ):
            hits = until(lambda: _panel(dana)["hits"], what="the hit on the panel")
            assert [
                (h["account"], h["hit_no"], h["table"], h["pit"], h["amount"], h["needs_second"]) for h in hits
            ] == [("big", 1, "t002", "A", 1_000_000, True)]
            refused = dana.post("/api/floor/jackpots/big/1/confirm")
            assert (refused.status_code, refused.json()["error"]) == (
                403,
                "only a supervisor may do this: ask a supervisor to sign in",
            )
            early = sam.post("/api/floor/jackpots/big/1/confirm")
            assert early.status_code == 409
            assert "(1,000,000 EUR) is above 500,000 EUR: a supervisor approves it first" in early.json()["error"]
            approved = sam.post("/api/floor/jackpots/big/1/approve")
            assert approved.status_code == 200 and approved.json()["hit"]["approved_by"] == "sam"
            twice = sam.post("/api/floor/jackpots/big/1/confirm")
            assert (twice.status_code, twice.json()["error"]) == (
                409,
                "sam approved hit 1 of big and cannot confirm it too: a second, different supervisor confirms it",
            )
            until(lambda: _panel(dana)["hits"][0]["approved_by"] == "sam", what="the approval on the panel")
            done = tess.post("/api/floor/jackpots/big/1/confirm")
            assert done.status_code == 200
            assert (done.json()["hit"]["status"], done.json()["hit"]["confirmed_by"]) == ("confirmed", "tess")
            until(lambda: _panel(dana)["hits"] == [], what="the confirmed hit gone from the panel")
            missing = tess.post("/api/floor/jackpots/big/9/confirm")
            assert (missing.status_code, missing.json()) == (404, {"error": "account big has no hit number 9"})
            no_csrf = httpx2.post(
                f"{floor.url}/api/floor/jackpots/big/1/confirm", cookies=tess.cookies, headers={"Origin": floor.url}
            )
            assert no_csrf.status_code == 403 and "CSRF" in no_csrf.json()["error"]
            wrong = tess.post("/api/floor/jackpots/big/1/reject")
            assert wrong.status_code == 422 and wrong.json()["error"].startswith("action:")
        audit = [(e.who, e.action) for e in floor.accounts.audit_log(last=50) if e.action.startswith("jackpot")]
        assert audit == [
            ("supervisor:sam", "jackpot-confirm-refused"),
            ("supervisor:sam", "jackpot-approve"),
            ("supervisor:sam", "jackpot-confirm-refused"),
            ("supervisor:tess", "jackpot-confirm"),
        ]


def test_a_jackpots_own_second_approval_amount_is_the_one_the_panel_and_the_buttons_follow(
    floor_url: str, tmp_path: Path
) -> None:
    with running(floor_url, tmp_path / "data") as floor:
        floor_of(floor.store, pits=1, per_pit=2)
        store = floor.store
        store.open_account(name="big", scope="floor", reset=1_000_000, increment=100, cap=5_000_000)
        store.open_account(name="pit-A", scope="pit", scope_value="A", reset=2_000, increment=1, cap=9_000)
        store.hit(account="big", table_id="t001", seq=1)  # 1,000,000: above the floor's 500,000
        store.hit(account="pit-A", table_id="t002", seq=1)  # 2,000: below the floor's amount
        store.set_second_approval(account="pit-A", above=1_500, by="pat", reason="pit A's rule")
        with signed_in(floor.url, "sam") as sam, signed_in(floor.url, "tess") as tess:
            # The feed may have read the two hits before pit-A's own amount was set: wait for a panel read
            # after it (its accounts show the amount), not just for the two hits.
            panel = until(
                lambda: (
                    (p := _panel(sam)) and len(p["hits"]) == 2 and any(a["own_approval"] for a in p["accounts"]) and p
                ),
                what="both hits and pit-A's own amount on the panel",
            )
            assert {h["account"]: h["needs_second"] for h in panel["hits"]} == {"big": True, "pit-A": True}
            assert {a["name"]: (a["second_approval_above"], a["own_approval"]) for a in panel["accounts"]} == {
                "big": (500_000, False),
                "pit-A": (1_500, True),
            }
            early = sam.post("/api/floor/jackpots/pit-A/1/confirm")
            assert early.status_code == 409 and "(2,000 EUR) is above 1,500 EUR" in early.json()["error"]
            # Raised above the hit, the jackpot's amount lets one supervisor confirm: the panel follows.
            store.set_second_approval(account="pit-A", above=5_000, by="pat", reason="raised")
            until(
                lambda: {h["account"]: h["needs_second"] for h in _panel(sam)["hits"]} == {"big": True, "pit-A": False},
                what="the panel following the new amount",
            )
            refused = sam.post("/api/floor/jackpots/pit-A/1/approve")
            assert refused.status_code == 409 and "is not above 5,000 EUR: one supervisor confirms it" in refused.text
            assert tess.post("/api/floor/jackpots/pit-A/1/confirm").status_code == 200


def test_a_restart_of_the_service_loses_nothing(floor_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running(floor_url, data) as floor:
        floor_of(floor.store, pits=2, per_pit=2)
        floor.store.report_status(
            table_id="t003", phase="dealing", round_no=9, tilts=["deck-changed"], progressive="open"
        )
        floor.store.open_account(name="big", scope="floor", reset=1_000_000, increment=100, cap=5_000_000)
        floor.store.hit(account="big", table_id="t001", seq=3)
        with signed_in(floor.url, "sam") as sam:
            until(lambda: _panel(sam)["hits"], what="the hit")
            assert sam.post("/api/floor/jackpots/big/1/approve").status_code == 200
            before = until(
                lambda: (
                    (t := _tiles(sam)) and t[2]["phase"] == "dealing" and _panel(sam)["hits"][0]["approved_by"] and t
                ),
                what="the picture before the restart",
            )
    with running(floor_url, data) as again, signed_in(again.url, "tess") as tess:
        after = until(lambda: len(_tiles(tess)) == 4 and _tiles(tess), what="the picture after the restart")
        strip = ("updated_at", "link")  # time passes: only the report's age may differ
        assert [{k: v for k, v in t.items() if k not in strip} for t in after] == [
            {k: v for k, v in t.items() if k not in strip} for t in before
        ]
        hit = until(lambda: _panel(tess)["hits"], what="the hit after the restart")[0]
        assert (hit["approved_by"], hit["needs_second"]) == ("sam", True)
        assert tess.post("/api/floor/jackpots/big/1/confirm").json()["hit"]["confirmed_by"] == "tess"


def test_a_silent_table_shows_link_lost_and_comes_back(floor_url: str, tmp_path: Path) -> None:
    settings = FAST.model_copy(update={"link_lost_seconds": 3.0})
    with running(floor_url, tmp_path / "data", settings=settings) as floor:
        floor_of(floor.store, pits=1, per_pit=2)
        floor.store.add_table(table_id="t003", pit="A", game="oasis")  # on the floor, never reported
        with signed_in(floor.url, "dana") as dana:
            until(
                lambda: [t["table"] for t in _tiles(dana, filter="lost")] == ["t001", "t002", "t003"], what="all silent"
            )
            assert {t["table"]: t["link"] for t in _tiles(dana)} == {"t001": "lost", "t002": "lost", "t003": "none"}
            assert dana.get("/api/floor/tables").json()["summary"]["lost"] == 3
            floor.store.report_status(table_id="t002", phase="idle", round_no=1, tilts=[], progressive="open")
            until(lambda: "t002" not in [t["table"] for t in _tiles(dana, filter="lost")], what="t002 back")


def test_tiles_count_rounds_from_the_replicated_journal_and_carry_no_card(floor_url: str, tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from controller.journal.base import Entry

    with running(floor_url, tmp_path / "data") as floor:
        floor_of(floor.store, pits=1, per_pit=1)
        now = datetime.now(UTC)
        cards = [
            ("card", {"card": "Qh", "counter": 1, "shoe": "s1"}),
            ("reveal", {"number": 1, "card": "7c"}),
            ("round-settled", {"round": 1, "hands": ["QhJhTh9h8h"]}),
            ("card", {"card": "Ks", "counter": 2, "shoe": "s1"}),
            ("round-settled", {"round": 2, "hands": ["KsKd"]}),
        ]
        entries = [
            Entry(
                seq=n,
                kind=kind,
                data=data,
                actor="shoe:shoe",
                at=(now - timedelta(minutes=5)).isoformat(),
                hash=f"h{n}",
            )
            for n, (kind, data) in enumerate(cards, start=1)
        ]
        floor.store.replicate(table_id="t001", entries=entries)
        floor.store.report_status(table_id="t001", phase="showdown", round_no=2, tilts=[], progressive="open")
        with signed_in(floor.url, "dana") as dana:
            tile = until(lambda: (t := _tiles(dana)[0])["phase"] == "showdown" and t, what="the report")
            assert (tile["rounds_last_hour"], tile["last_seq"]) == (2, 5)
            shown = dana.get("/api/floor/tables").text + dana.get("/api/floor/jackpots").text
            assert [code for code in ("Qh", "7c", "Ks", "Kd", "Jh") if code in shown] == []


def test_the_service_says_when_postgresql_is_gone_and_recovers(pg_cluster: Any, tmp_path: Path) -> None:
    url = pg_cluster.create_database()
    with running(url, tmp_path / "data") as floor, signed_in(floor.url, "sam") as sam:
        floor_of(floor.store, pits=1, per_pit=2)
        until(lambda: len(_tiles(sam)) == 2, what="the tables")
        summary = lambda: sam.get("/api/floor/tables").json()["summary"]  # noqa: E731
        assert summary()["database"] == "ok"
        pg_cluster.stop()
        try:
            down = until(lambda: summary()["database"] != "ok" and summary()["database"], what="the database down")
            assert down.startswith("floor unavailable: ")
            assert len(_tiles(sam)) == 2  # the last picture stays on the screens
        finally:
            pg_cluster.start()
        until(lambda: summary()["database"] == "ok", what="the database back")
        floor.store.report_status(table_id="t001", phase="dealing", round_no=5, tilts=[], progressive="open")
        until(lambda: _tiles(sam)[0]["round"] == 5, what="a change after the outage")


def test_reports_are_served_to_supervisors_signed_in_with_the_central_accounts(floor_url: str, tmp_path: Path) -> None:
    with running(floor_url, tmp_path / "data") as floor:
        floor_of(floor.store, pits=1, per_pit=2)
        page = httpx2.get(f"{floor.url}/reports", follow_redirects=False)
        assert (page.status_code, page.headers["location"]) == (303, "/login?next=/reports")
        assert httpx2.get(f"{floor.url}/api/reports?day=2026-11-24").status_code == 401
        with signed_in(floor.url, "dana") as dealer:
            answer = dealer.get("/api/reports", params={"day": "2026-11-24"})
            assert answer.status_code == 403 and "only a supervisor may read the reports" in answer.text
        with signed_in(floor.url, "sam") as supervisor:
            assert supervisor.get("/reports").status_code == 200
            report = supervisor.get("/api/reports", params={"day": "2026-11-24", "tz": "UTC"}).json()
            assert report["totals"][0]["rounds"] == 0 and report["from"] == "2026-11-24T06:00:00+00:00"
            csv = supervisor.get("/api/reports", params={"day": "2026-11-24", "format": "csv"})
            assert csv.headers["content-type"].startswith("text/csv")
        # The same central account signs in at a table of this floor (its display reads the same store).
        from floor.accounts import FloorAccountStore

        at_table = FloorAccountStore(store=floor.store)
        assert at_table.verify(name="sam", password="correct-horse-battery") is not None
