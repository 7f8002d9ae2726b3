"""The journal's start-up checks: the head file against the journal's end, the chain since the newest checkpoint."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from controller.journal.base import Entry, JournalError, JournalIntegrityError
from controller.journal.chain import link

if TYPE_CHECKING:
    from controller.journal.sqlite import SqliteJournal


@dataclass(frozen=True, slots=True)
class Head:
    """The newest round boundary the table recorded, kept beside the database (``<journal>.head``)."""

    table: str
    seq: int
    hash: str


def read_head(*, path: Path, head_path: Path) -> Head | None:
    """The head file of the journal at ``path``, or None if there is none.

    Raises:
        JournalIntegrityError: the head file is damaged.
        JournalError: it cannot be read.
    """
    try:
        text = head_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalError(f"{head_path}: cannot read the journal's head: {exc.strerror}") from None
    try:
        raw = json.loads(text)
        return Head(table=str(raw["table"]), seq=int(raw["seq"]), hash=str(raw["hash"]))
    except (ValueError, KeyError, TypeError):
        raise JournalIntegrityError(
            f"{head_path} is damaged; it guards against a journal that lost its last rounds. "
            f"Check the journal with `dealer-assist journal verify --data {path.parent}`"
        ) from None


def check_head(journal: SqliteJournal) -> None:
    """The journal reaches the entry its head file names, and that entry is the one recorded there."""
    head = read_head(path=journal.path, head_path=journal.head_path)
    if head is None:
        return
    if head.table != journal.table_id:
        raise JournalIntegrityError(
            f"{journal.path} belongs to table {journal.table_id}, but {journal.head_path.name} to table {head.table}: "
            "the journal was replaced by another table's"
        )
    if journal.last_seq < head.seq:
        raise JournalIntegrityError(
            f"{journal.path} ends at entry {journal.last_seq}, but the table had recorded entry {head.seq} "
            f"({journal.head_path.name}): entries were lost (a deleted or damaged -wal file, or an older "
            "copy restored). The table will not run on it: restore the journal (docs/journal.md)"
        )
    if head.seq > journal.base_seq:
        found = journal.entry(head.seq)
        if found is None or found.hash != head.hash:
            raise JournalIntegrityError(
                f"{journal.path}: entry {head.seq} is not the one the table recorded ({journal.head_path.name}): "
                f"the journal was changed or replaced; run `dealer-assist journal verify --data {journal.path.parent}`"
            )


def check_tail(journal: SqliteJournal) -> None:
    """Check the chain from the newest checkpoint (or the first entry) to the end."""
    checkpoint = journal.latest_checkpoint()
    after, previous = (journal.base_seq, journal.base_hash)
    if checkpoint is not None:
        found = journal.entry(checkpoint.seq)
        if found is None or found.hash != checkpoint.hash:
            raise broken(journal.path, checkpoint.seq, "does not match the checkpoint taken after it")
        after, previous = checkpoint.seq, checkpoint.hash
    for entry in journal.entries(after=after):
        if entry.seq != after + 1:
            raise broken(journal.path, after + 1, "is missing")
        if hash_of(previous, entry) != entry.hash:
            raise broken(journal.path, entry.seq, "does not follow from the entry before it (changed or inserted)")
        after, previous = entry.seq, entry.hash


def broken(path: Path, seq: int, what: str) -> JournalIntegrityError:
    """The refusal for a journal whose chain is broken at entry ``seq``."""
    return JournalIntegrityError(
        f"{path}: journal entry {seq} {what}; the table will not run on it: "
        f"`dealer-assist journal verify --data {path.parent}` checks the whole journal, "
        f"`dealer-assist journal export --data {path.parent}` salvages every readable round"
    )


def hash_of(previous: str, entry: Entry) -> str:
    return link(previous, seq=entry.seq, kind=entry.kind, data=entry.data, actor=entry.actor, at=entry.at)
