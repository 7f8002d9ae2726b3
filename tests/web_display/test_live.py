"""The live hub: latest state wins, bounded backlogs, slow clients dropped, the table never waits."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from controller.engine import BoxBet
from controller.table import Actor
from tests.web_display.kit import make_table
from web_display.live import Client, Hub, pump

DEALER = Actor("dana", "dealer")


def test_an_unsent_state_is_replaced_by_the_latest_and_keeps_its_place() -> None:
    client = Client(session="s", limit=4)
    client.offer("T1", "t1-v1")
    client.offer("T2", "t2-v1")
    client.offer("T1", "t1-v2")
    assert asyncio.run(client.next_batch()) == ["t1-v2", "t2-v1"]


def test_a_client_whose_backlog_passes_its_limit_is_dropped() -> None:
    client = Client(session="s", limit=2)
    client.offer("T1", "a")
    client.offer("T2", "b")
    assert not client.dropped
    client.offer("T3", "c")
    assert client.dropped and client.reason == "too far behind"
    assert asyncio.run(client.next_batch()) == []


def test_a_socket_that_does_not_take_a_message_in_time_is_dropped() -> None:
    async def stuck(message: str) -> None:
        await asyncio.Event().wait()  # never returns: a client that stopped reading

    client = Client(session="s", limit=4)
    client.offer("T1", "v1")
    assert asyncio.run(pump(client, stuck, timeout=0.05)) == "too slow"
    assert client.dropped


def test_messages_are_sent_in_order_until_the_client_is_dropped() -> None:
    sent: list[str] = []

    async def run() -> str:
        client = Client(session="s", limit=4)

        async def send(message: str) -> None:
            sent.append(message)
            if len(sent) == 2:
                client.drop("signed out")

        client.offer("T1", "a")
        client.offer("T2", "b")
        client.offer("T3", "c")
        return await pump(client, send, timeout=1)

    assert asyncio.run(run()) == "signed out"
    assert sent == ["a", "b"]


def test_a_client_that_never_reads_holds_one_message_and_never_stalls_the_table(tmp_path: Path) -> None:
    table = make_table(tmp_path, "oasis", "T1")
    table.open_round([BoxBet(box=b, ante=10) for b in range(1, 8)], actor=DEALER)
    cards = [f"{r}{s}" for s in "cdhs" for r in "23456789TJQKA"][:40]

    async def run() -> tuple[int, int, int]:
        hub = Hub(loop=asyncio.get_running_loop(), tables={"T1": table}, limit=8, large_payout_bets=20)
        stalled = hub.watch_table("T1", session="s")  # nobody ever reads this client
        floor = hub.watch_floor(session="f")

        def shoe() -> None:  # the shoe driver's thread: every callback returns without waiting
            for i, code in enumerate(cards, start=1):
                table.on_card(code, counter=i)

        await asyncio.to_thread(shoe)
        await asyncio.sleep(0)  # let the handed-off publications run on the loop
        for _ in range(100):
            if json.loads(stalled.pending["T1"])["view"]["version"] == table.version:
                break
            await asyncio.sleep(0.01)
        version = json.loads(stalled.pending["T1"])["view"]["version"]
        held = (len(stalled.pending), version, len(floor.pending))
        hub.close()
        return held

    pending, version, floor_pending = asyncio.run(run())
    assert table.round is not None and table.round.cards_dealt == 40
    assert pending == 1 and version == table.version  # only the latest state is held
    assert floor_pending == 1


def test_sign_out_drops_only_that_sessions_clients(tmp_path: Path) -> None:
    table = make_table(tmp_path, "oasis", "T1")

    async def run() -> tuple[bool, bool]:
        hub = Hub(loop=asyncio.get_running_loop(), tables={"T1": table}, limit=8, large_payout_bets=20)
        mine = hub.watch_table("T1", session="a")
        other = hub.watch_floor(session="b")
        hub.drop_session("a")
        return mine.dropped, other.dropped

    assert asyncio.run(run()) == (True, False)


def test_the_app_runs_the_decision_timers(tmp_path: Path) -> None:
    from datetime import timedelta

    from fastapi.testclient import TestClient

    from tests.web_display.kit import Clock, deal, make_app

    clock = Clock()
    table = make_table(tmp_path / "journal", "casino-holdem", "T1", clock=clock, rules={"decision_seconds": 30})
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    deal(table, ["2c", "3c", "4c", "5c", "6c", "7c", "8c"])
    with TestClient(make_app(tmp_path, {"T1": table}, tick_seconds=0.02)):
        clock.now += timedelta(seconds=31)
        for _ in range(3000):  # wait, generously, for the app's timer task to run
            if table.round is not None and table.round.state.boxes[1].folded:
                break
            threading.Event().wait(0.01)
    assert table.round is not None and table.round.state.boxes[1].folded
    assert list(table._store.entries())[-1].actor == "system:decision-timer"


def test_a_stopped_server_never_breaks_the_table(tmp_path: Path) -> None:
    """A publication racing the server's shutdown (loop already closed) is dropped, not raised in the shoe thread."""
    table = make_table(tmp_path, "oasis", "T1")
    loop = asyncio.new_event_loop()
    hub = Hub(loop=loop, tables={"T1": table}, limit=8, large_payout_bets=20)
    loop.close()  # the server stopped, but the table still has the hub's callback (not yet unsubscribed)
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    table.on_card("Kc", counter=1)
    assert table.round is not None and table.round.cards_dealt == 1
    hub.close()
