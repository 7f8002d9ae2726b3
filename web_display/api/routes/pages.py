"""The screens: plain HTML pages (no build step); their data comes from the API and the live feed."""

from __future__ import annotations

from importlib import resources
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from web_display.api.deps import StateDep, get_table, session_of

router = APIRouter(tags=["pages"], include_in_schema=False)


def _page(name: str, *, status: int = 200) -> HTMLResponse:
    html = resources.files("web_display").joinpath("static", name).read_text(encoding="utf-8")
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})


def _signed_in_or_login(request: Request, state: StateDep, page: str) -> Response:
    if session_of(request, state) is None:
        return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)
    return _page(page)


@router.get("/")
def home(request: Request, state: StateDep) -> Response:
    """One table: its dealer display; several: the floor."""
    if len(state.tables) == 1:
        return RedirectResponse(f"/tables/{quote(next(iter(state.tables)))}", status_code=303)
    return RedirectResponse("/floor", status_code=303)


@router.get("/login")
def login_page() -> HTMLResponse:
    """The sign-in page; it returns to its ``next`` query (a path on this site only)."""
    return _page("login.html")


@router.get("/tables/{name}")
def dealer_page(name: str, request: Request, state: StateDep) -> Response:
    """The dealer display of one table. Raises NotFound: no such table."""
    get_table(state, name)
    return _signed_in_or_login(request, state, "dealer.html")


@router.get("/floor")
def floor_page(request: Request, state: StateDep) -> Response:
    return _signed_in_or_login(request, state, "floor.html")


@router.get("/admin")
def admin_page(request: Request, state: StateDep) -> Response:
    """The admin page for an admin; anyone else signed in is told it is not theirs (403), not shown its layout."""
    session = session_of(request, state)
    if session is not None and session.role != "admin":
        return _page("no-access.html", status=403)
    return _signed_in_or_login(request, state, "admin.html")
