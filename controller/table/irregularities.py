"""The table's irregularities: what the dealer or camera reports becomes a tilt; a supervisor clears it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.cards import card as parse_card
from controller.engine import Action
from controller.errors import CardError, RuleViolation
from controller.journal import Entry, JournalError
from controller.table.codec import Actor
from controller.table.errors import TableError
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


class TableIrregularities(TableInputs):
    """Reported irregularities and the clearing of tilts, with the checks a resolution's cards must pass."""

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
