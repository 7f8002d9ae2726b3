"""What the devices feed a table: shoe draws and faults, camera reads, device health, the floor's progressive."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from controller.cards import card as parse_card
from controller.engine import (
    Deal,
    Placeholder,
    Slot,
)
from controller.errors import CardError, RuleViolation
from controller.journal import (
    Entry,
    JackpotAccount,
)
from controller.table.codec import CAMERA, SHOE, Actor, Device
from controller.table.core import TableCore
from controller.table.errors import TableError
from controller.tilts import TiltKind


class TableInputs(TableCore):
    """The table's inputs from its devices and the floor link; each is checked, then journaled like a command."""

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

    def on_draw_gap(self, first: int, last: int, *, shoe: str = "") -> Entry:
        """The shoe lost draws ``first..last`` for good: a missing-card tilt."""
        with self._lock:
            count = last - first + 1
            where = f"draw{'s' if count > 1 else ''} {first}{f'-{last}' if count > 1 else ''}"
            return self._raise_tilt(
                "missing-card", f"the shoe lost {where}: {count} card{'s' if count > 1 else ''} unread", counter=last
            )

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
