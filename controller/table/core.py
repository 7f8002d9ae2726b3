"""The journaled table: every change written durably first, then applied, published and checkpointed."""

from __future__ import annotations

import contextlib
import logging
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, Self

from controller.config import TableConfig, build_config
from controller.engine import (
    Complete,
    Round,
)
from controller.games import get_game
from controller.journal import (
    Checkpoint,
    Entry,
    FinishedRound,
    JackpotAccount,
    JournalError,
    JournalStore,
    JournalUnavailable,
)
from controller.table.codec import SYSTEM, Actor, Device, RecalledRound, config_settings, record_settings
from controller.table.errors import PermissionDenied, TableError
from controller.table.published import TablePublisher
from controller.table.state import FINISHED_KEPT, RECALL, STORAGE_TILT
from controller.tilts import Tilt, TiltKind

# A checkpoint every this many rounds: a restart replays at most this many rounds' entries.
CHECKPOINT_EVERY = 25
# Finished rounds indexed per transaction while a journal is replayed.
SAVE_BATCH = 256
log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


class TableCore(TablePublisher, ABC):
    """A table's state kept in its journal. Thread-safe: the shoe thread, the web loop and timers may
    all call in; every command holds the table's lock, writes its entry, then applies it."""

    def __init__(
        self,
        *,
        store: JournalStore,
        config: TableConfig | None = None,
        clock: Callable[[], datetime] = utcnow,
        recall: int | None = RECALL,
        replay_observer: Callable[[Self, Entry], None] | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ) -> None:
        """Rebuild the table from its journal (the newest checkpoint and the entries after it); with
        ``config``, run it under that configuration.

        ``recall`` is how many finished rounds to keep at hand (None: all, for tests).
        ``replay_observer`` is called after each entry replayed (``journal verify`` compares the
        state with the checkpoints as it goes). ``checkpoint_every``: rounds between checkpoints.

        Raises:
            TableError: no configuration given and none in the journal, a configuration for another
                game than the folder's table plays, or a new configuration while a round is open.
            JournalError: the journal cannot be read.
        """
        super().__init__(recall=recall)
        self._store = store
        self._clock = clock
        self._checkpoint_round = 0
        self._checkpoint_every = checkpoint_every
        self._replaying = True
        # A table on a floor plays a linked progressive (floor/link.py): "open" or "closed" (the floor
        # link is down or not yet caught up: no jackpot-eligible bet); "none" for a table of its own.
        self.progressive: Literal["none", "open", "closed"] = "none"
        self.progressive_detail = ""
        self._linked_account: Callable[[], JackpotAccount] | None = None
        # The devices' own reports for the displays (not journaled): what :meth:`attach_device` gave.
        self._devices: dict[Device, Callable[[], dict[str, Any]]] = {}
        checkpoint = store.latest_checkpoint()
        if checkpoint is not None:
            self._restore(checkpoint)
        else:
            first = next(store.entries(), None)
            if first is not None and first.kind == "configured":
                self.config = build_config(first.data["settings"])
            elif config is not None:
                self.config = config
            else:
                raise TableError("this data folder has no table yet: give a configuration")
        if self.config.jackpot.enabled and store.jackpot() is None:
            store.open_jackpot(name=self.config.name, meter=self.config.jackpot.reset)
        for entry in store.entries(after=checkpoint.seq if checkpoint else 0):
            self.apply(entry)
            if replay_observer is not None:
                replay_observer(self, entry)
        self._replaying = False
        self._save(None)
        journaled = self.journaled_settings
        if config is not None and journaled is not None and config.game != self.config.game:
            raise TableError(
                f"this folder holds {_a(get_game(self.config.game).title)} table; "
                f"{_a(get_game(config.game).title)} table needs its own data folder"
            )
        if (
            config is not None
            and journaled is not None
            and (config.currency, config.minor_units)
            != (
                self.config.currency,
                self.config.minor_units,
            )
        ):
            raise TableError(unit_change(self.config, config))
        wanted = config_settings(config) if config is not None else journaled
        if journaled != wanted and wanted is not None:
            self._start_under(wanted)

    def _start_under(self, wanted: dict[str, Any]) -> None:
        """Started with another configuration than the journal's: it applies now, or, with a round
        open, like an admin's change during a round, when the round ends."""
        if self.round is None:
            self._commit("configured", {"settings": wanted}, SYSTEM)
        elif self.staged is None or self.staged.data["settings"] != wanted:
            self._commit("configuration-staged", {"settings": wanted}, SYSTEM)

    def _restore(self, checkpoint: Checkpoint) -> None:
        """The state a checkpoint recorded, with the finished rounds the round index holds up to it."""
        self._restore_state(checkpoint.state, seq=checkpoint.seq, hash=checkpoint.hash)
        self._checkpoint_round = self.round_no
        for item in self._store.finished(last=self.recall.maxlen, upto=checkpoint.seq):
            self.recall.append(RecalledRound.from_line(item.line, finished_at=item.at))
        self._finished.extend(self._store.finished_at(upto=checkpoint.seq, limit=FINISHED_KEPT))

    def take_finished(self) -> list[FinishedRound]:
        """The finished rounds not (yet) in the store's round index, handed over and forgotten: on a
        read-only store, the rounds a replay finished after the index ends."""
        taken, self._unsaved = self._unsaved, []
        return taken

    def _save(self, entry: Entry | None) -> None:
        """Index the rounds finished by ``entry`` (None: by the replay) and, every CHECKPOINT_EVERY
        rounds at a boundary, checkpoint; then move the head. A storage failure here loses nothing (the
        entry is durable and a restart indexes it again), so it is logged and retried at the next end."""
        if not self._unsaved or self._store.read_only:
            return
        checkpoint = None
        boundary = self.round is None and self._unsaved[-1].seq == self.version
        if boundary and self.round_no - self._checkpoint_round >= self._checkpoint_every:
            at = self._unsaved[-1].at
            checkpoint = Checkpoint(seq=self.version, hash=self._head_hash, at=at, state=self.checkpoint_state())
        if self._replaying and checkpoint is None and len(self._unsaved) < SAVE_BATCH:
            return
        try:
            self._store.save(rounds=self._unsaved, checkpoint=checkpoint)
            self._unsaved = []
            if checkpoint is not None:
                self._checkpoint_round = self.round_no
            if entry is not None and boundary:
                self._store.boundary(entry)
        except JournalError as exc:
            log.error("round index not saved (retried at the next round's end): %s", exc)

    @property
    def journaled_settings(self) -> dict[str, Any] | None:
        """The configuration the journal last recorded (None: a table with no journal yet)."""
        return self._journaled

    @property
    def table_settings(self) -> dict[str, Any]:
        """The full configuration as a record's ``table`` (everything but the game)."""
        return record_settings(self.config)

    @property
    def journal_store(self) -> JournalStore:
        """The journal this table writes, for readers (recall); every write goes through the commands."""
        return self._store

    def expected(self) -> str:
        """What the table waits for, in the dealer's words."""
        with self._lock:
            if self.tilts:
                first = next(iter(self.tilts.values()))
                return f"tilt: {first.message}. {first.instruction}"
            if self.shuffle_due is not None and (self.round is None or not self.round.cards_dealt):
                return f"shuffle the deck ({self.shuffle_due}), then confirm it or let the shoe signal it"
            if self.round is None:
                return "take the bets and open a round"
            step = self.round.expected()
            if isinstance(step, Complete):
                return "showdown: pay the table as shown, then confirm"
            return step.describe()

    def _apply_staged(self) -> None:
        """Journal the staged configuration as the table's own once no round is open."""
        staged = self.staged
        if staged is None or self.round is not None:
            return
        config = build_config(staged.data["settings"])
        if config.jackpot.enabled and self._store.jackpot() is None:
            self._store.open_jackpot(name=config.name, meter=config.jackpot.reset)
        self._commit(
            "configured", {"settings": staged.data["settings"], "staged": staged.seq}, Actor.parse(staged.actor)
        )

    def _require_play(self) -> None:
        if self.tilts:
            first = next(iter(self.tilts.values()))
            raise TableError(f"play is stopped by tilt {first.id} ({first.message}): {first.instruction}")

    def _require_round(self) -> Round:
        if self.round is None:
            raise TableError("no round is open")
        return self.round

    @staticmethod
    def _require_supervisor(actor: Actor, what: str) -> None:
        if actor.role not in ("supervisor", "admin"):
            raise PermissionDenied(f"only a supervisor may {what}")

    def _raise_tilt(
        self,
        kind: TiltKind,
        message: str,
        *,
        actor: Actor = SYSTEM,
        held: Sequence[str] = (),
        counter: int | None = None,
        card: int | None = None,
        since: str | None = None,
    ) -> Entry:
        data: dict[str, Any] = {
            "tilt": self._tilt_seq + 1,
            "kind": kind,
            "message": message,
            "held": list(held),
            "counter": counter,
        }
        if card is not None:
            data["card"] = card
        if since is not None:
            data["since"] = since  # raised before it could be journaled
        return self._commit("tilt-raised", data, actor)

    def _commit(self, kind: str, data: Mapping[str, Any], actor: Actor, *, jackpot: Any = None) -> Entry:
        """Append, then apply. Storage that fails (a full disk, an I/O error) stops play with a tilt that
        lives only in memory until a supervisor clears it once storage is back: nothing was recorded,
        so nothing is acknowledged.

        Raises:
            JournalUnavailable: the entry was not written (the storage tilt is open now).
            JournalError: the entry was refused (e.g. a jackpot hit confirmed already).
        """
        try:
            entry = self._store.append(
                kind,
                data,
                actor=str(actor),
                at=self._clock().isoformat(),
                jackpot=jackpot,
                round_no=self.round_no,
            )
        except JournalUnavailable as exc:
            self._storage_fault(str(exc))
            raise
        self.apply(entry)
        if entry.kind != "configured":
            # ``entry`` is stored and stands: if storage fails now, the change stays staged (and the
            # storage tilt open) until the next round is opened.
            with contextlib.suppress(JournalUnavailable):
                self._apply_staged()  # the round just ended: the change made during it applies now
        return entry

    def _storage_fault(self, problem: str) -> None:
        if STORAGE_TILT in self.tilts:
            return
        log.critical("the journal cannot be written, play stops: %s", problem)
        self.tilts = {
            STORAGE_TILT: Tilt(
                id=STORAGE_TILT,
                kind="journal-unavailable",
                message=problem,
                raised_at=self._clock().isoformat(),
                round=self.round_no if self.round is not None else None,
            ),
            **self.tilts,
        }
        self._publish()

    def _after_change(self, entry: Entry) -> None:
        super()._after_change(entry)
        if self._unsaved:
            self._save(entry)
        self._publish()

    def rounds_since(self, since: datetime) -> int:
        """Settled rounds finished at or after ``since`` (for rounds today and per hour)."""
        with self._lock:
            return sum(1 for at in self._finished if datetime.fromisoformat(at) >= since)

    def now(self) -> datetime:
        return self._clock()


def unit_change(old: TableConfig, new: TableConfig) -> str:
    """Why a table refuses another currency or number of decimals: every amount it journaled, its jackpot
    meter and the floor's copy of its money are in the old unit, and would silently change meaning."""
    return (
        f"table {old.name} keeps its money in {old.currency} with {old.minor_units} decimals; "
        f"{new.currency} with {new.minor_units} decimals needs its own data folder (a new table): "
        "its journaled amounts would change meaning"
    )


def _a(title: str) -> str:
    return f"{'an' if title[:1] in 'AEIOU' else 'a'} {title}"
