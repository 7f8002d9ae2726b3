"""The table's payment disputes: what was due to a box, corrections after the fact, what is still owed."""

from __future__ import annotations

from typing import Any

from controller.journal import Entry
from controller.journal.archive import find_finished
from controller.table.codec import Actor, RecalledRound
from controller.table.errors import TableError
from controller.table.inputs import TableInputs


class TablePayments(TableInputs):
    """Payments corrected by a supervisor after the round's settlement, and those still not what was due."""

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
