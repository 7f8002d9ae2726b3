"""The floor service's live feed: one refresher keeps the board, each display gets only its changed tiles.

The refresher runs on the server's event loop. A worker thread blocks on the change source (PostgreSQL
LISTEN, or the SQLite poller) and hands each signal to the loop; the refresher folds every signal that
arrived meanwhile into one read of the store (in a worker thread) and then waits ``coalesce`` seconds, so
a burst of changes costs one read and one message per display, however many tables changed. Every
``heartbeat`` seconds it also reads the tables' last report times (link lost or back, and any change
whose signal was missed) and every ``full`` seconds everything (rounds in the last hour age out).

Each display (``FloorClient``, web_display's ``Client`` with a filter) says what it shows; after a
change it is sent only the tiles that changed and that it shows (``tile``), or that it showed and no
longer does (``gone``). A new filter gets one ``reset`` with every tile it shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from floor.base import FloorStore
from floor.changes import Changes, ChangeSource
from floor.errors import FloorUnavailable
from floor.jackpots import Account, Hit
from floor.status import TableStatus
from floor.web.board import Board, TileFilter
from web_display.live import Client, Hub

log = logging.getLogger("floor.web")


def _message(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, **fields}, separators=(",", ":"))


@dataclass(eq=False, slots=True)
class FloorClient(Client):
    """One floor display: what it shows (``filter``) and which tiles it has now (``shown``)."""

    filter: TileFilter = field(default_factory=TileFilter)
    shown: set[str] = field(default_factory=set)


class FloorHub(Hub):
    """web_display's hub (sessions, per-account limits, drop on sign-out) with filtered floor displays."""

    def __init__(self, *, loop: asyncio.AbstractEventLoop, board: Board, limit: int, per_account: int) -> None:
        super().__init__(loop=loop, tables={}, limit=limit, large_payout_bets=1, per_account=per_account)
        self.board = board
        self._displays: set[FloorClient] = set()
        self._summary = ""

    def _all(self) -> list[Client]:
        return [*self._displays, *super()._all()]

    def forget(self, client: Client) -> None:
        if isinstance(client, FloorClient):
            self._displays.discard(client)
        super().forget(client)

    def watch(self, *, session: str, account: str, flt: TileFilter) -> FloorClient:
        """A new display, its whole picture already queued."""
        client = FloorClient(session=session, limit=self._limit, account=account, filter=flt)
        self._reset(client)
        self._displays.add(client)
        return client

    def set_filter(self, client: FloorClient, flt: TileFilter) -> None:
        client.filter = flt
        self._reset(client)

    def _room(self, client: FloorClient) -> None:
        # One pending message per tile at most, plus the panel and the summary: never dropped for size alone.
        client.limit = max(client.limit, len(self.board.tiles) + 8)

    def _reset(self, client: FloorClient) -> None:
        self._room(client)
        client.pending.clear()  # what was queued for the old filter is superseded by the reset
        tiles = self.board.shown(client.filter)
        client.shown = {t["table"] for t in tiles}
        client.offer("reset", _message("reset", tiles=tiles))
        client.offer("summary", _message("summary", summary=self.board.summary()))
        client.offer("jackpots", _message("jackpots", jackpots=self.board.jackpots))

    def publish(self, changed: set[str], *, jackpots: bool) -> None:
        """Offer each display the changed tiles it shows (and ``gone`` for those it no longer shows)."""
        order = [t for t in self.board.tiles if t in changed] + sorted(changed - set(self.board.tiles))
        tiles = {t: _message("tile", tile=self.board.tiles[t]) for t in order if t in self.board.tiles}
        summary = _message("summary", summary=self.board.summary())
        panel = _message("jackpots", jackpots=self.board.jackpots) if jackpots else None
        for client in list(self._displays):
            self._room(client)
            for table in order:
                tile = self.board.tiles.get(table)
                if tile is not None and client.filter.matches(tile):
                    client.shown.add(table)
                    client.offer(table, tiles[table])
                elif table in client.shown:
                    client.shown.discard(table)
                    client.offer(table, _message("gone", table=table))
            if summary != self._summary:
                client.offer("summary", summary)
            if panel is not None:
                client.offer("jackpots", panel)
        self._summary = summary

    @property
    def displays(self) -> int:
        return len(self._displays)


@dataclass(slots=True)
class _Read:
    """What one refresh read from the store (in a worker thread), applied to the board on the loop."""

    statuses: list[TableStatus] | None = None
    complete: bool = False
    beats: dict[str, tuple[str, int]] | None = None
    pending: list[tuple[Hit, str]] | None = None
    accounts: list[Account] | None = None
    error: str = ""


class Refresher:
    """Keeps the board up to date and tells the hub what changed (see the module's docstring)."""

    def __init__(
        self,
        *,
        store: FloorStore,
        source: ChangeSource,
        hub: FloorHub,
        coalesce: float,
        heartbeat: float,
        full: float,
    ) -> None:
        self.store = store
        self.source = source
        self.hub = hub
        self.board = hub.board
        self.coalesce = coalesce
        self.heartbeat = heartbeat
        self.full = full
        self.refreshes = 0  # reads of the store done: a burst of signals costs one
        self._pending = Changes(everything=True)
        self._wake = asyncio.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def signal(self, changes: Changes) -> None:
        """On the loop: fold a signal into the next refresh."""
        self._pending = self._pending | changes
        self._wake.set()

    def _listen(self, loop: asyncio.AbstractEventLoop) -> None:
        """The worker thread: block on the change source, hand each signal to the loop."""
        while not self._stop.is_set():
            try:
                changes = self.source.wait(0.5)
            except FloorUnavailable as exc:
                log.warning("floor changes: %s", exc)
                self._stop.wait(1.0)
                continue
            except Exception:  # keep listening; meanwhile the heartbeat's version check still finds changes
                log.exception("floor changes")
                self._stop.wait(1.0)
                continue
            if changes:
                with contextlib.suppress(RuntimeError):  # the loop closed: the server is stopping
                    loop.call_soon_threadsafe(self.signal, changes)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._listen, args=(asyncio.get_running_loop(),), daemon=True)
        self._thread.name = "floor-changes"
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        self.source.close()

    def _read(self, changes: Changes, *, beat: bool, full: bool) -> _Read:
        read = _Read()
        try:
            if full:
                read.statuses, read.complete = self.store.statuses(), True
            elif changes.tables:
                read.statuses = self.store.statuses(tables=changes.tables)
            if full or changes.jackpot:
                read.pending, read.accounts = self.store.pending_hits(), self.store.accounts()
            if beat:
                read.beats = self.store.heartbeats()
        except FloorUnavailable as exc:
            read.error = str(exc)
        except Exception as exc:  # never let the refresher die: the displays would freeze without a word
            log.exception("reading the floor")
            read.error = f"internal error reading the floor ({type(exc).__name__}): see the server log"
        return read

    async def run(self) -> None:
        """Refresh until cancelled."""
        last_beat = last_full = 0.0
        while True:
            wait = max(0.0, self.heartbeat - (time.monotonic() - last_beat))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)
            self._wake.clear()
            changes, self._pending = self._pending, Changes()
            now = time.monotonic()
            beat = now - last_beat >= self.heartbeat
            full = changes.everything or now - last_full >= self.full
            if not (changes or beat):
                continue
            read = await asyncio.to_thread(self._read, changes, beat=beat, full=full)
            self.refreshes += 1
            changed, panel = self._apply(read)
            if read.error:
                self._pending = self._pending | changes  # retried on the next round
            else:
                last_beat = now if beat else last_beat
                last_full = now if full else last_full
            self.hub.publish(changed, jackpots=panel)
            await asyncio.sleep(self.coalesce)

    def _apply(self, read: _Read) -> tuple[set[str], bool]:
        """On the loop: the read into the board; returns the tiles changed and whether the panel did."""
        if read.error:
            self.board.database = read.error
            return set(), False
        self.board.database = "ok"
        now = datetime.now(UTC)
        changed: set[str] = set()
        if read.statuses is not None:
            changed |= self.board.apply_statuses(read.statuses, now=now, complete=read.complete)
        panel = False
        if read.pending is not None and read.accounts is not None:
            touched = self.board.apply_jackpots(read.pending, read.accounts)
            panel = touched is not None
            if touched:  # their pending-hit counts: re-read on the next round
                self._pending = self._pending | Changes(tables=frozenset(touched))
                self._wake.set()
        if read.beats is not None:
            links, stale = self.board.apply_heartbeats(read.beats, now=now)
            changed |= links
            if stale:  # a change whose signal was missed (or is still on its way): re-read those
                self._pending = self._pending | Changes(tables=frozenset(stale))
                self._wake.set()
        return changed, panel
