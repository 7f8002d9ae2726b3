"""The dealer display as a screen at a table, in a real browser at 1280x800 and 1920x1080: every game with
seven boxes (a shared box with three bettors among them), from the bets to the showdown, a tilt, a jackpot.
Measured, not read: nothing scrolls, nothing that matters is off the screen or covered, nothing overflows."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from controller.engine import BoxBet
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
        # The shoe's link goes too: a second tilt, and the status strip says which device.
        table.on_link(False, detail="no answer for 3 s")
        shown_version(page, table.version)
        expect(page.locator("#dev-shoe")).to_have_attribute("data-state", "alarm")
        expect(page.locator("#dev-shoe .state")).to_have_text("link lost")
        expect(page.locator(".tilt")).to_have_count(2)
        look(page, f"{game}-4-two-tilts", required=(".tilt", ".tilt button.clear", "#expected"))
        first, second = table.tilts
        table.clear_tilt(second, resolution="continue", actor=SUPER, why="cable back")
        table.clear_tilt(first, resolution="burn", actor=SUPER, why="read twice")
        shown_version(page, table.version)
        expect(page.locator("#dev-shoe")).to_have_attribute("data-state", "ok")

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


FLOOR_SIZES = ((1366, 768), (3840, 2160))


def test_the_floor_from_a_laptop_to_a_4k_wall(tmp_path: Path, page: Page) -> None:
    games = ["oasis", "casino-holdem", "holdem-exchange", "holdem-bonus", "oasis", "casino-holdem"]
    tables = {
        f"Table-{i + 1}": make_table(tmp_path / "journal", g, f"Table-{i + 1}", **CASES[g].settings)
        for i, g in enumerate(games)
    }
    # Table 1 plays rounds until it has more large payouts than a tile shows; table 2 has a tilt.
    busy = tables["Table-1"]
    dealer = Dealer(table=busy, seed=3)
    for seed in range(6):
        dealer.seed = seed  # a new shuffle each round
        dealer.new_deck()
        busy.open_round([BoxBet(box=b, ante=ANTES[b]) for b in range(1, 8)], actor=Actor("dana", "dealer"))
        dealer.until("showdown")
        busy.confirm_settlement(actor=Actor("dana", "dealer"))
    tables["Table-2"].on_shoe_status("jam")
    with live_server(make_app(tmp_path, tables, large_payout_bets=1)) as server:
        sign_in(page, server.url, "supervisor", next_path="/floor")
        expect(page.locator(".tile")).to_have_count(6)
        expect(page.locator("[data-table=Table-1] .payouts li")).to_have_count(3)
        expect(page.locator("[data-table=Table-2]")).to_have_class(re.compile(r"\bhas-tilt\b"))
        type_size = {}
        for width, height in FLOOR_SIZES:
            page.set_viewport_size({"width": width, "height": height})
            settle(page)
            found = problems(page, required=(".tile",))
            screenshot(page, f"layout-floor-6-tables-{width}x{height}", full_page=False)
            assert found == [], f"floor at {width}x{height}: " + "; ".join(found)
            # The tiles use the screen's width, whatever its size.
            used = page.evaluate(
                "() => { const t = [...document.querySelectorAll('.tile')].map((e) => e.getBoundingClientRect());"
                " const top = t[0].top; return t.filter((r) => r.top === top).reduce((s, r) => s + r.width, 0) }"
            )
            assert used >= 0.85 * width, (width, used)
            type_size[width] = page.evaluate(
                "() => parseFloat(getComputedStyle(document.querySelector('.tile-inner')).fontSize)"
            )
        assert type_size[3840] >= 1.8 * type_size[1366], type_size
        # The newest payouts first, never more than three, in the place the tile keeps for them.
        rounds = page.locator("[data-table=Table-1] .payouts li span").all_inner_texts()
        assert len(rounds) == 3
        numbers = [int(r.split()[1]) for r in rounds]
        assert numbers == sorted(numbers, reverse=True)
    # Two tables on a 4K wall: each tile takes half of it, not a corner.
    two = {name: tables[name] for name in ("Table-1", "Table-2")}
    with live_server(make_app(tmp_path / "two", two)) as server:
        sign_in(page, server.url, "supervisor", next_path="/floor")
        expect(page.locator(".tile")).to_have_count(2)
        settle(page)
        assert problems(page, required=(".tile",)) == []
        widths = page.evaluate(
            "() => [...document.querySelectorAll('.tile')].map((e) => e.getBoundingClientRect().width)"
        )
        assert min(widths) >= 0.45 * 3840, widths
        screenshot(page, "layout-floor-2-tables-3840x2160", full_page=False)
