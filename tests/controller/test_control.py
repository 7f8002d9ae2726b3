"""The JSON-lines control channel: commands in, answers out, bad input refused by name."""

from __future__ import annotations

import json
from pathlib import Path

from controller.config import build_config
from controller.control import handle
from controller.journal import SqliteJournal
from controller.table import TableService
from tests.controller.roundkit import passes


def test_a_round_driven_through_the_control_channel(tmp_path: Path) -> None:
    t = TableService(config=build_config({"game": "oasis"}), store=SqliteJournal(path=tmp_path / "j"))
    opened = handle(t, json.dumps({"cmd": "open", "bets": [{"box": 1, "ante": 10}]}))
    assert opened["ok"] and opened["kind"] == "round-opened"
    assert opened["expected"] == "deal card 1 to box 1, face down"
    for i, code in enumerate(passes({1: "Kc Kd Kh 4s 4c"}, "9s 9h Jc Jd 3c", n=5)):
        t.on_card(code, counter=i + 1)
    state = handle(t, '{"cmd": "state"}')["state"]
    assert state["decide"] == {
        "box": 1,
        "options": ["fold", "raise", "exchange"],
        "stage": "decision",
        "deadline": None,
    }
    assert '"Kc"' not in json.dumps(state)
    assert handle(t, '{"cmd": "act", "box": 1, "action": "raise"}')["ok"]
    assert handle(t, '{"cmd": "confirm"}')["kind"] == "round-settled"


def test_bad_commands_are_refused_by_name_and_change_nothing(tmp_path: Path) -> None:
    t = TableService(config=build_config({"game": "oasis"}), store=SqliteJournal(path=tmp_path / "j"))
    version = t.version
    cases = {
        "{nope": "not valid JSON",
        "[1]": "JSON object with 'cmd'",
        '{"cmd": "dance"}': "unknown command 'dance'",
        '{"cmd": "open", "bets": [{"box": 1, "ante": 5}]}': "below the minimum bet",
        '{"cmd": "open", "bets": [{"box": 1}]}': "ante: required",
        '{"cmd": "open", "bets": "lots"}': "boxes: expected a list",
        '{"cmd": "act", "box": 1, "action": "raise"}': "no round is open",
        '{"cmd": "clear", "tilt": 1, "resolution": "burn", "why": "x", "actor": "dealer:d"}': "only a supervisor",
        '{"cmd": "clear", "tilt": "one", "resolution": "burn", "why": "x"}': "tilt: a whole number",
        '{"cmd": "open", "bets": [], "actor": "croupier:x"}': "role must be one of",
        '{"cmd": "report", "kind": "bored"}': "cannot report 'bored'",
    }
    for line, message in cases.items():
        answer = handle(t, line)
        assert answer["ok"] is False, line
        assert message in answer["error"], (line, answer)
    assert t.version == version
