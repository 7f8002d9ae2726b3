"""The live table's state as a fold over its journal: each entry applied in order, nothing else read."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from controller.cards import Card
from controller.cards import card as parse_card
from controller.config import TableConfig, build_config
from controller.engine import (
    Action,
    ActionTaken,
    BoxBet,
    Complete,
    Deal,
    Decide,
    Round,
    Slot,
    placeholder_ref,
)
from controller.errors import ControllerError
from controller.journal import (
    Entry,
    FinishedRound,
)
from controller.record import record_from_round
from controller.settlement import RoundSettlement
from controller.table.codec import (
    RecalledRound,
    bets_from_json,
    bets_to_json,
    entry_to_json,
    record_settings,
    tilt_from_json,
    tilt_to_json,
)
from controller.tilts import ROUND_ENDING, Resolution, Tilt

RECALL = 10
# The id of the tilt a storage failure raises: it cannot be journaled, so it has no journal id.
STORAGE_TILT = 0
# Finish times kept for rounds today / in the last hour.
FINISHED_KEPT = 2000


class TableState:
    """One table's rounds, tilts, payments and settings as its journal entries make them.

    Deterministic and free of I/O: the live table (:class:`~controller.table.TableService`)
    applies each entry it has written, and a restart applies the same entries again.
    """

    def __init__(self, *, recall: int | None = RECALL) -> None:
        """An empty table: no configuration yet (:meth:`apply` of a "configured" entry, or
        :meth:`_restore_state`, gives it one). ``recall``: finished rounds kept at hand (None: all)."""
        self.config: TableConfig
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
        self._head_hash = ""
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

    def _restore_state(self, state: Mapping[str, Any], *, seq: int, hash: str) -> None:
        """The state a checkpoint recorded at entry ``seq`` (whose hash is ``hash``)."""
        self._journaled = state["settings"]
        self.config = build_config(state["settings"])
        self.round_no = state["round"]
        self.last_bets = bets_from_json(state["last_bets"])
        self.tilts = {t["id"]: tilt_from_json(t) for t in state["tilts"]}
        self._tilt_seq = state["tilt_seq"]
        self._last_counter = state["last_counter"]
        self.version = seq
        self._head_hash = hash
        self.shuffle_due = state.get("shuffle_due")
        self.payments = {key: dict(value) for key, value in state.get("payments", {}).items()}
        staged = state.get("staged")  # absent from checkpoints written before staging existed
        self.staged = None if staged is None else Entry(**staged)

    def checkpoint_state(self) -> dict[str, Any]:
        """What a restart needs at a round boundary, besides the round index (docs/journal.md)."""
        return {
            "v": 1,
            "settings": self._journaled,
            "round": self.round_no,
            "last_bets": bets_to_json(self.last_bets),
            "tilts": [tilt_to_json(t) for t in self.tilts.values() if t.id != STORAGE_TILT],
            "tilt_seq": self._tilt_seq,
            "last_counter": self._last_counter,
            "staged": None if self.staged is None else entry_to_json(self.staged),
            "shuffle_due": self.shuffle_due,
            "payments": self.payments,
        }

    def _round_config(self, opened: Mapping[str, Any]) -> TableConfig:
        """The configuration a round plays under: the table's, without the jackpot for a round opened
        while the linked progressive was closed."""
        if opened.get("progressive") != "closed":
            return self.config
        return self.config.model_copy(update={"jackpot": self.config.jackpot.model_copy(update={"enabled": False})})

    def phase(self) -> str:
        if self.round is None:
            return "idle"
        step = self.round.expected()
        if isinstance(step, Deal):
            return "dealing"
        return "deciding" if isinstance(step, Decide) else "showdown"

    @property
    def decision_deadline(self) -> datetime | None:
        """When the box to decide folds by itself (Casino Hold'em's decision timer), if a timer runs."""
        seconds = getattr(self.config.rules, "decision_seconds", 0)
        if not seconds or self._decide_since is None:
            return None
        return datetime.fromisoformat(self._decide_since) + timedelta(seconds=seconds)

    @property
    def last_counter(self) -> int | None:
        """The shoe draw counter of the last card journaled: where the shoe must resume after a restart."""
        return self._last_counter

    def apply(self, entry: Entry) -> None:
        """Apply one journal entry. Deterministic: replaying the journal rebuilds the table.

        Raises:
            ControllerError: an entry of a kind this version does not know, or a settlement that
                replays otherwise than it was paid (the journal is not this table's history).
        """
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
            for code in resolution_cards(tilt, data.get("card")):
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
        record = record_from_round(self.round, table=record_settings(self.round.config), void=void)
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
        """What follows from any entry: the head moves, a finished deal is settled, decision timers."""
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


def resolution_cards(tilt: Tilt, entered: str | None) -> list[str]:
    """The cards a continue or enter-card resolution deals, in order. An entered card is the
    unreadable card's identity (it replaces that card) or the missing card (dealt first)."""
    if entered is None:
        return list(tilt.held)
    if tilt.kind == "unknown-card" and tilt.held:
        return [entered, *tilt.held[1:]]
    return [entered, *tilt.held]


def card_slots(rnd: Round) -> dict[Card, Slot]:
    """Where each dealt card went (cards dealt without identity as their placeholders until revealed)."""
    return dict(rnd.dealt())


def decisions(rnd: Round, box: int) -> list[str]:
    return [e.action.action for e in rnd.events if isinstance(e, ActionTaken) and e.action.box == box]
