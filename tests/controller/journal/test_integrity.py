"""A journal that is not the one the table wrote is refused at start-up with one line: entries lost
(deleted or damaged -wal, an older copy restored, an empty file), changed, or held by another process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from controller.journal import JournalIntegrityError, JournalLocked, SqliteJournal
from controller.record import loads, parse_record, settle_record
from controller.table import TableError

from .kit import open_table, play

ROOT = Path(__file__).resolve().parents[3]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


def one_line_refusal(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def table_folder(tmp_path: Path, rounds: int = 12) -> Path:
    folder = tmp_path / "table"
    table = open_table(folder / "journal.sqlite3")
    play(table, rounds)
    table._store.close()
    return folder


def killed_mid_play(folder: Path, *, rounds: int) -> None:
    """Play ``rounds`` rounds in a process that is then killed -9: its last rounds are in the -wal only."""
    script = textwrap.dedent(
        f"""
        import os, signal, sqlite3
        from pathlib import Path
        from tests.controller.journal.kit import open_table, play
        path = Path({str(folder / "journal.sqlite3")!r})
        table = open_table(path)
        play(table, 3)
        # Everything so far into the main file; what follows stays in the -wal.
        sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)")
        play(table, {rounds})
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert (folder / "journal.sqlite3-wal").stat().st_size > 0


def test_a_deleted_wal_is_refused_not_papered_over(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    killed_mid_play(folder, rounds=4)
    (folder / "journal.sqlite3-wal").unlink()
    (folder / "journal.sqlite3-shm").unlink(missing_ok=True)
    with pytest.raises(JournalIntegrityError, match="entries were lost"):
        open_table(folder / "journal.sqlite3")
    one_line_refusal(cli("history", "--data", str(folder)), "entries were lost")


def test_a_damaged_wal_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    killed_mid_play(folder, rounds=4)
    wal = folder / "journal.sqlite3-wal"
    data = bytearray(wal.read_bytes())
    middle = len(data) // 3
    data[middle : middle + 64] = bytes(64)  # a frame's checksum fails: SQLite drops it and every later one
    wal.write_bytes(bytes(data))
    with pytest.raises(JournalIntegrityError, match="entries were lost"):
        open_table(folder / "journal.sqlite3")


def test_the_wal_of_a_killed_table_is_replayed_whole(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    killed_mid_play(folder, rounds=4)
    table = open_table(folder / "journal.sqlite3")
    assert table.round_no >= 7 and table.round is None
    table._store.close()


def test_an_older_copy_restored_is_refused(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=5)
    shutil.copy(folder / "journal.sqlite3", tmp_path / "backup.sqlite3")
    table = open_table(folder / "journal.sqlite3")
    play(table, 3)
    table._store.close()
    shutil.copy(tmp_path / "backup.sqlite3", folder / "journal.sqlite3")
    with pytest.raises(JournalIntegrityError, match=r"ends at entry .* but the table had recorded entry"):
        open_table(folder / "journal.sqlite3")


@pytest.mark.parametrize("how", ["empty", "missing"])
def test_an_empty_or_missing_journal_is_not_a_new_table(tmp_path: Path, how: str) -> None:
    folder = table_folder(tmp_path, rounds=3)
    path = folder / "journal.sqlite3"
    if how == "empty":
        path.write_bytes(b"")
    else:
        path.unlink()
    with pytest.raises(JournalIntegrityError, match=f"is {how}, but .* had recorded"):
        open_table(path)
    assert not path.exists() or path.stat().st_size == 0  # nothing was created in its place


def test_a_changed_entry_is_refused_naming_it(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=3)
    path = folder / "journal.sqlite3"
    with sqlite3.connect(path) as db:
        seq, data = db.execute("SELECT seq, data FROM journal WHERE kind = 'action' ORDER BY seq DESC").fetchone()
        changed = json.loads(data) | {"action": "fold" if json.loads(data)["action"] != "fold" else "raise"}
        db.execute("UPDATE journal SET data = ? WHERE seq = ?", (json.dumps(changed), seq))
    with pytest.raises(JournalIntegrityError, match=f"journal entry {seq} does not follow"):
        open_table(path)
    verified = cli("journal", "verify", "--data", str(folder))
    assert verified.returncode == 1
    report = json.loads(verified.stdout)
    assert not report["ok"] and any(f"entry {seq} does not follow" in p for p in report["problems"])


def test_verify_checks_a_whole_journal(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=60)
    verified = cli("journal", "verify", "--data", str(folder))
    assert verified.returncode == 0, verified
    report = json.loads(verified.stdout)
    assert report["ok"] and report["rounds"] == 60 and report["checkpoints"] == 2


def test_verify_finds_a_checkpoint_that_disagrees_with_the_replay(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=30)
    with sqlite3.connect(folder / "journal.sqlite3") as db:
        (state,) = db.execute("SELECT state FROM checkpoint").fetchone()
        db.execute("UPDATE checkpoint SET state = ?", (json.dumps(json.loads(state) | {"tilt_seq": 99}),))
    report = json.loads(cli("journal", "verify", "--data", str(folder)).stdout)
    assert any("differs from the replayed state" in p for p in report["problems"])


def test_a_second_process_on_the_same_table_exits_2_naming_the_holder(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=1)
    holder = open_table(folder / "journal.sqlite3")
    try:
        with pytest.raises(JournalLocked, match=f"pid {os.getpid()}"):
            SqliteJournal(path=folder / "journal.sqlite3")
        config = ROOT / "docs" / "tables" / "oasis.toml"
        second = cli("run", "--config", str(config), "--data", str(folder), "--shoe", "/dev/null", "--no-web")
        one_line_refusal(second, "already running", f"pid {os.getpid()}")
        # The first table was not touched: it plays on.
        play(holder, 1)
    finally:
        holder._store.close()
    assert open_table(folder / "journal.sqlite3").round_no == 2


def test_a_damaged_page_is_one_line_and_export_salvages_the_readable_rounds(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=80)
    path = folder / "journal.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'round_index' AND pagetype = 'leaf'")]
        entry_pages = [
            p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'journal' AND pagetype = 'leaf'")
        ]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    with open(path, "r+b") as raw:
        for page in (pages[len(pages) // 2], entry_pages[len(entry_pages) // 2]):
            raw.seek((page - 1) * size + 8)
            raw.write(os.urandom(size - 16))
    one_line_refusal(cli("history", "--data", str(folder), "--from", "2000-01-01"), "damaged", "journal export")
    exported = cli("journal", "export", "--data", str(folder))
    assert exported.returncode == 1
    assert "unreadable entries: " in exported.stderr and "Traceback" not in exported.stderr
    rounds = [json.loads(line) for line in exported.stdout.splitlines()]
    assert 60 <= len(rounds) < 80
    for line in rounds:  # each exported round settles again to what was paid
        assert settle_record(parse_record(loads(json.dumps(line)))).to_json() == line["settlement"]
    numbers = [r["round"] for r in rounds]
    assert numbers == sorted(set(numbers))


def test_another_games_folder_names_the_game_it_holds(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=2)
    with pytest.raises(TableError, match="this folder holds an Oasis Poker table"):
        open_table(folder / "journal.sqlite3", game="casino-holdem")


def test_history_reads_a_journal_on_read_only_media(tmp_path: Path) -> None:
    folder = table_folder(tmp_path, rounds=15)
    media = tmp_path / "media"
    media.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(media)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here to make read-only media: {mounted.stderr.decode().strip()}")
    try:
        shutil.copytree(folder, media / "table")
        subprocess.run(["mount", "-o", "remount,ro", str(media)], check=True)
        result = cli("history", "--data", str(media / "table"), "--last", "3")
        assert result.returncode == 0, result.stderr
        assert [json.loads(line)["round"] for line in result.stdout.splitlines()] == [13, 14, 15]
        assert cli("journal", "verify", "--data", str(media / "table")).returncode == 0
    finally:
        subprocess.run(["umount", str(media)], check=False)


@pytest.mark.parametrize("damage", ["'[1, 2]'", "7", "x'00ff'"], ids=["not-an-object", "a-number", "bytes"])
def test_export_steps_over_an_entry_whose_data_is_damaged_into_another_type(tmp_path: Path, damage: str) -> None:
    """A damaged page can read back as values of another type, not only as an error: the salvage must
    count such an entry unreadable, never fail on it (it once ended in 'internal error', exit 70)."""
    folder = table_folder(tmp_path, rounds=12)
    with sqlite3.connect(folder / "journal.sqlite3") as db:
        db.execute(f"UPDATE journal SET data = {damage} WHERE seq = 40")
    exported = cli("journal", "export", "--data", str(folder))
    assert exported.returncode == 1, exported.stderr
    assert "unreadable entries: 40" in exported.stderr and "internal error" not in exported.stderr
    rounds = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(rounds) >= 10
