"""``dealer-assist user``: accounts managed from the command line, passwords never in argv."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from controller.cli import build_parser, main
from web_display.accounts import ACCOUNTS_FILE, open_account_store


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(argv)


def test_add_list_passwd_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path)
    assert (
        run(
            ["user", "add", "sam", "--role", "supervisor", "--password-stdin", "--data", data],
            "s3cret-pass\n",
            monkeypatch,
        )
        == 0
    )
    assert run(["user", "list", "--data", data], "", monkeypatch) == 0
    assert "sam\tsupervisor" in capsys.readouterr().out
    store = open_account_store(tmp_path / ACCOUNTS_FILE)
    account = store.verify(name="sam", password="s3cret-pass")
    assert account is not None and account.role == "supervisor"
    store.close()
    assert run(["user", "passwd", "sam", "--password-stdin", "--data", data], "another-pass\n", monkeypatch) == 0
    store = open_account_store(tmp_path / ACCOUNTS_FILE)
    assert store.verify(name="sam", password="another-pass") is not None
    actions = [e.action for e in store.audit_log()]
    store.close()
    assert actions[:2] == ["account-added", "password-changed"]
    assert run(["user", "remove", "sam", "--data", data], "", monkeypatch) == 0
    assert run(["user", "remove", "sam", "--data", data], "", monkeypatch) == 2
    assert "there is no account 'sam'" in capsys.readouterr().err


def test_refusals_are_one_line_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path)
    assert (
        run(
            ["user", "add", "Bad Name", "--role", "dealer", "--password-stdin", "--data", data],
            "long-enough\n",
            monkeypatch,
        )
        == 2
    )
    assert "account name 'Bad Name'" in capsys.readouterr().err
    assert (
        run(["user", "add", "kim", "--role", "dealer", "--password-stdin", "--data", data], "short\n", monkeypatch) == 2
    )
    assert "at least 8 characters" in capsys.readouterr().err
    assert (
        run(
            ["user", "add", "kim", "--role", "dealer", "--password-stdin", "--data", data], "long-enough\n", monkeypatch
        )
        == 0
    )
    assert (
        run(
            ["user", "add", "kim", "--role", "dealer", "--password-stdin", "--data", data], "long-enough\n", monkeypatch
        )
        == 2
    )
    assert "already an account 'kim'" in capsys.readouterr().err


def test_no_command_takes_a_password_argument() -> None:
    parser, _ = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["user", "add", "kim", "--role", "dealer", "--password", "x", "--data", "d"])


def test_a_data_folder_that_is_a_file_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "not-a-folder"
    data.write_text("x")
    argv = ["user", "add", "kim", "--role", "dealer", "--password-stdin", "--data", str(data)]
    assert run(argv, "long-enough\n", monkeypatch) == 2
    err = capsys.readouterr().err
    assert err == f"dealer-assist user: {data}: not a folder (give the table's data folder)\n"
    assert run(["user", "list", "--data", str(data)], "", monkeypatch) == 2
