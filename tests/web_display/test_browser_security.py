"""In a real browser: the leak sweep (every game, every role, every websocket frame and every GET), and
the sign-in page's return path, which must never leave the site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from fastapi.routing import APIRoute
from playwright.sync_api import Browser, Page, expect

from controller.table import TableService
from tests.controller.roundkit import passes
from tests.web_display.browser import new_page, screenshot, shown_version, sign_in
from tests.web_display.kit import leaked, live_server, make_app, make_table
from tests.web_display.rounds import EXCHANGE, SCRIPTS, Act, Card, Script, fed_cards
from web_display.main import ROUTERS

pytestmark = pytest.mark.browser
ROLES = ("dealer", "supervisor", "admin")
# Where each role watches from: the dealer display twice (dealer, supervisor), the floor (admin).
WATCHES = {"dealer": "/tables/T1", "supervisor": "/tables/T1", "admin": "/floor"}

# Hold'em with exchange where every box folds: the 4th and 5th board cards are never turned.
EXCHANGE_ALL_FOLD = Script(
    game="holdem-exchange",
    settings={},
    bets=[{"box": 1, "ante": 10}, {"box": 2, "ante": 10}],
    steps=[
        *[Card(c) for c in passes({1: "Ac Kd", 2: "7h 2s"}, "Qc Jd", n=2)],
        Card("Qs"),
        Card("2d"),
        *[Card(c, up=True) for c in ("Ah", "5c", "9d")],
        Act(1, "fold"),
        Act(2, "fold"),
    ],
)
SWEEPS = {**SCRIPTS, "holdem-exchange-all-fold": EXCHANGE_ALL_FOLD}
assert SCRIPTS["holdem-exchange"] is EXCHANGE


def every_get() -> list[str]:
    """Every GET route of the app, for table T1 (API, pages and /metrics); static files never change."""
    paths = set()
    for router in ROUTERS:
        for route in router.routes:
            if isinstance(route, APIRoute) and "GET" in route.methods:
                paths.add(route.path.replace("{name}", "T1").replace("{number}", "1"))
    return sorted(paths)


FETCH_ALL = """async (paths) => {
  const out = [];
  for (const path of paths) {
    const response = await fetch(path, { credentials: "same-origin" });
    out.push([path, response.status, await response.text()]);
  }
  return out;
}"""

POST = """async ([path, body]) => {
  const me = await (await fetch("/api/me", { credentials: "same-origin" })).json();
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", [me.csrf_header]: me.csrf },
    body: JSON.stringify(body),
  });
  return [response.status, await response.text()];
}"""


class Sweep:
    """Everything each role's browser received, with the table version it was received at."""

    def __init__(self, table: TableService, pages: dict[str, Page]) -> None:
        self.table = table
        self.pages = pages
        self.items: list[tuple[int, str, str]] = []
        self.gets = every_get()
        for role, page in pages.items():
            page.on("websocket", lambda ws, role=role: ws.on("framereceived", lambda p: self.frame(role, str(p))))

    def frame(self, role: str, payload: str) -> None:
        message = json.loads(payload)
        view = message.get("view") or message.get("table") or {}
        self.items.append((view.get("version", 0), f"ws {role}", payload))

    def everything(self) -> None:
        """Each role's browser fetches every GET route now (the table holds still meanwhile)."""
        version = self.table.version
        for role, page in self.pages.items():
            if WATCHES[role].startswith("/tables/"):
                shown_version(page, version)
            for path, status, text in page.evaluate(FETCH_ALL, self.gets):
                # Admin-only routes refuse others; round 1 cannot be recalled before it has finished.
                expected = (200, 403, 404) if "/rounds/" in path else (200, 403)
                assert status in expected, (role, path, status, text)
                self.items.append((version, f"GET {path} as {role}", text))

    def post(self, role: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, str]:
        status, text = self.pages[role].evaluate(POST, [path, body or {}])
        self.items.append((self.table.version, f"POST {path} as {role}", text))
        return status, text


@pytest.mark.parametrize("case", list(SWEEPS))
def test_no_role_ever_receives_a_card_before_it_is_face_up(tmp_path: Path, browser: Browser, case: str) -> None:
    script = SWEEPS[case]
    table = make_table(tmp_path / "journal", script.game, "T1", **script.settings)
    fed = fed_cards(script)
    # A duplicate read of the first face-down card, mid-deal: the tilt names it, no display may.
    duplicate = next(i for i, s in enumerate(script.steps) if isinstance(s, Card) and not s.up)
    pages = {role: new_page(browser) for role in ROLES}
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sweep = Sweep(table, pages)  # listening before the pages open their sockets
            for role, page in pages.items():
                sign_in(page, server.url, role, next_path=WATCHES[role])
            allowed_at: dict[int, set[str]] = {table.version: set()}
            shown: set[str] = set()
            status, text = sweep.post("dealer", "/api/tables/T1/rounds", {"bets": script.bets})
            assert status == 201, text
            allowed_at[table.version] = set()
            sweep.everything()
            counter = 1
            for i, step in enumerate(script.steps):
                if isinstance(step, Card):
                    table.on_card(step.code, counter=counter, shoe="SIM")
                    counter += 1
                    shown |= {step.code} if step.up else set()
                else:
                    body = {"box": step.box, "action": step.action, "discard": list(step.discard)}
                    status, text = sweep.post("dealer", "/api/tables/T1/actions", body)
                    assert status == 200, text
                shown |= set(step.reveal)
                allowed_at[table.version] = set(shown)
                sweep.everything()
                if i == duplicate:
                    table.on_card(step.code, counter=counter, shoe="SIM")
                    counter += 1
                    (tilt,) = table.tilts.values()
                    assert tilt.kind == "duplicate-card" and step.code in tilt.message
                    allowed_at[table.version] = set(shown)
                    sweep.everything()
                    refused = sweep.post("dealer", "/api/tables/T1/actions", {"box": 1, "action": "fold"})
                    assert refused[0] == 409 and "a card was already dealt" in refused[1]
                    sweep.post("dealer", "/api/tables/T1/reports", {"kind": "missing-card"})
                    for tilt_id in sorted(table.tilts):
                        body = {"resolution": "burn", "why": "read twice"}
                        if table.tilts[tilt_id].kind == "missing-card":
                            body = {"resolution": "continue", "why": "nothing missing"}
                        status, text = sweep.post("supervisor", f"/api/tables/T1/tilts/{tilt_id}/clear", body)
                        assert status == 200, text
                    assert not table.tilts
                    allowed_at[table.version] = set(shown)
                    sweep.everything()
            assert table.phase() == "showdown"
            status, text = sweep.post("dealer", "/api/tables/T1/settlement/confirm")
            assert status == 200, text
            allowed_at[table.version] = set(shown)
            sweep.everything()
            screenshot(pages["supervisor"], f"leak-sweep-{case}")
    finally:
        for page in pages.values():
            page.context.close()

    checked = 0
    for version, where, text in sweep.items:
        allowed = allowed_at[max((v for v in allowed_at if v <= version), default=min(allowed_at))]
        hidden = [c for c in fed if c not in allowed]
        assert not leaked(text, hidden), f"{where} at version {version} shows hidden {leaked(text, hidden)}: {text}"
        checked += 1
    roles_by_feed = {where for _, where, _ in sweep.items if where.startswith("ws ")}
    assert roles_by_feed == {"ws dealer", "ws supervisor", "ws admin"}
    assert checked > len(script.steps) * len(ROLES) * len(sweep.gets)
    # The check can fail: the face-up cards are really in what the displays received.
    assert set(leaked("".join(t for _, _, t in sweep.items), shown)) == shown


@pytest.mark.parametrize(
    "target", ["/%5Cevil.example/phish", "/%09/evil.example", "//evil.example", "https://evil.example/", "/\\evil"]
)
def test_signing_in_never_sends_the_browser_to_another_site(tmp_path: Path, page: Page, target: str) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        page.goto(f"{server.url}/login?next={target if '%' in target else quote(target, safe='')}")
        page.fill("#name", "dealer")
        page.fill("#password", "correct-horse-battery")
        page.click("#sign-in")
        page.wait_for_url(f"{server.url}/tables/T1")  # "/" sends a one-table server's users to its table
        assert urlsplit(page.url).netloc == urlsplit(server.url).netloc


def test_signing_in_returns_to_a_page_of_this_site_with_its_query(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "supervisor", next_path="/floor?view=all")
        expect(page.locator("body")).to_be_visible()
