"""Request dependencies: the app state, the signed-in user by role, the table, and the CSRF check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Header, Path, Request
from starlette.requests import HTTPConnection

from controller.table import Actor, TableService
from web_display.core.security import Role, Session, same_token
from web_display.errors import CsrfRefused, Forbidden, NotAuthenticated, NotFound
from web_display.state import AppState

CSRF_HEADER = "X-CSRF-Token"


def get_state(conn: HTTPConnection) -> AppState:
    state: AppState = conn.app.state.web
    return state


StateDep = Annotated[AppState, Depends(get_state)]


@dataclass(frozen=True, slots=True)
class User:
    """The signed-in user of a request, and their session."""

    name: str
    role: Role
    session: Session

    @property
    def actor(self) -> Actor:
        """As the table journals them."""
        return Actor(self.name, self.role)


def session_of(conn: HTTPConnection, state: AppState) -> Session | None:
    """The request's live session (from the session store: ended or expired sessions are None)."""
    return state.accounts.session(conn.cookies.get(state.settings.session_cookie))


def origin_allowed(conn: HTTPConnection, state: AppState) -> bool:
    """The request's Origin (if the browser sent one) is this server or one the settings allow."""
    origin = conn.headers.get("origin")
    if origin is None:
        return bool(conn.scope["type"] == "http")  # browsers always send Origin on websockets
    own = {f"{scheme}://{conn.headers.get('host', '')}" for scheme in ("http", "https")}
    parts = urlsplit(origin)
    return f"{parts.scheme}://{parts.netloc}" in own or origin in state.settings.allowed_origins


def current_user(request: Request, state: StateDep) -> User:
    """The signed-in user.

    Raises:
        NotAuthenticated: no session cookie, or an unknown or expired session.
    """
    session = session_of(request, state)
    if session is None:
        raise NotAuthenticated("sign in first")
    return User(name=session.user, role=session.role, session=session)


CurrentUser = Annotated[User, Depends(current_user)]


def checked_user(
    request: Request,
    user: CurrentUser,
    state: StateDep,
    token: Annotated[str | None, Header(alias=CSRF_HEADER)] = None,
) -> User:
    """The signed-in user of a state-changing request, which must carry the session's CSRF token.

    Raises:
        NotAuthenticated: as :func:`current_user`.
        CsrfRefused: the token is missing or wrong, or the request came from another origin.
    """
    if not origin_allowed(request, state):
        raise CsrfRefused("request from another site refused")
    if token is None:
        raise CsrfRefused(f"missing CSRF token (send the {CSRF_HEADER} header given at sign-in)")
    if not same_token(token, user.session.csrf):
        raise CsrfRefused("wrong CSRF token: reload the page")
    return user


ActingUser = Annotated[User, Depends(checked_user)]


def supervisor_user(user: ActingUser) -> User:
    """A state-changing request by a supervisor (or admin).

    Raises:
        Forbidden: the user is a dealer.
    """
    if user.role not in ("supervisor", "admin"):
        raise Forbidden("only a supervisor may do this: ask a supervisor to sign in")
    return user


SupervisorUser = Annotated[User, Depends(supervisor_user)]


def admin_reader(user: CurrentUser) -> User:
    """Raises Forbidden unless the user is an admin (reading admin data)."""
    if user.role != "admin":
        raise Forbidden("only an admin may do this")
    return user


AdminReader = Annotated[User, Depends(admin_reader)]


def admin_user(user: ActingUser) -> User:
    """A state-changing request by an admin.

    Raises:
        Forbidden: the user is not an admin.
    """
    if user.role != "admin":
        raise Forbidden("only an admin may do this")
    return user


AdminUser = Annotated[User, Depends(admin_user)]


def get_table(state: StateDep, name: Annotated[str, Path(description="the table's name")]) -> TableService:
    """The table named in the path.

    Raises:
        NotFound: no such table here.
    """
    table = state.tables.get(name)
    if table is None:
        raise NotFound(f"there is no table {name!r} here (tables: {', '.join(state.tables)})")
    return table


TableDep = Annotated[TableService, Depends(get_table)]
