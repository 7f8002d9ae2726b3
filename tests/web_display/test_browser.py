"""The dealer and floor displays in a real browser: full rounds of every game, a tilt, the floor following tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.engine import Action, BoxBet
from controller.table import Actor, TableService
from tests.web_display.browser import (
    chips,
    click_and_wait,
    money,
    net_text,
    new_page,
    screenshot,
    shown_version,
    sign_in,
    signed,
)
from tests.web_display.kit import PASSWORD, deal, leaked, live_server, make_app, make_table
from tests.web_display.rounds import OASIS, SCRIPTS, Act, Card, Script, fed_cards, play_round

pytestmark = pytest.mark.browser
DEALER = Actor("dana", "dealer")


def enter_bets(page: Page, script: Script) -> None:
    for bet in script.bets:
        page.fill(f"input[name=ante-{bet['box']}]", str(bet["ante"]))
        if bet.get("bonus"):
            page.fill(f"input[name=bonus-{bet['box']}]", str(bet["bonus"]))


def play(page: Page, table: TableService, script: Script) -> dict[int, set[str]]:
    """Deal the script's cards at the shoe and take its decisions on the display, checking each card shows.

    Returns which cards were face up at each table version (the script's own account, for the leak check).
    """
    counter = 1
    shown: set[str] = set()
    allowed_at = {table.version: set(shown)}
    for step in script.steps:
        if isinstance(step, Card):
            table.on_card(step.code, counter=counter, shoe="SIM")
            counter += 1
            assert not table.tilts
            shown_version(page, table.version)
            if step.up:
                expect(page.locator(f".card[data-code='{step.code}']")).to_have_count(1)
            else:
                expect(page.locator(f".card[data-code='{step.code}']")).to_have_count(
                    1 if step.code in step.reveal else 0
                )
        else:
            assert isinstance(step, Act)
            expect(page.locator("#decide h2")).to_contain_text(f"Box {step.box}")
            for pos in step.discard:
                page.click(f"#decide .discard[data-pos='{pos}']")
            click_and_wait(page, table, f"#decide button[data-action={step.action}]")
        if isinstance(step, Card) and step.up:
            shown.add(step.code)
        shown.update(step.reveal)
        allowed_at[table.version] = set(shown)
    return allowed_at


def check_showdown(page: Page, table: TableService, script: Script) -> None:
    """What the rules say the display shows, then every figure of the engine's settlement."""
    expect(page.locator("#phase")).to_have_text("showdown")
    expect(page.locator("#expected")).to_have_text("showdown: pay the table as shown, then confirm")
    expect(page.locator("#dealer-hand")).to_have_text(script.dealer_hand)
    expect(page.locator("#dealer-qualifies")).to_have_text(script.qualifies)
    for box, hand in script.hands.items():
        expect(page.locator(f"#box-{box} .hand")).to_have_text(hand)
    for box, results in script.results.items():
        for bet, result in results.items():
            expect(page.locator(f"#box-{box} .bet-result[data-bet={bet}] b")).to_have_text(chips(bet, result))
            expect(page.locator(f"#box-{box} .bet-result[data-bet={bet}]")).to_have_attribute(
                "data-result", str(result)
            )
    for box, net in script.nets.items():
        expect(page.locator(f"#box-{box} .net")).to_have_text(net_text(net))
    settlement = table.settlement
    assert settlement is not None
    for b in settlement.boxes:
        expect(page.locator(f"#box-{b.box} .outcome")).to_have_text(b.outcome.upper())
        expect(page.locator(f"#box-{b.box} .bet-result")).to_have_count(sum(1 for r in b.bets if r.bet != "cap"))
        expect(page.locator(f"#box-{b.box} .cap")).to_have_count(1 if b.capped else 0)
        expect(page.locator(f"#box-{b.box} .jackpot-result")).to_have_count(1 if b.jackpot else 0)
        if b.outcome == "fold":  # mucked face down: backs only
            expect(page.locator(f"#box-{b.box} .card.up")).to_have_count(0)
    pays = settlement.house_pays
    house = f"House pays {money(pays)}" if pays >= 0 else f"House collects {money(-pays)}"
    expect(page.locator("#house-pays")).to_have_text(house)


@pytest.mark.parametrize("game", list(SCRIPTS))
def test_a_full_round_on_the_dealer_display(tmp_path: Path, page: Page, game: str) -> None:
    script = SCRIPTS[game]
    table = make_table(tmp_path / "journal", game, "T1", **script.settings)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        expect(page.locator("#phase")).to_have_text("idle")
        expect(page.locator("#repeat-bets")).to_be_disabled()
        enter_bets(page, script)
        click_and_wait(page, table, "#open-round")
        expect(page.locator("#phase")).to_have_text("dealing")
        for bet in script.bets:
            expect(page.locator(f"#box-{bet['box']} [data-stake=ante] b")).to_have_text(money(bet["ante"]))
        allowed_at = play(page, table, script)
        check_showdown(page, table, script)
        # Every frame the browser received showed only cards that were face up at its version.
        fed = fed_cards(script)
        for frame in frames:
            version = json.loads(frame)["view"]["version"]
            allowed = allowed_at[max([v for v in allowed_at if v <= version], default=min(allowed_at))]
            assert not leaked(frame, [c for c in fed if c not in allowed]), frame
        assert len(frames) > len(fed)
        screenshot(page, f"dealer-{game}-showdown")
        if game == "oasis":
            # The hit is announced above the table; every box's payout stays in view.
            banner = page.locator("#jackpot-banner")
            expect(banner).to_be_visible()
            expect(banner.locator(".headline")).to_have_text("JACKPOT!")
            expect(banner.locator(".hit").first).to_contain_text(f"Box 1 · Royal flush · {money(5000)}")
            expect(page.locator("#box-1")).to_have_class("box jackpot")
            expect(page.locator("#box-1 .cap > span")).to_have_text(f"Capped at {money(3000)}")
            expect(page.locator("#box-1 .cap b")).to_have_text(f"−{money(17100)}")
            expect(page.locator("#box-1 .jackpot-result b")).to_have_text(signed(5000))
            screenshot(page, "dealer-oasis-jackpot")
        click_and_wait(page, table, "#confirm-settlement")
        expect(page.locator("#phase")).to_have_text("idle")
        expect(page.locator("#repeat-bets")).to_be_enabled()
        # The round is in recall, with its cards.
        page.click("#open-recall")
        expect(page.locator("#recall .list button[data-round='1']")).to_have_count(1)
        expect(page.locator("#recall-title")).to_contain_text("Round 1")
        page.click("#recall-close")
        expect(page.locator("#recall")).to_be_hidden()
        if game == "oasis":
            # Paid after a supervisor confirms: a line above the table, out of the way of the next deal.
            expect(page.locator(".banner.pending-hit")).to_contain_text("Jackpot awaiting a supervisor")
            expect(page.locator("#confirm-jackpot-1")).to_have_text("Jackpot paid: confirm")
        click_and_wait(page, table, "#repeat-bets")
        expect(page.locator("#round-no")).to_have_text("2")
        for bet in script.bets:
            expect(page.locator(f"#box-{bet['box']} [data-stake=ante] b")).to_have_text(money(bet["ante"]))


def test_a_supervisor_confirms_the_jackpot_and_voids_a_round(tmp_path: Path, browser: Browser) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1", **OASIS.settings)
    play_round(table, OASIS, actor=DEALER)
    table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
    page = new_page(browser)
    context = page.context
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sign_in(page, server.url, "supervisor", next_path="/tables/T1")
            expect(page.locator(".banner.pending-hit")).to_be_visible()
            page.click("#confirm-jackpot-1")
            # A supervisor signed in here acts directly: the dialog asks for no password.
            expect(page.locator("#authorise-credentials")).to_be_hidden()
            click_and_wait(page, table, "#authorise-submit")
            expect(page.locator(".banner.pending-hit")).to_have_count(0)
            account = table.jackpot_account()
            assert account is not None and account.hits[0].confirmed_by == "supervisor:supervisor"
            page.click("#void-round")
            page.fill("input[name=void-why]", "player dispute, round abandoned")
            click_and_wait(page, table, "#authorise-submit")
            expect(page.locator("#phase")).to_have_text("idle")
            page.click("#open-recall")
            page.click("#recall .list button[data-round='2']")
            expect(page.locator("#recall-detail")).to_contain_text("Void: player dispute, round abandoned")
    finally:
        context.close()


def test_a_tilt_stops_the_dealer_and_a_supervisor_clears_it(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        page.fill("input[name=ante-1]", "5000")
        page.click("#open-round")  # refused by the table: the reason is shown, nothing opens
        expect(page.locator("#toast")).to_contain_text("maximum bet")
        page.fill("input[name=ante-1]", "10")
        page.fill("input[name=ante-2]", "20")
        click_and_wait(page, table, "#open-round")
        deal(table, ["Kc", "8c", "9s"])
        table.on_card("Kc", counter=4)  # read again: a duplicate
        shown_version(page, table.version)
        tilt = page.locator(".tilt[data-kind=duplicate-card]")
        expect(tilt).to_be_visible()
        # The line says what to do now; the tilt says what happened, without naming the face-down card.
        expect(page.locator("#expected")).to_have_text(
            "Stop. A card already dealt this round was read again: call a supervisor."
        )
        expect(page.locator("#expected")).to_have_class("instruction alert")
        expect(tilt.locator("h2")).to_have_text("TILT 1 · duplicate card")
        expect(tilt.locator(".what")).to_have_text("A card was already dealt this round")  # never "Kc"
        screenshot(page, "dealer-tilt")
        # The supervisor authorises the clearance on the dealer's terminal; the dealer stays signed in.
        tilt.locator("button.clear").click()
        dialog = page.locator("#authorise")
        expect(dialog).to_be_visible()
        expect(dialog.locator("#authorise-credentials")).to_be_visible()
        dialog.locator("select[name=resolution]").select_option("burn")
        dialog.locator("input[name=supervisor]").fill("supervisor")
        dialog.locator("input[name=password]").fill(PASSWORD)
        page.click("#authorise-submit")
        expect(page.locator("#authorise-error")).to_contain_text("say why")  # refused before the password is used
        assert table.tilts
        dialog.locator("input[name=why]").fill("card misread by the shoe, set aside")
        dialog.locator("input[name=password]").fill("wrong-password")
        page.click("#authorise-submit")
        expect(page.locator("#authorise-error")).to_have_text("wrong name or password")
        dialog.locator("input[name=password]").fill(PASSWORD)
        screenshot(page, "dealer-supervisor-override", full_page=False)
        click_and_wait(page, table, "#authorise-submit")
        expect(dialog).to_be_hidden()
        expect(page.locator(".tilt")).to_have_count(0)
        expect(page.locator("#expected")).to_have_text("deal card 2 to box 1, face down")
        entry = list(table._store.entries())[-1]
        assert (entry.kind, entry.actor) == ("tilt-cleared", "supervisor:supervisor")
        assert entry.data["why"] == "card misread by the shoe, set aside"
        # Still the dealer's display: the dealer's name, and the dealer's own actions under the dealer.
        expect(page.locator("#user-name")).to_have_text("dealer")
        deal(table, ["Qc", "Qd", "Kd", "Qh", "Kh", "Jc", "4s", "Jd", "4c", "2d", "3c", "5h"], start=5)
        expect(page.locator("#decide h2")).to_contain_text("Box 1")
        click_and_wait(page, table, "#decide button[data-action=raise]")
        entry = next(e for e in reversed(list(table._store.entries())) if e.kind == "action")
        assert entry.actor == "dealer:dealer"


def test_the_floor_follows_two_tables(tmp_path: Path, page: Page) -> None:
    oasis = make_table(tmp_path / "journal", "oasis", "Oasis-1", jackpot={"enabled": True, "reset": 5000})
    casino = make_table(tmp_path / "journal", "casino-holdem", "Casino-2")
    with live_server(make_app(tmp_path, {"Oasis-1": oasis, "Casino-2": casino})) as server:
        sign_in(page, server.url, "supervisor", next_path="/floor")
        a, b = page.locator("[data-table=Oasis-1]"), page.locator("[data-table=Casino-2]")
        expect(page.locator("#table-count")).to_have_text("2")
        expect(a.locator(".game")).to_have_text("Oasis Poker")
        expect(b.locator(".game")).to_have_text("Casino Hold'em")
        expect(a.locator(".meter")).to_have_text(money(5000))
        expect(b.locator(".meter")).to_have_text("off")
        # A royal flush with a bonus bet on the Oasis table: the hit shows at once on the floor.
        oasis.open_round([BoxBet(box=1, ante=100, bonus=5)], actor=DEALER)
        expect(a.locator(".phase")).to_have_text("dealing")
        deal(oasis, ["As", "2c", "Ks", "3d", "Qs", "4h", "Js", "5d", "Ts", "9c"])
        oasis.act(Action(1, "raise"), actor=DEALER)
        oasis.confirm_settlement(actor=DEALER)
        expect(a.locator(".rounds-today")).to_have_text("1")
        expect(a.locator(".rounds-hour")).to_have_text("1")
        expect(a.locator(".hits")).to_have_text("1")
        expect(a.locator(".alerts .hit")).to_contain_text(f"JACKPOT box 1: {money(5000)}")
        expect(a.locator(".payouts")).to_contain_text("Royal flush")
        expect(page.locator("#hit-count")).to_have_text("1")
        # A shoe fault on the other table.
        casino.on_shoe_status("jam")
        expect(b.locator(".tilts")).to_have_text("1")
        expect(b.locator(".alerts .tilt")).to_contain_text("shoe reports jam")
        expect(b).to_have_class("tile phase-idle has-tilt")
        expect(page.locator("#tilt-count")).to_have_text("1")
        screenshot(page, "floor-two-tables")
        # The floor is read only: no command buttons at all.
        expect(page.locator("main button")).to_have_count(0)


def test_a_dropped_display_reconnects_and_catches_up(tmp_path: Path, page: Page) -> None:
    """The server drops a client (as it does a slow one); the page reconnects and shows the latest state."""
    table = make_table(tmp_path / "journal", "oasis", "T1")
    app = make_app(tmp_path, {"T1": table})
    sockets: list[object] = []
    page.on("websocket", lambda ws: sockets.append(ws))  # noqa: PLW0108 (Playwright wraps plain callables only)
    with live_server(app) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        expect(page.locator("#dev-link")).to_have_attribute("data-state", "ok")
        table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
        shown_version(page, table.version)
        hub = app.state.web.hub
        sid = next(c["value"] for c in page.context.cookies() if c["name"] == "da_session")
        deal(table, ["Kc", "8c"])
        hub._loop.call_soon_threadsafe(hub.drop_session, sid)  # closed with 1013, as a slow client is
        deal(table, ["9s", "Qh"], start=3)  # dealt around the drop
        for _ in range(200):  # the page retries after 0.5 s; wait, generously, for its second socket
            if len(sockets) >= 2:
                break
            page.wait_for_timeout(50)
        assert len(sockets) == 2
        expect(page.locator("#box-1 .card.back")).to_have_count(2)
        expect(page.locator("#expected")).to_have_text("deal card 3 to box 1, face down")
        expect(page.locator("#dev-link")).to_have_attribute("data-state", "ok")
        deal(table, ["2c"], start=5)  # and the new feed carries on
        expect(page.locator("#box-1 .card.back")).to_have_count(3)


def test_the_display_says_when_its_own_feed_is_down(tmp_path: Path, page: Page) -> None:
    """The display's link is its own lamp, apart from the shoe's: a dealer must not act on a stale screen."""
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        expect(page.locator("#dev-link")).to_have_attribute("data-state", "ok")
        server.stop()
        expect(page.locator("#dev-link")).to_have_attribute("data-state", "down")
        expect(page.locator("#dev-link .state")).to_have_text("reconnecting")
        expect(page.locator("#offline-banner")).to_contain_text("Display offline")
        expect(page.locator("body")).to_have_class(re.compile(r"\boffline\b"))
        expect(page.locator("#dev-shoe")).to_have_attribute("data-state", "ok")  # the shoe is not the display
        screenshot(page, "dealer-display-offline", full_page=False)


def test_a_shared_box_shows_each_bettors_share(tmp_path: Path, page: Page) -> None:
    from controller.engine import Bettor

    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        bettors = (Bettor("ann", 20), Bettor("bob", 10))
        table.open_round([BoxBet(box=1, ante=30, bettors=bettors)], actor=DEALER)
        deal(table, ["Kc", "9s", "Kd", "9h", "Kh", "Jc", "4s", "Jd", "4c", "3c"])
        # Before the showdown each bettor's stake; after it each bettor's share.
        expect(page.locator("#box-1 .bettor b")).to_have_text([money(20), money(10)])
        expect(page.locator("#box-1 .bettor span")).to_have_text(["ann", "bob"])
        click_and_wait(page, table, "#decide button[data-action=raise]")
        assert table.settlement is not None
        (box,) = table.settlement.boxes
        for share in box.bettors:
            expect(page.locator(f"#box-1 .share[data-bettor={share.name}] b")).to_have_text(signed(share.net))
        assert sum(s.net for s in box.bettors) == box.net


def test_an_admin_adds_an_account_and_sees_the_audit_log(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "admin", next_path="/admin")
        expect(page.locator("#accounts tbody tr")).to_have_count(3)
        form = page.locator("#add-account")
        form.locator("input[name=name]").fill("kim")
        form.locator("select[name=role]").select_option("supervisor")
        form.locator("input[name=password]").fill("short")
        form.locator("button").click()
        expect(page.locator("#toast")).to_contain_text("at least 8 characters")
        form.locator("input[name=password]").fill("long-enough-password")
        form.locator("button").click()
        expect(page.locator("#accounts tbody tr")).to_have_count(4)
        expect(page.locator("#accounts tbody")).to_contain_text("supervisor")
        expect(page.locator("#audit tbody")).to_contain_text("account-added")
        expect(page.locator("#audit tbody")).to_contain_text("kim as supervisor")
        page.click("#configs details[data-table=T1] summary")
        expect(page.locator("#configs details[data-table=T1] textarea")).to_have_value(re.compile("max_payout = 3000"))
