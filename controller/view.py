"""What the displays may see of a table: a snapshot with no card identity before it is face up."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from controller.engine import Decide, Placeholder, Round, Slot
from controller.hands import evaluate

if TYPE_CHECKING:
    from controller.table import RecalledRound, TableService

HIDDEN: dict[str, Any] = {"code": None, "face_up": False}


def visible_cards(rnd: Round) -> set[str]:
    """Codes of the cards that are face up on the table now.

    Face up: dealt face up, turned by the dealer (e.g. hold'em-with-exchange's 4th card), or, at
    the showdown, the dealer's cards, the board and every box still in play. Folded boxes' cards
    and discards are mucked face down and never shown. A card dealt without identity (no reading
    shoe) is shown as a face-down card until it is revealed, and then only where it is face up.
    """
    state = rnd.state
    turned = rnd.game.turned(state)
    showdown = rnd.at_showdown() and bool(state.in_play())
    shown: set[str] = set()
    for card, slot in rnd.dealt():
        if isinstance(card, Placeholder):
            continue  # dealt without identity: however it lies, there is nothing to show yet
        if slot.face_up or slot in turned or (showdown and slot.target in ("dealer", "board")):
            shown.add(card.code)
    if showdown:
        for box in state.in_play():
            shown.update(c.code for c in box.cards if not isinstance(c, Placeholder))
    for box in state.boxes.values():
        shown.difference_update(c.code for c in box.discards)
    return shown


def _card(code: str, shown: set[str]) -> dict[str, Any]:
    return {"code": code, "face_up": True} if code in shown else dict(HIDDEN)


def _board(rnd: Round, shown: set[str]) -> list[dict[str, Any] | None]:
    return [None if c is None else _card(c.code, shown) for c in rnd.state.board]


def _mask_settlement(settlement: dict[str, Any], shown: set[str]) -> dict[str, Any]:
    """A settlement as the displays may show it: folded hands and discards stay face down."""
    out = dict(settlement)
    boxes = []
    for box in settlement["boxes"]:
        b = dict(box)
        if any(code not in shown for code in b["cards"]):
            b["cards"] = [None] * len(b["cards"])
            b["hand"] = None
        b["discards"] = [None] * len(b["discards"])
        boxes.append(b)
    out["boxes"] = boxes
    dealer = dict(settlement["dealer"])
    if any(code not in shown for code in dealer["cards"]):
        dealer = {"cards": [None] * len(dealer["cards"]), "hand": None, "qualifies": None}
    out["dealer"] = dealer
    return out


# Canonical codes only (the controller writes "Kc", never "kc"): case-insensitive, "as" in plain
# English ("pay the table as shown") would read as the ace of spades.
_CODE = re.compile(r"(?:\bcard )?(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[cdhs](?![A-Za-z0-9])")


def redact(text: str, shown: set[str]) -> str:
    """A message with every card code that is not face up replaced by "a card".

    Tilt messages name the cards involved (e.g. a duplicate read), and such a card is face down
    on the table: the supervisor reads it from the card itself, never from a display.
    """

    def hide(match: re.Match[str]) -> str:
        code = match.group(0).removeprefix("card ")
        canonical = ("T" if code.startswith("10") else code[0]) + code[-1]
        return match.group(0) if canonical in shown else "a card"

    return _CODE.sub(hide, text)


def recalled(item: RecalledRound) -> dict[str, Any]:
    """A finished round for the displays: every card that was face up, nothing that was not."""
    settlement = item.settlement.to_json()
    shown = {c for b in settlement["boxes"] if b["outcome"] not in ("fold", "void") for c in b["cards"]}
    if settlement["dealer"]["qualifies"] is not None:
        shown.update(settlement["dealer"]["cards"])
    shown.update(settlement["board"])
    return {
        "round": item.round,
        "finished_at": item.finished_at,
        "bets": item.record.to_json()["boxes"],
        # Discards were mucked face down: the record keeps them, the displays never see them.
        "actions": [
            {**a, "discard": [None] * len(a["discard"])} if a.get("discard") else a
            for a in item.record.to_json()["actions"]
        ],
        "settlement": _mask_settlement(settlement, shown),
    }


def snapshot(table: TableService) -> dict[str, Any]:
    """The table as every display sees it. Safe for any role: no hidden card identity."""
    from controller.table import decisions

    config = table.config
    rnd = table.round
    shown = visible_cards(rnd) if rnd is not None else set()
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
        "expected": redact(table.expected(), shown),
        "decide": None,
        "boxes": [],
        "dealer": [],
        "board": [],
        "settlement": None,
        "tilts": [
            {
                "id": t.id,
                "kind": t.kind,
                "message": redact(t.message, shown),
                "instruction": t.instruction,
                "resolutions": list(t.resolutions),
                "raised_at": t.raised_at,
                "held": len(t.held),
            }
            for t in table.tilts.values()
        ],
        "jackpot": {
            "enabled": config.jackpot.enabled,
            "meter": account.meter if account else None,
            "pending": [
                {"hit": h.hit, "round": h.round, "box": h.box, "hand": h.hand, "amount": h.amount, "at": h.at}
                for h in (account.pending if account else ())
            ],
        },
        "last_bets": bool(table.last_bets),
        # A configuration change made during this round: it applies when the round ends.
        "pending_config": table.staged_changes(),
        "stats": {
            "rounds_today": table.rounds_since(now.replace(hour=0, minute=0, second=0, microsecond=0)),
            "rounds_last_hour": table.rounds_since(now - timedelta(hours=1)),
        },
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
        cards = [_card(c.code, shown) for c in box.cards]
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
    view["dealer"] = [_card(c.code, shown) for c in rnd.state.dealer]
    view["board"] = _board(rnd, shown)
    if table.settlement is not None:
        view["settlement"] = _mask_settlement(table.settlement.to_json(), shown)
    return view


def _title(game: str) -> str:
    from controller.games import get_game

    return get_game(game).title


__all__ = ["HIDDEN", "Slot", "recalled", "redact", "snapshot", "visible_cards"]
