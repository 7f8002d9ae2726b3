"""Recall for disputes: a finished round card by card, decision by decision, bet by bet, as the displays may see it.

A round's record is replayed through the engine; what was face up at its end
(:func:`controller.redaction.recalled_visibility`) decides which identities are shown. A card that
was never face up (a folded hand, a discard, a board card nobody turned, a card dealt without
identity and never read) appears as its place only.
"""

from __future__ import annotations

from typing import Any

from controller.cards import Card
from controller.engine import ActionTaken, Placeholder, Round
from controller.errors import ControllerError
from controller.journal import JournalStore
from controller.journal.archive import find_finished
from controller.record import replay
from controller.redaction import recalled_visibility
from controller.table import RecalledRound


class RecallError(ControllerError):
    """A round that cannot be recalled (the message says why)."""


def recall_detail(item: RecalledRound) -> dict[str, Any]:
    """Everything a dispute needs of one finished round, with only the cards that were face up.

    Card identities leave here in two places, each filtered by the round's visibility at its end
    (:func:`controller.redaction.recalled_visibility`, the one redaction point): ``cards`` (the deal,
    in order) and ``settlement``; discards are given as deal numbers, never as cards.

    Raises:
        RecallError: the record does not replay (a journal the table could not have written).
    """
    record = item.record
    try:
        rnd = replay(record)
    except ControllerError as exc:
        raise RecallError(f"round {item.round} does not replay from its record: {exc}") from None
    vis = recalled_visibility(item)
    discarded = {id(c) for box in rnd.state.boxes.values() for c in box.discards}
    cards = []
    for n, (card, slot) in enumerate(rnd.dealt(), 1):
        visible = not isinstance(card, Placeholder) and card.code in vis.shown
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
    settlement = vis.settlement(item.settlement.to_json())
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
    """Round ``number`` from the journal's round index (the live file, then its archived months), settled
    again from its record; None if no such round has finished. Reads one indexed line, whatever the
    table's age.

    Raises:
        RecallError: the journal cannot be read, or the indexed round does not settle as it was paid.
    """
    try:
        found = find_finished(store, number)
        if found is None:
            return None
        return RecalledRound.from_line(found.line, finished_at=found.at)
    except ControllerError as exc:
        raise RecallError(f"round {number} cannot be read back from the journal: {exc}") from None


__all__ = ["RecallError", "find_round", "recall_detail"]
