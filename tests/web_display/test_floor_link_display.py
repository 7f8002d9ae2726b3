"""The dealer display of a table on a floor: the linked progressive's state, lost and back, in the browser."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from controller.engine import BoxBet
from controller.table import Actor, TableError
from floor import FloorUnavailable, open_store
from floor.link import FloorLink, LinkSettings
from tests.floor.kit import FlakyStore
from tests.web_display.browser import screenshot, sign_in
from tests.web_display.kit import live_server, make_app, make_table

DEALER = Actor("dana", "dealer")


def test_the_dealer_sees_the_progressive_close_when_the_floor_link_is_lost(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1", jackpot={"enabled": True, "reset": 5000})
    floor = FlakyStore(open_store(str(tmp_path / "floor.sqlite3")))
    floor.open_account(name="link", scope="floor", reset=5000, increment=1, cap=60_000)
    link = FloorLink(table=table, store=floor, settings=LinkSettings(pit="A", refresh=0.0))
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sign_in(page, server.url, "dealer", next_path="/tables/T1")
            expect(page.locator("#dev-floor .state")).to_have_text("progressive closed")  # until it catches up
            link.pass_once()
            expect(page.locator("#dev-floor .state")).to_have_text("linked")
            expect(page.locator("#jackpot-meter")).to_have_text("EUR 5,000")
            floor.down = True
            try:
                link.pass_once()
            except FloorUnavailable:
                link._close("floor link lost")  # what the link's thread does
            expect(page.locator("#jackpot-meter")).to_have_text("closed")
            expect(page.locator("#dev-floor")).to_have_attribute("data-state", "alarm")
            expect(page.locator("#jackpot-meter")).to_have_attribute(
                "title", "Progressive closed: floor link lost. No bonus bets until it reopens."
            )
            expect(page.locator("input[name=bonus-1]")).to_be_disabled()
            screenshot(page, "dealer-progressive-closed", full_page=False)
            with pytest.raises(TableError, match="no bonus bet until it reopens"):
                table.open_round([BoxBet(box=1, ante=10, bonus=5)], actor=DEALER)
            floor.down = False
            link.pass_once()
            expect(page.locator("#jackpot-meter")).to_have_text("EUR 5,000")
            expect(page.locator("#dev-floor .state")).to_have_text("linked")
            expect(page.locator("input[name=bonus-1]")).to_be_enabled()
    finally:
        floor.close()
