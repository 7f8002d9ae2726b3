"""Live feeds: table snapshots fanned out to websocket clients, coalesced, with bounded per-client backlogs.

The table calls its subscribers from whatever thread changed it (the shoe driver, a request worker).
That callback only hands the snapshot to the event loop (``call_soon_threadsafe``) and returns, so a
display can never stall the table. On the loop each client keeps at most one pending message per key
(a table's latest state wins over an unsent older one) and at most ``limit`` keys; a client whose
backlog passes that, or whose socket does not take a message within the send timeout, is dropped and
reconnects for a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.view import recalled

if TYPE_CHECKING:
    from controller.table import TableService

# Close codes: 1013 "try again later" tells the client to reconnect; 1008 policy (auth, origin).
DROPPED = 1013
POLICY = 1008


@dataclass(eq=False, slots=True)
class Client:
    """One connected display: its unsent messages by key, oldest key first."""

    session: str
    limit: int
    account: str = ""
    pending: dict[str, str] = field(default_factory=dict)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: bool = False
    reason: str = ""

    def offer(self, key: str, message: str) -> None:
        """Queue ``message`` under ``key``, replacing an unsent one; drop the client if its backlog is full."""
        if self.dropped:
            return
        if key in self.pending:
            self.pending[key] = message  # latest state wins; keeps its place in the order
        elif len(self.pending) >= self.limit:
            self.drop("too far behind")
            return
        else:
            self.pending[key] = message
        self.wake.set()

    def drop(self, reason: str) -> None:
        self.dropped = True
        self.reason = reason
        self.pending.clear()
        self.wake.set()

    async def next_batch(self) -> list[str]:
        """Wait for messages; returns them oldest first (empty when the client was dropped)."""
        while not self.pending and not self.dropped:
            self.wake.clear()
            await self.wake.wait()
        if self.dropped:
            return []
        batch = list(self.pending.values())
        self.pending.clear()
        return batch


def large_payouts(table: TableService, *, threshold: int) -> list[dict[str, Any]]:
    """Boxes of the recent finished rounds that won at least ``threshold`` (their hands as shown)."""
    large = []
    for item in list(table.recall):  # list() copies the deque atomically under the GIL
        done = recalled(item)
        for box in done["settlement"]["boxes"]:
            if box["net"] >= threshold:
                large.append(
                    {
                        "round": done["round"],
                        "box": box["box"],
                        "net": box["net"],
                        "hand": box["hand"],
                        "at": done["finished_at"],
                    }
                )
    return large[-5:]


def floor_summary(view: Mapping[str, Any], *, large: list[dict[str, Any]]) -> dict[str, Any]:
    """What the floor display shows of one table: no cards at all, only counts, money and alerts."""
    info = view["table"]
    return {
        "name": info["name"],
        "game": info["game"],
        "title": info["title"],
        "currency": info["currency"],
        "minor_units": info["minor_units"],
        "version": view["version"],
        "round": view["round"],
        "phase": view["phase"],
        "expected": view["expected"],
        "rounds_today": view["stats"]["rounds_today"],
        "rounds_last_hour": view["stats"]["rounds_last_hour"],
        "tilts": [{"id": t["id"], "kind": t["kind"], "message": t["message"]} for t in view["tilts"]],
        "jackpot": {"enabled": view["jackpot"]["enabled"], "meter": view["jackpot"]["meter"]},
        "pending_hits": view["jackpot"]["pending"],
        "large_payouts": large,
        "shoe": view["shoe"],
        "camera": camera_summary(view["camera"]),
    }


def camera_summary(camera: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The camera as a floor shows it: its state, rate, last frame's age and zones covered (no per-zone counts)."""
    if camera is None:
        return None
    keep = ("state", "role", "fps", "last_frame_age_s", "stale_after_s", "zones")
    return {**{k: camera.get(k) for k in keep}, "covered": len(camera.get("covered") or ())}


class Hub:
    """Subscribes to every table once and fans each change out to the clients watching it."""

    def __init__(
        self,
        *,
        loop: asyncio.AbstractEventLoop,
        tables: Mapping[str, TableService],
        limit: int,
        large_payout_bets: int,
        per_account: int = 16,
    ) -> None:
        self._loop = loop
        self._per_account = per_account
        self._tables = dict(tables)
        self._limit = limit
        self._large = large_payout_bets
        self._table_clients: dict[str, set[Client]] = {name: set() for name in tables}
        self._floor_clients: set[Client] = set()
        self._latest: dict[str, str] = {}
        self._floor: dict[str, str] = {}
        self._unsubscribe: list[Callable[[], None]] = []
        self._large_cache: dict[str, tuple[tuple[int, int], list[dict[str, Any]]]] = {}
        for name, table in self._tables.items():
            # Subscribed and snapshotted in one step: a card arriving from the shoe thread cannot fall
            # between the first snapshot and the first update.
            unsubscribe, first = table.watch(self._from_table(name))
            self._unsubscribe.append(unsubscribe)
            self._publish(name, first)

    def _from_table(self, name: str) -> Callable[[dict[str, Any]], None]:
        def callback(view: dict[str, Any]) -> None:
            # Runs in the table's caller thread, under the table's lock: hand off and return at once.
            # It must never raise into the table: a server stopping between the table's copy of its
            # subscriber list and this call has a closed loop, and then there is no one to tell.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._publish, name, view)

        return callback

    def _publish(self, name: str, view: dict[str, Any]) -> None:
        """On the loop: serialise once, offer to every client of this table and of the floor."""
        text = json.dumps(view, separators=(",", ":"))
        self._latest[name] = text
        message = f'{{"type":"table","name":{json.dumps(name)},"view":{text}}}'
        for client in list(self._table_clients[name]):
            client.offer(name, message)
        summary = floor_summary(view, large=self._large_payouts(name, view))
        floor = json.dumps({"type": "floor-table", "name": name, "table": summary}, separators=(",", ":"))
        self._floor[name] = floor
        for client in list(self._floor_clients):
            client.offer(name, floor)

    def _large_payouts(self, name: str, view: Mapping[str, Any]) -> list[dict[str, Any]]:
        # Recall changes only when a round finishes: recompute then, not at every card.
        table = self._tables[name]
        key = (len(table.recall), table.recall[-1].round if table.recall else 0)
        cached = self._large_cache.get(name)
        if cached is None or cached[0] != key:
            threshold = self._large * view["table"]["min_bet"]
            cached = (key, large_payouts(table, threshold=threshold))
            self._large_cache[name] = cached
        return cached[1]

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        for client in self._all():
            client.drop("server stopping")

    def latest(self, name: str) -> str:
        """The table's latest published snapshot, as JSON text."""
        return self._latest[name]

    def floor_state(self) -> list[dict[str, Any]]:
        return [json.loads(self._floor[name])["table"] for name in self._tables]

    # ---------------------------------------------------------------- clients

    def admits(self, account: str) -> bool:
        """Whether ``account`` may open one more live connection (at most ``per_account`` at once)."""
        return sum(1 for c in self._all() if c.account == account) < self._per_account

    def watch_table(self, name: str, *, session: str, account: str = "") -> Client:
        """A new client of one table, with its full snapshot already queued."""
        client = Client(session=session, limit=self._limit, account=account)
        client.offer(name, f'{{"type":"table","name":{json.dumps(name)},"view":{self._latest[name]}}}')
        self._table_clients[name].add(client)
        return client

    def watch_floor(self, *, session: str, account: str = "") -> Client:
        """A new floor client: one message per table already queued (the full picture)."""
        client = Client(session=session, limit=max(self._limit, len(self._tables)), account=account)
        for name in self._tables:
            client.offer(name, self._floor[name])
        self._floor_clients.add(client)
        return client

    def forget(self, client: Client) -> None:
        self._floor_clients.discard(client)
        for clients in self._table_clients.values():
            clients.discard(client)

    def drop_session(self, session: str) -> None:
        """Sign-out (or the session ended elsewhere): close that session's live connections too."""
        for client in self._all():
            if client.session == session:
                client.drop("signed out")

    def drop_account(self, account: str) -> None:
        """The account was changed or removed: close all its live connections."""
        for client in self._all():
            if client.account == account:
                client.drop("account changed")

    def sessions(self) -> set[str]:
        """The sessions with live connections now."""
        return {c.session for c in self._all()}

    def _all(self) -> list[Client]:
        return [*self._floor_clients, *(c for s in self._table_clients.values() for c in s)]

    @property
    def clients(self) -> int:
        return len(self._floor_clients) + sum(len(s) for s in self._table_clients.values())

    def client_counts(self) -> tuple[int, int]:
        """Live connections now: (table feeds, floor feeds)."""
        return sum(len(s) for s in self._table_clients.values()), len(self._floor_clients)


async def pump(client: Client, send: Callable[[str], Any], *, timeout: float) -> str:
    """Send the client's messages until it is dropped; returns why it stopped.

    A send that takes longer than ``timeout`` drops the client: a stuck display must not hold
    messages (or memory) for ever.
    """
    while True:
        batch = await client.next_batch()
        if not batch:
            return client.reason
        for message in batch:
            if client.dropped:  # dropped mid-batch (signed out, server stopping): send nothing more
                return client.reason
            try:
                await asyncio.wait_for(send(message), timeout=timeout)
            except TimeoutError:
                client.drop("too slow")
                return client.reason
            except Exception:  # the socket went away: nothing to report to anyone
                with contextlib.suppress(Exception):
                    client.drop("disconnected")
                return "disconnected"
