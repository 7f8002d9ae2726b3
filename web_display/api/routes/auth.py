"""Sign in and out: throttled sign-ins, a fresh session (and CSRF token) at every sign-in, audited."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, Field

from web_display.accounts import Account
from web_display.api.deps import CSRF_HEADER, CurrentUser, StateDep, origin_allowed, session_of
from web_display.core.security import Role, device_token, device_user, same_token
from web_display.core.throttle import Attempt, ServerBusy, TooManyAttempts
from web_display.errors import CsrfRefused, WrongCredentials
from web_display.state import AppState

router = APIRouter(prefix="/api", tags=["auth"])
WRONG_CREDENTIALS = "wrong name or password"
DEVICE_DAYS = 365


class Login(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]


def _me(name: str, role: str, csrf: str) -> dict[str, Any]:
    return {"name": name, "role": role, "csrf": csrf, "csrf_header": CSRF_HEADER}


def _secure(request: Request, state: AppState) -> bool:
    configured = state.settings.secure_cookies
    return request.url.scheme == "https" if configured is None else configured


@router.post("/login")
async def login(body: Login, request: Request, response: Response, state: StateDep) -> dict[str, Any]:
    """Check the password and start a new session; any session the browser brought is ended first.

    Raises:
        WrongCredentials: unknown name or wrong password (one message for both).
        TooManyAttempts: this address (or, for a browser never signed in as that name, the name) failed
            too often lately: wait and try again (429, Retry-After).
        ServerBusy: too many sign-ins are being checked at once (503, Retry-After).
        CsrfRefused: the sign-in was posted from another site (login CSRF).
    """
    if not origin_allowed(request, state):
        raise CsrfRefused("sign-in from another site refused")
    account = await checked_credentials(state, request, name=body.name, password=body.password)
    address = request.client.host if request.client else "unknown"
    old, csrf = await asyncio.to_thread(
        _start_session, state, request, response, user=account.name, role=account.role, where=address
    )
    if old is not None:
        state.hub.drop_session(old)
    return _me(account.name, account.role, csrf)


async def checked_credentials(state: AppState, request: Request, *, name: str, password: str) -> Account:
    """A name and password checked as a sign-in checks them (throttled per address, device and name;
    hashed through the gate; failures counted and logged): for sign-in and a supervisor's override.

    Raises:
        WrongCredentials: unknown name or wrong password (one message for both).
        TooManyAttempts: too many failures lately from here (429, Retry-After).
        ServerBusy: too many passwords are being checked at once (503, Retry-After).
    """
    name = name.strip().lower()
    address = request.client.host if request.client else "unknown"
    device = request.cookies.get(state.settings.device_cookie)
    secret = await asyncio.to_thread(state.device_secret)  # the store's, read once
    trusted = device if device_user(secret, device) == name else None
    attempt = Attempt(name=name, address=address, device=trusted)
    wait = state.throttle.wait(attempt)
    if wait > 0:
        # Refused before any hashing, and the delay is not lengthened: waiting it out always works.
        state.count_sign_in("throttled")
        await asyncio.to_thread(state.failures.failed, name=name, address=address, throttled=True)
        raise TooManyAttempts(wait)
    try:
        async with state.gate.slot(address):
            account = await asyncio.to_thread(state.accounts.verify, name=name, password=password)
    except ServerBusy:
        state.count_sign_in("busy")
        raise
    if account is None:
        state.throttle.failed(attempt)
        state.count_sign_in("failed")
        await asyncio.to_thread(state.failures.failed, name=name, address=address, throttled=False)
        raise WrongCredentials(WRONG_CREDENTIALS)
    state.throttle.succeeded(attempt)
    state.count_sign_in("ok")
    return account


def _start_session(
    state: AppState, request: Request, response: Response, *, user: str, role: Role, where: str
) -> tuple[str | None, str]:
    """End the session the browser brought (never promoted: no fixation), start a new one, set the
    cookies; returns the ended session's id and the new session's CSRF token."""
    old = state.accounts.end_session(request.cookies.get(state.settings.session_cookie))
    state.failures.flush(address=where)
    session = state.accounts.create_session(user=user, role=role)
    state.accounts.audit(who=f"{role}:{user}", action="login", detail=where)
    secure = _secure(request, state)
    response.set_cookie(
        state.settings.session_cookie, session.id, httponly=True, samesite="strict", secure=secure, path="/"
    )
    secret = state.device_secret()
    if device_user(secret, request.cookies.get(state.settings.device_cookie)) != user:
        response.set_cookie(
            state.settings.device_cookie,
            device_token(secret, user),
            max_age=DEVICE_DAYS * 86400,
            httponly=True,
            samesite="strict",
            secure=secure,
            path="/api/login",
        )
    return (old.id if old else None), session.csrf


@router.post("/logout")
def logout(
    request: Request,
    response: Response,
    state: StateDep,
    token: Annotated[str | None, Header(alias=CSRF_HEADER)] = None,
) -> dict[str, Any]:
    """End the session (and its live connections).

    Raises:
        CsrfRefused: from another site, or a live session without its CSRF token (another site must
            not be able to sign the dealer out in the middle of a round).
    """
    if not origin_allowed(request, state):
        raise CsrfRefused("sign-out from another site refused")
    session = session_of(request, state)
    if session is not None:
        if not same_token(token, session.csrf):
            raise CsrfRefused(f"missing or wrong CSRF token (send the {CSRF_HEADER} header given at sign-in)")
        state.accounts.end_session(session.id)
        state.hub.drop_session(session.id)
        state.accounts.audit(who=f"{session.role}:{session.user}", action="logout")
    response.delete_cookie(state.settings.session_cookie, path="/")
    return {"signed_out": True}


@router.get("/me")
def me(user: CurrentUser) -> dict[str, Any]:
    """Who is signed in, and the CSRF token the page must send with every change.

    Raises:
        NotAuthenticated: no session.
    """
    return _me(user.name, user.role, user.session.csrf)
