"""Websockets: a table's live snapshots, and the floor's. Signed-in sessions from this site only."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from web_display.api.deps import get_state, origin_allowed, session_of
from web_display.core.security import Session
from web_display.errors import AccountStoreUnavailable
from web_display.live import POLICY, Client, pump

router = APIRouter(tags=["live"])
TRY_LATER = 1013


async def _serve(websocket: WebSocket, client: Client, timeout: float) -> None:
    state = get_state(websocket)
    try:
        reason = await pump(client, websocket.send_text, timeout=timeout)
        if reason != "disconnected":
            # 1013: try again later. The page reconnects (with backoff) and gets a fresh snapshot.
            await websocket.close(code=TRY_LATER, reason=reason)
    except WebSocketDisconnect:
        pass
    finally:
        state.hub.forget(client)


async def _admit(websocket: WebSocket) -> Session | None:
    """The session if the socket may open; otherwise it is refused before it is accepted."""
    state = get_state(websocket)
    if not origin_allowed(websocket, state):
        await websocket.close(code=POLICY, reason="origin not allowed")
        return None
    try:
        # In a worker thread: the session store may be the floor's database, across the network.
        session = await asyncio.to_thread(session_of, websocket, state)
    except AccountStoreUnavailable:
        await websocket.close(code=TRY_LATER, reason="account store unavailable")  # the page retries with backoff
        return None
    if session is None:
        await websocket.close(code=POLICY, reason="sign in first")
        return None
    return session


async def _refuse_beyond_limit(websocket: WebSocket, session: Session) -> bool:
    """Close an accepted socket whose account already has its most live displays open. Checked and
    followed by the hub's watch with no await between, so simultaneous opens cannot pass the bound."""
    state = get_state(websocket)
    if state.hub.admits(session.user):
        return False
    await websocket.close(code=POLICY, reason=f"at most {state.settings.ws_per_account} live displays per account")
    return True


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the client sends, so a close from its side is noticed."""
    try:
        while True:
            await websocket.receive_text()
    except WebSocketDisconnect:
        return


@router.websocket("/ws/tables/{name}")
async def table_feed(websocket: WebSocket, name: str) -> None:
    """The table's full snapshot at once, then its latest state after every change."""
    state = get_state(websocket)
    session = await _admit(websocket)
    if session is None:
        return
    if name not in state.tables:
        await websocket.close(code=POLICY, reason=f"no table {name!r}")
        return
    await websocket.accept()
    if await _refuse_beyond_limit(websocket, session):
        return
    client = state.hub.watch_table(name, session=session.id, account=session.user)
    await _run(websocket, client, state.settings.send_timeout)


@router.websocket("/ws/floor")
async def floor_feed(websocket: WebSocket) -> None:
    """Every table's floor summary at once, then each table's latest summary after every change."""
    state = get_state(websocket)
    session = await _admit(websocket)
    if session is None:
        return
    await websocket.accept()
    if await _refuse_beyond_limit(websocket, session):
        return
    client = state.hub.watch_floor(session=session.id, account=session.user)
    await _run(websocket, client, state.settings.send_timeout)


async def _run(websocket: WebSocket, client: Client, timeout: float) -> None:
    reader = asyncio.create_task(_drain(websocket))
    writer = asyncio.create_task(_serve(websocket, client, timeout))
    done, pending = await asyncio.wait({reader, writer}, return_when=asyncio.FIRST_COMPLETED)
    if reader in done:
        client.drop("disconnected")
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    get_state(websocket).hub.forget(client)
