"""The floor display in Chromium: 120 tables in 4 pits, filters, a change reaching its tile live, the jackpot
panel's two-supervisor steps, and the wall screen at 3840x2160 (a screenshot under the test's tmp path)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.floor.web.kit import PASSWORD, floor_of, running
from tests.web_display.browser import ARTIFACTS, chromium

pytestmark = pytest.mark.browser
CAMERA_OK = {"state": "ok", "fps": 29.8, "age_s": 0.04, "zones": 9, "covered": 0}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


def _page(browser: Browser, base: str, name: str, path: str, *, width: int = 1600, height: int = 1000) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(f"{base}/login?next={path}")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#sign-in")
    page.wait_for_url(f"{base}{path}")
    return page


def _count(page: Page, n: int) -> None:
    page.wait_for_function("n => document.querySelectorAll('.tile').length === n", arg=n)


def test_the_floor_display_with_120_tables(browser: Browser, floor_url: str, tmp_path: Path) -> None:
    with running(floor_url, tmp_path / "data") as floor:
        tables = floor_of(floor.store, pits=4, per_pit=30)  # A: t001-t030, B: t031-t060, C: t061-t090, D: t091-t120
        report = floor.store.report_status
        # Every table has a camera (the most a tile shows); t010's froze 12 s ago, t020's failed.
        for table in tables:
            camera = CAMERA_OK
            if table == "t010":
                camera = {**CAMERA_OK, "state": "stale", "age_s": 12.0}
            if table == "t020":
                camera = {**CAMERA_OK, "state": "lost", "age_s": 40.0}
            report(table_id=table, phase="idle", round_no=1, tilts=[], progressive="open", camera=camera)
        report(
            table_id="t064", phase="tilt", round_no=3, tilts=["duplicate-card"], progressive="closed", camera=CAMERA_OK
        )
        report(
            table_id="t099", phase="tilt", round_no=5, tilts=["shoe-link-lost"], progressive="closed", camera=CAMERA_OK
        )
        page = _page(browser, floor.url, "sam", "/floor")
        _count(page, 120)
        assert page.locator("section.pit").evaluate_all("s => s.map(x => x.dataset.pit)") == ["A", "B", "C", "D"]
        assert page.locator("section.pit[data-pit=C] .tile").count() == 30
        assert page.text_content("#n-tables") == "120" and page.text_content("#n-tilts") == "2"
        assert page.get_attribute("#nav-reports", "href") == "/reports"
        # The camera's lamp on each tile, and the tables whose camera is down at a click.
        assert page.text_content(".tile[data-table=t001] .cam") == "Cam 30 fps"
        assert (page.text_content(".tile[data-table=t010] .cam") or "").startswith("Cam stale 1")  # 12 s and on
        assert page.get_attribute(".tile[data-table=t010] .cam", "data-camera") == "stale"
        assert page.text_content(".tile[data-table=t020] .cam") == "Cam lost"
        assert page.text_content("#n-cameras") == "2"
        page.check("#f-camera")
        _count(page, 2)
        assert page.locator(".tile").evaluate_all("ts => ts.map(t => t.dataset.table)") == ["t010", "t020"]
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "floor-camera-down-filter.png"))
        page.uncheck("#f-camera")
        _count(page, 120)

        page.fill("#q", "t01")
        _count(page, 10)  # t010-t019
        page.fill("#q", "")
        page.select_option("#pit", "C")
        _count(page, 30)
        page.check("#f-tilt")
        _count(page, 1)
        assert page.get_attribute(".tile", "data-table") == "t064"
        assert "TILT duplicate card" in (page.text_content(".tile .alerts") or "")
        assert "pit=C" in page.url and "flags=tilt" in page.url  # a reload keeps the filter
        page.select_option("#pit", "")
        _count(page, 2)
        page.uncheck("#f-tilt")
        _count(page, 120)

        report(table_id="t045", phase="showdown", round_no=17, tilts=[], progressive="open")
        page.wait_for_selector(".tile[data-table=t045][data-phase=showdown]")
        assert "#17" in (page.text_content(".tile[data-table=t045]") or "")

        floor.store.open_account(name="grand", scope="floor", reset=2_500_000, increment=100, cap=9_000_000)
        floor.store.hit(account="grand", table_id="t050", seq=40)  # 2,500,000 > 500,000: two supervisors
        page.wait_for_selector(".tile[data-table=t050].has-hit")
        page.wait_for_selector("#hits li[data-account=grand] button.approve")
        assert "2,500,000" in (page.text_content("#hits li") or "")
        # The rule in the jackpot's own money, not the floor's bare number.
        rule = "Two supervisors (one approves, a different one confirms) for hits of grand above EUR 500,000"
        assert (page.text_content("#approval-rule") or "").startswith(rule)
        page.click("#hits li button.approve")
        page.wait_for_selector("#hits li button.confirm[disabled]")  # sam approved: sam may not confirm
        assert "approved by sam" in (page.text_content("#hits li .step") or "")
        page.screenshot(path=str(tmp_path / "floor-desk.png"))
        tess = _page(browser, floor.url, "tess", "/floor")
        tess.click("#hits li button.confirm:not([disabled])")
        page.wait_for_selector("#no-hits:not([hidden])")
        assert floor.store.hits("grand")[0].confirmed_by == "tess"

        dealer = _page(browser, floor.url, "dana", "/floor")
        _count(dealer, 120)
        floor.store.hit(account="grand", table_id="t051", seq=41, share_bp=10)
        dealer.wait_for_selector("#hits li")
        assert dealer.locator("#hits li button").count() == 0  # dealers cannot confirm
        dealer.context.close()
        tess.context.close()
        page.context.close()

        wall = _page(browser, floor.url, "sam", "/floor/wall", width=3840, height=2160)
        _count(wall, 120)
        wall.wait_for_selector("#hits li")
        assert not wall.is_visible("#filters") and not wall.is_visible("#sign-out")
        assert wall.locator("#hits li button").count() == 0 or not wall.is_visible("#hits li button")
        wall.wait_for_function("() => document.body.dataset.wallScale !== undefined")
        # Found and measured in one step: the page redraws its tiles as reports arrive, and a tile found in
        # one step may be gone (detached, no computed style) by the next.
        size = wall.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.tile .id')).fontSize)")
        assert size >= 32  # the table id in big type at 4K
        fits = "() => Math.max(...[...document.querySelectorAll('.tile')].map(t => t.getBoundingClientRect().bottom))"
        assert wall.evaluate(fits) <= 2160  # every table on the one screen
        report(table_id="t100", phase="tilt", round_no=9, tilts=["camera-mismatch"], progressive="closed")
        wall.wait_for_selector(".tile[data-table=t100].has-tilt")
        shot = tmp_path / "floor-wall-3840x2160.png"
        wall.screenshot(path=str(shot))
        ARTIFACTS.mkdir(exist_ok=True)
        wall.screenshot(path=str(ARTIFACTS / "floor-wall-cameras-3840x2160.png"))
        assert shot.stat().st_size > 50_000
        wall.context.close()
