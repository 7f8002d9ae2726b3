"""The floor service's app: ``create_floor_app(store=, accounts=, db_url=, settings=)``.

It reuses the web display's sign-in (its auth router, sessions, CSRF, throttling, audit log), security
middleware and live-connection hub; what is its own is the board, the refresher and the routes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from controller.telemetry import TableMetrics
from floor.base import FloorStore
from floor.changes import ChangeSource, change_source
from floor.errors import FloorConfigError, FloorError, FloorIntegrityError, FloorRefused, FloorUnavailable
from floor.web import routes
from floor.web.board import Board
from floor.web.config import FloorSettings
from floor.web.feed import FloorHub, Refresher
from floor.web_reports import reports_router
from web_display.accounts import AccountStore
from web_display.api.deps import CurrentUser, User, session_of
from web_display.api.routes import auth
from web_display.core.config import Settings
from web_display.core.middleware import BodyLimit, SecurityHeaders
from web_display.core.throttle import Backoff, FailedSignIns, HashGate, LoginThrottle
from web_display.errors import Forbidden
from web_display.main import SECURITY_HEADERS, add_error_handlers, sweep_sessions
from web_display.state import AppState

log = logging.getLogger("floor.web")


def create_floor_app(
    *,
    store: FloorStore,
    accounts: AccountStore,
    db_url: str,
    settings: FloorSettings | None = None,
    web: Settings | None = None,
    source: ChangeSource | None = None,
) -> FastAPI:
    """The floor service over ``store`` (opened on ``db_url``), signing staff in with ``accounts``.

    ``source``: where changes come from (default: LISTEN on PostgreSQL, the poller on SQLite).
    """
    settings = settings or FloorSettings()
    web = web or Settings()
    address = Backoff(free=web.login_free_failures, first=web.login_first_delay, ceiling=web.login_max_delay)
    state = AppState(
        settings=web,
        tables={},
        accounts=accounts,
        throttle=LoginThrottle(
            address=address,
            account=Backoff(free=web.account_free_failures, first=web.login_first_delay, ceiling=web.login_max_delay),
            device=address,
        ),
        failures=FailedSignIns(write=lambda who, action, detail: accounts.audit(who=who, action=action, detail=detail)),
        metrics=TableMetrics(),
    )
    board = Board(link_lost_after=settings.link_lost_seconds, second_approval_above=settings.second_approval_above)
    service = routes.FloorService(store=store, board=board, settings=settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub = FloorHub(
            loop=asyncio.get_running_loop(), board=board, limit=web.client_queue, per_account=web.ws_per_account
        )
        state.hub_ = hub
        state.gate_ = HashGate(concurrent=web.hash_concurrency, waiting=web.hash_queue, per_address=2)
        refresher = Refresher(
            store=store,
            source=source or change_source(store, db_url, interval=settings.poll_seconds),
            hub=hub,
            coalesce=settings.coalesce_seconds,
            heartbeat=settings.heartbeat_seconds,
            full=settings.full_refresh_seconds,
        )
        service.refresher = refresher
        refresher.start()
        tasks = [asyncio.create_task(refresher.run()), asyncio.create_task(sweep_sessions(state))]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.to_thread(refresher.stop)
            hub.close()
            service.refresher = None
            state.hub_ = None
            state.gate_ = None
            state.failures.flush()

    app = FastAPI(title="dealer-assist floor", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.web = state
    app.state.floor = service
    app.include_router(auth.router)
    app.include_router(routes.router)
    # Reports show the house's money: supervisors and admins only; the page sends a browser to sign in.
    app.include_router(reports_router(store=lambda: store), dependencies=[Depends(_reports_reader)])

    @app.middleware("http")
    async def reports_sign_in(request: Request, call_next: Any) -> Response:
        if request.url.path == "/reports" and await asyncio.to_thread(session_of, request, state) is None:
            return RedirectResponse("/login?next=/reports", status_code=303)
        response: Response = await call_next(request)
        return response

    app.mount("/floor-static", StaticFiles(directory=str(Path(str(resources.files("floor.web"))) / "static")))
    app.mount("/static", StaticFiles(directory=str(resources.files("web_display") / "static")), name="static")
    _error_handlers(app)
    hsts = f"max-age={web.hsts_seconds}" if web.hsts_seconds else None
    app.add_middleware(SecurityHeaders, headers=SECURITY_HEADERS, hsts=hsts)
    app.add_middleware(BodyLimit, limit_for=lambda scope: web.max_body_bytes, headers=SECURITY_HEADERS)
    return app


def _reports_reader(user: CurrentUser) -> User:
    """Raises Forbidden unless a supervisor or an admin is signed in."""
    if user.role not in ("supervisor", "admin"):
        raise Forbidden("only a supervisor may read the reports")
    return user


def _floor_status(exc: FloorError) -> int:
    if isinstance(exc, FloorRefused):
        return 409  # refused in the hit's state: the message says who must do what
    if isinstance(exc, FloorUnavailable):
        return 503
    if isinstance(exc, FloorConfigError):
        return 404  # what a request can name wrongly here: an account or a hit number
    if isinstance(exc, FloorIntegrityError):
        return 409
    return 400


def _error_handlers(app: FastAPI) -> None:
    add_error_handlers(app)

    @app.exception_handler(FloorError)
    async def floor_error(request: Request, exc: FloorError) -> JSONResponse:
        # The floor's messages name accounts, hits, tables and people: never a card.
        return JSONResponse({"error": str(exc)}, status_code=_floor_status(exc))
