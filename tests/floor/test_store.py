"""The floor store's behaviour, the same test functions on SQLite and on a real PostgreSQL cluster."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import floor.base
from controller.journal.base import Entry
from floor import FloorConfigError, FloorIntegrityError, FloorStore, FloorUnavailable, open_store
from floor.migrations import MIGRATIONS
from floor.replicator import Replicator
from floor.report_cli import make_report
from floor.report_sources import FloorSource
from tests.floor.report_kit import Table

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
WORKER = runpy.run_path(str(HERE / "table_worker.py"))
play_table = WORKER["play_table"]


@pytest.fixture
def store(floor_url: str) -> FloorStore:
    with open_store(floor_url) as opened:
        yield opened


def _floor(store: FloorStore, *, pits: dict[str, list[str]]) -> None:
    """Tables by pit (games alternate), a floor-wide, a per-pit and a per-game account."""
    for pit, tables in pits.items():
        for i, table in enumerate(tables):
            store.add_table(table_id=table, pit=pit, game="oasis" if i % 2 == 0 else "holdem-bonus")
    store.open_account(name="floor-wide", scope="floor", reset=1_000_000, increment=100, cap=5_000_000)
    store.open_account(name="pit-A", scope="pit", scope_value="A", reset=50_000, increment=25, cap=10_000_000)
    store.open_account(name="oasis", scope="game", scope_value="oasis", reset=20_000, increment=10, cap=10_000_000)


def test_migrations_are_numbered_applied_once_and_idempotent(floor_url: str) -> None:
    with open_store(floor_url) as first:
        assert first.schema_version() == MIGRATIONS[-1][0]
        _floor(first, pits={"A": ["t1"]})
        first.contribute(account="floor-wide", table_id="t1", seq=1)
    with open_store(floor_url) as again:  # a second start migrates nothing and keeps everything
        assert again.migrate() == MIGRATIONS[-1][0]
        assert again.account("floor-wide").meter == 1_000_100


def test_migration_6_upgrades_a_floor_with_tables_and_journals_in_place(
    floor_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A real table keeping its money in cents of dollars; its journal reaches a floor made by migrations 1-5.
    dollars = Table(tmp_path / "usd", seed=5, currency="USD", minor_units=2)
    dollars.play(4)
    table_id = dollars.store.table_id
    monkeypatch.setattr(floor.base, "MIGRATIONS", MIGRATIONS[:5])
    with open_store(floor_url) as old:
        assert old.schema_version() == 5
        with old.transaction(write=True) as cur:  # in migration 5's own terms: later code writes more
            for tid, name in ((table_id, "Dollars"), ("quiet", "Quiet")):
                cur.execute(
                    "INSERT INTO floor_tables (table_id, pit, game, name) VALUES (%s, 'A', 'oasis', %s)", (tid, name)
                )
        Replicator(journal=dollars.store, store=old).ship()
    monkeypatch.undo()
    with open_store(floor_url) as store:  # upgrades it
        assert store.applied_migrations() == {v for v, _ in MIGRATIONS} and store.schema_version() == MIGRATIONS[-1][0]
        assert store.tables() == [(table_id, "A", "oasis"), ("quiet", "A", "oasis")]  # what was there is kept
        assert store.last_seq(table_id) == dollars.store.last_seq
        assert store.units() == {table_id: ("", 0), "quiet": ("", 0)}  # not reported since: stated as unknown
        # Until the table registers again, a report takes its unit from its replicated configuration; a table
        # with none on the floor is reported under "?", apart from every currency.
        tables = {t.table_id: t.unit for t in FloorSource(store).tables()}
        assert tables == {table_id: ("USD", 2), "quiet": ("?", 0)}
        report = make_report(FloorSource(store), start="2026-11-24", end="2026-11-25", tz="UTC").to_json()
        assert [(t["currency"], t["rounds"]) for t in report["totals"]] == [("?", 0), ("USD", 4)]
        # Its next registration records its unit; from then on another one is refused.
        store.add_table(table_id=table_id, pit="A", game="oasis", name="Dollars", currency="USD", minor_units=2)
        assert store.units()[table_id] == ("USD", 2)
        with pytest.raises(FloorConfigError, match="is on the floor in USD with 2 decimals"):
            store.add_table(table_id=table_id, pit="A", game="oasis", currency="EUR", minor_units=0)
    dollars.close()


def _fed(cur: Any, account: str, ops: list[tuple[str, int, str, int]]) -> None:
    """Contributions and hits (table, seq, kind, amount) in migration 6's terms, the meter moved by each."""
    for table_id, seq, kind, amount in ops:
        credited = amount if kind == "contribution" else -amount
        cur.execute(
            "INSERT INTO jackpot_ops (account, table_id, seq, kind, amount, credited, meter_after, at) "
            "VALUES (%s, %s, %s, %s, %s, %s, 0, '2026-11-25T00:00:00+00:00')",
            (account, table_id, seq, kind, amount, credited),
        )
        cur.execute("UPDATE accounts SET meter = meter + %s WHERE name = %s", (credited, account))


def test_migration_7_gives_a_jackpot_the_unit_of_the_tables_that_fed_it_or_leaves_it_to_a_supervisor(
    floor_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(floor.base, "MIGRATIONS", MIGRATIONS[:6])
    with open_store(floor_url) as old:
        assert old.schema_version() == 6
        with old.transaction(write=True) as cur:  # in migration 6's own terms: later code writes more
            for tid, pit, currency, units in (
                ("e1", "A", "EUR", 0),
                ("e2", "A", "EUR", 0),
                ("u1", "B", "USD", 2),
                ("w1", "C", "", 0),  # registered before migration 6 and not since
                ("w2", "C", "", 0),
            ):
                cur.execute(
                    "INSERT INTO floor_tables (table_id, pit, game, name, currency, minor_units) "
                    "VALUES (%s, %s, 'oasis', %s, %s, %s)",
                    (tid, pit, tid, currency, units),
                )
            for name, scope, value in (
                ("pit-A", "pit", "A"),
                ("floor-wide", "floor", ""),
                ("unfed", "floor", ""),
                ("pit-C", "pit", "C"),
            ):
                cur.execute(
                    "INSERT INTO accounts (name, scope, scope_value, reset, increment, cap, meter, seeded) "
                    "VALUES (%s, %s, %s, 1000, 5, 100000, 1000, 1000)",
                    (name, scope, value),
                )
            _fed(cur, "pit-A", [("e1", 1, "contribution", 5), ("e2", 1, "contribution", 5), ("e2", 2, "hit", 40)])
            _fed(cur, "floor-wide", [("e1", 2, "contribution", 5), ("u1", 1, "contribution", 5)])  # the bug
            _fed(cur, "pit-C", [("w1", 1, "contribution", 5), ("w2", 1, "contribution", 5)])
    monkeypatch.undo()
    with open_store(floor_url) as store:  # upgrades it in place
        assert store.schema_version() == MIGRATIONS[-1][0]
        units = {a.name: (a.currency, a.minor_units, a.meter) for a in store.accounts()}
        # Fed only by euro tables: euros. Fed in two currencies, never fed, or fed by tables whose unit is not
        # known yet: no unit ('' = not set), the meters as they were.
        assert units == {
            "pit-A": ("EUR", 0, 970),
            "floor-wide": ("", 0, 1010),
            "unfed": ("", 0, 1000),
            "pit-C": ("", 0, 1010),
        }
        store.contribute(account="pit-A", table_id="e1", seq=3)
        assert store.account("pit-A").meter == 975
        # An account with no unit takes no table's money until a supervisor sets it; then only its own unit's.
        with pytest.raises(
            FloorConfigError,
            match=r"cannot feed jackpot floor-wide: the jackpot has no currency set .*jackpot set --name floor-wide",
        ):
            store.contribute(account="floor-wide", table_id="e1", seq=3)
        changed = store.set_unit(account="floor-wide", currency="EUR", minor_units=0, by="pat", reason="euro floor")
        assert (changed.currency, changed.minor_units, changed.meter) == ("EUR", 0, 1010)
        assert store.parameter_changes("floor-wide")[-1]["reason"] == "currency set to EUR with 0 decimals: euro floor"
        store.contribute(account="floor-wide", table_id="e1", seq=3)
        with pytest.raises(FloorConfigError, match=r"table u1 \(u1\) keeps its money in USD with 2 decimals; "):
            store.contribute(account="floor-wide", table_id="u1", seq=2)
        with pytest.raises(FloorConfigError, match="is in EUR with 0 decimals; its meter and records would be"):
            store.set_unit(account="floor-wide", currency="USD", minor_units=2, by="pat", reason="oops")
        # Tables registering their unit settle an account they fed, once every one of them is known and agrees.
        store.add_table(table_id="w1", pit="C", game="oasis", currency="USD", minor_units=2)
        assert store.account("pit-C").currency == ""
        store.add_table(table_id="w2", pit="C", game="oasis", currency="USD", minor_units=2)
        assert (store.account("pit-C").currency, store.account("pit-C").minor_units) == ("USD", 2)
        assert store.account("unfed").currency == ""


def test_migration_8_leaves_every_jackpot_on_the_floors_second_approval_amount(
    floor_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(floor.base, "MIGRATIONS", MIGRATIONS[:7])
    with open_store(floor_url) as old, old.transaction(write=True) as cur:  # in migration 7's terms
        cur.execute(
            "INSERT INTO accounts (name, scope, scope_value, reset, increment, cap, meter, seeded, currency, "
            "minor_units) VALUES ('big', 'floor', '', 1000, 5, 100000, 1000, 1000, 'USD', 2)"
        )
    monkeypatch.undo()
    with open_store(floor_url) as store:
        assert store.schema_version() == 8
        big = store.account("big")
        assert (big.meter, big.currency, big.second_approval_above, big.approval_above(700)) == (1000, "USD", None, 700)
        assert store.set_second_approval(account="big", above=50, by="pat", reason="x").approval_above(700) == 50


def test_a_jackpot_is_fed_only_by_tables_in_its_currency_and_decimals(store: FloorStore) -> None:
    store.add_table(table_id="usd", pit="A", game="oasis", name="Dollars", currency="USD", minor_units=2)
    store.add_table(table_id="eur", pit="A", game="oasis", name="Euros", currency="EUR", minor_units=0)
    store.add_table(table_id="usd0", pit="A", game="oasis", name="Whole dollars", currency="USD", minor_units=0)
    opened = store.open_account(
        name="dollars", scope="pit", scope_value="A", reset=5000, increment=5, cap=90_000, currency="USD", minor_units=2
    )
    assert (opened.currency, opened.minor_units) == ("USD", 2)
    store.contribute(account="dollars", table_id="usd", seq=1)
    with pytest.raises(
        FloorConfigError,
        match=r"^table Euros \(eur\) keeps its money in EUR with 0 decimals; jackpot dollars is in USD with 2 "
        r"decimals: a table feeds only a jackpot in its own currency and decimals$",
    ):
        store.contribute(account="dollars", table_id="eur", seq=1)
    with pytest.raises(FloorConfigError, match=r"Whole dollars \(usd0\) keeps its money in USD with 0 decimals"):
        store.hit(account="dollars", table_id="usd0", seq=1)
    after = store.account("dollars")
    assert (after.meter, after.contribution_count, after.hits) == (5005, 1, 0)  # the refusals applied nothing
    with pytest.raises(FloorConfigError, match="already exists in USD with 2 decimals, not EUR with 0 decimals"):
        store.open_account(name="dollars", scope="pit", scope_value="A", reset=5000, increment=5, cap=90_000)
    with pytest.raises(FloorConfigError, match=r"x: a currency and 0\.\.4 minor units"):
        store.open_account(name="x", scope="floor", reset=1, increment=1, cap=1, currency="EUR", minor_units=7)
    assert store.scope_units(scope="pit", scope_value="A") == {
        "usd": ("USD", 2),
        "eur": ("EUR", 0),
        "usd0": ("USD", 0),
    }


def test_a_table_keeps_the_unit_of_account_it_registered_with(store: FloorStore) -> None:
    store.add_table(table_id="t1", pit="A", game="oasis", name="Oasis 1", currency="USD", minor_units=2)
    store.add_table(table_id="t1", pit="A", game="oasis", name="Oasis 1", currency="USD", minor_units=2)
    store.add_table(table_id="t2", pit="A", game="oasis")  # the table configuration's defaults
    assert store.units() == {"t1": ("USD", 2), "t2": ("EUR", 0)}
    # Another currency, or other decimals, would relabel the money the floor holds of it: refused whole.
    with pytest.raises(
        FloorConfigError,
        match=r"^table Renamed \(t1\) is on the floor in USD with 2 decimals; its configuration now says EUR "
        r"with 2 decimals: the floor keeps its money in USD \(a table changing its currency or decimals is a "
        r"new table: its own data folder\)$",
    ):
        store.add_table(table_id="t1", pit="A", game="oasis", name="Renamed", currency="EUR", minor_units=2)
    with pytest.raises(FloorConfigError, match="now says USD with 0 decimals"):
        store.add_table(table_id="t1", pit="A", game="oasis", currency="USD", minor_units=0)
    assert store.units()["t1"] == ("USD", 2) and store.table_names()["t1"] == "Oasis 1"  # not even renamed
    with pytest.raises(FloorConfigError, match=r"t3: a currency and 0..4 minor units, not 'EUR' and 5"):
        store.add_table(table_id="t3", pit="A", game="oasis", currency="EUR", minor_units=5)
    with pytest.raises(FloorConfigError, match="a currency"):
        store.add_table(table_id="t3", pit="A", game="oasis", currency="")
    assert "t3" not in store.units()


def test_which_tables_feed_which_account(store: FloorStore) -> None:
    _floor(store, pits={"A": ["a1", "a2"], "B": ["b1", "b2"]})
    assert store.feeds("a1") == ["floor-wide", "oasis", "pit-A"]
    assert store.feeds("a2") == ["floor-wide", "pit-A"]
    assert store.feeds("b1") == ["floor-wide", "oasis"]
    with pytest.raises(FloorConfigError, match=r"b2 .*does not feed account pit-A"):
        store.contribute(account="pit-A", table_id="b2", seq=1)
    with pytest.raises(FloorConfigError, match="not on the floor"):
        store.contribute(account="floor-wide", table_id="nowhere", seq=1)
    with pytest.raises(FloorConfigError, match="no jackpot account"):
        store.contribute(account="nope", table_id="a1", seq=1)
    with pytest.raises(FloorConfigError, match="already on the floor in pit A"):
        store.add_table(table_id="a1", pit="B", game="oasis")
    with pytest.raises(FloorConfigError, match="other parameters"):
        store.open_account(name="floor-wide", scope="floor", reset=1, increment=1, cap=10)
    assert store.account("pit-A").contributions == 0  # the refusals applied nothing


def test_contribution_replayed_counts_once_and_the_cap_diverts_to_overflow(store: FloorStore) -> None:
    store.add_table(table_id="t", pit="A", game="oasis")
    store.open_account(name="small", scope="floor", reset=1_000, increment=300, cap=1_500)
    first = store.contribute(account="small", table_id="t", seq=1)
    assert (first.credited, first.meter_after, first.replayed) == (300, 1_300, False)
    again = store.contribute(account="small", table_id="t", seq=1)
    assert (again.credited, again.meter_after, again.replayed) == (300, 1_300, True)
    capped = store.contribute(account="small", table_id="t", seq=2)
    assert (capped.credited, capped.meter_after) == (200, 1_500)
    store.contribute(account="small", table_id="t", seq=3)
    account = store.account("small")
    assert (account.meter, account.contributions, account.overflow, account.contribution_count) == (1_500, 500, 400, 3)
    with pytest.raises(FloorIntegrityError, match="already recorded"):
        store.contribute(account="small", table_id="t", seq=1, amount=999)
    assert store.account("small") == account


def test_hits_are_ordered_pending_until_confirmed_and_reset_the_meter(store: FloorStore) -> None:
    _floor(store, pits={"A": ["a1", "a2"]})
    for seq in range(1, 11):
        store.contribute(account="floor-wide", table_id="a1", seq=seq)
    first = store.hit(account="floor-wide", table_id="a2", seq=1, share_bp=1_000)  # 10 %
    assert (first.hit_no, first.meter_before, first.amount, first.status) == (1, 1_001_000, 100_100, "pending")
    # Left below the reset (900,900): topped back up to the reset, the top-up counted in `seeded`.
    assert (store.account("floor-wide").meter, store.account("floor-wide").seeded) == (1_000_000, 1_099_100)
    whole = store.hit(account="floor-wide", table_id="a1", seq=11)
    assert (whole.hit_no, whole.meter_before, whole.amount) == (2, 1_000_000, 1_000_000)
    account = store.account("floor-wide")
    assert (account.meter, account.seeded, account.hits, account.won) == (1_000_000, 2_099_100, 2, 1_100_100)
    assert account.meter == account.seeded + account.contributions - account.won + account.corrections
    assert store.hit(account="floor-wide", table_id="a2", seq=1, share_bp=1_000) == first  # replay
    confirmed = store.confirm_hit(account="floor-wide", hit_no=1, by="supervisor:sam")
    assert (confirmed.status, confirmed.confirmed_by) == ("confirmed", "supervisor:sam")
    assert store.confirm_hit(account="floor-wide", hit_no=1, by="supervisor:other").confirmed_by == "supervisor:sam"
    assert [(h.hit_no, h.table_id, h.status) for h in store.hits("floor-wide")] == [
        (1, "a2", "confirmed"),
        (2, "a1", "pending"),
    ]
    with pytest.raises(FloorConfigError, match="share"):
        store.hit(account="floor-wide", table_id="a1", seq=12, share_bp=0)


def test_a_meter_decreases_only_by_a_hit_or_a_logged_correction(store: FloorStore) -> None:
    _floor(store, pits={"A": ["a1"]})
    store.contribute(account="oasis", table_id="a1", seq=1)
    after = store.correct(account="oasis", amount=-5_000, ref=1, by="supervisor:sam", reason="seed entered twice")
    assert (after.meter, after.corrections) == (15_010, -5_000)
    assert (
        store.correct(account="oasis", amount=-5_000, ref=1, by="supervisor:sam", reason="seed entered twice") == after
    )
    with pytest.raises(FloorConfigError, match="who made it and why"):
        store.correct(account="oasis", amount=-1, ref=2, by="", reason="")
    with pytest.raises(FloorConfigError, match="below zero"):
        store.correct(account="oasis", amount=-20_000, ref=3, by="supervisor:sam", reason="typo")
    assert store.account("oasis") == after
    assert store.ledger_total("oasis") == (10 - 5_000, 0)


def _entry(seq: int, data: dict[str, int]) -> Entry:
    return Entry(seq=seq, kind="card", data=data, actor="shoe:shoe", at="2026-11-24T05:00:00+00:00", hash=f"h{seq}")


def test_replicated_entries_are_stored_once_and_never_changed(store: FloorStore) -> None:
    store.add_table(table_id="t", pit="A", game="oasis")
    assert store.replicate(table_id="t", entries=[_entry(1, {"n": 1}), _entry(2, {"n": 2})]) == 2
    assert store.replicate(table_id="t", entries=[_entry(2, {"n": 2}), _entry(3, {"n": 3})]) == 1
    assert store.last_seq("t") == 3
    with pytest.raises(FloorIntegrityError, match="entry 3 on the floor differs"):
        store.replicate(table_id="t", entries=[_entry(4, {"n": 4}), _entry(3, {"n": 99})])
    assert store.last_seq("t") == 3  # the refused batch stored nothing, not even entry 4
    assert [(e.seq, dict(e.data)) for e in store.journal("t")] == [(1, {"n": 1}), (2, {"n": 2}), (3, {"n": 3})]


THREAD_TABLES = 80
PROCESSES = 3
PROCESS_TABLES = 40
SEQS = 10


def _check_exact(store: FloorStore, tables: list[str], seqs: int = SEQS) -> dict[str, int]:
    """Every account's meter = seeded + contributions - won + corrections, and = the replicated journals."""
    from_journals: dict[str, dict[str, int]] = {}
    for table in tables:
        entries = list(store.journal(table))
        assert [e.seq for e in entries] == list(range(1, seqs + 1)), table
        for entry in entries:
            for op in entry.data["ops"]:
                sums = from_journals.setdefault(op["account"], {"contribution": 0, "hit": 0})
                sums[op["kind"]] += op["amount"]
    meters = {}
    for account in store.accounts():
        assert account.meter == account.seeded + account.contributions - account.won + account.corrections
        assert from_journals[account.name]["contribution"] == account.contributions
        assert from_journals[account.name]["hit"] == account.won
        assert store.ledger_total(account.name) == (account.contributions, account.won)
        hits = store.hits(account.name)
        assert [h.hit_no for h in hits] == list(range(1, account.hits + 1))
        meters[account.name] = account.meter
    return meters


def _run_tables(url: str, tables: list[str], seqs: int = SEQS) -> list[Any]:
    """Each table in its own thread (its own store and pool); any error in a thread fails the test."""
    errors: list[BaseException] = []
    played: list[Any] = []

    def play(table: str) -> None:
        try:
            played.append(play_table(url, table, seqs))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(table,)) for table in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return played


def test_many_threads_and_processes_at_once_lose_nothing_and_replays_change_nothing(floor_url: str) -> None:
    thread_tables = [f"thr{i}" for i in range(THREAD_TABLES)]
    process_tables = [f"p{p}-{i}" for p in range(PROCESSES) for i in range(PROCESS_TABLES)]
    with open_store(floor_url) as store:
        _floor(
            store, pits={"A": thread_tables[::2] + process_tables[::2], "B": thread_tables[1::2] + process_tables[1::2]}
        )
        processes = [
            subprocess.Popen(
                [sys.executable, str(HERE / "table_worker.py"), floor_url, f"p{p}-", str(PROCESS_TABLES), str(SEQS)],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},  # this tree's packages, not an installed copy
                stdout=subprocess.PIPE,
                text=True,
            )
            for p in range(PROCESSES)
        ]
        _run_tables(floor_url, thread_tables)
        for process in processes:
            out, _ = process.communicate(timeout=240)
            assert process.returncode == 0
            assert json.loads(out)["tables"] == PROCESS_TABLES
        tables = thread_tables + process_tables
        meters = _check_exact(store, tables)
        contributions = {a.name: a.contribution_count for a in store.accounts()}
        per_table = {name: len([t for t in tables if name in store.feeds(t)]) for name in meters}
        assert contributions == {name: per_table[name] * SEQS for name in meters}
        assert store.account("floor-wide").hits == len(tables) * (SEQS // 7)
        before = store.accounts()
        # Every table replays its whole run (as after an outage): nothing changes anywhere.
        _run_tables(floor_url, tables)
        assert store.accounts() == before
        assert _check_exact(store, tables) == meters


def test_postgres_down_every_operation_fails_clearly_applies_nothing_and_succeeds_after(pg_cluster: Any) -> None:
    url = pg_cluster.create_database()
    with open_store(url, timeout=1) as store:
        _floor(store, pits={"A": ["a1"]})
        store.contribute(account="floor-wide", table_id="a1", seq=1)
        before = store.accounts()
        pg_cluster.stop()
        try:
            attempts = [
                lambda: store.contribute(account="floor-wide", table_id="a1", seq=2),
                lambda: store.hit(account="floor-wide", table_id="a1", seq=2),
                lambda: store.correct(account="oasis", amount=5, ref=1, by="supervisor:sam", reason="test"),
                lambda: store.replicate(table_id="a1", entries=[_entry(1, {"n": 1})]),
                store.accounts,
            ]
            for attempt in attempts:
                with pytest.raises(FloorUnavailable, match=r"^floor unavailable: ") as refused:
                    attempt()
                assert "Traceback" not in str(refused.value) and "\n" not in str(refused.value)
        finally:
            pg_cluster.start()
        # The pool reconnects in the background: the first operations may still be refused, clearly.
        deadline = time.monotonic() + 60
        while True:
            try:
                after = store.accounts()
                break
            except FloorUnavailable:
                assert time.monotonic() < deadline, "the store never reconnected"
                time.sleep(0.1)
        assert after == before  # nothing applied while down
        assert store.contribute(account="floor-wide", table_id="a1", seq=2).meter_after == 1_000_200
        assert store.contribute(account="floor-wide", table_id="a1", seq=1).replayed
        assert store.hit(account="floor-wide", table_id="a1", seq=2).amount == 1_000_200
        assert store.replicate(table_id="a1", entries=[_entry(1, {"n": 1})]) == 1
    with pytest.raises(FloorUnavailable, match=r"^floor unavailable: "):
        open_store("postgresql://postgres@127.0.0.1:1/nothing", timeout=1)


OUTAGE_TABLES = 60
OUTAGE_SEQS = 30


def test_postgres_stopped_and_restarted_mid_play_loses_nothing_and_counts_nothing_twice(pg_cluster: Any) -> None:
    url = pg_cluster.create_database()
    tables = [f"t{i}" for i in range(OUTAGE_TABLES)]
    with open_store(url) as store:
        _floor(store, pits={"A": tables[::2], "B": tables[1::2]})
    played: list[Any] = []
    player = threading.Thread(target=lambda: played.extend(_run_tables(url, tables, OUTAGE_SEQS)))
    player.start()
    # Wait until play is well under way, then stop the server under the tables' feet (fast: sessions killed).
    with open_store(url) as watcher:
        while watcher.account("floor-wide").contribution_count < OUTAGE_TABLES * OUTAGE_SEQS // 4:
            time.sleep(0.02)
    pg_cluster.stop()
    time.sleep(1.0)
    pg_cluster.start()
    player.join()
    assert len(played) == OUTAGE_TABLES
    assert sum(p.unavailable for p in played) > 0  # the outage really hit the tables mid-play
    with open_store(url) as store:
        before = store.accounts()
        assert store.account("floor-wide").contribution_count == OUTAGE_TABLES * OUTAGE_SEQS
        _check_exact(store, tables, OUTAGE_SEQS)
        _run_tables(url, tables, OUTAGE_SEQS)  # the whole run replayed: nothing changes
        assert store.accounts() == before
