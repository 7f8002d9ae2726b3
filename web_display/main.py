"""The app: ``create_app(settings=..., tables=...)`` wires routers, error handlers and the live hub."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from controller.errors import ConfigError, ControllerError, RuleViolation
from controller.redaction import for_display
from controller.table import PermissionDenied, TableError, TableService
from controller.telemetry import TableMetrics
from web_display.accounts import AccountStore, open_account_store
from web_display.api.routes import admin, auth, floor, live, override, pages, recall
from web_display.api.routes import metrics as metrics_routes
from web_display.api.routes import tables as table_routes
from web_display.core.config import Settings
from web_display.core.middleware import BodyLimit, SecurityHeaders
from web_display.core.throttle import Backoff, FailedSignIns, HashGate, LoginThrottle, ServerBusy, TooManyAttempts
from web_display.errors import AccountStoreUnavailable, WebError
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
    metrics_routes.router,
    pages.router,
)


def create_app(
    *,
    settings: Settings,
    tables: Mapping[str, TableService],
    metrics: TableMetrics | None = None,
    accounts: AccountStore | None = None,
) -> FastAPI:
    """The web display for these tables (name → table); one table for a dealer display, several for a floor.

    ``metrics`` holds the tables' Prometheus metrics (fed by whoever runs them: the journal hook, the
    shoe's and camera's links); the app adds its own (live clients, sign-ins) and serves all at /metrics.
    ``accounts``: the account store to sign in against (the caller's: it closes it), e.g. the floor's
    central accounts from ``web_display.accounts.open_accounts(data=..., floor_url=...)``; by default the
    table's own ``accounts.sqlite3`` under ``settings.data_dir``.

    Raises:
        AccountError: the accounts file under ``settings.data_dir`` cannot be opened. A given store whose
            database cannot be reached now is not an error: the app starts and answers 503 to what needs it.
        WebError: no tables given.
    """
    if not tables:
        raise WebError("give at least one table to display")
    store = (
        accounts
        if accounts is not None
        else open_account_store(settings.accounts_path, session_ttl=settings.session_hours * 3600)
    )
    address = Backoff(
        free=settings.login_free_failures, first=settings.login_first_delay, ceiling=settings.login_max_delay
    )
    state = AppState(
        settings=settings,
        tables=dict(tables),
        accounts=store,
        throttle=LoginThrottle(
            address=address,
            account=Backoff(
                free=settings.account_free_failures,
                first=settings.login_first_delay,
                ceiling=settings.login_max_delay,
            ),
            device=address,
        ),
        failures=FailedSignIns(write=lambda who, action, detail: store.audit(who=who, action=action, detail=detail)),
        metrics=metrics or TableMetrics(),
    )

    with contextlib.suppress(AccountStoreUnavailable):  # the floor is down as the table starts:
        state.device_secret()  # read at the first sign-in instead; the base game plays on

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The hub and the hashing gate need the running loop: table callbacks from other threads are
        # handed to it, and sign-ins wait on it for a hashing slot.
        state.hub_ = Hub(
            loop=asyncio.get_running_loop(),
            tables=state.tables,
            limit=settings.client_queue,
            large_payout_bets=settings.large_payout_bets,
            per_account=settings.ws_per_account,
        )
        state.gate_ = HashGate(concurrent=settings.hash_concurrency, waiting=settings.hash_queue, per_address=2)
        tasks = [asyncio.create_task(sweep_sessions(state))]
        if settings.tick_seconds:
            tasks.append(asyncio.create_task(_tick(state.tables, settings.tick_seconds)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            state.hub_.close()
            state.hub_ = None
            state.gate_ = None
            state.failures.flush()

    app = FastAPI(
        title="dealer-assist",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.web = state
    metrics_routes.register_app_metrics(state)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(resources.files("web_display") / "static")), name="static")
    _error_handlers(app)
    hsts = f"max-age={settings.hsts_seconds}" if settings.hsts_seconds else None

    def body_limit(scope: Scope) -> int:
        if scope["method"] == "PUT" and table_routes.CONFIG_PATH.fullmatch(scope["path"]):
            return table_routes.MAX_CONFIG_BYTES
        return settings.max_body_bytes

    app.add_middleware(SecurityHeaders, headers=SECURITY_HEADERS, hsts=hsts)
    # Added last: outermost of the app's own middleware, so no route reads past the limit.
    app.add_middleware(BodyLimit, limit_for=body_limit, headers=SECURITY_HEADERS)
    return app


async def sweep_sessions(state: AppState) -> None:
    """Close live connections whose session ended elsewhere (another process changed the account, or
    the session expired), and write the failed sign-in bursts that have ended to the audit log."""
    while True:
        await asyncio.sleep(state.settings.session_check_seconds)
        try:
            hub = state.hub
            watched = hub.sessions()
            if watched:
                live = await asyncio.to_thread(state.accounts.live_sessions, watched)
                for session in watched - live:
                    hub.drop_session(session)
            await asyncio.to_thread(state.failures.flush, idle_only=True)
        except Exception:
            log.exception("checking live sessions")


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


def add_error_handlers(app: FastAPI) -> None:
    """The refusals every dealer-assist web app answers alike, as ``{"error": ...}`` (the floor service too)."""

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, TooManyAttempts | ServerBusy) else None
        return JSONResponse({"error": exc.message}, status_code=exc.status, headers=headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # FastAPI's and Starlette's own refusals, in the documented shape {"error": ...}.
        message = {
            404: "no such page",
            405: f"{request.method} is not allowed on {request.url.path}",
        }.get(exc.status_code, str(exc.detail))
        if exc.status_code == 400 and isinstance(exc.__cause__, RecursionError):
            message = "request body: JSON nested too deeply"
        return JSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _field_errors(exc)}, status_code=422)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        # Logged for the operator; the display gets a message, never a traceback.
        log.exception("internal error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": f"internal error ({type(exc).__name__}): see the server log"}, status_code=500)


def _error_handlers(app: FastAPI) -> None:
    add_error_handlers(app)

    @app.exception_handler(ControllerError)
    async def table_refused(request: Request, exc: ControllerError) -> JSONResponse:
        # A refusal may name a card (a tilt's message does): shown only if that card is face up at the
        # table the request was for; with no table known, no card at all.
        state: AppState = request.app.state.web
        table = state.tables.get(request.path_params.get("name", ""))
        # In a worker thread: reading what is face up takes the table's lock, which a command may hold.
        message = await asyncio.to_thread(for_display, table, str(exc))
        return JSONResponse({"error": message}, status_code=_status(exc))
