"""The live feed on both backends: woken by the change signal (never a timer here), it sends each display
only the tiles that changed and that its filter shows, and ``gone`` for those that stop matching."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.floor.web.kit import FAST, floor_of, running, signed_in

# Heartbeat and full refresh far beyond the test: only the change source (NOTIFY / poller) can wake it.
SIGNAL_ONLY = FAST.model_copy(update={"heartbeat_seconds": 600.0, "full_refresh_seconds": 600.0})


@contextmanager
def live(base: str, name: str, query: str = "") -> Iterator[ClientConnection]:
    with signed_in(base, name) as client:
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
        ws_url = base.replace("http://", "ws://") + "/ws/floor/live" + query
        with connect(ws_url, origin=base, additional_headers={"Cookie": cookie}) as socket:  # type: ignore[arg-type]
            yield socket


def _next(socket: ClientConnection, kind: str) -> dict[str, Any]:
    """The next message of this kind; tiles and gones met on the way must not be skipped: fail on them."""
    while True:
        message: dict[str, Any] = json.loads(socket.recv(timeout=20))
        if message["type"] == kind:
            return message
        assert message["type"] in ("summary", "jackpots"), f"unexpected {message} while waiting for {kind}"


def test_a_display_gets_only_the_changed_tiles_its_filter_shows(floor_url: str, tmp_path: Path) -> None:
    with running(floor_url, tmp_path / "data", settings=SIGNAL_ONLY) as floor:
        floor_of(floor.store, pits=2, per_pit=4)  # A: t001-t004, B: t005-t008
        report = floor.store.report_status
        with live(floor.url, "dana", "?pit=A") as socket:
            reset = _next(socket, "reset")
            assert [t["table"] for t in reset["tiles"]] == ["t001", "t002", "t003", "t004"]
            report(table_id="t006", phase="dealing", round_no=2, tilts=[], progressive="open")  # pit B: not shown
            report(table_id="t002", phase="dealing", round_no=2, tilts=[], progressive="open")
            tile = _next(socket, "tile")["tile"]  # t006's change, signalled first, was never sent
            assert (tile["table"], tile["phase"], tile["round"]) == ("t002", "dealing", 2)
            assert "cards" not in json.dumps(tile) and set(tile) >= {"tilts", "pending_hits", "link", "progressive"}
            report(table_id="t008", phase="showdown", round_no=2, tilts=[], progressive="open")  # pit B again
            report(table_id="t003", phase="showdown", round_no=2, tilts=[], progressive="open")
            assert _next(socket, "tile")["tile"]["table"] == "t003"  # nothing of pit B came before it

            socket.send(json.dumps({"type": "filter", "pit": "", "game": "", "q": "", "flags": ["tilt"]}))
            assert _next(socket, "reset")["tiles"] == []
            report(table_id="t007", phase="tilt", round_no=1, tilts=["camera-mismatch"], progressive="closed")
            report(table_id="t001", phase="betting", round_no=2, tilts=[], progressive="open")  # no tilt: not shown
            tilted = _next(socket, "tile")["tile"]
            assert (tilted["table"], tilted["tilts"], tilted["progressive"]) == ("t007", ["camera-mismatch"], "closed")
            report(table_id="t007", phase="idle", round_no=1, tilts=[], progressive="open")  # cleared: leaves the view
            assert _next(socket, "gone") == {"type": "gone", "table": "t007"}

            socket.send(json.dumps({"type": "filter", "flags": ["cards"]}))
            refused = _next(socket, "error")["error"]
            assert refused == "filter: unknown filter 'cards' (one of tilt, jackpot, lost, camera)"


def test_a_jackpot_hit_reaches_the_panel_and_the_tile_live(floor_url: str, tmp_path: Path) -> None:
    with running(floor_url, tmp_path / "data", settings=SIGNAL_ONLY) as floor:
        floor_of(floor.store, pits=1, per_pit=3)
        floor.store.open_account(name="floor-wide", scope="floor", reset=900_000, increment=100, cap=9_000_000)
        with live(floor.url, "sam", "?flags=jackpot") as socket:
            assert _next(socket, "reset")["tiles"] == []
            floor.store.hit(account="floor-wide", table_id="t003", seq=11)
            while True:  # the panel and the tile, in whichever order the refresher finds them
                message = json.loads(socket.recv(timeout=20))
                if message["type"] == "jackpots" and message["jackpots"]["hits"]:
                    hit = message["jackpots"]["hits"][0]
                    assert (hit["table"], hit["amount"], hit["needs_second"]) == ("t003", 900_000, True)
                if message["type"] == "tile":
                    assert (message["tile"]["table"], message["tile"]["pending_hits"]) == ("t003", 1)
                    break


def test_signed_out_or_foreign_displays_are_refused(floor_url: str, tmp_path: Path) -> None:
    with running(floor_url, tmp_path / "data") as floor, signed_in(floor.url, "dana") as dana:
        ws_url = floor.url.replace("http://", "ws://") + "/ws/floor/live"
        cookie = {"Cookie": "; ".join(f"{k}={v}" for k, v in dana.cookies.items())}
        cases = (
            (ws_url, floor.url, {}),
            (ws_url, "http://evil.example", cookie),
            (ws_url + "?flags=cards", floor.url, cookie),
        )
        for url, origin, headers in cases:  # signed out, another site, a bad filter
            with pytest.raises(InvalidStatus, match="HTTP 403"):  # refused before the socket opens
                connect(url, origin=origin, additional_headers=headers)  # type: ignore[arg-type]
        with connect(ws_url, origin=floor.url, additional_headers=cookie) as socket:  # type: ignore[arg-type]
            assert json.loads(socket.recv(timeout=10))["type"] == "reset"  # the same session, properly: served
