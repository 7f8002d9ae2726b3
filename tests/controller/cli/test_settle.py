"""`dealer-assist settle` used as a person would: files, stdin, and every kind of bad input."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLE: dict[str, Any] = {
    "game": "oasis",
    "table": {"min_bet": 10, "max_bet": 100, "max_payout": 3000},
    "jackpot": {"meter": 25000},
    "boxes": [
        {"box": 1, "ante": 10, "bonus": 5},
        {"box": 2, "ante": 20, "blind": True},
        {"box": 4, "ante": 30, "bettors": [{"name": "A", "ante": 20}, {"name": "B", "ante": 10}]},
    ],
    "cards": "6c 6d 2h 9s 6h Kd 3h 9h Kc Ks 4d Jc Kh 8s 5s Jd 2c 8c 7d As Qd".split(),
    "actions": [
        {"box": 1, "action": "exchange", "discard": ["2c"]},
        {"box": 1, "action": "raise"},
        {"box": 4, "action": "fold"},
    ],
}


def settle(stdin: str | bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "settle", *args],
        input=data,
        capture_output=True,
        timeout=60,
        check=False,
    )


def test_the_issue_example_settles_from_stdin_and_from_a_file(tmp_path: Path) -> None:
    done = settle(json.dumps(EXAMPLE), "-")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    by_box = {b["box"]: b for b in out["boxes"]}
    # Box 1: K-K-6-6-Q after the exchange beats the dealer's J-J-9-9-A: ante 10, raise 2x20, fee -10.
    assert (by_box[1]["main"], by_box[1]["bonus"], by_box[1]["net"]) == (40, -5, 35)
    assert by_box[2]["main"] == 100  # blind: ante 20 + raise 40 at two pair 2:1
    assert [(p["name"], p["net"]) for p in by_box[4]["bettors"]] == [("A", -20), ("B", -10)]
    assert out["jackpot"]["meter_after"] == 25001
    path = tmp_path / "round.json"
    path.write_text(json.dumps(EXAMPLE))
    assert json.loads(settle("", str(path)).stdout) == out


def broken(edit: Any) -> str:
    rec = copy.deepcopy(EXAMPLE)
    edit(rec)
    return json.dumps(rec)


BAD: dict[str, tuple[str | bytes, str]] = {
    "malformed JSON": ('{"game": "oasis", ', "not valid JSON"),
    "not UTF-8": (b"\xff\xfe{", "not valid JSON"),
    "not an object": ("[1, 2]", "JSON object"),
    "duplicate key": ('{"game": "oasis", "game": "oasis"}', "appears twice"),
    "NaN": (broken(lambda r: r.update(jackpot={"meter": 1})).replace("1}", "NaN}"), "NaN"),
    "unknown game": (broken(lambda r: r.update(game="blackjack")), "unknown game 'blackjack'"),
    "unknown table key": (broken(lambda r: r["table"].update(max_pay=1)), "max_pay"),
    "bad table value": (broken(lambda r: r["table"].update(max_payout="lots")), "max_payout"),
    "unknown card": (broken(lambda r: r["cards"].__setitem__(3, "1s")), "unknown card code '1s'"),
    "card twice": (broken(lambda r: r["cards"].__setitem__(3, "6c")), "6c was already dealt"),
    "too few cards": (broken(lambda r: r.update(cards=r["cards"][:-3])), "too few cards"),
    "too many cards": (broken(lambda r: r["cards"].append("Ah")), "too many cards"),
    "illegal action": (
        broken(lambda r: r["actions"].__setitem__(2, {"box": 4, "action": "call"})),
        "not an action",
    ),
    "out of turn": (broken(lambda r: r["actions"].insert(0, {"box": 4, "action": "fold"})), "out-of-turn"),
    "bet over the limit": (broken(lambda r: r["boxes"][0].update(ante=500)), "maximum bet"),
    "bet under the limit": (broken(lambda r: r["boxes"][0].update(ante=1)), "minimum bet"),
    "fractional money": (broken(lambda r: r["boxes"][0].update(ante=10.5)), "whole amount"),
    "unknown box key": (broken(lambda r: r["boxes"][0].update(colour="red")), "unknown key 'colour'"),
    "missing actions": (broken(lambda r: r.update(actions=r["actions"][:1])), "not finished"),
    "huge amount": (broken(lambda r: r["boxes"][0].update(ante=10**20)), "more than any table handles"),
    "thousands of digits": ('{"game": "oasis", "boxes": [{"box": 1, "ante": 1' + "0" * 5000 + "}]}", "usable record"),
    "void with leftovers": (broken(lambda r: r.update(void="power cut", actions=[])), "left over"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_exits_2_with_one_line_naming_the_problem_and_no_output(name: str) -> None:
    stdin, expected = BAD[name]
    done = settle(stdin, "-")
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert done.stdout == b""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert expected in err, err


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    done = settle("", str(tmp_path / "nope.json"))
    assert done.returncode == 2
    assert "nope.json: cannot read" in done.stderr.decode()
