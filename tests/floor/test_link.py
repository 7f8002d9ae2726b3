"""Tables joined to a floor: the linked progressive fed exactly once, its hits, link loss, restarts, parameters."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.config import build_config
from controller.engine import Action, BoxBet
from controller.journal.sqlite import SqliteJournal
from controller.table import Actor, TableError, TableService
from controller.view import snapshot
from floor import FloorStore, FloorUnavailable, open_store
from floor.link import FloorLink, LinkSettings
from tests.clock import Clock
from tests.controller.roundkit import passes
from tests.floor.kit import FlakyStore, floor_agrees
from tests.waiting import wait_for

DEALER = Actor("dana", "dealer")
SUPER = Actor("sam", "supervisor")
ROYAL = passes({1: "As Ks Qs Js Ts", 2: "2c 3d 5h 7s 8c"}, "9s 9h Jc Jd 3c", n=5)
PLAIN = passes({1: "Kc Kd Kh 4s 4c", 2: "8c 8d 4d 5s 6c"}, "9s 9h Jc Jd 3c", n=5)


# The tables play from noon on the day the floor's report below covers.
NOON = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Table:
    """One table with its own journal folder, dealing from a counter that carries on across rounds."""

    def __init__(self, folder: Path, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "journal.sqlite3"
        self.name = name
        self.counter = 0
        self.t = self.open()

    def open(self) -> TableService:
        config = build_config({"game": "oasis", "name": self.name, "jackpot": {"reset": 5000, "contribution": 2}})
        return TableService(config=config, store=SqliteJournal(path=self.path, durable=False), clock=Clock(start=NOON))

    def restart(self) -> TableService:
        self.t.journal_store.close()
        self.t = self.open()
        return self.t

    def play(self, cards: list[str], *, bonus: bool = True) -> None:
        """Box 1 raises (with a bonus bet), box 2 folds; the dealer confirms the settlement."""
        self.t.open_round([BoxBet(box=1, ante=10, bonus=5 if bonus else 0), BoxBet(box=2, ante=10)], actor=DEALER)
        for code in cards:
            self.deal(code)
        self.finish()

    def deal(self, code: str) -> None:
        """The shoe draws ``code``, with the next draw counter."""
        self.counter += 1
        self.t.on_card(code, counter=self.counter, shoe="SIM")

    def finish(self) -> None:
        """The round dealt: box 1 raises, box 2 folds, the dealer confirms the settlement."""
        self.t.act(Action(1, "raise"), actor=DEALER)
        self.t.act(Action(2, "fold"), actor=DEALER)
        self.t.confirm_settlement(actor=DEALER)


@contextmanager
def floor(url: str) -> Iterator[FloorStore]:
    with open_store(url) as store:
        store.open_account(name="oasis-link", scope="game", scope_value="oasis", reset=5000, increment=2, cap=60_000)
        yield store


def journals_agree(store: FloorStore, tables: list[Table]) -> None:
    floor_agrees(store, "oasis-link", [t.t.journal_store for t in tables])


def link(table: Table, store: FloorStore, pit: str = "A") -> FloorLink:
    # Every pass reads the meter and the pending hits (a running link does so once a second).
    return FloorLink(table=table.t, store=store, settings=LinkSettings(pit=pit, refresh=0.0))


def test_linked_tables_feed_one_meter_and_the_floor_decides_what_a_hit_wins(floor_url: str, tmp_path: Path) -> None:
    with floor(floor_url) as store:
        a, b = Table(tmp_path / "a", "Oasis 1"), Table(tmp_path / "b", "Oasis 2")
        la, lb = link(a, store), link(b, store, pit="B")
        assert a.t.progressive == "closed"  # until the first pass catches up
        with pytest.raises(TableError, match="progressive is closed"):
            a.t.open_round([BoxBet(box=1, ante=10, bonus=5)], actor=DEALER)
        la.pass_once()
        lb.pass_once()
        assert a.t.progressive == "open" and snapshot(a.t)["jackpot"]["progressive"] == "open"
        # The floor display's status: what the tables reported on their pass, under their names.
        shown = {s.name: s for s in store.statuses()}
        assert (shown["Oasis 1"].pit, shown["Oasis 1"].phase, shown["Oasis 2"].pit) == ("A", "idle", "B")
        b.play(ROYAL)  # b saw a meter of 5000 at the open ...
        a.play(PLAIN)  # ... but a's losing box fed the floor first
        la.pass_once()
        lb.pass_once()
        lb.pass_once()  # ships the floor-hit entry the previous pass journaled
        (hit,) = store.hits("oasis-link")
        assert (hit.table_id, hit.meter_before, hit.amount, hit.status) == (
            b.t.journal_store.table_id,
            5002,
            5002,
            "pending",
        )
        assert store.tables()[0][1] in ("A", "B") and store.table_names()[b.t.journal_store.table_id] == "Oasis 2"
        # The table shows the floor's amount, pending, and leaves its confirmation to the floor.
        (pending,) = snapshot(b.t)["jackpot"]["pending"]
        assert (pending["box"], pending["amount"], pending["hand"]) == (1, 5002, "royal-flush")
        with pytest.raises(TableError, match="confirm its hits on the floor display"):
            b.t.confirm_jackpot(hit.hit_no, actor=SUPER)
        journals_agree(store, [a, b])
        # The floor's report counts the floor's amount for the hit (not the 5,000 b saw at its round).
        from floor.report_cli import make_report
        from floor.report_sources import FloorSource

        report = make_report(FloorSource(store), start="2026-11-25T00:00", end="2026-11-26T00:00", tz="UTC").to_json()
        assert report["totals"][0]["jackpot"] == {"contributions": 4, "hits": 1, "won": 5002}
        store.confirm_hit(account="oasis-link", hit_no=hit.hit_no, by="floor:sam")
        lb.pass_once()
        assert snapshot(b.t)["jackpot"]["pending"] == []
        # Replays change nothing: a second pass, and a restarted table's new link.
        b.restart()
        lb2 = link(b, store, pit="B")
        lb2.pass_once()
        journals_agree(store, [a, b])
        assert [e.kind for e in b.t.journal_store.entries()].count("jackpot-floor-hit") == 1


def test_link_loss_closes_the_progressive_and_the_backfill_counts_everything_once(
    floor_url: str, tmp_path: Path
) -> None:
    with floor(floor_url) as real:
        store = FlakyStore(real)
        a = Table(tmp_path / "a", "Oasis 1")
        la = link(a, store)
        la.pass_once()
        a.play(PLAIN)
        store.down = True
        with pytest.raises(FloorUnavailable):
            la.pass_once()
        la._close("floor link lost")  # what the link thread does on that failure
        view = snapshot(a.t)["jackpot"]
        assert (view["progressive"], view["progressive_detail"]) == ("closed", "floor link lost")
        # The base game plays on; no jackpot-eligible bet is taken, and rounds played now feed nothing.
        with pytest.raises(TableError, match="no bonus bet until it reopens"):
            a.t.open_round([BoxBet(box=1, ante=10, bonus=5)], actor=DEALER)
        a.play(PLAIN, bonus=False)
        closed_round = [e for e in a.t.journal_store.entries() if e.kind == "round-settled"][-1]
        assert closed_round.data["settlement"]["jackpot"]["contribution"] == 0
        # A restart during the outage keeps the round's record (played without the jackpot) as it was.
        recalled = a.t.recall[-1].to_json()
        a.restart()
        assert a.t.recall[-1].to_json() == recalled
        la = link(a, store)
        assert a.t.progressive == "closed"
        store.down = False
        la.pass_once()
        assert a.t.progressive == "open"
        account = real.account("oasis-link")
        assert account.contributions == 2 and account.contribution_count == 1  # the first round's, once
        journals_agree(real, [a])


def test_the_floors_new_contribution_waits_for_the_round_to_end(floor_url: str, tmp_path: Path) -> None:
    with floor(floor_url) as store:
        a = Table(tmp_path / "a", "Oasis 1")
        la = link(a, store)
        la.pass_once()
        a.t.open_round([BoxBet(box=1, ante=10, bonus=5), BoxBet(box=2, ante=10)], actor=DEALER)
        store.set_parameters(account="oasis-link", increment=3, by="pat", reason="new promotion")
        la.pass_once()
        assert a.t.config.jackpot.contribution == 2 and a.t.staged is not None  # staged, not applied mid-round
        for code in PLAIN:
            a.deal(code)
        a.finish()
        assert a.t.config.jackpot.contribution == 3
        configured = [e for e in a.t.journal_store.entries() if e.kind == "configured"][-1]
        assert configured.actor == "admin:floor/pat"
        la.pass_once()
        journals_agree(store, [a])
        (change,) = store.parameter_changes("oasis-link")
        assert (change["by"], change["old_increment"], change["increment"]) == ("pat", 2, 3)


def test_a_table_that_feeds_no_linked_account_is_refused_with_its_reason(floor_url: str, tmp_path: Path) -> None:
    from floor import FloorConfigError

    with open_store(floor_url) as store:
        a = Table(tmp_path / "a", "Oasis 1")
        with pytest.raises(FloorConfigError, match="feeds no linked account"):
            link(a, store)


def test_a_table_registers_its_currency_and_is_refused_on_a_floor_holding_it_in_another(
    floor_url: str, tmp_path: Path
) -> None:
    from floor import FloorConfigError

    with floor(floor_url) as store:
        a, b = Table(tmp_path / "a", "Oasis 1"), Table(tmp_path / "b", "Oasis 2")
        link(a, store)
        assert store.units()[a.t.journal_store.table_id] == ("EUR", 0)  # the configuration's currency and decimals
        # The floor holds b's money in dollar cents (b's data folder carried over from another configuration):
        # b's euros would be added to it as cents. The link refuses to join, naming both units.
        b_id = b.t.journal_store.table_id
        store.add_table(table_id=b_id, pit="A", game="oasis", currency="USD", minor_units=2)
        with pytest.raises(FloorConfigError, match=r"table Oasis 2 .* in USD with 2 decimals; .* says EUR with 0"):
            link(b, store)
        assert store.last_seq(b_id) == 0  # nothing of it shipped
        a.t.journal_store.close()
        b.t.journal_store.close()


class Dollars(Table):
    """A table keeping its money in dollar cents."""

    def open(self) -> TableService:
        config = build_config(
            {
                "game": "oasis",
                "name": self.name,
                "currency": "USD",
                "minor_units": 2,
                "jackpot": {"reset": 5000, "contribution": 2},
            }
        )
        return TableService(config=config, store=SqliteJournal(path=self.path, durable=False), clock=Clock(start=NOON))


def test_a_table_in_another_currency_is_refused_from_the_jackpot_and_plays_on_without_the_link(
    floor_url: str, tmp_path: Path
) -> None:
    from floor import FloorConfigError

    with open_store(floor_url) as store:
        store.open_account(
            name="oasis-usd",
            scope="game",
            scope_value="oasis",
            reset=5000,
            increment=2,
            cap=60_000,
            currency="USD",
            minor_units=2,
        )
        a = Table(tmp_path / "a", "Oasis 1")  # euros, whole units (the configuration's defaults)
        a_id = a.t.journal_store.table_id
        with pytest.raises(
            FloorConfigError,
            match=rf"^table Oasis 1 \({a_id}\) keeps its money in EUR with 0 decimals; jackpot oasis-usd is in USD "
            r"with 2 decimals: a table feeds only a jackpot in its own currency and decimals$",
        ):
            link(a, store)
        # Nothing shipped to the meter or the floor's journal; the base game plays on, its progressive closed.
        assert a.t.progressive == "closed"
        a.play(ROYAL, bonus=False)
        a.play(PLAIN, bonus=False)
        assert a.t.round_no == 2
        account = store.account("oasis-usd")
        assert (account.meter, account.contribution_count, account.hits) == (5000, 0, 0)
        assert store.last_seq(a_id) == 0
        # A table in the jackpot's own unit joins it and feeds it.
        b = Dollars(tmp_path / "b", "Oasis 2")
        lb = link(b, store)
        lb.pass_once()  # caught up: its progressive opens
        b.play(PLAIN)
        lb.pass_once()
        assert store.account("oasis-usd").contribution_count == 1
        a.t.journal_store.close()
        b.t.journal_store.close()


def test_a_hung_link_closes_the_progressive_and_it_reopens_when_the_floor_answers(
    floor_url: str, tmp_path: Path
) -> None:
    with floor(floor_url) as real:
        store = FlakyStore(real)
        a = Table(tmp_path / "a", "Oasis 1")
        la = FloorLink(table=a.t, store=store, settings=LinkSettings(pit="A", interval=0.05, timeout=1.0))
        la.start()
        try:
            wait_for(lambda: a.t.progressive == "open", "the progressive to open")
            store.flowing.clear()  # a pass now hangs: no error ever comes back
            wait_for(lambda: a.t.progressive == "closed", "the watch to close the progressive")
            assert a.t.progressive_detail == "floor link lost"
            a.play(PLAIN, bonus=False)  # the base game plays on
            store.flowing.set()
            wait_for(lambda: a.t.progressive == "open", "the progressive to reopen after the backfill")
            journals_agree(real, [a])
        finally:
            store.flowing.set()
            la.stop()


def test_a_table_dealing_while_each_pass_runs_gets_its_progressive_back(floor_url: str, tmp_path: Path) -> None:
    """A table in play journals its next card before a pass's last query to the floor (a busy table, a slow
    floor): the pass that shipped everything journaled before it began reopens the progressive anyway."""
    with floor(floor_url) as real:
        store = FlakyStore(real)
        a = Table(tmp_path / "a", "Oasis 1")
        la = link(a, store)
        assert a.t.progressive == "closed"  # joining
        a.t.open_round([BoxBet(box=1, ante=10), BoxBet(box=2, ante=10)], actor=DEALER)  # no bonus while closed
        cards = iter(PLAIN)

        def deal_next() -> None:
            code = next(cards, None)
            if code is not None:
                a.deal(code)

        store.meanwhile = deal_next  # a card dealt as each of the pass's queries starts
        before = a.t.journal_store.last_seq
        la.pass_once()
        assert a.t.journal_store.last_seq > real.last_seq(a.t.journal_store.table_id) > before  # dealt meanwhile
        assert a.t.progressive == "open"
        store.meanwhile = None
        for code in cards:
            a.deal(code)
        a.finish()
        a.play(PLAIN)  # the progressive open: a bonus bet is taken again
        la.pass_once()
        journals_agree(real, [a])
        assert real.account("oasis-link").contribution_count == 1  # the round opened while closed fed nothing


def test_a_hit_the_table_never_journaled_is_journaled_at_the_next_join(floor_url: str, tmp_path: Path) -> None:
    with floor(floor_url) as store:
        b = Table(tmp_path / "b", "Oasis 2")
        lb = link(b, store)
        lb.pass_once()
        b.play(ROYAL)
        lb.replicator.ship()  # the hit reaches the floor; the table stops before journaling the floor's answer
        (hit,) = store.hits("oasis-link")
        store.confirm_hit(account="oasis-link", hit_no=hit.hit_no, by="floor:sam")  # and it is paid meanwhile
        b.restart()
        link(b, store).pass_once()
        (entry,) = [e for e in b.t.journal_store.entries() if e.kind == "jackpot-floor-hit"]
        assert (entry.data["hit_no"], entry.data["amount"]) == (hit.hit_no, hit.amount)
        link(b, store).pass_once()  # a second join journals nothing again
        journals_agree(store, [b])
