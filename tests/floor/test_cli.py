"""``dealer-assist jackpot show`` on both backends: every account's parameters and meters, and clear refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from floor import open_store
from floor.migrations import MIGRATIONS


def test_jackpot_show_prints_every_account_with_its_meters_and_pending_hits(
    floor_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_store(floor_url) as store:
        store.add_table(table_id="a1", pit="A", game="oasis")
        store.add_table(table_id="b1", pit="B", game="holdem-bonus")
        store.open_account(name="floor-wide", scope="floor", reset=1_000_000, increment=100, cap=2_000_000)
        store.open_account(name="pit-A", scope="pit", scope_value="A", reset=5_000, increment=25, cap=9_000)
        for seq in range(1, 4):
            store.contribute(account="floor-wide", table_id="b1", seq=seq)
            store.contribute(account="pit-A", table_id="a1", seq=seq)
        store.hit(account="pit-A", table_id="a1", seq=4, share_bp=5_000)
        expected = {a.name: a.to_json() for a in store.accounts()}
    assert main(["jackpot", "show", "--db", floor_url]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["schema_version"] == MIGRATIONS[-1][0]
    by_name = {a["name"]: a for a in shown["accounts"]}
    assert set(by_name) == {"floor-wide", "pit-A"}
    for name, account in by_name.items():
        assert {k: account[k] for k in expected[name]} == expected[name]
    assert by_name["floor-wide"]["meter"] == 1_000_300
    assert by_name["floor-wide"]["tables"] == ["a1", "b1"]
    assert by_name["pit-A"]["tables"] == ["a1"]
    assert [(h["hit_no"], h["table"], h["amount"]) for h in by_name["pit-A"]["pending_hits"]] == [(1, "a1", 2_537)]
    assert by_name["pit-A"]["meter"] == 5_000  # 2,538 left after the hit: topped back up to the reset


def test_jackpot_show_from_a_data_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with open_store(str(tmp_path)) as store:  # a folder: its embedded floor.sqlite3
        store.open_account(name="floor-wide", scope="floor", reset=10, increment=1, cap=10)
    assert main(["jackpot", "show", "--data", str(tmp_path)]) == 0
    assert [a["meter"] for a in json.loads(capsys.readouterr().out)["accounts"]] == [10]


def test_jackpot_show_refuses_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_cluster: Any) -> None:
    assert main(["jackpot", "show", "--data", str(tmp_path / "none")]) == 2
    assert (
        capsys.readouterr().err
        == f"dealer-assist jackpot: {tmp_path / 'none' / 'floor.sqlite3'}: no floor store here\n"
    )
    empty = pg_cluster.create_database()
    assert main(["jackpot", "show", "--db", empty]) == 2
    assert "holds no floor store yet" in capsys.readouterr().err
    assert not (tmp_path / "floor.sqlite3").exists()
    assert main(["jackpot", "show", "--db", "postgresql://postgres@127.0.0.1:1/none?connect_timeout=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dealer-assist jackpot: floor unavailable: ") and err.count("\n") == 1


def test_jackpot_open_and_set_from_the_command_line(tmp_path: Path, capsys: Any) -> None:
    base = ["--data", str(tmp_path)]
    args = ["--name", "pit-A", "--scope", "pit", "--scope-value", "A", "--reset", "5000", "--increment", "2"]
    args += ["--currency", "EUR", "--minor-units", "0"]
    assert main(["jackpot", "open", *base, *args, "--cap", "60000"]) == 0
    assert json.loads(capsys.readouterr().out)["meter"] == 5000
    # The same account with other parameters is refused, naming it; nothing changes.
    assert main(["jackpot", "open", *base, *args, "--cap", "70000"]) == 2
    assert "already exists with other parameters" in capsys.readouterr().err
    assert main(["jackpot", "set", *base, "--name", "pit-A", "--increment", "3", "--by", "pat", "--why", "promo"]) == 0
    assert json.loads(capsys.readouterr().out)["increment"] == 3
    assert main(["jackpot", "set", *base, "--name", "pit-A", "--increment", "3", "--by", "pat", "--why", "x"]) == 2
    assert "already" in capsys.readouterr().err
    with open_store(str(tmp_path)) as store:
        (change,) = store.parameter_changes("pit-A")
        assert (change["by"], change["reason"], change["old_increment"]) == ("pat", "promo", 2)
        assert store.account("pit-A").meter == 5000  # a parameter change never moves the meter
    # The jackpot's own two-supervisor amount, alone; "floor" gives it back to the floor service's.
    approval = [*base, "--name", "pit-A", "--by", "pat", "--why", "pit rule"]
    assert main(["jackpot", "set", *approval, "--second-approval-above", "20000"]) == 0
    assert json.loads(capsys.readouterr().out)["second_approval_above"] == 20000
    for bad, message in (
        (["--second-approval-above", "lots"], "a whole amount in the jackpot's minor units (0 or more) or 'floor'"),
        (["--second-approval-above", "-5"], "not '-5'"),
        (["--second-approval-above", "9", "--cap", "70000"], "--second-approval-above is set alone"),
    ):
        assert main(["jackpot", "set", *approval, *bad]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert main(["jackpot", "set", *approval, "--second-approval-above", "floor"]) == 0
    assert json.loads(capsys.readouterr().out)["second_approval_above"] is None
    with open_store(str(tmp_path)) as store:
        assert [c["reason"] for c in store.parameter_changes("pit-A")][1:] == [
            "second approval above 20,000 EUR (was the floor's amount): pit rule",
            "second approval above the floor's amount (was 20,000 EUR): pit rule",
        ]


def test_jackpot_open_takes_the_unit_given_or_the_one_its_tables_agree_on(tmp_path: Path, capsys: Any) -> None:
    base = ["--data", str(tmp_path)]
    params = ["--reset", "5000", "--increment", "2", "--cap", "60000"]
    pit_a = ["--name", "pit-A", "--scope", "pit", "--scope-value", "A", *params]
    # No table of the pit on the floor yet: nothing to take the unit from, and none is assumed.
    assert main(["jackpot", "open", *base, *pit_a]) == 2
    assert "no table of pit A is on the floor yet" in capsys.readouterr().err
    assert main(["jackpot", "open", *base, *pit_a, "--currency", "EUR"]) == 2
    assert "give --currency and --minor-units together" in capsys.readouterr().err
    with open_store(str(tmp_path)) as store:
        assert store.accounts() == []  # the refusals opened nothing
        store.add_table(table_id="a1", pit="A", game="oasis", currency="EUR", minor_units=0)
        store.add_table(table_id="a2", pit="A", game="oasis", currency="EUR", minor_units=0)
        store.add_table(table_id="b1", pit="B", game="oasis", currency="USD", minor_units=2)
    # The pit's tables agree: the jackpot is in their unit; reopening it is a no-op.
    for _ in range(2):
        assert main(["jackpot", "open", *base, *pit_a]) == 0
        opened = json.loads(capsys.readouterr().out)
        assert (opened["currency"], opened["minor_units"]) == ("EUR", 0)
    # Floor-wide, the tables disagree: refused, naming each unit's tables.
    floor_wide = ["--name", "floor-wide", "--scope", "floor", *params]
    assert main(["jackpot", "open", *base, *floor_wide]) == 2
    err = capsys.readouterr().err
    assert "different units (EUR with 0 decimals: a1, a2; USD with 2 decimals: b1)" in err
    # Stated, it opens in that unit and says which tables cannot play it.
    assert main(["jackpot", "open", *base, *floor_wide, "--currency", "USD", "--minor-units", "2"]) == 0
    out, err = capsys.readouterr()
    assert (json.loads(out)["currency"], json.loads(out)["minor_units"]) == ("USD", 2)
    assert "table a1, a2 of this scope keep their money in another unit" in err
    # An account's unit is never changed (its meter would be relabelled).
    who = ["--by", "pat", "--why", "x"]
    assert main(["jackpot", "set", *base, "--name", "pit-A", "--currency", "USD", "--minor-units", "2", *who]) == 2
    assert "open a new jackpot instead" in capsys.readouterr().err
    with open_store(str(tmp_path)) as store:
        assert [(a.name, a.currency, a.minor_units) for a in store.accounts()] == [
            ("floor-wide", "USD", 2),
            ("pit-A", "EUR", 0),
        ]
    # show: each account's unit, the tables that feed it and those of its scope refused for another unit.
    assert main(["jackpot", "show", *base]) == 0
    shown = {a["name"]: a for a in json.loads(capsys.readouterr().out)["accounts"]}
    assert [(shown[n]["currency"], shown[n]["minor_units"]) for n in ("floor-wide", "pit-A")] == [
        ("USD", 2),
        ("EUR", 0),
    ]
    assert (shown["floor-wide"]["tables"], shown["floor-wide"]["other_unit_tables"]) == (["b1"], ["a1", "a2"])
    assert (shown["pit-A"]["tables"], shown["pit-A"]["other_unit_tables"]) == (["a1", "a2"], [])
