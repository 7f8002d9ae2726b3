"""The camera's health on the dealer display and the table's floor view, in Chromium, from a simulated
camera (the sim:// backend) run by a real camera link: fps, the last frame's age, zones and the cards
counted per zone beside the shoe's lamp; the lamp turns stale when the frames stop, and back. A table
with no camera shows no camera lamp; a table whose camera deals shows no shoe lamp."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from controller.table import TableService
from tests.vision.camera_kit import SEVEN_BOXES, Gate, camera_link
from tests.web_display.browser import screenshot, sign_in
from tests.web_display.kit import live_server, make_app, make_table
from tests.web_display.layout import SIZES, problems, settle
from vision.link import CameraLink

pytestmark = pytest.mark.browser
HIDDEN = ("9h", "Kd")  # face down under the camera (camera_kit.SCENE): counted, never named


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[TableService, CameraLink, Gate]]:
    table = make_table(tmp_path / "journal", "casino-holdem", "T1", boxes=3)
    link, gate = camera_link(table)
    link.start()
    try:
        yield table, link, gate
    finally:
        link.stop()


def test_the_dealer_display_shows_the_cameras_health_and_a_stale_camera(
    tmp_path: Path, page: Page, watched: tuple[TableService, CameraLink, Gate]
) -> None:
    table, _, gate = watched
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        page.set_viewport_size({"width": 1280, "height": 800})
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        camera = page.locator("#dev-camera")
        expect(camera).to_be_visible()
        expect(camera).to_have_attribute("data-camera", "ok", timeout=60_000)
        expect(camera).to_have_attribute("data-state", "ok")
        expect(camera.locator(".state")).to_have_text("OK")
        expect(page.locator(".cam-fps")).to_have_text(re.compile(r"^[1-9]\d* fps$"))
        expect(page.locator(".cam-age")).to_contain_text("frame ")
        expect(page.locator(".cam-zones")).to_have_text("5 zones")
        # The counts the camera settled on: two cards face down in box 2, one face up at the dealer.
        expect(page.locator(".cam-zone[data-zone=box2] b")).to_have_text("2", timeout=30_000)
        expect(page.locator(".cam-zone[data-zone=dealer] b")).to_have_text("1")
        expect(page.locator(".cam-zone[data-zone=box1] b")).to_have_text("0")
        # Beside the shoe's lamp (this table reports no shoe of its own: its tilts speak for it).
        expect(page.locator("#dev-shoe")).to_be_visible()
        settle(page)
        assert problems(page, required=("#dev-camera", "#dev-shoe", "#expected")) == []
        screenshot(page, "camera-health-dealer-ok-1280x800", full_page=False)
        text = page.locator("body").inner_text()
        assert not [code for code in HIDDEN if code in text]

        # The frames stop: no report comes any more, the display ages the last frame itself.
        gate.open.clear()
        expect(camera).to_have_attribute("data-camera", "stale", timeout=30_000)
        expect(camera).to_have_attribute("data-state", "alarm")
        expect(camera.locator(".state")).to_have_text("stale")
        expect(page.locator(".cam-age")).to_contain_text("no frame for")
        expect(page.locator(".cam-fps")).to_have_count(0)  # the rate of frames that no longer come is history
        settle(page)
        assert problems(page, required=("#dev-camera", "#expected")) == []
        screenshot(page, "camera-health-dealer-stale-1280x800", full_page=False)

        # Frames again: OK again.
        gate.open.set()
        expect(camera).to_have_attribute("data-camera", "ok", timeout=60_000)

        # The table's own floor view carries the same lamp, with its rate and zones.
        page.goto(f"{server.url}/floor")
        devices = page.locator(".tile .devices")
        expect(devices.locator(".dev-camera")).to_have_attribute("data-camera", "ok", timeout=30_000)
        expect(devices.locator(".dev-camera b")).to_have_text(re.compile(r"^OK [1-9]\d* fps$"))
        expect(devices.locator(".dev-camera")).to_contain_text("fps")
        expect(devices.locator(".dev-camera")).to_contain_text("5 zones")
        screenshot(page, "camera-health-table-floor", full_page=False)


def test_no_camera_lamp_without_a_camera_and_no_shoe_lamp_when_the_camera_deals(tmp_path: Path, page: Page) -> None:
    bare = make_table(tmp_path / "bare", "casino-holdem", "T1", boxes=3)
    dealt = make_table(tmp_path / "dealt", "casino-holdem", "T2", boxes=3)
    link, _ = camera_link(dealt, deals=True)  # not started: the lamp says "starting"
    with live_server(make_app(tmp_path, {"T1": bare, "T2": dealt})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        expect(page.locator("#dev-shoe")).to_be_visible()
        expect(page.locator("#dev-camera")).to_be_hidden()
        assert "Camera" not in page.locator(".status-bar").inner_text()
        page.goto(f"{server.url}/tables/T2")
        expect(page.locator("#dev-camera")).to_have_attribute("data-camera", "starting")
        expect(page.locator("#dev-shoe")).to_be_hidden()
        assert "Shoe" not in page.locator(".status-bar").inner_text()
        screenshot(page, "camera-health-dealer-camera-only", full_page=False)
        page.goto(f"{server.url}/floor")
        tiles = page.locator(".tile")
        expect(tiles).to_have_count(2)
        expect(page.locator(".tile", has_text="T1").locator(".devices")).to_have_text("Shoe OK")
        expect(page.locator(".tile", has_text="T2").locator(".devices")).to_have_text("Camera starting")
    link.stop()


def test_a_full_tables_camera_strip_fits_the_screen(tmp_path: Path, page: Page) -> None:
    """Seven boxes, nine zones: the widest camera strip, with a round open, at both table display sizes."""
    table = make_table(tmp_path / "journal", "casino-holdem", "T1", boxes=7)
    link, _ = camera_link(table, zones=SEVEN_BOXES)
    link.start()
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sign_in(page, server.url, "dealer", next_path="/tables/T1")
            for box in range(1, 8):
                page.fill(f"input[name=ante-{box}]", "10")
            page.click("#open-round")
            expect(page.locator("#phase")).to_have_text("dealing")
            expect(page.locator("#dev-camera")).to_have_attribute("data-camera", "ok", timeout=60_000)
            expect(page.locator(".cam-zone")).to_have_count(9)
            expect(page.locator(".cam-zones")).to_have_text("9 zones")
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                settle(page)
                found = problems(page, required=("#dev-camera", "#dev-shoe", "#expected", ".box"))
                screenshot(page, f"camera-health-dealer-7-boxes-{width}x{height}", full_page=False)
                assert found == [], f"{width}x{height}: " + "; ".join(found)
    finally:
        link.stop()
