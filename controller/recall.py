"""Recall for disputes: a finished round card by card, decision by decision, bet by bet, as the displays may see it.

A round's record is replayed through the engine; what was face up at its end (:func:`visible_cards`)
decides which identities are shown. A card that was never face up (a folded hand, a discard, a board
card nobody turned, a card dealt without identity and never read) appears as its place only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from controller.cards import Card
from controller.engine import ActionTaken, Placeholder, Round
from controller.errors import ControllerError
from controller.journal import Entry, JackpotAccount, JackpotOp, JournalError, JournalStore
from controller.record import replay
from controller.table import RecalledRound, TableService
from controller.tilts import ROUND_ENDING
from controller.view import _mask_settlement, visible_cards


class RecallError(ControllerError):
    """A round that cannot be recalled (the message says why)."""


def recall_detail(item: RecalledRound) -> dict[str, Any]:
    """Everything a dispute needs of one finished round, with only the cards that were face up.

    Card identities leave here in three places, each filtered by the same face-up set: ``cards``
    (the deal, in order), ``settlement`` (through :func:`controller.view._mask_settlement`, and its
    ``board`` here) and nowhere else: discards are given as deal numbers, never as cards.

    Raises:
        RecallError: the record does not replay (a journal the table could not have written).
    """
    record = item.record
    try:
        rnd = replay(record)
    except ControllerError as exc:
        raise RecallError(f"round {item.round} does not replay from its record: {exc}") from None
    shown = visible_cards(rnd)
    discarded = {id(c) for box in rnd.state.boxes.values() for c in box.discards}
    cards = []
    for n, (card, slot) in enumerate(rnd.dealt(), 1):
        visible = not isinstance(card, Placeholder) and card.code in shown
        cards.append(
            {
                "n": n,
                "code": card.code if visible else None,
                "face_up": visible,
                "target": slot.target,
                "box": slot.box or None,
                "where": slot.where(),
                "label": slot.label or f"card {slot.index + 1}",
                "dealt_face_up": slot.face_up,
                "discarded": id(card) in discarded,
            }
        )
    actions = []
    for event in rnd.events:
        if isinstance(event, ActionTaken):
            action = event.action
            actions.append(
                {
                    "box": action.box or None,
                    "action": action.action,
                    "stage": event.stage,
                    # The discarded cards by their number in ``cards``: their faces stay down.
                    "discard": _discard_numbers(rnd, action.discard),
                }
            )
    settlement = _mask_settlement(item.settlement.to_json(), shown)
    settlement["board"] = [code if code in shown else None for code in settlement["board"]]
    table = record.config
    return {
        "round": item.round,
        "finished_at": item.finished_at,
        "game": table.game,
        "title": rnd.game.title,
        "table": {
            "name": table.name,
            "currency": table.currency,
            "minor_units": table.minor_units,
            "min_bet": table.min_bet,
            "max_bet": table.max_bet,
            "max_payout": table.max_payout,
        },
        "void": record.void,
        "jackpot_meter": record.jackpot_meter,
        "bets": record.to_json()["boxes"],
        "cards": cards,
        "actions": actions,
        "settlement": settlement,
    }


def _discard_numbers(rnd: Round, discard: tuple[Card, ...]) -> list[int]:
    """Discarded cards by their number in the deal (a card is in a round once, so its code finds it)."""
    by_code = {c.code: n for n, (c, _) in enumerate(rnd.dealt(), 1) if not isinstance(c, Placeholder)}
    return [c.number if isinstance(c, Placeholder) else by_code[c.code] for c in discard]


def find_round(store: JournalStore, number: int) -> RecalledRound | None:
    """Round ``number`` of a table's journal, rebuilt by replaying the journal up to the entry that
    ended it (the table's own replay, on a read-only view); None if no such round has finished.

    Raises:
        RecallError: the journal cannot be read or does not replay.
    """
    try:
        entries = _up_to_end_of(store.entries(), number)
        if entries is None:
            return None
        scratch = TableService(store=_ReadOnly(store, entries), recall=1)
    except ControllerError as exc:
        raise RecallError(f"round {number} cannot be read back from the journal: {exc}") from None
    found = scratch.recall[-1] if scratch.recall else None
    return found if found is not None and found.round == number else None


def _up_to_end_of(entries: Iterator[Entry], number: int) -> list[Entry] | None:
    """The journal's entries up to and including the one that ended round ``number``."""
    kept: list[Entry] = []
    current, open_ = 0, False
    for entry in entries:
        kept.append(entry)
        data = entry.data
        if entry.kind == "round-opened":
            current, open_ = data["round"], True
        elif entry.kind in ("round-settled", "round-voided"):
            open_ = False
            if data["round"] == number:
                return kept
        elif entry.kind == "tilt-cleared" and open_ and data["resolution"] in ROUND_ENDING:
            if current == number:
                return kept
            if data["resolution"] == "redeal":
                current += 1  # the same bets dealt again as the next round
            else:
                open_ = False
    return None


class _ReadOnly(JournalStore):
    """A journal's first entries, read only: a scratch table replays them and writes nothing."""

    def __init__(self, store: JournalStore, entries: list[Entry]) -> None:
        self._store = store
        self._entries = entries

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
        raise JournalError("recall reads the journal; it never writes")

    def entries(self, *, after: int = 0) -> Iterator[Entry]:
        return iter([e for e in self._entries if e.seq > after])

    def jackpot(self) -> JackpotAccount | None:
        return self._store.jackpot()

    def open_jackpot(self, *, name: str, meter: int) -> JackpotAccount:
        return JackpotAccount(name=name, meter=meter)

    def close(self) -> None:
        pass


__all__ = ["RecallError", "find_round", "recall_detail"]
