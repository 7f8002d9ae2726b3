"""Table configuration: shipped defaults, TOML round trip, and errors that name the key and value."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import build_config, defaults_for, load_config, to_toml
from controller.errors import ConfigError
from controller.games import game_names

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tables"


def test_four_games_are_installed() -> None:
    assert game_names() == ["casino-holdem", "holdem-bonus", "holdem-exchange", "oasis"]


@pytest.mark.parametrize("game", game_names())
def test_defaults_round_trip_through_toml_and_match_the_shipped_example(game: str, tmp_path: Path) -> None:
    config = defaults_for(game)
    path = tmp_path / "table.toml"
    path.write_text(to_toml(config))
    assert load_config(path) == config
    assert (DOCS / f"{game}.toml").read_text() == to_toml(config), "regenerate docs/tables with config show"


def test_rules_md_defaults_are_what_ships() -> None:
    oasis = defaults_for("oasis")
    assert (oasis.min_bet, oasis.max_bet, oasis.max_payout) == (10, 100, 3000)
    assert oasis.bonus.paytable["royal-flush"] == 1000
    assert oasis.jackpot.enabled and oasis.jackpot.hit_hands == {"royal-flush": 100}
    hx = defaults_for("holdem-exchange").rules
    assert hx.model_dump()["bet_paytable"]["straight-flush"] == 15  # decided: as four of a kind
    assert defaults_for("holdem-bonus").rules.model_dump()["bonus_lost_on_fold"] is False


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("toml", "named"),
    [
        ('game = "oasis"\nmax_payot = 10\n', "max_payot"),
        ('game = "oasis"\nmax_bet = "lots"\n', "max_bet = 'lots'"),
        ('game = "oasis"\nmin_bet = 500\n', "min_bet 500 is above max_bet 100"),
        ('game = "oasis"\nmax_payout = 2.5\n', "max_payout = 2.5"),
        ('game = "oasis"\n[bonus.paytable]\nquads = 5\n', "bonus.paytable.quads"),
        ('game = "oasis"\n[rules.raise_paytable]\npair = 1\n', "rules.raise_paytable: no payout for"),
        ('game = "oasis"\n[rules]\nqualify = {category = "pear"}\n', "unknown hand 'pear'"),
        ('game = "oasis"\n[jackpot.hit_hands]\nroyal-flush = 150\n', "a percentage from 1 to 100"),
        ('game = "casino-holdem"\n[rules]\ncall_multiple = 0\n', "rules.call_multiple = 0"),
        ('game = "poker-dice"\n', "unknown game 'poker-dice'"),
        ("max_bet = 5\n", "game: required"),
        ('game = ["oasis"]\n', "expected a game name"),
        ('game = "oasis"\nmax_payout = 10000000000000000000\n', "max_payout"),
        ('game = "oasis"\n[bonus.paytable]\nstraight = 100000000\n', "bonus.paytable.straight"),
        ('game = "oasis"\nmax_bet = \n', "not valid TOML"),
    ],
)
def test_bad_configuration_is_refused_naming_key_and_value(tmp_path: Path, toml: str, named: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, toml))
    assert named in str(info.value)
    assert "\n" not in str(info.value)


def test_qualification_accepts_10_as_a_rank() -> None:
    config = build_config({"game": "casino-holdem", "rules": {"qualify": {"category": "pair", "min_rank": "10"}}})
    assert config.rules.model_dump()["qualify"]["min_rank"] == "10"


def test_missing_and_binary_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not a text file"):
        load_config(tmp_path / "bin.toml")


def test_overrides_merge_into_defaults_but_paytables_and_hit_lists_replace_whole() -> None:
    config = build_config(
        {
            "game": "oasis",
            "bonus": {"paytable": {"royal-flush": 500}},
            "jackpot": {"hit_hands": {"straight-flush": 100}},
            "max_payout": 5000,
        }
    )
    assert config.bonus.paytable == {"royal-flush": 500}
    assert config.jackpot.hit_hands == {"straight-flush": 100}
    assert config.bonus.min_bet == 2
    assert config.max_payout == 5000
