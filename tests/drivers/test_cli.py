"""``shoe-sim`` and ``shoe-listen`` used as a technician would, from a terminal (real subprocesses)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "controller.cli"]


def start_sim(*args: str) -> tuple[subprocess.Popen[str], str]:
    sim = subprocess.Popen(
        [*CLI, "shoe-sim", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert sim.stdout is not None
    path = sim.stdout.readline().strip()
    assert path, sim.stderr.read() if sim.stderr else ""
    return sim, path


def finish(proc: subprocess.Popen[str], *, quit_first: bool = False) -> None:
    """Wait for a process that was told to quit, or terminate one that was not."""
    if not quit_first and proc.poll() is None:
        proc.terminate()
    proc.communicate(timeout=30)


def test_sim_help_documents_the_stdin_commands() -> None:
    out = subprocess.run([*CLI, "shoe-sim", "--help"], capture_output=True, text=True, timeout=60, check=True)
    for command in (
        "draw CODE",
        "unreadable",
        "duplicate",
        "jam",
        "lid-open",
        "shuffle",
        "disconnect",
        "quit",
    ):
        assert command in out.stdout


def test_sim_answers_commands_and_listen_prints_json_lines_then_exits_after_count(tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    sim, pty_path = start_sim("--cards", "As,Kd,Qh,Jc", "--link", str(link), "--heartbeat", "0.05")
    assert pty_path.startswith("/dev/")
    assert os.path.realpath(link) == pty_path
    listen = subprocess.Popen(
        [*CLI, "shoe-listen", "--shoe", str(link), "--count", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert sim.stdin is not None and sim.stdout is not None
    assert listen.stdout is not None
    first = json.loads(listen.stdout.readline())  # linked before the dealer draws
    assert first["event"] == "link-up"
    replies = []
    for line in ["", "jam", "clear", "draw Qh", "bogus", "draw"]:
        sim.stdin.write(line + "\n")
        sim.stdin.flush()
        replies.append(sim.stdout.readline().strip())
    assert replies == ["ok draw 1 As", "ok jam", "ok clear", "ok draw 2 Qh", replies[4], "ok draw 3 Kd"]
    assert replies[4].startswith("error unknown command 'bogus'")
    out, err = listen.communicate(timeout=60)
    assert listen.returncode == 0, err
    records = [first] + [json.loads(line) for line in out.splitlines()]
    summary = [(r["event"], r.get("card") or r.get("status")) for r in records]
    assert summary == [
        ("link-up", None),
        ("card", "As"),
        ("status", "jam"),
        ("status", "jam-cleared"),
        ("card", "Qh"),
        ("card", "Kd"),
    ]
    assert [r["draw_counter"] for r in records if r["event"] == "card"] == [1, 2, 3]
    sim.stdin.write("quit\n")
    sim.stdin.flush()
    finish(sim, quit_first=True)
    assert sim.returncode == 0
    assert not link.exists()  # the sim cleans up its link


def test_listen_with_a_bad_path_is_one_line_and_status_2() -> None:
    out = subprocess.run(
        [*CLI, "shoe-listen", "--shoe", "/dev/no-such-shoe"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("dealer-assist shoe-listen: cannot open shoe at /dev/no-such-shoe")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--faults", "corrupt=2"], "not a probability"),
        (["--faults", "melt=0.1"], "bad fault"),
        (["--cards", "As,Zz"], "unknown card code"),
    ],
)
def test_sim_refuses_bad_options_in_one_line(args: list[str], message: str) -> None:
    out = subprocess.run(
        [*CLI, "shoe-sim", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert message in out.stderr


def test_listen_exits_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    sim, pty_path = start_sim("--seed", "1", "--heartbeat", "0.05")
    listen = subprocess.Popen(
        [*CLI, "shoe-listen", "--shoe", pty_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert listen.stdout is not None
    assert json.loads(listen.stdout.readline())["event"] == "link-up"
    listen.send_signal(signal.SIGINT)
    _, err = listen.communicate(timeout=30)
    assert listen.returncode == 130
    assert "Traceback" not in err
    finish(sim)


def test_sim_without_listener_draws_on_each_stdin_line_and_quits_at_end_of_input() -> None:
    out = subprocess.run(
        [*CLI, "shoe-sim", "--seed", "5"],
        input="\n\nstatus\n",
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("/dev/pts/")
    assert lines[1].startswith("ok draw 1 ")
    assert lines[2].startswith("ok draw 2 ")
    assert lines[3].startswith("ok status counter=2 remaining=50 linked=no")
