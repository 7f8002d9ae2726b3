"""Sign in and out: a fresh session (and CSRF token) at every sign-in, every attempt audited."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from web_display.api.deps import CSRF_HEADER, CurrentUser, StateDep, origin_allowed, session_of
from web_display.errors import CsrfRefused

router = APIRouter(prefix="/api", tags=["auth"])


class Login(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]


def _me(name: str, role: str, csrf: str) -> dict[str, Any]:
    return {"name": name, "role": role, "csrf": csrf, "csrf_header": CSRF_HEADER}


@router.post("/login")
def login(body: Login, request: Request, response: Response, state: StateDep) -> dict[str, Any]:
    """Check the password and start a new session; any session the browser brought is ended first.

    Raises:
        WrongCredentials: unknown name or wrong password (one message for both).
        CsrfRefused: the sign-in was posted from another site (login CSRF).
    """
    if not origin_allowed(request, state):
        raise CsrfRefused("sign-in from another site refused")
    where = request.client.host if request.client else ""
    # A session id the browser already had is never promoted to a signed-in one (session fixation).
    old = state.sessions.end(request.cookies.get(state.settings.session_cookie))
    if old is not None:
        state.hub.drop_session(old.id)
    account = state.accounts.authenticate(name=body.name.strip().lower(), password=body.password, where=where)
    session = state.sessions.create(user=account.name, role=account.role)
    state.accounts.audit(who=f"{account.role}:{account.name}", action="login", detail=where)
    secure = state.settings.secure_cookies
    response.set_cookie(
        state.settings.session_cookie,
        session.id,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https" if secure is None else secure,
        path="/",
    )
    return _me(account.name, account.role, session.csrf)


@router.post("/logout")
def logout(request: Request, response: Response, state: StateDep) -> dict[str, Any]:
    """End the session (and its live connections). Allowed without a CSRF token: it only takes rights away."""
    session = session_of(request, state)
    if session is not None:
        state.sessions.end(session.id)
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
