"""The live table: one table's rounds driven by dealer commands and shoe cards, journaled, published.

Every command is checked first, appended to the journal durably, then applied; the live state
is exactly what replaying the journal gives, so a restart is a replay. Subscribers (the displays)
get a snapshot after every change; nothing in a snapshot reveals a card before it is face up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from controller.config import TableConfig
from controller.engine import Action, BoxBet, Complete, Decide, Round
from controller.journal import Entry, JackpotChange, JackpotConfirm
from controller.table.codec import Actor, bets_to_json, changed_settings, config_settings
from controller.table.core import unit_change
from controller.table.errors import PermissionDenied, TableError
from controller.table.irregularities import TableIrregularities
from controller.table.payments import TablePayments


class TableService(TableIrregularities, TablePayments):
    """One table: the dealer's, supervisor's and admin's commands (the devices' are
    :class:`~controller.table.inputs.TableInputs`'; reports and tilts
    :class:`~controller.table.irregularities.TableIrregularities`'; payment disputes
    :class:`~controller.table.payments.TablePayments`'). Thread-safe."""

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
