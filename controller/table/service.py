"""The live table: one table's rounds driven by dealer commands and shoe cards, journaled, published.

Every command is checked first, appended to the journal durably, then applied; the live state
is exactly what replaying the journal gives, so a restart is a replay. Subscribers (the displays)
get a snapshot after every change; nothing in a snapshot reveals a card before it is face up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from controller.cards import card as parse_card
from controller.config import TableConfig
from controller.engine import (
    Action,
    BoxBet,
    Complete,
    Decide,
    Round,
)
from controller.errors import CardError, RuleViolation
from controller.journal import (
    Entry,
    JackpotChange,
    JackpotConfirm,
    JournalError,
)
from controller.journal.archive import find_finished
from controller.table.codec import Actor, RecalledRound, bets_to_json, changed_settings, config_settings
from controller.table.core import unit_change
from controller.table.errors import PermissionDenied, TableError
from controller.table.inputs import TableInputs
from controller.table.state import STORAGE_TILT, resolution_cards
from controller.tilts import Resolution, Tilt, TiltKind

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


class TableService(TableInputs):
    """One table: the dealer's, supervisor's and admin's commands (the devices' are
    :class:`~controller.table.inputs.TableInputs`'). Thread-safe."""

    def _snapshot(self) -> dict[str, Any]:
        from controller.view import snapshot

        return snapshot(self)

    def reconfigure(self, config: TableConfig, *, actor: Actor) -> Entry:
        """An admin changes the table's configuration; journaled with who.

        Between rounds it applies at once. During a round it is staged (a "configuration-staged"
        entry, shown as pending) and applied when the round ends, before the next one opens; a
        later change during the same round replaces it.

        Raises:
            PermissionDenied: the actor is not an admin.
            TableError: the game, the currency or the minor units would change (a new game or unit of account is
                a new table: the journaled amounts, the jackpot meter and the floor's copy are in the old one).
        """
        with self._lock:
            if actor.role != "admin":
                raise PermissionDenied("only an admin may change the table configuration")
            if config.game != self.config.game:
                raise TableError(
                    f"this table plays {self.config.game}; a table for {config.game} needs its own data folder"
                )
            if (config.currency, config.minor_units) != (self.config.currency, self.config.minor_units):
                raise TableError(unit_change(self.config, config))
            if self.round is not None:
                return self._commit("configuration-staged", {"settings": config_settings(config)}, actor)
            if config.jackpot.enabled and self._store.jackpot() is None:
                self._store.open_jackpot(name=config.name, meter=config.jackpot.reset)
            return self._commit("configured", {"settings": config_settings(config)}, actor)

    def staged_changes(self) -> dict[str, Any] | None:
        """The staged configuration as the displays show it: who, when, and each changed setting."""
        with self._lock:
            if self.staged is None:
                return None
            changes = changed_settings(config_settings(self.config), self.staged.data["settings"])
            return {
                "by": Actor.parse(self.staged.actor).name,
                "at": self.staged.at,
                "changes": [{"key": key, "old": old, "new": new} for key, old, new in changes],
            }

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
                self._check_dealable(resolution_cards(tilt, entered))
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
