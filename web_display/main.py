"""The app: ``create_app(settings=..., tables=...)`` wires routers, error handlers and the live hub."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from controller.errors import ConfigError, ControllerError, RuleViolation
from controller.table import PermissionDenied, TableError, TableService
from web_display.accounts import AccountStore
from web_display.api.routes import admin, auth, floor, live, override, pages, recall
from web_display.api.routes import tables as table_routes
from web_display.core.config import Settings
from web_display.core.security import SessionStore
from web_display.errors import WebError
from web_display.live import Hub
from web_display.state import AppState

log = logging.getLogger("web_display")

# 'self' covers the page's own websocket in current browsers; nothing inline, nothing from elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
ROUTERS = (
    auth.router,
    table_routes.router,
    recall.router,
    override.router,
    floor.router,
    admin.router,
    live.router,
    pages.router,
)


def create_app(*, settings: Settings, tables: Mapping[str, TableService]) -> FastAPI:
    """The web display for these tables (name → table); one table for a dealer display, several for a floor.

    Raises:
        AccountError: the accounts file under ``settings.data_dir`` cannot be opened.
        WebError: no tables given.
    """
    if not tables:
        raise WebError("give at least one table to display")
    state = AppState(
        settings=settings,
        tables=dict(tables),
        accounts=AccountStore(
            path=settings.accounts_path,
            max_failed=settings.max_failed_logins,
            lockout_seconds=settings.lockout_seconds,
        ),
        sessions=SessionStore(ttl_seconds=settings.session_hours * 3600),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The hub needs the running loop: table callbacks from other threads are handed to it.
        state.hub_ = Hub(
            loop=asyncio.get_running_loop(),
            tables=state.tables,
            limit=settings.client_queue,
            large_payout_bets=settings.large_payout_bets,
        )
        ticker = asyncio.create_task(_tick(state.tables, settings.tick_seconds)) if settings.tick_seconds else None
        try:
            yield
        finally:
            if ticker is not None:
                ticker.cancel()
                await asyncio.gather(ticker, return_exceptions=True)
            state.hub_.close()
            state.hub_ = None

    app = FastAPI(title="dealer-assist", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.web = state
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(resources.files("web_display") / "static")), name="static")
    _error_handlers(app)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        if request.url.path.startswith("/api/"):
            response.headers["Cache-Control"] = "no-store"
        return response

    return app


async def _tick(tables: Mapping[str, TableService], seconds: float) -> None:
    """Run the tables' decision timers. In a worker thread: a tick may journal (fsync) a timed-out fold."""
    while True:
        await asyncio.sleep(seconds)
        for name, table in tables.items():
            try:
                await asyncio.to_thread(table.tick)
            except ControllerError:
                log.exception("decision timer of table %s", name)


def _status(exc: ControllerError) -> int:
    if isinstance(exc, PermissionDenied):
        return 403
    if isinstance(exc, TableError):
        return 409  # refused in the table's current state (a round open, a tilt, ...)
    if isinstance(exc, RuleViolation | ConfigError):
        return 422  # a rule, or a configuration setting, refused: the message names it
    return 400


def _field_errors(exc: RequestValidationError) -> str:
    """Pydantic's errors as one line naming each field: ``bets.0.ante: Input should be ...``."""
    parts = []
    for error in exc.errors():
        loc = [str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path", "header")]
        parts.append(f"{'.'.join(loc) or 'request'}: {error.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def _error_handlers(app: FastAPI) -> None:
    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(ControllerError)
    async def table_refused(request: Request, exc: ControllerError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=_status(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _field_errors(exc)}, status_code=422)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        # Logged for the operator; the display gets a message, never a traceback.
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": f"internal error ({type(exc).__name__}): see the server log"}, status_code=500)
