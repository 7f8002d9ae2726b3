"""Test kit: build round records from hands, in the shoe's draw order, and settle them as JSON."""

from __future__ import annotations

import json
from typing import Any

from controller.record import loads, parse_record, settle_record


def hands(text: str) -> list[str]:
    return text.split()


def passes(boxes: dict[int, str], dealer: str, *, n: int) -> list[str]:
    """Cards in round-robin order: pass i gives card i to each box ascending, then to the dealer."""
    order = sorted(boxes)
    held = {b: hands(boxes[b]) for b in order}
    mine = hands(dealer)
    assert all(len(h) == n for h in held.values()) and len(mine) == n
    out: list[str] = []
    for i in range(n):
        out.extend(held[b][i] for b in order)
        out.append(mine[i])
    return out


def record(
    game: str,
    *,
    boxes: list[dict[str, Any]],
    cards: list[str],
    actions: list[dict[str, Any]] | None = None,
    table: dict[str, Any] | None = None,
    meter: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    rec: dict[str, Any] = {"game": game, "boxes": boxes, "cards": cards, "actions": actions or []}
    if table is not None:
        rec["table"] = table
    if meter is not None:
        rec["jackpot"] = {"meter": meter}
    rec.update(extra)
    return rec


def settle(rec: dict[str, Any]) -> dict[str, Any]:
    """Round-trip through JSON text exactly as `dealer-assist settle` reads it."""
    result: dict[str, Any] = settle_record(parse_record(loads(json.dumps(rec)))).to_json()
    return result


def box(settlement: dict[str, Any], number: int) -> dict[str, Any]:
    found: dict[str, Any] = next(b for b in settlement["boxes"] if b["box"] == number)
    return found


def bets(settlement: dict[str, Any], number: int) -> dict[str, int]:
    """A box's results by bet name (e.g. {"ante": 10, "raise": 140})."""
    return {b["bet"]: b["result"] for b in box(settlement, number)["bets"]}


def holdem_round(
    game: str,
    boxes: dict[int, str],
    dealer: str,
    board: str,
    *,
    actions: list[dict[str, Any]],
    stakes: list[dict[str, Any]] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    """Settle a hold'em round: two hole cards each (ante 10 unless ``stakes``), then ``board`` as drawn."""
    stakes = stakes or [{"box": b, "ante": 10} for b in sorted(boxes)]
    cards = passes(boxes, dealer, n=2) + board.split()
    return settle(record(game, boxes=stakes, cards=cards, actions=actions, **kw))
