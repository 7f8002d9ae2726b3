"""The live table: one table's rounds driven by dealer commands and shoe cards, journaled, published.

Every command is checked first, appended to the journal durably, then applied; the live state
is exactly what replaying the journal gives, so a restart is a replay. Subscribers (the displays)
get a snapshot after every change; nothing in a snapshot reveals a card before it is face up.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar

from controller.cards import Card
from controller.cards import card as parse_card
from controller.config import TableConfig, build_config
from controller.engine import (
    Action,
    ActionTaken,
    Bettor,
    BoxBet,
    Complete,
    Deal,
    Decide,
    Placeholder,
    Round,
    Slot,
    placeholder_ref,
)
from controller.errors import CardError, ControllerError, RuleViolation
from controller.games import get_game
from controller.journal import (
    Checkpoint,
    Entry,
    FinishedRound,
    JackpotAccount,
    JackpotChange,
    JackpotConfirm,
    JournalError,
    JournalStore,
    JournalUnavailable,
)
from controller.journal.archive import find_finished
from controller.record import RoundRecord, parse_record, record_from_round, settle_record
from controller.settlement import RoundSettlement
from controller.tilts import ROUND_ENDING, Resolution, Tilt, TiltKind

Role = Literal["dealer", "supervisor", "admin", "system", "shoe", "camera"]
# Devices that report their own health to the displays (TableService.attach_device).
Device = Literal["shoe", "camera"]
RECALL = 10
# A checkpoint every this many rounds: a restart replays at most this many rounds' entries.
CHECKPOINT_EVERY = 25
# The id of the tilt a storage failure raises: it cannot be journaled, so it has no journal id.
STORAGE_TILT = 0
# Finish times kept for rounds today / in the last hour.
FINISHED_KEPT = 2000
# Finished rounds indexed per transaction while a journal is replayed.
SAVE_BATCH = 256
log = logging.getLogger(__name__)
_T = TypeVar("_T")
# What a dealer or the camera may report; link and shoe faults come from the shoe itself.
REPORTABLE: tuple[TiltKind, ...] = (
    "dealer-card-exposed",
    "missing-card",
    "unexpected-card",
    "duplicate-card",
    "camera-mismatch",
    "deal-sequence",
)
# What the dealer sees go wrong in the deal's order, as reported from the display: each is a
# deal-sequence tilt (docs/irregularities.md), its message saying which.
DEAL_SEQUENCE_REPORTS: dict[str, str] = {
    "wrong-box": "a card went to the wrong box",
    "extra-card": "a box got an extra card",
    "skipped-box": "a playing box was skipped",
}


class TableError(ControllerError):
    """A command the table refuses now (the message says why and what to do)."""


class PermissionDenied(TableError):
    """The actor's role may not do this (e.g. a dealer clearing a tilt)."""


@dataclass(frozen=True, slots=True)
class Actor:
    """Who did something: kept with every journal entry."""

    name: str
    role: Role

    def __str__(self) -> str:
        return f"{self.role}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> Actor:
        role, _, name = text.partition(":")
        return cls(name=name, role=role)  # type: ignore[arg-type]


SYSTEM = Actor("controller", "system")
SHOE = Actor("shoe", "shoe")
CAMERA = Actor("camera", "camera")


def utcnow() -> datetime:
    return datetime.now(UTC)


def bets_to_json(bets: Iterable[BoxBet]) -> list[dict[str, Any]]:
    out = []
    for b in bets:
        item: dict[str, Any] = {"box": b.box, "ante": b.ante, "bonus": b.bonus, "blind": b.blind}
        if b.bettors:
            item["bettors"] = [{"name": p.name, "ante": p.ante, "bonus": p.bonus} for p in b.bettors]
        out.append(item)
    return out


def bets_from_json(items: Iterable[Mapping[str, Any]]) -> tuple[BoxBet, ...]:
    return tuple(
        BoxBet(
            box=i["box"],
            ante=i["ante"],
            bonus=i.get("bonus", 0),
            blind=i.get("blind", False),
            bettors=tuple(Bettor(p["name"], p["ante"], p.get("bonus", 0)) for p in i.get("bettors", [])),
        )
        for i in items
    )


@dataclass(frozen=True, slots=True)
class RecalledRound:
    """A finished round: its record (replayable with ``dealer-assist settle``) and its settlement."""

    round: int
    record: RoundRecord
    settlement: RoundSettlement
    finished_at: str

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, **self.record.to_json(), "settlement": self.settlement.to_json()}

    @classmethod
    def from_line(cls, line: Mapping[str, Any], *, finished_at: str) -> RecalledRound:
        """A round from its history line (the round index), settled again from its record.

        Raises:
            JournalIntegrityError: the line does not settle to the settlement it records.
        """
        from controller.journal import JournalIntegrityError

        record = parse_record(line)
        settlement = settle_record(record)
        if settlement.to_json() != line["settlement"]:
            raise JournalIntegrityError(f"round {line['round']}: its indexed record does not settle as paid")
        return cls(int(line["round"]), record, settlement, finished_at)


class TableService:
    """One table. Thread-safe: the shoe thread, the web loop and timers may all call in."""

    def __init__(
        self,
        *,
        store: JournalStore,
        config: TableConfig | None = None,
        clock: Callable[[], datetime] = utcnow,
        recall: int | None = RECALL,
        replay_observer: Callable[[TableService, Entry], None] | None = None,
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
        self._store = store
        self._clock = clock
        self._lock = threading.RLock()
        self._subscribers: list[Callable[[dict[str, Any]], None]] = []
        self.version = 0
        self.round_no = 0
        self.round: Round | None = None
        self.settlement: RoundSettlement | None = None
        self.tilts: dict[int, Tilt] = {}
        self._tilt_seq = 0
        self.last_bets: tuple[BoxBet, ...] = ()
        self._last_counter: int | None = None
        self._decide_since: str | None = None
        self.recall: deque[RecalledRound] = deque(maxlen=recall)
        self._finished: deque[str] = deque(maxlen=FINISHED_KEPT)  # when recent rounds finished, for the floor
        self._journaled: dict[str, Any] | None = None  # the settings the journal last recorded
        self._unsaved: list[FinishedRound] = []  # finished rounds not yet in the store's round index
        self._checkpoint_round = 0
        self._checkpoint_every = checkpoint_every
        self._head_hash = ""
        self._replaying = True
        # A configuration an admin changed during a round: applied (journaled as "configured") as
        # soon as no round is open; the "configuration-staged" entry that holds it.
        self.staged: Entry | None = None
        self._opened: Mapping[str, Any] = {}  # the open round's "round-opened" data
        # Why the deck must be shuffled before the next card (a round ended by cancel, redeal or void:
        # its cards are known, RULES "cancelled hands require shuffling"); None: the deck is fresh.
        self.shuffle_due: str | None = None
        # Dealer's payments that were not what the settlement showed (recorded at the confirmation)
        # or that a supervisor corrected later: "round:box" -> {round, box, due, paid, corrections}.
        # Kept for the table's life (a dispute may come late); only rounds with a discrepancy are here.
        self.payments: dict[str, dict[str, Any]] = {}
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
            self._apply(entry)
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
        wanted = _settings(config) if config is not None else journaled
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
        state = checkpoint.state
        self._journaled = state["settings"]
        self.config = build_config(state["settings"])
        self.round_no = state["round"]
        self._checkpoint_round = state["round"]
        self.last_bets = bets_from_json(state["last_bets"])
        self.tilts = {t["id"]: _tilt_from_json(t) for t in state["tilts"]}
        self._tilt_seq = state["tilt_seq"]
        self._last_counter = state["last_counter"]
        self.version = checkpoint.seq
        self._head_hash = checkpoint.hash
        self.shuffle_due = state.get("shuffle_due")
        self.payments = {key: dict(value) for key, value in state.get("payments", {}).items()}
        staged = state.get("staged")  # absent from checkpoints written before staging existed
        self.staged = None if staged is None else Entry(**staged)
        for item in self._store.finished(last=self.recall.maxlen, upto=checkpoint.seq):
            self.recall.append(RecalledRound.from_line(item.line, finished_at=item.at))
        self._finished.extend(self._store.finished_at(upto=checkpoint.seq, limit=FINISHED_KEPT))

    def take_finished(self) -> list[FinishedRound]:
        """The finished rounds not (yet) in the store's round index, handed over and forgotten: on a
        read-only store, the rounds a replay finished after the index ends."""
        taken, self._unsaved = self._unsaved, []
        return taken

    def checkpoint_state(self) -> dict[str, Any]:
        """What a restart needs at a round boundary, besides the round index (docs/journal.md)."""
        return {
            "v": 1,
            "settings": self._journaled,
            "round": self.round_no,
            "last_bets": bets_to_json(self.last_bets),
            "tilts": [_tilt_to_json(t) for t in self.tilts.values() if t.id != STORAGE_TILT],
            "tilt_seq": self._tilt_seq,
            "last_counter": self._last_counter,
            "staged": None if self.staged is None else _entry_to_json(self.staged),
            "shuffle_due": self.shuffle_due,
            "payments": self.payments,
        }

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

    # ----------------------------------------------------------------- reading

    @property
    def journaled_settings(self) -> dict[str, Any] | None:
        """The configuration the journal last recorded (None: a table with no journal yet)."""
        return self._journaled

    @property
    def table_settings(self) -> dict[str, Any]:
        """The full configuration as a record's ``table`` (everything but the game)."""
        return _record_settings(self.config)

    @property
    def journal_store(self) -> JournalStore:
        """The journal this table writes, for readers (recall); every write goes through the commands."""
        return self._store

    @property
    def jackpot_meter(self) -> int:
        account = self.jackpot_account()
        return account.meter if account else self.config.jackpot.reset

    def jackpot_account(self) -> JackpotAccount | None:
        """The progressive account's meters and hits (pending and confirmed): the floor's linked
        account as the link last read it, or the table's own."""
        if self._linked_account is not None:
            return self._linked_account()
        return self._store.jackpot()

    def link_progressive(self, account: Callable[[], JackpotAccount]) -> None:
        """Play the floor's linked progressive: ``account`` gives its meter and this table's pending hits.
        The progressive starts closed until the link has caught up (:meth:`set_progressive`)."""
        with self._lock:
            self._linked_account = account
            self.progressive = "closed"
            self.progressive_detail = "joining the floor"
            self._publish()

    def set_progressive(self, *, open: bool, detail: str = "") -> None:
        """The floor link opens or closes the linked progressive (not journaled: each round records
        whether it was opened with the progressive, which is what replay needs).

        Raises:
            TableError: the table plays no linked progressive.
        """
        with self._lock:
            if self._linked_account is None:
                raise TableError("this table plays no linked progressive")
            state: Literal["open", "closed"] = "open" if open else "closed"
            if (state, detail) != (self.progressive, self.progressive_detail):
                self.progressive, self.progressive_detail = state, detail
                self._publish()

    def attach_device(self, device: Device, report: Callable[[], dict[str, Any]]) -> None:
        """Show a device's own health on the displays: ``report`` gives it as JSON-ready values (never a
        card's identity: counts and states only), called under the table's lock at every snapshot, so it
        must be cheap and must not call the table. The device calls :meth:`device_changed` when what it
        reports has changed (the displays are sent a snapshot only then)."""
        with self._lock:
            self._devices[device] = report
            self._publish()

    def device_report(self, device: Device) -> dict[str, Any] | None:
        """The device's report as of now (None: the table has no such device attached)."""
        with self._lock:
            report = self._devices.get(device)
            return None if report is None else report()

    def device_changed(self) -> None:
        """A device's report changed: send the displays a fresh snapshot (the table's version is unchanged)."""
        with self._lock:
            self._publish()

    def record_floor_hit(
        self, *, settled: int, round_no: int, account: str, hit_no: int, amount: int, boxes: Mapping[int, int]
    ) -> Entry:
        """Journal what the floor recorded for the hit of the round settled in entry ``settled``: the
        account's hit number and the amount the floor's meter gave (it may differ from the meter the
        table last saw when another table hit first), split among the boxes."""
        with self._lock:
            data = {
                "settled": settled,
                "round": round_no,
                "account": account,
                "hit_no": hit_no,
                "amount": amount,
                "boxes": {str(b): a for b, a in sorted(boxes.items())},
            }
            return self._commit("jackpot-floor-hit", data, Actor("floor", "system"))

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

    def phase(self) -> str:
        if self.round is None:
            return "idle"
        step = self.round.expected()
        if isinstance(step, Deal):
            return "dealing"
        return "deciding" if isinstance(step, Decide) else "showdown"

    def view(self) -> dict[str, Any]:
        """The public snapshot (see :mod:`controller.view`), consistent: taken under the table's lock."""
        from controller.view import snapshot

        with self._lock:
            return snapshot(self)

    def watch(self, callback: Callable[[dict[str, Any]], None]) -> tuple[Callable[[], None], dict[str, Any]]:
        """Subscribe and take the current snapshot in one step, so no change falls between them."""
        with self._lock:
            return self.subscribe(callback), self.view()

    def inspect(self, reader: Callable[[TableService], _T]) -> _T:
        """Run ``reader`` on the table under its lock: a consistent read for an observer (the camera)
        that needs more than the public snapshot shows, e.g. face-down cards' identities. ``reader``
        must not block or call commands."""
        with self._lock:
            return reader(self)

    @property
    def decision_deadline(self) -> datetime | None:
        """When the box to decide folds by itself (Casino Hold'em's decision timer), if a timer runs."""
        seconds = getattr(self.config.rules, "decision_seconds", 0)
        if not seconds or self._decide_since is None:
            return None
        return datetime.fromisoformat(self._decide_since) + timedelta(seconds=seconds)

    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback(snapshot)`` after every change; it must not block. Returns unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    # ---------------------------------------------------------------- commands

    def reconfigure(self, config: TableConfig, *, actor: Actor) -> Entry:
        """An admin changes the table's configuration; journaled with who.

        Between rounds it applies at once. During a round it is staged (a "configuration-staged"
        entry, shown as pending) and applied when the round ends, before the next one opens; a
        later change during the same round replaces it.

        Raises:
            PermissionDenied: the actor is not an admin.
            TableError: the game would change (a new game is a new table).
        """
        with self._lock:
            if actor.role != "admin":
                raise PermissionDenied("only an admin may change the table configuration")
            if config.game != self.config.game:
                raise TableError(
                    f"this table plays {self.config.game}; a table for {config.game} needs its own data folder"
                )
            if self.round is not None:
                return self._commit("configuration-staged", {"settings": _settings(config)}, actor)
            if config.jackpot.enabled and self._store.jackpot() is None:
                self._store.open_jackpot(name=config.name, meter=config.jackpot.reset)
            return self._commit("configured", {"settings": _settings(config)}, actor)

    def staged_changes(self) -> dict[str, Any] | None:
        """The staged configuration as the displays show it: who, when, and each changed setting."""
        with self._lock:
            if self.staged is None:
                return None
            changes = _changed(_settings(self.config), self.staged.data["settings"])
            return {
                "by": Actor.parse(self.staged.actor).name,
                "at": self.staged.at,
                "changes": [{"key": key, "old": old, "new": new} for key, old, new in changes],
            }

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

    def open_round(self, bets: Sequence[BoxBet], *, actor: Actor) -> Entry:
        """Open a round with these bets.

        Raises:
            TableError: a round is open or a tilt is open.
            RuleViolation: a bet the rules refuse.
        """
        with self._lock:
            self._require_play()
            if self.round is not None:
                raise TableError(f"round {self.round_no} is still open: {self.expected()}")
            if self.shuffle_due is not None:
                raise TableError(
                    f"shuffle the deck first ({self.shuffle_due}): the shoe's new-deck signal or the "
                    "dealer's confirmation opens the next round"
                )
            # A table stopped between a round's end and its staged configuration's entry applies it
            # here, before the next round (a reader replaying the journal never writes it).
            self._apply_staged()
            data: dict[str, Any] = {"round": self.round_no + 1, "bets": bets_to_json(bets), "meter": self.jackpot_meter}
            if self.progressive == "closed" and self.config.jackpot.enabled:
                if self.config.jackpot.requires_bonus and any(b.bonus for b in bets):
                    raise TableError(
                        f"the progressive is closed ({self.progressive_detail}): no bonus bet until it reopens"
                    )
                data["progressive"] = "closed"  # this round plays without the jackpot
            # Round() checks every bet against the limits and the game's rules.
            Round(config=self._round_config(data), bets=bets, jackpot_meter=self.jackpot_meter)
            return self._commit("round-opened", data, actor)

    def _round_config(self, opened: Mapping[str, Any]) -> TableConfig:
        """The configuration a round plays under: the table's, without the jackpot for a round opened
        while the linked progressive was closed."""
        if opened.get("progressive") != "closed":
            return self.config
        return self.config.model_copy(update={"jackpot": self.config.jackpot.model_copy(update={"enabled": False})})

    def repeat_last_bets(self, *, actor: Actor) -> Entry:
        """Open a round with the previous round's bets.

        Raises:
            TableError: there is no previous round, or as :meth:`open_round`.
        """
        with self._lock:
            if not self.last_bets:
                raise TableError("there are no previous bets to repeat")
            return self.open_round(self.last_bets, actor=actor)

    def act(self, action: Action, *, actor: Actor) -> Entry:
        """A box's decision, as the dealer enters it.

        Raises:
            TableError: no round, or a tilt is open.
            RuleViolation: the decision is not legal now (names the rule).
        """
        with self._lock:
            self._require_play()
            rnd = self._require_round()
            rnd.check_action(action)
            data = {"box": action.box, "action": action.action, "discard": [c.code for c in action.discard]}
            return self._commit("action", data, actor)

    def confirm_settlement(self, *, actor: Actor, paid: Mapping[int, int] | None = None) -> Entry:
        """The dealer has paid the table as shown: record the settlement and end the round. ``paid``:
        for a box the dealer paid another amount than shown (the dealer's part: main game and bonus;
        the jackpot is the supervisor's), what was paid; recorded with the round, and owed until a
        supervisor corrects it (:meth:`correct_payment`).

        Raises:
            TableError: the round is not at its showdown, a tilt is open, or a paid amount for a box
                that is not paid (it is not in the round, or the house collects from it).
        """
        with self._lock:
            self._require_play()
            rnd = self._require_round()
            if not isinstance(rnd.expected(), Complete):
                raise TableError(f"the round is not finished: {self.expected()}")
            settlement = rnd.settle()
            dues = {b.box: b.dealer_pays for b in settlement.boxes}
            differs: dict[str, int] = {}
            for box, amount in (paid or {}).items():
                if box not in dues:
                    raise TableError(f"box {box} has no bet this round")
                if dues[box] <= 0:
                    raise TableError(f"box {box} is not paid this round: the house collects from it")
                if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                    raise TableError(f"box {box}: the amount paid must be a whole number of units, 0 or more")
                if amount != dues[box]:
                    differs[str(box)] = amount
            change = None
            # A linked progressive's contributions and hits go to the floor (floor/link.py), from this entry.
            if self.config.jackpot.enabled and self._linked_account is None:
                change = JackpotChange(
                    contribution=settlement.jackpot.contribution,
                    reset=self.config.jackpot.reset,
                    hits=tuple((h.box, h.hand, h.amount) for h in settlement.jackpot.hits),
                )
            data: dict[str, Any] = {"round": self.round_no, "settlement": settlement.to_json()}
            if differs:
                data["paid"] = differs
            return self._commit("round-settled", data, actor, jackpot=change)

    def correct_payment(self, round_no: int, box: int, *, paid: int, handed: int, actor: Actor, why: str) -> Entry:
        """A supervisor settles a payment dispute after the confirmation: ``paid`` is what box ``box``
        has now received in all for round ``round_no`` (the dealer's part), ``handed`` what changed
        hands now (negative: taken back). Journaled with the round's number, who and why.

        Raises:
            PermissionDenied: the actor is not a supervisor.
            TableError: no such settled round or paid box, a negative total, or no reason given.
        """
        with self._lock:
            self._require_supervisor(actor, "correct a payment")
            if not why.strip():
                raise TableError("say why the payment is corrected: it goes in the log")
            if isinstance(paid, bool) or not isinstance(paid, int) or paid < 0:
                raise TableError("the amount paid in all must be a whole number of units, 0 or more")
            if isinstance(handed, bool) or not isinstance(handed, int):
                raise TableError("the amount handed over must be a whole number of units")
            due = self._due(round_no, box)
            data = {"round": round_no, "box": box, "due": due, "paid": paid, "handed": handed, "why": why.strip()}
            return self._commit("payment-corrected", data, actor)

    def _due(self, round_no: int, box: int) -> int:
        """What the dealer was to pay ``box`` in settled round ``round_no``.

        Raises:
            TableError: no such settled round, the box did not play it, or the house collected from it.
            JournalError: the round index cannot be read, or the round does not settle as it was paid.
        """
        known = self.payments.get(f"{round_no}:{box}")
        if known is not None:
            return int(known["due"])
        item = next((r for r in self.recall if r.round == round_no), None)
        if item is None:
            found = find_finished(self._store, round_no)  # a dispute may be older than the live file
            item = None if found is None else RecalledRound.from_line(found.line, finished_at=found.at)
        if item is None or item.record.void is not None:
            raise TableError(f"round {round_no} is not a settled round of this table")
        result = next((b for b in item.settlement.boxes if b.box == box), None)
        if result is None:
            raise TableError(f"box {box} had no bet in round {round_no}")
        if result.dealer_pays <= 0:
            raise TableError(f"box {box} was not paid in round {round_no}: the house collected from it")
        return result.dealer_pays

    def payments_owed(self) -> list[dict[str, Any]]:
        """Payments that are still not what was due (short or over), oldest first."""
        with self._lock:
            return [
                {
                    "round": p["round"],
                    "box": p["box"],
                    "due": p["due"],
                    "paid": p["paid"],
                    "short": p["due"] - p["paid"],
                }
                for p in self.payments.values()
                if p["paid"] != p["due"]
            ]

    def report(self, kind: str, *, actor: Actor, detail: str = "") -> Entry:
        """The dealer (or the camera) reports an irregularity: it becomes a tilt. ``kind`` is a tilt
        kind of :data:`REPORTABLE` or one of :data:`DEAL_SEQUENCE_REPORTS` (a deal-sequence tilt).

        Raises:
            TableError: not an irregularity that can be reported, or a deal out of order reported
                with no round open.
        """
        with self._lock:
            if kind in DEAL_SEQUENCE_REPORTS:
                tilt: TiltKind = "deal-sequence"
                message = DEAL_SEQUENCE_REPORTS[kind]
            elif kind in REPORTABLE:
                tilt = kind
                message = {
                    "dealer-card-exposed": "a dealer card was exposed",
                    "missing-card": "a card is missing",
                    "camera-mismatch": "the camera and the shoe disagree",
                    "deal-sequence": "the cards are out of the deal's order",
                }.get(kind, kind.replace("-", " "))
            else:
                known = [*REPORTABLE, *DEAL_SEQUENCE_REPORTS]
                raise TableError(f"cannot report {kind!r}: one of {', '.join(known)}")
            if tilt == "deal-sequence" and self.round is None:
                raise TableError("no round is open: there is no deal to be out of order")
            return self._raise_tilt(tilt, f"{message}{f': {detail}' if detail else ''}", actor=actor)

    def resolutions(self, tilt: Tilt) -> tuple[Resolution, ...]:
        """The resolutions ``tilt`` offers now: its kind's, less the show-early procedure where the
        round cannot take it (another game, a table that treats it as an exposed card, no decision
        pending, the hand shown already)."""
        options = tilt.resolutions
        if "dealer-shown" in options and not self._can_show_early():
            options = tuple(r for r in options if r != "dealer-shown")
        return options

    def _can_show_early(self) -> bool:
        rnd = self.round
        if rnd is None or "dealer-shown" not in rnd.game.table_actions:
            return False
        try:
            rnd.check_action(Action(0, "dealer-shown"))
        except RuleViolation:
            return False
        return True

    def clear_tilt(
        self, tilt_id: int, *, resolution: Resolution, actor: Actor, why: str, card: str | None = None
    ) -> Entry:
        """A supervisor clears a tilt with one of its resolutions; logged with who and why.

        Raises:
            PermissionDenied: the actor is not a supervisor.
            TableError: no such tilt, a resolution it does not offer, no reason given, or
                cards that cannot be dealt now (the message says which).
        """
        with self._lock:
            self._require_supervisor(actor, "clear a tilt")
            tilt = self.tilts.get(tilt_id)
            if tilt is None:
                raise TableError(f"there is no open tilt {tilt_id}")
            if tilt_id == STORAGE_TILT:
                return self._clear_storage_fault(tilt, resolution=resolution, actor=actor, why=why)
            if resolution not in self.resolutions(tilt):
                raise TableError(
                    f"tilt {tilt_id} ({tilt.kind}) cannot be cleared with {resolution!r}: "
                    f"use one of {', '.join(self.resolutions(tilt))}"
                )
            if not why.strip():
                raise TableError("say why the tilt is cleared: it goes in the log")
            entered = None
            if resolution == "enter-card":
                if not card:
                    raise TableError("enter-card needs the card's code, as the supervisor reads it")
                entered = parse_card(card).code
            if resolution == "enter-card" and tilt.card is not None:
                self._check_revealable(tilt.card, entered)
            elif resolution in ("continue", "enter-card"):
                self._check_dealable(_resolution_cards(tilt, entered))
            data: dict[str, Any] = {"tilt": tilt_id, "resolution": resolution, "why": why.strip(), "card": entered}
            if resolution == "redeal" and self.round is not None:
                # The redealt round starts from the meter as it stands now; replayed later, the
                # account will have moved on, so the entry carries it.
                data["meter"] = self.jackpot_meter
            return self._commit("tilt-cleared", data, actor)

    def _clear_storage_fault(self, tilt: Tilt, *, resolution: Resolution, actor: Actor, why: str) -> Entry:
        """Storage is back: the fault goes into the journal after the fact (with when it began), then
        its clearing, like any tilt's."""
        if resolution not in tilt.resolutions:
            raise TableError(
                f"the journal tilt cannot be cleared with {resolution!r}: use one of {', '.join(tilt.resolutions)}"
            )
        if not why.strip():
            raise TableError("say why the tilt is cleared: it goes in the log")
        fault = dict(self.tilts)
        del self.tilts[STORAGE_TILT]  # so the entries below can be written; put back if they cannot
        try:
            raised = self._raise_tilt("journal-unavailable", tilt.message, since=tilt.raised_at)
            return self.clear_tilt(raised.data["tilt"], resolution=resolution, actor=actor, why=why)
        except JournalError as exc:
            self.tilts = fault
            raise TableError(
                f"the journal is still unavailable ({exc}): free the storage, then clear the tilt again"
            ) from None

    def void_round(self, *, actor: Actor, why: str) -> Entry:
        """A supervisor voids the open round: every stake goes back.

        Raises:
            PermissionDenied: the actor is not a supervisor.
            TableError: no round is open, or no reason given.
        """
        with self._lock:
            self._require_supervisor(actor, "void a round")
            self._require_round()
            if not why.strip():
                raise TableError("say why the round is void: it goes in the log")
            return self._commit("round-voided", {"round": self.round_no, "why": why.strip()}, actor)

    def confirm_jackpot(self, hit: int, *, actor: Actor) -> Entry:
        """A supervisor confirms a pending jackpot hit (it has been paid).

        Raises:
            PermissionDenied: the actor is not a supervisor.
            TableError: no such pending hit.
        """
        with self._lock:
            self._require_supervisor(actor, "confirm a jackpot")
            if self._linked_account is not None:
                raise TableError(
                    "this table plays the floor's linked progressive: confirm its hits on the floor display"
                )
            account = self._store.jackpot()
            if account is None or all(h.hit != hit for h in account.pending):
                raise TableError(f"there is no pending jackpot hit {hit}")
            return self._commit("jackpot-confirmed", {"hit": hit}, actor, jackpot=JackpotConfirm(hit))

    def tick(self) -> Entry | None:
        """Let time pass: a box whose decision timer has run out folds (Casino Hold'em)."""
        with self._lock:
            seconds = getattr(self.config.rules, "decision_seconds", 0)
            if not seconds or self.tilts or self.round is None or self._decide_since is None:
                return None
            step = self.round.expected()
            since = datetime.fromisoformat(self._decide_since)
            if isinstance(step, Decide) and self._clock() - since >= timedelta(seconds=seconds):
                return self.act(Action(step.box, "fold"), actor=Actor("decision-timer", "system"))
            return None

    # -------------------------------------------------------------- shoe input

    def on_card(self, code: str, *, counter: int | None = None, shoe: str = "") -> Entry | None:
        """A card left the shoe. Anything but the expected, known, new card raises a tilt and the
        card is held, never lost. Returns the entry written, or None for a repeated frame."""
        with self._lock:
            if counter is not None and self._last_counter is not None and counter == self._last_counter:
                return None  # the same draw reported twice: the driver's job, but harmless here
            gap = counter is not None and self._last_counter is not None and counter > self._last_counter + 1
            data = {"card": code, "counter": counter, "shoe": shoe}
            if self.tilts:
                return self._commit("card-held", {**data, "tilt": next(iter(self.tilts))}, SHOE)
            if gap:
                assert counter is not None and self._last_counter is not None
                missed = counter - self._last_counter - 1
                return self._raise_tilt(
                    "missing-card",
                    f"{missed} card{'s' if missed > 1 else ''} left the shoe unread (draw counter jumped to {counter})",
                    held=[code],
                    counter=counter,
                )
            try:
                c = parse_card(code)
            except CardError:
                return self._raise_tilt(
                    "unknown-card", f"the shoe read {code!r}, not a card", held=[code], counter=counter
                )
            if self.round is None:
                return self._raise_tilt(
                    "unexpected-card", f"{c} was drawn with no round open", held=[c.code], counter=counter
                )
            if self.shuffle_due is not None:
                return self._raise_tilt(
                    "deck-not-shuffled",
                    f"{c} was drawn before the deck was shuffled ({self.shuffle_due})",
                    held=[c.code],
                    counter=counter,
                )
            try:
                self.round.check_card(c)
            except RuleViolation as exc:
                kind: TiltKind = "duplicate-card" if exc.rule == "deal.duplicate-card" else "unexpected-card"
                return self._raise_tilt(kind, f"{exc.message}", held=[c.code], counter=counter)
            return self._commit("card", data, SHOE)

    # ------------------------------------------------- camera input (no reading shoe)

    def on_camera_card(self, slot: Slot, *, code: str | None = None, actor: Actor = CAMERA) -> Entry:
        """On a table with no reading shoe, the camera saw the card the round expects arrive in
        ``slot``'s place: it is dealt there, without identity (``code`` None, a face-down card)
        or, for a card dealt face up, as the camera read it.

        Raises:
            TableError: no round, a tilt is open, or the round does not expect a card for
                ``slot`` now (the camera is behind or ahead of the round).
            RuleViolation: the card cannot be dealt there (``deal.duplicate-card``,
                ``deal.face-up-unknown``).
        """
        with self._lock:
            self._require_play()
            rnd = self._require_round()
            step = rnd.expected()
            if not isinstance(step, Deal) or step.slot != slot:
                raise TableError(f"no card is expected for {slot.where()} now: {self.expected()}")
            if code is None:
                rnd.check_unknown()
            else:
                read = parse_card(code)
                rnd.check_card(read)
                code = read.code
            return self._commit("card", {"card": code, "counter": None, "shoe": ""}, actor)

    def reveal(self, number: int, code: str, *, actor: Actor = CAMERA) -> Entry:
        """Card ``number`` of the round, dealt without identity, is ``code`` (the camera read it
        face up, or a supervisor entered it).

        Raises:
            TableError: no round is open.
            RuleViolation: no such card, it is known already, or ``code`` is already in the round
                (``deal.duplicate-card``).
            CardError: ``code`` is not a card.
        """
        with self._lock:
            rnd = self._require_round()
            card = parse_card(code)
            rnd.check_reveal(number, card)
            return self._commit("reveal", {"number": number, "card": card.code}, actor)

    def report_unknown(self, *, number: int | None, detail: str, actor: Actor = CAMERA) -> Entry:
        """The camera cannot read a card whose identity is needed now: card ``number`` of the
        round (dealt without identity), or (None) the card a face-up slot waits for. A supervisor
        reads it and enters it (``enter-card``).

        Raises:
            TableError: no round is open, or card ``number`` is not waiting for its identity.
        """
        with self._lock:
            rnd = self._require_round()
            if number is not None:
                try:
                    current = rnd.card_number(number)
                except RuleViolation as exc:
                    raise TableError(str(exc)) from None
                if not isinstance(current, Placeholder):
                    raise TableError(f"card {number} of this round is not waiting for its identity")
            return self._raise_tilt("unknown-card", f"unknown card: {detail}", actor=actor, card=number)

    @property
    def last_counter(self) -> int | None:
        """The shoe draw counter of the last card journaled: where the shoe must resume after a restart."""
        return self._last_counter

    def on_draw_gap(self, first: int, last: int, *, shoe: str = "") -> Entry:
        """The shoe lost draws ``first..last`` for good: a missing-card tilt."""
        with self._lock:
            count = last - first + 1
            where = f"draw{'s' if count > 1 else ''} {first}{f'-{last}' if count > 1 else ''}"
            return self._raise_tilt(
                "missing-card", f"the shoe lost {where}: {count} card{'s' if count > 1 else ''} unread", counter=last
            )

    def deck_shuffled(self, *, actor: Actor) -> Entry:
        """The dealer confirms a freshly shuffled deck is in the shoe (for a shoe with no new-deck
        signal); journaled with who.

        Raises:
            TableError: the round's cards are being dealt (a new deck now is a misdeal: report it).
        """
        with self._lock:
            if self.round is not None and self.round.cards_dealt:
                raise TableError(
                    f"round {self.round_no} is being dealt from this deck: a new deck now needs a supervisor "
                    "(report the deal out of order)"
                )
            return self._commit("deck-shuffled", {"by": "dealer"}, actor)

    def on_shoe_status(self, status: str, *, detail: str = "", counter: int | None = None) -> Entry | None:
        """A shoe fault (jam, lid open, unreadable card, empty) raises a tilt; one per kind at a time.
        An unreadable card is a draw: ``counter`` is its draw counter. ``new-deck`` (the shoe was
        loaded with a shuffled deck) between rounds is journaled; in the middle of a deal it is a tilt."""
        with self._lock:
            if status == "new-deck":
                if self.round is not None and self.round.cards_dealt:
                    return self._raise_tilt(
                        "deck-changed", f"the shoe signalled a new deck while round {self.round_no} was dealt"
                    )
                return self._commit("deck-shuffled", {"by": "shoe"}, SHOE)
            if status == "unreadable":
                message = f"the shoe could not read a card{f' (draw {counter})' if counter is not None else ''}"
                return self._raise_tilt("unknown-card", message, counter=counter)
            if any(t.kind == "shoe-fault" and status in t.message for t in self.tilts.values()):
                return None
            return self._raise_tilt("shoe-fault", f"shoe reports {status}{f': {detail}' if detail else ''}")

    def on_link(self, up: bool, *, detail: str = "") -> Entry | None:
        """The shoe's link went down (a tilt) or came back (the tilt stays until cleared)."""
        with self._lock:
            if up or any(t.kind == "shoe-link-lost" for t in self.tilts.values()):
                return None
            return self._raise_tilt("shoe-link-lost", f"lost the link to the shoe{f': {detail}' if detail else ''}")

    def on_camera_link(self, up: bool, *, detail: str = "") -> Entry | None:
        """The camera over the table failed for good (a tilt: its checks are off, and on a table
        with no reading shoe nothing can be dealt) or is back (the tilt stays until cleared).
        """
        with self._lock:
            if up or any(t.kind == "camera-link-lost" for t in self.tilts.values()):
                return None
            return self._raise_tilt(
                "camera-link-lost", f"lost the camera{f': {detail}' if detail else ''}", actor=CAMERA
            )

    # ---------------------------------------------------------------- internals

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

    def _check_revealable(self, number: int, code: str | None) -> None:
        if self.round is None or code is None:
            raise TableError("no round is open: there is no card to enter")
        try:
            self.round.check_reveal(number, parse_card(code))
        except RuleViolation as exc:
            raise TableError(f"{code} cannot be entered as card {number}: {exc}") from None

    def _check_dealable(self, codes: Sequence[str]) -> None:
        """Would these cards be accepted, in order, right now? Checked on a scratch replay."""
        if not codes:
            return
        if self.round is None:
            raise TableError("no round is open: the held cards cannot be dealt (burn them)")
        scratch = self.round.copy()
        for code in codes:
            try:
                scratch.deal(parse_card(code))
            except (CardError, RuleViolation) as exc:
                raise TableError(f"{code} cannot be dealt now: {exc}") from None

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
        self._apply(entry)
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

    def _apply(self, entry: Entry) -> None:
        """Apply one journal entry. Deterministic: replaying the journal rebuilds the table."""
        data = entry.data
        kind = entry.kind
        if kind == "configured":
            self.config = build_config(data["settings"])
            self._journaled = data["settings"]
            self.staged = None
        elif kind == "configuration-staged":
            self.staged = entry
        elif kind == "round-opened":
            self.round_no = data["round"]
            self.last_bets = bets_from_json(data["bets"])
            self._opened = data
            self.round = Round(config=self._round_config(data), bets=self.last_bets, jackpot_meter=data["meter"])
            self.settlement = None
        elif kind == "deck-shuffled":
            self.shuffle_due = None
        elif kind == "payment-corrected":
            key = f"{data['round']}:{data['box']}"
            known = self.payments.get(key) or {"round": data["round"], "box": data["box"], "due": data["due"]}
            correction = {
                "paid": data["paid"],
                "handed": data["handed"],
                "why": data["why"],
                "by": entry.actor,
                "at": entry.at,
            }
            self.payments[key] = {
                **known,
                "paid": data["paid"],
                "corrections": [*known.get("corrections", []), correction],
            }
        elif kind == "card":
            assert self.round is not None
            # A card is never dealt while a shuffle is due (it is held by a tilt): a journal that
            # deals one was written before the deck was tracked.
            self.shuffle_due = None
            if data["card"] is None:
                self.round.deal_unknown()
            else:
                self.round.deal(parse_card(data["card"]))
            self._seen_counter(data.get("counter"))
        elif kind == "reveal":
            assert self.round is not None
            self.round.reveal(data["number"], parse_card(data["card"]))
        elif kind == "action":
            assert self.round is not None
            discard = tuple(placeholder_ref(c) or parse_card(c) for c in data["discard"])
            self.round.act(Action(box=data["box"], action=data["action"], discard=discard))
        elif kind == "round-settled":
            assert self.round is not None
            settlement = self.round.settle()
            if settlement.to_json() != data["settlement"]:
                raise ControllerError(f"journal entry {entry.seq}: replayed settlement differs from the one paid")
            for b in settlement.boxes:
                if str(b.box) in data.get("paid", {}):
                    self.payments[f"{self.round_no}:{b.box}"] = {
                        "round": self.round_no,
                        "box": b.box,
                        "due": b.dealer_pays,
                        "paid": data["paid"][str(b.box)],
                        "corrections": [],
                    }
            self._finish(settlement, entry=entry)
        elif kind == "round-voided":
            assert self.round is not None
            self.shuffle_due = f"round {self.round_no} was voided" if self.round.cards_dealt else self.shuffle_due
            self._finish(self.round.void(data["why"]), entry=entry, void=data["why"])
        elif kind == "tilt-raised":
            self._tilt_seq = data["tilt"]
            self.tilts[data["tilt"]] = Tilt(
                id=data["tilt"],
                kind=data["kind"],
                message=data["message"],
                raised_at=data.get("since", entry.at),
                round=self.round_no if self.round is not None else None,
                held=tuple(data["held"]),
                card=data.get("card"),
            )
            self._seen_counter(data.get("counter"))
        elif kind == "card-held":
            tilt = self.tilts[data["tilt"]]
            self.tilts[data["tilt"]] = replace(tilt, held=(*tilt.held, data["card"]))
            self._seen_counter(data.get("counter"))
        elif kind == "tilt-cleared":
            self._apply_resolution(self.tilts.pop(data["tilt"]), entry)
        elif kind in ("jackpot-confirmed", "jackpot-floor-hit"):
            pass  # the account row changed in the same transaction, or it is the floor's; nothing to rebuild
        else:
            raise ControllerError(f"journal entry {entry.seq}: unknown kind {kind!r}")
        self._after_change(entry)

    def _apply_resolution(self, tilt: Tilt, entry: Entry) -> None:
        data = entry.data
        resolution: Resolution = data["resolution"]
        if resolution == "dealer-shown" and self.round is not None:
            self.round.act(Action(0, "dealer-shown"))
            return
        if tilt.kind == "deck-not-shuffled" and resolution == "continue":
            self.shuffle_due = None  # the supervisor checked: the deck in the shoe is a fresh one
        if resolution == "enter-card" and tilt.card is not None and self.round is not None:
            self.round.reveal(tilt.card, parse_card(data["card"]))
        elif resolution in ("continue", "enter-card") and self.round is not None:
            for code in _resolution_cards(tilt, data.get("card")):
                self.round.deal(parse_card(code))
        elif resolution in ROUND_ENDING and self.round is not None:
            reason = {
                "redeal": f"redeal after {tilt.kind}: {data['why']}",
                "cancel": f"cancelled after {tilt.kind}: {data['why']}",
                "void": f"malfunction voids all pays and plays ({tilt.kind}): {data['why']}",
            }[resolution]
            bets, meter = self.round.bets, data.get("meter", self.round.jackpot_meter)
            if self.round.cards_dealt or tilt.kind == "deck-changed":
                done = {"redeal": "redealt", "cancel": "cancelled", "void": "voided"}[resolution]
                self.shuffle_due = f"round {self.round_no} was {done}"
            self._finish(self.round.void(reason), entry=entry, void=reason)
            if resolution == "redeal":
                self.round_no += 1
                self.round = Round(config=self._round_config(self._opened), bets=bets, jackpot_meter=meter)

    def _finish(self, settlement: RoundSettlement, *, entry: Entry, void: str | None = None) -> None:
        assert self.round is not None
        # The round's own configuration: without the jackpot when the linked progressive was closed.
        record = record_from_round(self.round, table=_record_settings(self.round.config), void=void)
        item = RecalledRound(self.round_no, record, settlement, entry.at)
        self.recall.append(item)
        self._unsaved.append(
            FinishedRound(round=self.round_no, seq=entry.seq, at=entry.at, settled=void is None, line=item.to_json())
        )
        if void is None:
            self._finished.append(entry.at)
        # The round's other tilts end with it; tilts raised between rounds stay.
        self.tilts = {k: t for k, t in self.tilts.items() if t.round != self.round_no}
        self.round = None
        self.settlement = None

    def _seen_counter(self, counter: int | None) -> None:
        if counter is not None:
            self._last_counter = counter

    def _after_change(self, entry: Entry) -> None:
        self.version = entry.seq
        self._head_hash = entry.hash
        if self.round is not None:
            step = self.round.expected()
            if isinstance(step, Complete) and self.settlement is None:
                self.settlement = self.round.settle()
            if isinstance(step, Decide):
                self._decide_since = self._decide_since or entry.at
            else:
                self._decide_since = None
            if entry.kind == "action":
                self._decide_since = entry.at if isinstance(step, Decide) else None
        if self._unsaved:
            self._save(entry)
        self._publish()

    def _publish(self) -> None:
        if self._subscribers:
            from controller.view import snapshot

            view = snapshot(self)
            for callback in list(self._subscribers):
                callback(view)

    def rounds_since(self, since: datetime) -> int:
        """Settled rounds finished at or after ``since`` (for rounds today and per hour)."""
        with self._lock:
            return sum(1 for at in self._finished if datetime.fromisoformat(at) >= since)

    def now(self) -> datetime:
        return self._clock()


def _entry_to_json(entry: Entry) -> dict[str, Any]:
    return {
        "seq": entry.seq,
        "kind": entry.kind,
        "data": dict(entry.data),
        "actor": entry.actor,
        "at": entry.at,
        "hash": entry.hash,
    }


def _resolution_cards(tilt: Tilt, entered: str | None) -> list[str]:
    """The cards a continue or enter-card resolution deals, in order. An entered card is the
    unreadable card's identity (it replaces that card) or the missing card (dealt first)."""
    if entered is None:
        return list(tilt.held)
    if tilt.kind == "unknown-card" and tilt.held:
        return [entered, *tilt.held[1:]]
    return [entered, *tilt.held]


def _record_settings(config: TableConfig) -> dict[str, Any]:
    settings = config.model_dump(mode="json", exclude={"game"})
    settings["rules"] = config.rules.model_dump(mode="json", exclude_none=True)
    cleaned: dict[str, Any] = _drop_none(settings)
    return cleaned


def _settings(config: TableConfig) -> dict[str, Any]:
    settings = config.model_dump(mode="json")
    settings["rules"] = config.rules.model_dump(mode="json")
    cleaned: dict[str, Any] = _drop_none(settings)
    return cleaned


def _changed(old: Any, new: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """(dotted key, old value, new value) for every setting that differs between two settings trees."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in sorted(set(old) | set(new)):
            out.extend(_changed(old.get(key), new.get(key), f"{prefix}{key}."))
        return out
    return [] if old == new else [(prefix.rstrip("."), old, new)]


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    return value


def card_slots(rnd: Round) -> dict[Card, Slot]:
    """Where each dealt card went (cards dealt without identity as their placeholders until revealed)."""
    return dict(rnd.dealt())


def decisions(rnd: Round, box: int) -> list[str]:
    return [e.action.action for e in rnd.events if isinstance(e, ActionTaken) and e.action.box == box]


def _a(title: str) -> str:
    return f"{'an' if title[:1] in 'AEIOU' else 'a'} {title}"


def _tilt_to_json(tilt: Tilt) -> dict[str, Any]:
    return {
        "id": tilt.id,
        "kind": tilt.kind,
        "message": tilt.message,
        "raised_at": tilt.raised_at,
        "round": tilt.round,
        "held": list(tilt.held),
        "card": tilt.card,
    }


def _tilt_from_json(data: Mapping[str, Any]) -> Tilt:
    return Tilt(
        id=data["id"],
        kind=data["kind"],
        message=data["message"],
        raised_at=data["raised_at"],
        round=data["round"],
        held=tuple(data["held"]),
        card=data["card"],
    )
