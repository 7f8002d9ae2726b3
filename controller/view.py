"""What the displays may see of a table: a snapshot with no card identity before it is face up.

Every card and message in it goes through :mod:`controller.redaction`, the one redaction point.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from controller.engine import Decide, Round, Slot
from controller.hands import evaluate
from controller.redaction import HIDDEN, face_up_codes, recalled_visibility, round_visibility

if TYPE_CHECKING:
    from controller.table import RecalledRound, TableService


def visible_cards(rnd: Round) -> set[str]:
    """Codes of the cards that are face up on the table now (see :func:`controller.redaction.face_up_codes`)."""
    return face_up_codes(rnd)


def recalled(item: RecalledRound) -> dict[str, Any]:
    """A finished round for the displays: every card that was face up when it ended, nothing that was not."""
    vis = recalled_visibility(item)
    record = item.record.to_json()
    return {
        "round": item.round,
        "finished_at": item.finished_at,
        "bets": record["boxes"],
        # Discards were mucked face down: the record keeps them, the displays never see them.
        "actions": [{**a, "discard": [None] * len(a["discard"])} if a.get("discard") else a for a in record["actions"]],
        "settlement": vis.settlement(item.settlement.to_json()),
    }


def snapshot(table: TableService) -> dict[str, Any]:
    """The table as every display sees it. Safe for any role: no hidden card identity."""
    from controller.table import decisions

    config = table.config
    rnd = table.round
    vis = round_visibility(rnd)
    shown = vis.shown
    now = table.now()
    account = table.jackpot_account()
    view: dict[str, Any] = {
        "version": table.version,
        "table": {
            "name": config.name,
            "game": config.game,
            "title": rnd.game.title if rnd else _title(config.game),
            "currency": config.currency,
            "minor_units": config.minor_units,
            "min_bet": config.min_bet,
            "max_bet": config.max_bet,
            "max_payout": config.max_payout,
            "boxes": config.boxes,
            "max_bettors": config.max_bettors,
            "bonus": config.bonus.enabled,
        },
        "round": table.round_no,
        "phase": table.phase(),
        "expected": vis.text(table.expected()),
        "decide": None,
        "boxes": [],
        "dealer": [],
        "board": [],
        "settlement": None,
        "tilts": [
            {
                "id": t.id,
                "kind": t.kind,
                "message": vis.text(t.message),
                "instruction": t.instruction,
                "resolutions": list(table.resolutions(t)),
                "raised_at": t.raised_at,
                "held": len(t.held),
                # The deal out of order: where the cards lie as the shoe recorded them, to restore the
                # felt to before play continues (places and counts, no identity).
                "restore": _as_recorded(rnd) if t.kind == "deal-sequence" else None,
            }
            for t in table.tilts.values()
        ],
        "jackpot": {
            "enabled": config.jackpot.enabled,
            # "none": the table's own progressive; "open"/"closed": the floor's linked one (closed: the
            # floor link is down or catching up, and no jackpot-eligible bet is taken).
            "progressive": table.progressive,
            "progressive_detail": table.progressive_detail,
            "meter": account.meter if account else None,
            "pending": [
                {"hit": h.hit, "round": h.round, "box": h.box, "hand": h.hand, "amount": h.amount, "at": h.at}
                for h in (account.pending if account else ())
            ],
        },
        "last_bets": bool(table.last_bets),
        # A configuration change made during this round: it applies when the round ends.
        "pending_config": table.staged_changes(),
        # Why the next card must come from a freshly shuffled deck (None: the deck is fresh).
        "shuffle_due": table.shuffle_due,
        # Payments that were not what was due (money only, no card): for the supervisor to settle.
        "payments_owed": table.payments_owed(),
        "stats": {
            "rounds_today": table.rounds_since(now.replace(hour=0, minute=0, second=0, microsecond=0)),
            "rounds_last_hour": table.rounds_since(now - timedelta(hours=1)),
        },
        # The devices' own health as they report it (None: the table has no such device): states and
        # counts only, scrubbed like every other display-bound value (a failure message could name a card).
        "shoe": vis.scrub(table.device_report("shoe")),
        "camera": vis.scrub(table.device_report("camera")),
    }
    if rnd is None:
        return view
    step = rnd.expected()
    if isinstance(step, Decide):
        deadline = table.decision_deadline
        view["decide"] = {
            "box": step.box,
            "options": list(step.options),
            "stage": step.stage,
            "deadline": deadline.isoformat() if deadline else None,
        }
    for number in rnd.state.box_numbers:
        box = rnd.state.boxes[number]
        from controller.settlement import Stake

        stakes: list[Stake] = rnd.game.stakes(config, box)
        cards = [vis.card(c.code) for c in box.cards]
        hand = None
        board = rnd.state.board_cards()
        # Named only from cards every display may see: a board card still face down (or dealt
        # without identity, on a table with no reading shoe) keeps the hand unnamed.
        if (
            cards
            and all(c["face_up"] for c in cards)
            and all(b.code in shown for b in board)
            and len(box.cards) + len(board) >= 5
        ):
            hand = evaluate([*box.cards, *board], ace_king=config.game == "oasis").category
        view["boxes"].append(
            {
                "box": number,
                "ante": box.bet.ante,
                "bonus": box.bet.bonus,
                "blind": box.bet.blind,
                "bettors": [{"name": p.name, "ante": p.ante, "bonus": p.bonus} for p in box.bet.bettors],
                "stakes": [{"bet": s.bet, "amount": s.amount} for s in stakes],
                "cards": cards,
                "folded": box.folded,
                "decisions": decisions(rnd, number),
                "hand": hand,
            }
        )
    view["dealer"] = [vis.card(c.code) for c in rnd.state.dealer]
    view["board"] = [None if c is None else vis.card(c.code) for c in rnd.state.board]
    if table.settlement is not None:
        view["settlement"] = vis.settlement(table.settlement.to_json())
    return view


def _title(game: str) -> str:
    from controller.games import get_game

    return get_game(game).title


def _as_recorded(rnd: Round | None) -> list[dict[str, Any]]:
    """Each place that holds cards of the round as recorded, in deal order, with how many."""
    if rnd is None:
        return []
    counts: dict[str, int] = {}
    thrown = {id(c) for box in rnd.state.boxes.values() for c in box.discards}  # mucked: not on the layout
    for card, slot in rnd.dealt():
        if id(card) in thrown:
            continue
        where = f"box {slot.box}" if slot.target == "box" else slot.target
        counts[where] = counts.get(where, 0) + 1
    return [{"place": where, "cards": n} for where, n in counts.items()]


__all__ = ["HIDDEN", "Slot", "recalled", "snapshot", "visible_cards"]
