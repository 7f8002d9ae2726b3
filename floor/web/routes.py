"""The floor service's pages, JSON API and live feed. Every answer is read from the board (one snapshot);
only jackpot approvals and confirmations write, through the store, by a signed-in supervisor."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.requests import HTTPConnection

from floor.base import FloorStore
from floor.changes import Changes
from floor.errors import FloorRefused
from floor.web.board import Board, TileFilter
from floor.web.config import FloorSettings
from floor.web.feed import FloorClient, FloorHub, Refresher
from web_display.api.deps import CurrentUser, StateDep, SupervisorUser, get_state, origin_allowed, session_of
from web_display.errors import InvalidInput
from web_display.live import POLICY, pump

router = APIRouter(include_in_schema=False)


@dataclass(slots=True)
class FloorService:
    """What the routes share: the store, the board, the settings, and (while running) the refresher."""

    store: FloorStore
    board: Board
    settings: FloorSettings
    refresher: Refresher | None = None


def floor_of(conn: HTTPConnection) -> FloorService:
    service: FloorService = conn.app.state.floor
    return service


def _filter(*, pit: str, game: str, q: str, flags: str) -> TileFilter:
    try:
        return TileFilter.parse(pit=pit, game=game, q=q, flags=flags.split(","))
    except ValueError as exc:
        raise InvalidInput(f"filter: {exc}") from None


# -- pages ----------------------------------------------------------------------------------------


def _page(package: str, name: str) -> HTMLResponse:
    html = resources.files(package).joinpath("static", name).read_text(encoding="utf-8")
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/")
def home() -> Response:
    return RedirectResponse("/floor", status_code=303)


@router.get("/login")
def login_page() -> HTMLResponse:
    """The web display's sign-in page (it returns to its ``next`` path)."""
    return _page("web_display", "login.html")


@router.get("/floor")
@router.get("/floor/wall")
def floor_page(request: Request, state: StateDep) -> Response:
    """The floor display; /floor/wall (or ?wall=1) is the wall-screen mode: big type, no controls."""
    if session_of(request, state) is None:
        return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
    return _page("floor.web", "floor.html")


# -- JSON API -------------------------------------------------------------------------------------


# The two readers run on the event loop (async), where the board is changed: never mid-change.
@router.get("/api/floor/tables")
async def tables(
    request: Request,
    *,
    user: CurrentUser,
    pit: Annotated[str, Query(max_length=64)] = "",
    game: Annotated[str, Query(max_length=64)] = "",
    q: Annotated[str, Query(max_length=64)] = "",
    filter: Annotated[str, Query(max_length=64, description="comma-separated: tilt, jackpot, lost")] = "",
) -> dict[str, Any]:
    """The tiles this filter shows (in pit, id order) and the floor's summary. No card anywhere."""
    board = floor_of(request).board
    flt = _filter(pit=pit, game=game, q=q, flags=filter)
    return {"tiles": board.shown(flt), "summary": board.summary()}


@router.get("/api/floor/jackpots")
async def jackpots(request: Request, user: CurrentUser) -> dict[str, Any]:
    """Pending hits (oldest first: table, pit, time, amount, order, approval) and each account's meter."""
    return dict(floor_of(request).board.jackpots)


@router.post("/api/floor/jackpots/{account}/{hit_no}/{action}")
async def decide(
    request: Request,
    *,
    account: str,
    hit_no: int,
    action: Literal["approve", "confirm"],
    user: SupervisorUser,
    state: StateDep,
) -> dict[str, Any]:
    """A supervisor approves (the first of two, above the jackpot's second-approval amount, else the floor's)
    or confirms a hit.

    Raises:
        Forbidden: a dealer (403). NotAuthenticated / CsrfRefused: no session, or no CSRF token.
        FloorRefused: the same supervisor twice, or a hit above the amount not yet approved (409).
        FloorConfigError: no such account or hit (404).
    """
    service = floor_of(request)
    above = service.settings.second_approval_above
    who = f"{user.role}:{user.name}"
    try:
        if action == "approve":
            hit = await asyncio.to_thread(
                service.store.approve_hit, account=account, hit_no=hit_no, by=user.name, second_approval_above=above
            )
        else:
            hit = await asyncio.to_thread(
                service.store.confirm_hit, account=account, hit_no=hit_no, by=user.name, second_approval_above=above
            )
    except FloorRefused as exc:
        await asyncio.to_thread(state.accounts.audit, who=who, action=f"jackpot-{action}-refused", detail=str(exc))
        raise
    detail = f"hit {hit_no} of {account} at table {hit.table_id}: amount {hit.amount}"
    await asyncio.to_thread(state.accounts.audit, who=who, action=f"jackpot-{action}", detail=detail)
    if service.refresher is not None:  # the panel at once, whatever the change source's pace
        service.refresher.signal(Changes(jackpot=True))
    return {"hit": hit.to_json()}


# -- the live feed --------------------------------------------------------------------------------


async def _read_filters(websocket: WebSocket, hub: FloorHub, client: FloorClient) -> None:
    """What the display sends: its filter, ``{"type": "filter", "pit", "game", "q", "flags": [...]}``."""
    try:
        while True:
            text = await websocket.receive_text()
            try:
                message = json.loads(text)
                if not isinstance(message, dict) or message.get("type") != "filter":
                    raise ValueError('send {"type": "filter", ...}')
                flags = message.get("flags", [])
                values = [message.get(k, "") for k in ("pit", "game", "q")]
                if not isinstance(flags, list) or not all(isinstance(v, str) for v in [*values, *flags]):
                    raise ValueError("pit, game and q are text, flags a list of text")
                flt = TileFilter.parse(pit=values[0], game=values[1], q=values[2], flags=flags)
            except ValueError as exc:
                client.offer("error", json.dumps({"type": "error", "error": f"filter: {exc}"}))
                continue
            hub.set_filter(client, flt)
    except WebSocketDisconnect:
        return


@router.websocket("/ws/floor/live")
async def live(
    websocket: WebSocket,
    *,
    pit: str = "",
    game: str = "",
    q: str = "",
    flags: str = "",
) -> None:
    """The tiles the display's filter shows at once, then only those that change (and jackpots, summary)."""
    state = get_state(websocket)
    if not origin_allowed(websocket, state):
        await websocket.close(code=POLICY, reason="origin not allowed")
        return
    session = session_of(websocket, state)
    if session is None:
        await websocket.close(code=POLICY, reason="sign in first")
        return
    try:
        flt = TileFilter.parse(pit=pit, game=game, q=q, flags=flags.split(","))
    except ValueError as exc:
        await websocket.close(code=POLICY, reason=f"filter: {exc}"[:120])
        return
    await websocket.accept()
    hub = state.hub
    if not isinstance(hub, FloorHub):
        await websocket.close(code=1011, reason="not a floor service")
        return
    if not hub.admits(session.user):
        await websocket.close(code=POLICY, reason=f"at most {state.settings.ws_per_account} live displays per account")
        return
    client = hub.watch(session=session.id, account=session.user, flt=flt)
    reader = asyncio.create_task(_read_filters(websocket, hub, client))
    writer = asyncio.create_task(pump(client, websocket.send_text, timeout=state.settings.send_timeout))
    try:
        done, _ = await asyncio.wait({reader, writer}, return_when=asyncio.FIRST_COMPLETED)
        if writer in done and writer.result() != "disconnected":
            await websocket.close(code=1013, reason=writer.result())  # the page reconnects for a fresh picture
    finally:
        client.drop("disconnected")
        for task in (reader, writer):
            task.cancel()
        await asyncio.gather(reader, writer, return_exceptions=True)
        hub.forget(client)
