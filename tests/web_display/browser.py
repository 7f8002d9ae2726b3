"""Playwright on Debian's Chromium (never a downloaded browser), and helpers to drive the displays."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

from controller.table import TableService
from tests.web_display.kit import PASSWORD

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Browser) -> Page:
    """A page in a fresh context (its own cookies): desk-sized, with a patient default timeout."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    return context.new_page()


def sign_in(page: Page, base: str, name: str, *, next_path: str) -> None:
    page.goto(f"{base}/login?next={next_path}")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#sign-in")
    page.wait_for_url(f"{base}{next_path}")


def shown_version(page: Page, version: int) -> None:
    """Wait until the dealer display has drawn the table at ``version`` or later."""
    page.wait_for_function("v => Number(document.body.dataset.version || -1) >= v", arg=version)


def click_and_wait(page: Page, table: TableService, selector: str) -> None:
    """Click a command button and wait for the table's change to come back through the live feed."""
    before = table.version
    page.click(selector)
    page.wait_for_function("v => Number(document.body.dataset.version || -1) > v", arg=before)


def screenshot(page: Page, name: str, *, full_page: bool = True) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)


def money(amount: int) -> str:
    """As the display formats EUR with no minor units."""
    sign = "−" if amount < 0 else ""
    return f"{sign}EUR {abs(amount):,}"


def signed(amount: int) -> str:
    return ("+" if amount > 0 else "") + money(amount)


def chips(bet: str, result: int) -> str:
    """What the dealer display says to do with one bet's chips (web_display/static/wording.js)."""
    if bet.endswith("-fee"):
        return "house keeps" if result < 0 else "fee back"
    if result > 0:
        return f"pay {money(result)}"
    if result < 0:
        return f"collect {money(-result)}"
    return "push"


def net_text(net: int) -> str:
    """A box's net on the dealer display, when it is not "even" (some paid, some kept)."""
    return f"Pay {money(net)}" if net > 0 else f"Collect {money(-net)}" if net < 0 else "Push"
