"""The dealer display as a screen at a table, in a real browser at 1280x800 and 1920x1080: every game with
seven boxes (a shared box with three bettors among them), from the bets to the showdown, a tilt, a jackpot.
Measured, not read: nothing scrolls, nothing that matters is off the screen or covered, nothing overflows."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from controller.table import Actor
from tests.web_display.browser import screenshot, shown_version, sign_in
from tests.web_display.kit import live_server, make_app, make_table
from tests.web_display.layout import SIZES, Dealer, problems, settle

pytestmark = pytest.mark.browser
SUPER = Actor("sam", "supervisor")


@dataclass(frozen=True)
class Case:
    game: str
    settings: dict[str, Any]
    bonus: int = 0  # the bonus bet typed for boxes 1, 2 and 5 (0: no bonus at this table)
    fixed: dict[str, list[str]] = field(default_factory=dict)
    forced: dict[int, str] = field(default_factory=dict)


CASES = {
    # Box 1: a royal flush with a bonus bet: the jackpot, and the main win capped; the dealer qualifies.
    "oasis": Case(
        "oasis",
        {"jackpot": {"enabled": True, "reset": 5000, "contribution": 2}},
        bonus=5,
        fixed={"box1": "As Ks Qs Js Ts".split(), "dealer": "9s 9h Jc Jd 3c".split()},
        forced={1: "raise", 2: "exchange", 3: "raise"},
    ),
    "casino-holdem": Case("casino-holdem", {"bonus": {"enabled": True}}, bonus=10, forced={1: "call", 3: "call"}),
    "holdem-exchange": Case("holdem-exchange", {}, forced={1: "buy", 3: "bet"}),
    "holdem-bonus": Case("holdem-bonus", {"bonus": {"enabled": True}}, bonus=10, forced={1: "bet", 3: "bet"}),
}
ANTES = {1: 100, 2: 10, 3: 60, 4: 20, 5: 50, 6: 10, 7: 30}
SHARED = (("Ann", "20"), ("Bob", "30"), ("Cy", "10"))  # box 3


def fill_bets(page: Page, case: Case) -> None:
    for box, ante in ANTES.items():
        if box != 3:
            page.fill(f"input[name=ante-{box}]", str(ante))
    if case.bonus:
        for box in (1, 2, 5):
            page.fill(f"input[name=bonus-{box}]", str(case.bonus))
    page.fill("input[name=ante-3]", SHARED[0][1])
    page.click(".add-bettor[data-box='3']")
    page.click(".add-bettor[data-box='3']")
    rows = page.locator(".bettor-row[data-box='3']")
    for i, (name, ante) in enumerate(SHARED):
        rows.nth(i).locator("[data-field=name]").fill(name)
        rows.nth(i).locator("[data-field=ante]").fill(ante)
    if case.bonus:
        rows.nth(0).locator("[data-field=bonus]").fill(str(case.bonus))


def look(page: Page, name: str, *, required: tuple[str, ...] = ()) -> dict[tuple[int, int], float]:
    """Check the screen at both sizes and keep a screenshot of each; returns each size's box type size."""
    sizes = {}
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        found = problems(page, required=required)
        screenshot(page, f"layout-{name}-{width}x{height}", full_page=False)
        assert found == [], f"{name} at {width}x{height}: " + "; ".join(found)
        sizes[(width, height)] = page.evaluate(
            "() => { const b = document.querySelector('.box-inner');"
            " return b ? parseFloat(getComputedStyle(b).fontSize) : 0 }"
        )
    return sizes


@pytest.mark.parametrize("game", list(CASES))
def test_the_dealer_screen_at_table_display_sizes(tmp_path: Path, page: Page, game: str) -> None:
    case = CASES[game]
    table = make_table(tmp_path / "journal", game, "T1", **case.settings)
    dealer = Dealer(table=table, fixed=case.fixed, forced=case.forced)
    dealer.new_deck()
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        expect(page.locator("#phase")).to_have_text("idle")
        fill_bets(page, case)
        look(page, f"{game}-1-bets", required=("#open-round", ".bet-box", "#expected"))
        page.click("#open-round")
        expect(page.locator("#phase")).to_have_text("dealing")
        expect(page.locator(".box")).to_have_count(7)
        assert table.round is not None and len(table.round.bets[2].bettors) == 3
        look(page, f"{game}-2-dealing", required=("#expected", "#round-tools button"))

        dealer.until("decide")
        shown_version(page, table.version)
        look(page, f"{game}-3-deciding", required=("#decide button", "#expected"))

        # A card read twice: the tilt and its button in view wherever the dealer was.
        rnd = table.round
        assert rnd is not None
        table.on_card(rnd.dealt()[0][0].code, counter=dealer.counter)
        dealer.counter += 1
        shown_version(page, table.version)
        look(page, f"{game}-4-tilt", required=(".tilt", ".tilt button.clear", "#expected"))
        (tilt,) = table.tilts
        table.clear_tilt(tilt, resolution="burn", actor=SUPER, why="read twice")

        dealer.until("showdown")
        shown_version(page, table.version)
        expect(page.locator("#phase")).to_have_text("showdown")
        required = ("#confirm-settlement", ".box .net", "#expected")
        if game == "oasis":
            expect(page.locator("#jackpot-banner")).to_be_visible()
            expect(page.locator("#box-1")).to_have_class("box jackpot")
            expect(page.locator("#box-1 .cap")).to_have_count(1)
            required += ("#jackpot-banner", ".box .jackpot-result", ".box .cap")
        type_sizes = look(page, f"{game}-5-showdown", required=required)
        # Wide screens use their width: the boxes' type is larger at 1920 than at 1280, not smaller.
        assert type_sizes[SIZES[1]] > type_sizes[SIZES[0]] * 1.2, type_sizes

        page.click("#confirm-settlement")
        expect(page.locator("#phase")).to_have_text("idle")
        if game == "oasis":
            # The hit awaits a supervisor: a line above the table, never in the way of the next deal.
            expect(page.locator(".banner.pending-hit")).to_have_count(1)
            table.repeat_last_bets(actor=Actor("dana", "dealer"))
            dealer.new_deck()
            dealer.until("decide")
            shown_version(page, table.version)
            look(page, f"{game}-6-next-round-with-pending-jackpot", required=(".banner.pending-hit", "#decide button"))
