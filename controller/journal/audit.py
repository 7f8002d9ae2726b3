"""``journal verify`` (the whole chain, and a replay from the first entry against every checkpoint and
indexed round) and ``journal export`` (every readable round of a damaged journal, salvaged)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.errors import ControllerError
from controller.journal.archive import Segments, segment_paths
from controller.journal.base import (
    Checkpoint,
    Entry,
    FinishedRound,
    JackpotAccount,
    JackpotOp,
    JournalError,
    JournalStore,
)
from controller.journal.chain import genesis, link
from controller.journal.integrity import check_head
from controller.journal.salvage import SalvageFile

if TYPE_CHECKING:
    from controller.table import TableService

MAX_PROBLEMS = 20


@dataclass
class Verification:
    """What ``journal verify`` found."""

    segments: int = 0
    entries: int = 0
    rounds: int = 0
    checkpoints: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def note(self, problem: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "segments": self.segments,
            "entries": self.entries,
            "rounds": self.rounds,
            "checkpoints": self.checkpoints,
            "seconds": round(self.seconds, 3),
            "entries_per_second": round(self.entries / self.seconds) if self.seconds else None,
            "problems": self.problems,
        }


@dataclass
class _Chain:
    previous: str
    seq: int


class _FromTheStart(Segments):
    """Every segment, with no checkpoint to start from: a replay from the first entry."""

    def latest_checkpoint(self) -> Checkpoint | None:
        return None


def verify(journal: Path) -> Verification:
    """Check the whole chain (archives included) and replay the table from its first entry, comparing
    the state with every checkpoint and every finished round with the round index.

    Raises:
        JournalError: the journal cannot be opened at all (``journal export`` salvages what it can).
    """
    from controller.table import TableService

    found = Verification()
    started = time.perf_counter()
    store = _FromTheStart(journal=journal, checked=False)
    try:
        found.segments = len(store.parts)
        try:
            check_head(store.live)
        except JournalError as exc:
            found.note(str(exc))
        first = store.parts[0]
        if (first.base_seq, first.base_hash) != (0, genesis(store.table_id)):
            found.note(f"{first.path.name} does not start at the table's first entry (an archive segment is missing)")
        checkpoints = store.checkpoints()
        indexed = store.finished_between(start=None, end=None)
        chain = _Chain(previous=first.base_hash, seq=first.base_seq)
        next_checkpoint = next(checkpoints, None)
        next_indexed = next(indexed, None)

        def observe(table: TableService, entry: Entry) -> None:
            nonlocal next_checkpoint, next_indexed
            found.entries += 1
            if entry.seq != chain.seq + 1:
                found.note(f"entry {chain.seq + 1} is missing (the next is {entry.seq})")
            expected = link(
                chain.previous, seq=entry.seq, kind=entry.kind, data=entry.data, actor=entry.actor, at=entry.at
            )
            if expected != entry.hash:
                found.note(f"entry {entry.seq} does not follow from the entry before it (changed or inserted)")
            chain.previous, chain.seq = entry.hash, entry.seq
            for item in table.take_finished():
                found.rounds += 1
                while next_indexed is not None and next_indexed.round < item.round:
                    found.note(f"round {next_indexed.round} is indexed but the journal does not finish it")
                    next_indexed = next(indexed, None)
                if next_indexed is None or next_indexed.round != item.round:
                    found.note(f"round {item.round} is missing from the round index")
                    continue
                if dict(next_indexed.line) != _plain(item.line) or next_indexed.seq != item.seq:
                    found.note(f"round {item.round}: the round index differs from the replayed round")
                next_indexed = next(indexed, None)
            while next_checkpoint is not None and next_checkpoint.seq <= entry.seq:
                found.checkpoints += 1
                if next_checkpoint.seq != entry.seq or next_checkpoint.hash != entry.hash:
                    found.note(f"checkpoint {next_checkpoint.seq} is not at an entry of the chain")
                elif dict(next_checkpoint.state) != _plain(table.checkpoint_state()):
                    found.note(f"checkpoint after entry {entry.seq} differs from the replayed state")
                next_checkpoint = next(checkpoints, None)

        try:
            TableService(store=store, recall=0, replay_observer=observe)
        except JournalError:
            raise
        except ControllerError as exc:
            found.note(f"the replay stops after entry {chain.seq}: {exc}")
        if next_checkpoint is not None:
            found.note(f"checkpoint {next_checkpoint.seq} is past the last entry replayed")
    finally:
        store.close()
    found.seconds = time.perf_counter() - started
    return found


def _plain(value: Any) -> Any:
    """``value`` as it comes back from JSON (tuples become lists), to compare with what was stored."""
    return json.loads(json.dumps(value))


# ---------------------------------------------------------------------------------- export


@dataclass
class Salvage:
    """What ``journal export`` recovered."""

    rounds: list[Mapping[str, Any]] = field(default_factory=list)
    from_index: int = 0
    replayed: int = 0
    unreadable: list[tuple[int, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        gaps = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in self.unreadable) or "none"
        text = (
            f"exported {len(self.rounds)} rounds ({self.from_index} from the round index, {self.replayed} "
            f"replayed from the entries); unreadable entries: {gaps}"
        )
        return "; ".join([text, *self.problems[:MAX_PROBLEMS]])


class _Run(JournalStore):
    """A stretch of readable entries with the state to start it from, as a read-only store."""

    read_only = True

    def __init__(
        self, *, files: Sequence[SalvageFile], start: Checkpoint | None, end: int, index: Sequence[FinishedRound]
    ) -> None:
        self.files = files
        self.start = start
        self.end = end
        self.index = index

    def append(
        self,
        kind: str,
        data: Mapping[str, Any],
        *,
        actor: str,
        at: str,
        jackpot: JackpotOp | None = None,
        round_no: int | None = None,
    ) -> Entry:
        raise JournalError("read-only")

    def entries(self, *, after: int = 0) -> Iterator[Entry]:
        for item in _entries(self.files, after + 1, self.end):
            if isinstance(item, Entry):
                yield item

    def latest_checkpoint(self) -> Checkpoint | None:
        return self.start

    def save(self, *, rounds: Sequence[FinishedRound] = (), checkpoint: Checkpoint | None = None) -> None:
        raise JournalError("read-only")

    def finished(self, *, last: int | None = None, upto: int | None = None) -> list[FinishedRound]:
        rows = [r for r in self.index if upto is None or r.seq <= upto]
        return rows if last is None else rows[len(rows) - last :] if last else []

    def finished_round(self, number: int) -> FinishedRound | None:
        return next((r for r in self.index if r.round == number), None)

    def finished_at(self, *, upto: int, limit: int) -> list[str]:
        return [r.at for r in self.index if r.settled and r.seq <= upto][-limit:]

    def boundary(self, entry: Entry) -> None:
        raise JournalError("read-only")

    def jackpot(self) -> JackpotAccount | None:
        return None

    def open_jackpot(self, *, name: str, meter: int) -> JackpotAccount:
        return JackpotAccount(name=name, meter=meter)

    def close(self) -> None:
        pass


def _entries(files: Sequence[SalvageFile], low: int, high: int) -> Iterator[Entry | int]:
    """Entries ``low..high`` across the files; an unreadable one as its number."""
    seq = low
    for part in files:
        if seq > high:
            return
        if part.last < seq:
            continue
        if part.first > seq:
            yield from range(seq, min(part.first, high + 1))
            seq = part.first
        stop = min(part.last, high)
        yield from part.entries(seq, stop)
        seq = stop + 1
    yield from range(seq, high + 1)


def export(journal: Path) -> Salvage:
    """Every round that can be read back from a journal, damaged or not: the round index rows that can
    be read, and the rounds replayed from each stretch of readable entries (from the checkpoint at or
    before its start). Where both have a round, the replay — the journal itself — wins.

    Raises:
        JournalError: no file of the journal can be opened at all.
    """
    from controller.table import TableService

    salvage = Salvage()
    files = []
    for path in segment_paths(journal):
        opened = SalvageFile.open(path) if path.is_file() else None
        if opened is None:
            salvage.problems.append(f"{path.name} cannot be opened")
            continue
        salvage.problems.extend(opened.problems)
        files.append(opened)
    if not files:
        raise JournalError(f"{journal}: no journal file can be opened")
    try:
        index: dict[int, FinishedRound] = {}
        checkpoints: dict[int, Checkpoint] = {}
        for part in files:
            index.update((row.round, row) for row in part.finished())
            checkpoints.update((c.seq, c) for c in part.checkpoints())
        indexed = sorted(index.values(), key=lambda row: row.round)
        runs = _runs(files, salvage)
        replayed: dict[int, FinishedRound] = {}
        for low, high in runs:
            start = None if low == 1 else _start(checkpoints, low, high)
            if low != 1 and start is None:
                salvage.problems.append(f"entries {low}-{high}: no checkpoint to start them from")
                continue
            run = _Run(files=files, start=start, end=high, index=indexed)

            def collect(table: TableService, entry: Entry) -> None:
                replayed.update((item.round, item) for item in table.take_finished())

            try:
                TableService(store=run, recall=0, replay_observer=collect)
            except ControllerError as exc:
                salvage.problems.append(f"entries {low}-{high}: the replay stops: {exc}")
        for number in sorted(set(index) | set(replayed)):
            if number in replayed:
                salvage.replayed += 1
                salvage.rounds.append(_plain(replayed[number].line))
            else:
                salvage.from_index += 1
                salvage.rounds.append(dict(index[number].line))
    finally:
        for part in files:
            part.close()
    return salvage


def _runs(files: Sequence[SalvageFile], salvage: Salvage) -> list[tuple[int, int]]:
    """The stretches of readable entries, noting the unreadable ones in ``salvage``."""
    last = max(part.last for part in files)
    runs: list[tuple[int, int]] = []
    start = bad = None
    seq = 0
    for item in _entries(files, 1, last):
        seq = item.seq if isinstance(item, Entry) else item
        if isinstance(item, Entry):
            if bad is not None:
                salvage.unreadable.append((bad, seq - 1))
                bad = None
            start = seq if start is None else start
        else:
            if start is not None:
                runs.append((start, seq - 1))
                start = None
            bad = seq if bad is None else bad
    if start is not None:
        runs.append((start, seq))
    if bad is not None:
        salvage.unreadable.append((bad, seq))
    return runs


def _start(checkpoints: Mapping[int, Checkpoint], low: int, high: int) -> Checkpoint | None:
    """The earliest checkpoint a stretch ``low..high`` can be replayed from."""
    usable = [seq for seq in checkpoints if low - 1 <= seq <= high]
    return checkpoints[min(usable)] if usable else None
