"""The admin's configuration editor, shared boxes in the bets form, the decision countdown and the
dealer's early show, in a real browser (Debian's Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from controller.engine import BoxBet
from controller.table import Actor, utcnow
from tests.controller.roundkit import passes
from tests.controller.test_table_payments import paying_showdown
from tests.web_display.browser import (
    click_and_wait,
    money,
    new_page,
    screenshot,
    shown_version,
    sign_in,
    signed,
)
from tests.web_display.kit import PASSWORD, deal, live_server, make_app, make_table, play_rounds
from tests.web_display.test_early_show import CARDS

pytestmark = pytest.mark.browser
DEALER = Actor("dana", "dealer")


def test_an_admin_edits_the_configuration_and_the_dealer_sees_the_new_limit(tmp_path: Path, browser: Browser) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    admin, dealer = new_page(browser), new_page(browser)
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sign_in(dealer, server.url, "dealer", next_path="/tables/T1")
            expect(dealer.locator("#limits")).to_have_text(
                f"Limits {money(10)} – {money(100)} · maximum payout {money(3000)}"
            )
            dealer.fill("input[name=ante-1]", "10")  # typed before the change: kept through it
            sign_in(admin, server.url, "admin", next_path="/admin")
            editor = admin.locator("#configs details[data-table=T1]")
            editor.locator("summary").click()
            text = editor.locator("textarea")
            expect(text).to_have_value(re.compile("max_payout = 3000"))
            # A bad value: refused, the key named under the editor, nothing changed.
            text.fill(text.input_value().replace("max_payout = 3000", 'max_payout = "lots"'))
            editor.locator("button.save-config").click()
            expect(editor.locator(".config-message.error")).to_contain_text("max_payout = 'lots'")
            assert table.config.max_payout == 3000
            # A good one: the dealer display shows the new limit at once.
            text.fill(text.input_value().replace('max_payout = "lots"', "max_payout = 4500"))
            editor.locator("button.save-config").click()
            expect(editor.locator(".config-message.ok")).to_have_text("Saved: max_payout")
            assert table.config.max_payout == 4500
            expect(dealer.locator("#limits")).to_have_text(
                f"Limits {money(10)} – {money(100)} · maximum payout {money(4500)}"
            )
            expect(dealer.locator("input[name=ante-1]")).to_have_value("10")
            expect(admin.locator("#audit tbody")).to_contain_text("table-configured")
            screenshot(admin, "admin-config-editor")
            # During a round the change is accepted and pending: the dealer sees it, and it applies when
            # the round ends.
            table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
            text.fill(text.input_value().replace("max_payout = 4500", "max_payout = 5000"))
            editor.locator("button.save-config").click()
            expect(editor.locator(".config-message.pending")).to_have_text(
                "Saved: max_payout — pending, applies when round 1 ends"
            )
            assert table.config.max_payout == 4500
            expect(dealer.locator("#pending-config")).to_contain_text(
                f"from the next round: max payout {money(4500)} → {money(5000)}"
            )
            screenshot(dealer, "dealer-pending-configuration", full_page=False)
            table.void_round(actor=Actor("sam", "supervisor"), why="ends the round")
            expect(dealer.locator("#pending-config")).to_have_count(0)
            expect(dealer.locator("#limits")).to_have_text(
                f"Limits {money(10)} – {money(100)} · maximum payout {money(5000)}"
            )
    finally:
        admin.context.close()
        dealer.context.close()


def test_the_dealer_shows_his_hand_early_and_a_box_withdraws(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "holdem-exchange", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        table.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=20)], actor=DEALER)
        deal(table, CARDS)
        shown_version(page, table.version)
        expect(page.locator("#decide button[data-action]")).to_have_text(["FOLD", "BET", "BUY"])
        click_and_wait(page, table, "#decide button[data-action=bet]")
        expect(page.locator("#decide h2")).to_contain_text("Box 2")
        click_and_wait(page, table, "#dealer-shown")
        # Box 2 has seen the dealer's hand: fold or withdraw only; the button has done its job.
        expect(page.locator("#decide button[data-action]")).to_have_text(["FOLD", "WITHDRAW"])
        expect(page.locator("#dealer-cards .card.up")).to_have_count(2)
        expect(page.locator("#dealer-shown")).to_have_count(0)
        expect(page.locator(".countdown")).to_have_count(0)  # no decision timer at this table
        click_and_wait(page, table, "#decide button[data-action=withdraw]")
        expect(page.locator("#box-2 .outcome")).to_have_text("WITHDRAWN")
        expect(page.locator("#box-2 .bet-result[data-bet=ante] b")).to_have_text("push")
        expect(page.locator("#box-2 .net")).to_have_text("Push")  # the ante comes back
        expect(page.locator("#box-2 .card.up")).to_have_count(0)
        screenshot(page, "dealer-holdem-exchange-early-show")


def test_the_dealer_says_the_fifth_card_was_turned_for_the_fourth(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "holdem-exchange", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        table.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=20)], actor=DEALER)
        deal(table, CARDS)  # board 4 and 5 face down: Qs, 2d
        shown_version(page, table.version)
        expect(page.locator("#fifth-turned")).to_have_count(0)  # nothing turned yet
        click_and_wait(page, table, "#decide button[data-action=buy]")
        click_and_wait(page, table, "#decide button[data-action=bet]")
        board = page.locator("#board-cards")
        expect(board).to_contain_text("Q")
        click_and_wait(page, table, "#fifth-turned")
        # The 2d lies face up and counts as the 4th; the Qs stays face down on every screen.
        expect(page.locator("#fifth-turned")).to_have_count(0)
        assert "Qs" not in page.content()
        entry = list(table.journal_store.entries())[-1]
        assert (entry.kind, entry.data["box"], entry.data["action"]) == ("action", 0, "fifth-turned")
        screenshot(page, "dealer-holdem-exchange-fifth-for-fourth")


def test_no_early_show_button_in_other_games(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
        deal(table, ["Kc", "9s", "Kd", "9h", "Kh", "Jc", "4s", "Jd", "4c", "3c"])
        expect(page.locator("#decide button[data-action=raise]")).to_be_visible()
        expect(page.locator("#dealer-shown")).to_have_count(0)
        expect(page.locator(".countdown")).to_have_count(0)  # no decision timer at this table


def test_a_shared_box_entered_in_the_bets_form_settles_each_bettors_share(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        form = page.locator("#bets")
        page.fill("input[name=ante-1]", "20")
        page.click(".add-bettor[data-box='1']")  # the box's 20 becomes the owner's stake
        rows = form.locator(".bettor-row[data-box='1']")
        expect(rows).to_have_count(2)
        expect(rows.locator(".bettor-label")).to_have_text(["Owner", "Bettor 2"])
        expect(rows.nth(0).locator("[data-field=ante]")).to_have_value("20")
        rows.nth(1).locator("[data-field=ante]").fill("10")
        rows.nth(1).locator("[data-field=bonus]").fill("5")
        rows.nth(1).locator("[data-field=name]").fill("bob")
        expect(page.locator("input[name=ante-1]")).to_have_value("30")  # the box's total, read only
        expect(page.locator("input[name=bonus-1]")).to_have_value("5")
        page.click("#open-round")  # the owner has no name yet: refused before anything is sent
        expect(page.locator("#toast")).to_contain_text("box 1: the owner needs a name")
        assert table.round is None
        rows.nth(0).locator("[data-field=name]").fill("ann")
        page.fill("input[name=ante-2]", "10")
        click_and_wait(page, table, "#open-round")
        assert table.round is not None
        bet = table.round.bets[0]
        assert (bet.box, bet.ante, bet.bonus) == (1, 30, 5)
        assert [(p.name, p.ante, p.bonus) for p in bet.bettors] == [("ann", 20, 0), ("bob", 10, 5)]
        expect(form.locator(".bettor-row")).to_have_count(0)  # the form is cleared for the next round
        expect(page.locator("#box-1 .bettor span")).to_have_text(["ann", "bob"])
        expect(page.locator("#box-1 .bettor b")).to_have_text([money(20), f"{money(10)} + bonus {money(5)}"])
        # Box 1 full house (raise pays, bonus pays), box 2 folds; dealer two pair, qualifies.
        deal(table, passes({1: "Kc Kd Kh 9s 9h", 2: "2c 3d 4h 7s 8c"}, "Jc Jd 4s 4c 3c", n=5))
        click_and_wait(page, table, "#decide button[data-action=raise]")
        click_and_wait(page, table, "#decide button[data-action=fold]")
        assert table.settlement is not None
        box = table.settlement.boxes[0]
        assert [s.name for s in box.bettors] == ["ann", "bob"] and box.net > 0
        for share in box.bettors:
            expect(page.locator(f"#box-1 .share[data-bettor={share.name}] b")).to_have_text(signed(share.net))
        expect(page.locator("#box-1 .net")).to_have_text(f"Pay {money(box.net)}")
        screenshot(page, "dealer-shared-box")


def test_the_deciding_box_counts_down_and_folds_at_its_deadline(tmp_path: Path, page: Page) -> None:
    # The real clock: the server's deadline and the browser's countdown run on the same time.
    table = make_table(tmp_path / "journal", "casino-holdem", "T1", clock=utcnow, rules={"decision_seconds": 6})
    with live_server(make_app(tmp_path, {"T1": table}, tick_seconds=0.2)) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        table.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=10)], actor=DEALER)
        deal(table, [*passes({1: "Ah Ad", 2: "7h 7d"}, "Kc Qd", n=2), "As", "4c", "2d"])
        timer = page.locator("#box-1 .countdown")
        expect(timer).to_have_text(re.compile(r"^[1-6] s to decide$"))
        expect(page.locator(".countdown")).to_have_count(1)  # only on the box that decides
        first = int(timer.get_attribute("data-seconds") or "0")
        page.wait_for_function(
            "n => Number(document.querySelector('#box-1 .countdown')?.dataset.seconds) < n", arg=first
        )
        screenshot(page, "dealer-decision-countdown")
        # Nobody decides: the table folds box 1 at its deadline, and box 2's count starts afresh.
        # The deadline is real time; on a loaded machine the server's ticker may run late, so wait generously.
        expect(page.locator("#box-1")).to_have_class(re.compile(r"\bfolded\b"), timeout=30_000)
        assert table.round is not None and table.round.state.boxes[1].folded
        expect(page.locator("#box-2 .countdown")).to_have_text(re.compile(r"^[1-6] s to decide$"))
        expect(page.locator("#box-1 .countdown")).to_have_count(0)
        click_and_wait(page, table, "#decide button[data-action=call]")
        expect(page.locator(".countdown")).to_have_count(0)
        assert [e.actor for e in table._store.entries() if e.kind == "action"] == [
            "system:decision-timer",
            "dealer:dealer",
        ]


def test_removing_an_account_asks_first_and_a_supervisor_is_told_admin_is_not_theirs(
    tmp_path: Path, browser: Browser
) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    admin, supervisor = new_page(browser), new_page(browser)
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sign_in(admin, server.url, "admin", next_path="/admin")
            row = admin.locator("#accounts tr[data-account=dealer]")
            row.locator("button.remove-account").click()
            expect(row.locator(".confirm-remove")).to_contain_text("Remove dealer? Their sessions end now.")
            row.locator("button.keep").click()  # changed their mind: nothing happens
            expect(admin.locator("#accounts tbody tr")).to_have_count(3)
            row.locator("button.remove-account").click()
            row.locator("button.confirm").click()
            expect(admin.locator("#accounts tbody tr")).to_have_count(2)
            expect(admin.locator("#audit tbody")).to_contain_text("account-removed")
            # A supervisor at /admin: told plainly, with the way back; no admin layout, no error toast.
            supervisor.goto(f"{server.url}/login?next=/admin")
            supervisor.fill("#name", "supervisor")
            supervisor.fill("#password", PASSWORD)
            with supervisor.expect_response(lambda r: r.url.endswith("/admin")) as answer:
                supervisor.click("#sign-in")
            assert answer.value.status == 403
            expect(supervisor.locator("h1")).to_have_text("Admins only")
            expect(supervisor.locator("#who")).to_contain_text("signed in as supervisor (supervisor)")
            expect(supervisor.locator("#accounts")).to_have_count(0)
            expect(supervisor.locator("#toast")).to_be_hidden()
            screenshot(supervisor, "admin-no-access")
    finally:
        admin.context.close()
        supervisor.context.close()


def test_recall_shows_a_past_rounds_cards_in_deal_order_and_prints(tmp_path: Path, page: Page) -> None:
    from tests.web_display.rounds import OASIS, Card, play_round

    table = make_table(tmp_path / "journal", "oasis", "T1", **OASIS.settings)
    shown = play_round(table, OASIS, actor=DEALER)
    fed = [s.code for s in OASIS.steps if isinstance(s, Card)]
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        expect(page.locator("#phase")).to_have_text("idle")
        page.click("#open-recall")
        expect(page.locator("#recall .list button[data-round='1']")).to_contain_text(f"House pays {money(3590)}")
        detail = page.locator("#recall-detail")
        expect(detail.locator("#recall-title")).to_have_text("Round 1 · Oasis Poker · T1")
        rows = detail.locator(".cards-table tbody tr")
        expect(rows).to_have_count(len(fed))
        # Deal order, where each card went, and only what was face up: box 4 folded, box 3's discard.
        expect(rows.nth(0).locator("td").nth(2)).to_have_text("Box 1 · card 1")
        expect(rows.nth(4).locator("td").nth(2)).to_have_text("Dealer · card 1")
        for n, code in enumerate(fed):
            cell = rows.nth(n).locator("td").nth(1)
            if code in shown:
                expect(cell.locator(f".card[data-code='{code}']")).to_have_count(1)
            else:
                expect(cell).to_have_text("face down")
        expect(detail.locator(".settlement-table tr.net-row[data-box='1'] th").last).to_have_text(f"Pay {money(8000)}")
        expect(detail.locator(".settlement-table tr[data-box='1'][data-bet=cap] td").last).to_have_text(
            f"−{money(17100)}"
        )
        expect(detail.locator(".actions li").nth(2)).to_have_text("Box 3: exchange (card 3)")
        expect(detail.locator(".house-line")).to_contain_text("jackpot won")
        screenshot(page, "dealer-recall", full_page=False)
        # Printed for a dispute: the round alone, nothing of the live screen.
        page.emulate_media(media="print")
        expect(page.locator(".status-bar")).to_be_hidden()
        expect(page.locator("#recall .side-list")).to_be_hidden()
        expect(detail).to_be_visible()
        screenshot(page, "dealer-recall-print")
        page.emulate_media(media="screen")
        page.click("#recall-close")
        expect(page.locator("#recall")).to_be_hidden()


def test_recall_waits_for_the_live_view_instead_of_ignoring_a_press(tmp_path: Path, page: Page) -> None:
    """Recall lists amounts in the table's currency, which only the live view says: until it has come, the
    button is disabled (a press used to be dropped silently, and a supervisor saw nothing happen)."""
    table = make_table(tmp_path / "journal", "oasis", "T1")
    play_rounds(table, 1, actor=DEALER)
    held: list[WebSocketRoute] = []
    let_through = False

    def feed(socket: WebSocketRoute) -> None:
        # Held: the live feed is answered by nobody, so the page is up and the view never comes.
        if let_through:
            socket.connect_to_server()
        else:
            held.append(socket)

    page.route_web_socket(re.compile(r".*/ws/tables/T1$"), feed)
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "supervisor", next_path="/tables/T1")
        expect(page.locator("#user-role")).to_have_text("supervisor")
        assert held, "the page did not open its live feed"
        expect(page.locator("#open-recall")).to_be_disabled()
        expect(page.locator("#recall")).to_be_hidden()
        let_through = True
        page.reload()
        expect(page.locator("#open-recall")).to_be_enabled()
        page.click("#open-recall")
        expect(page.locator("#recall .list button[data-round='1']")).to_be_visible()


def test_an_exchange_against_a_dealer_who_does_not_qualify_reads_bet_by_bet(tmp_path: Path, page: Page) -> None:
    """Net zero, but not a push: the ante is paid and the fee kept; "Push" made dealers underpay the ante."""
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        table.open_round([BoxBet(box=1, ante=60)], actor=DEALER)
        # Box 1 two pair; the dealer 9-high with no ace-king: he does not qualify.
        deal(table, passes({1: "Kc Kd 4h 4s 2c"}, "9s 7h 5c 3d 2d", n=5))
        page.click("#decide .discard[data-pos='4']")
        click_and_wait(page, table, "#decide button[data-action=exchange]")
        deal(table, ["Qh"], start=11)
        click_and_wait(page, table, "#decide button[data-action=raise]")
        box = page.locator("#box-1")
        expect(box.locator(".bet-result[data-bet=ante] b")).to_have_text(f"pay {money(60)}")
        expect(box.locator(".bet-result[data-bet=raise] b")).to_have_text("push")
        expect(box.locator(".bet-result[data-bet=exchange-fee] b")).to_have_text("house keeps")
        expect(box.locator(".net")).to_have_text(f"Even: pay {money(60)} · keep {money(60)}")
        expect(page.locator("#house-pays")).to_have_text("House even")


def test_a_dealer_recalls_an_older_round_with_a_supervisors_authorisation(tmp_path: Path, page: Page) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    play_rounds(table, 11, actor=DEALER)
    with live_server(make_app(tmp_path, {"T1": table})) as server:
        sign_in(page, server.url, "dealer", next_path="/tables/T1")
        expect(page.locator("#phase")).to_have_text("idle")
        page.click("#open-recall")
        expect(page.locator("#recall .list button[data-round]")).to_have_count(10)  # rounds 2 to 11
        page.fill("#recall-number", "1")
        page.click("#recall-open")
        dialog = page.locator("#authorise")
        expect(dialog.locator("#authorise-title")).to_have_text("Recall round 1 (older than the last rounds)")
        dialog.locator("input[name=supervisor]").fill("supervisor")
        dialog.locator("input[name=password]").fill(PASSWORD)
        page.click("#authorise-submit")
        expect(dialog).to_be_hidden()
        expect(page.locator("#recall-title")).to_have_text("Round 1 · Oasis Poker · T1")
        expect(page.locator("#recall-detail .cards-table tbody tr")).to_have_count(10)
        expect(page.locator("#user-name")).to_have_text("dealer")


def test_after_a_cancelled_round_the_dealer_confirms_a_new_deck_before_the_next(
    tmp_path: Path, browser: Browser
) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    dealer = new_page(browser)
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sign_in(dealer, server.url, "dealer", next_path="/tables/T1")
            table.open_round([BoxBet(box=1, ante=10)], actor=DEALER)
            deal(table, ["2c", "3c"])
            table.void_round(actor=Actor("sam", "supervisor"), why="player dispute")
            expect(dealer.locator("#expected")).to_contain_text("shuffle the deck (round 1 was voided)")
            expect(dealer.locator("#open-round")).to_be_disabled()
            button = dealer.locator("#deck-shuffled")
            expect(button).to_be_visible()
            screenshot(dealer, "dealer-shuffle-due", full_page=False)
            button.click()
            expect(dealer.locator("#deck-shuffled")).to_have_count(0)
            expect(dealer.locator("#open-round")).to_be_enabled()
            last = list(table.journal_store.entries())[-1]
            assert (last.kind, last.actor) == ("deck-shuffled", "dealer:dealer")
    finally:
        dealer.context.close()


def test_the_dealer_records_a_short_payment_and_it_stays_in_view_until_settled(
    tmp_path: Path, browser: Browser
) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    dealer = new_page(browser)
    try:
        with live_server(make_app(tmp_path, {"T1": table})) as server:
            sign_in(dealer, server.url, "dealer", next_path="/tables/T1")
            box, due = paying_showdown(table)
            dealer.locator("#paid-otherwise").click()
            field = dealer.locator(f"input[name=paid-{box}]")
            expect(field).to_have_value(str(due))
            field.fill(str(due - 5))
            dealer.locator("#paid-submit").click()
            banner = dealer.locator("#payments-owed")
            expect(banner).to_contain_text(
                f"round 1 box {box}: paid {money(due - 5)} of {money(due)} ({money(5)} short)"
            )
            screenshot(dealer, "dealer-payment-owed", full_page=False)
            assert table.round is None and table.payments_owed()[0]["short"] == 5
            # A supervisor at the table settles it from the round's recall.
            supervisor = new_page(browser)
            try:
                sign_in(supervisor, server.url, "supervisor", next_path="/tables/T1")
                supervisor.locator("#open-recall").click()
                supervisor.locator("#recall .list button[data-round='1']").click()
                expect(supervisor.locator("#recall-payments")).to_contain_text(f"({money(5)} short)")
                supervisor.select_option("select[name=payment-box]", str(box))
                supervisor.fill("input[name=payment-paid]", str(due))
                supervisor.fill("input[name=payment-handed]", "5")
                supervisor.fill("input[name=payment-why]", "paid the rest")
                supervisor.locator("#payment-save").click()
                expect(supervisor.locator("#recall-payments")).to_contain_text("(settled)")
                expect(supervisor.locator("#recall-payments")).to_contain_text("supervisor:supervisor")
                screenshot(supervisor, "recall-payment-settled", full_page=False)
            finally:
                supervisor.context.close()
            expect(dealer.locator("#payments-owed")).to_have_count(0)
            last = list(table.journal_store.entries())[-1]
            assert (last.kind, last.actor, last.data["handed"]) == ("payment-corrected", "supervisor:supervisor", 5)
    finally:
        dealer.context.close()
