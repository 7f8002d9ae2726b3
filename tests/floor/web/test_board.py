"""The board: which tiles changed (a heartbeat is not a change), links from report times, filters."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from floor.status import TableStatus
from floor.web.board import Board, TileFilter

NOW = datetime(2026, 11, 25, 14, 0, tzinfo=UTC)


def _status(
    table: str, *, pit: str = "A", phase: str = "idle", at: datetime = NOW, tilts: tuple[str, ...] = ()
) -> TableStatus:
    return TableStatus(table, pit, "oasis", phase, 1, tilts, "open", at.isoformat(), 1, 0, 0, 0)


def test_only_what_is_shown_makes_a_tile_change() -> None:
    board = Board(link_lost_after=10)
    assert board.apply_statuses([_status("a1"), _status("b1", pit="B")], now=NOW, complete=True) == {"a1", "b1"}
    later = NOW + timedelta(seconds=2)
    assert board.apply_statuses([_status("a1", at=later), _status("b1", pit="B", at=later)], now=later) == set()
    assert board.tiles["a1"]["updated_at"] == later.isoformat()  # kept, just not sent
    assert board.apply_statuses([_status("a1", phase="dealing", at=later)], now=later) == {"a1"}
    assert board.apply_statuses([_status("a1", phase="dealing", at=later)], now=later, complete=True) == {"b1"}
    assert list(board.tiles) == ["a1"]  # b1 left the floor


def test_links_follow_report_times_and_a_missed_signal_is_found() -> None:
    board = Board(link_lost_after=10)
    board.apply_statuses([_status("a1"), _status("a2")], now=NOW, complete=True)
    beats = {"a1": (NOW.isoformat(), 1), "a2": ((NOW + timedelta(seconds=15)).isoformat(), 2)}
    links, stale = board.apply_heartbeats(beats, now=NOW + timedelta(seconds=20))
    assert (links, stale) == ({"a1"}, {"a2"})  # a1 silent 20 s: lost; a2's version moved unseen: re-read
    assert (board.tiles["a1"]["link"], board.tiles["a2"]["link"]) == ("lost", "ok")
    assert board.summary()["lost"] == 1


def test_filters_combine_and_refuse_unknown_flags() -> None:
    board = Board()
    board.apply_statuses(
        [_status("a1"), _status("a2", tilts=("shoe-fault",)), _status("b7", pit="B", tilts=("deck-changed",))], now=NOW
    )
    shown = lambda f: [t["table"] for t in board.shown(f)]  # noqa: E731
    assert shown(TileFilter.parse(flags=["tilt"])) == ["a2", "b7"]
    assert shown(TileFilter.parse(pit="A", flags=["tilt"])) == ["a2"]
    assert shown(TileFilter.parse(q="B7")) == ["b7"]
    assert shown(TileFilter.parse(flags=["tilt", "jackpot"])) == []
    with pytest.raises(ValueError, match="unknown filter 'cards'"):
        TileFilter.parse(flags=["cards"])
    with pytest.raises(ValueError, match="at most 64 characters"):
        TileFilter.parse(q="x" * 65)


def test_a_tiles_camera_lamp_comes_from_its_report_and_its_tilts_and_filters() -> None:
    def cam(state: str) -> dict[str, object]:
        return {"state": state, "fps": 29.5, "age_s": 0.1, "zones": 9, "covered": 0, "at": NOW.isoformat()}

    board = Board(link_lost_after=10)
    statuses = [
        _status("a1"),  # no camera
        replace(_status("a2"), camera=cam("ok")),
        replace(_status("a3"), camera=cam("stale")),
        replace(_status("a4", tilts=("camera-mismatch",)), camera=cam("ok")),
        replace(_status("a5", tilts=("camera-link-lost",)), camera=cam("lost")),
    ]
    board.apply_statuses(statuses, now=NOW, complete=True)
    states = {t: tile["camera_state"] for t, tile in board.tiles.items()}
    assert states == {"a1": "none", "a2": "ok", "a3": "stale", "a4": "disagrees", "a5": "lost"}
    assert board.tiles["a2"]["camera"]["fps"] == 29.5
    down = TileFilter.parse(flags=["camera"])
    assert [t["table"] for t in board.shown(down)] == ["a3", "a4", "a5"]
    assert board.summary()["cameras"] == 3
    # The rate alone moving is a tile change to send (the floor read it with something else).
    moved = replace(_status("a2"), camera={**cam("ok"), "fps": 12.0})
    assert board.apply_statuses([moved], now=NOW) == {"a2"}


def test_the_jackpot_panel_gives_each_meter_and_hit_its_jackpots_currency_and_decimals(tmp_path: Path) -> None:
    from floor import open_store

    with open_store(str(tmp_path)) as store:
        store.add_table(table_id="u1", pit="A", game="oasis", currency="USD", minor_units=2)
        store.add_table(table_id="e1", pit="B", game="oasis")
        store.open_account(
            name="pit-A",
            scope="pit",
            scope_value="A",
            reset=5000,
            increment=5,
            cap=9_000,
            currency="USD",
            minor_units=2,
        )
        store.open_account(name="pit-B", scope="pit", scope_value="B", reset=100, increment=1, cap=900)
        store.contribute(account="pit-A", table_id="u1", seq=1)
        store.hit(account="pit-A", table_id="u1", seq=2)
        board = Board()
        assert board.apply_jackpots(store.pending_hits(), store.accounts()) == {"u1"}
    (hit,) = board.jackpots["hits"]
    assert (hit["amount"], hit["currency"], hit["minor_units"]) == (5005, "USD", 2)
    meters = {a["name"]: (a["meter"], a["currency"], a["minor_units"]) for a in board.jackpots["accounts"]}
    assert meters == {"pit-A": (5000, "USD", 2), "pit-B": (100, "EUR", 0)}
