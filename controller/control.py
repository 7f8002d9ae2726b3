"""A JSON-lines control channel for a table: one command per line in, one answer per line out.

For test rigs and technicians (``dealer-assist run --control stdio``): the same commands as the
dealer display, checked and journaled the same way. Every answer is a JSON object with ``ok``;
a refused command answers ``{"ok": false, "error": ...}`` naming the problem and changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from controller.errors import ControllerError, RecordError
from controller.journal import Entry
from controller.record import parse_action, parse_bets
from controller.table import Actor, TableService
from controller.view import snapshot

ROLES = ("dealer", "supervisor", "admin")


def _actor(command: Mapping[str, Any], default: str) -> Actor:
    text = command.get("actor", default)
    if not isinstance(text, str) or ":" not in text:
        raise RecordError(f"actor: expected 'role:name', got {text!r}")
    actor = Actor.parse(text)
    if actor.role not in ROLES or not actor.name:
        raise RecordError(f"actor: role must be one of {', '.join(ROLES)} with a name, got {text!r}")
    return actor


def _text(command: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    value = command.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise RecordError(f"{key}: required text")
    return value


def _int(command: Mapping[str, Any], key: str) -> int:
    value = command.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{key}: a whole number is required")
    return value


def _paid(command: Mapping[str, Any]) -> dict[int, int] | None:
    """``paid``: {"box": amount} for the boxes paid another amount than shown."""
    value = command.get("paid")
    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) and k.isdigit() for k in value):
        raise RecordError('paid: an object of box numbers to amounts, e.g. {"3": 50}')
    return {int(k): _int(value, k) for k in value}


Handler = Callable[[TableService, Mapping[str, Any]], Entry | dict[str, Any] | None]

COMMANDS: dict[str, Handler] = {
    "open": lambda t, c: t.open_round(parse_bets(c.get("bets")), actor=_actor(c, "dealer:console")),
    "repeat": lambda t, c: t.repeat_last_bets(actor=_actor(c, "dealer:console")),
    "act": lambda t, c: t.act(
        parse_action({k: v for k, v in c.items() if k in ("box", "action", "discard")}),
        actor=_actor(c, "dealer:console"),
    ),
    "confirm": lambda t, c: t.confirm_settlement(actor=_actor(c, "dealer:console"), paid=_paid(c)),
    "correct-payment": lambda t, c: t.correct_payment(
        _int(c, "round"),
        _int(c, "box"),
        paid=_int(c, "paid"),
        handed=_int(c, "handed"),
        actor=_actor(c, "supervisor:console"),
        why=_text(c, "why"),
    ),
    "deck-shuffled": lambda t, c: t.deck_shuffled(actor=_actor(c, "dealer:console")),
    "report": lambda t, c: t.report(
        _text(c, "kind"),
        actor=_actor(c, "dealer:console"),
        detail=_text(c, "detail", required=False),
    ),
    "clear": lambda t, c: t.clear_tilt(
        _int(c, "tilt"),
        resolution=_text(c, "resolution"),  # type: ignore[arg-type]
        actor=_actor(c, "supervisor:console"),
        why=_text(c, "why"),
        card=c.get("card"),
    ),
    "void": lambda t, c: t.void_round(actor=_actor(c, "supervisor:console"), why=_text(c, "why")),
    "jackpot": lambda t, c: t.confirm_jackpot(_int(c, "hit"), actor=_actor(c, "supervisor:console")),
    "state": lambda t, c: snapshot(t),
}


def handle(table: TableService, line: str) -> dict[str, Any]:
    """Run one command line against the table; never raises for bad input."""
    try:
        command = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"ok": False, "error": f"not valid JSON: {exc.msg} at column {exc.colno}"}
    if not isinstance(command, dict) or not isinstance(command.get("cmd"), str):
        return {"ok": False, "error": "a command is a JSON object with 'cmd'"}
    name = command["cmd"]
    handler = COMMANDS.get(name)
    if handler is None:
        return {"ok": False, "error": f"unknown command {name!r} (one of {', '.join(COMMANDS)})"}
    try:
        result = handler(table, command)
    except (ControllerError, ValueError) as exc:
        return {"ok": False, "error": str(exc)}
    if isinstance(result, Entry):
        return {"ok": True, "seq": result.seq, "kind": result.kind, "expected": table.expected()}
    return {"ok": True, "state": result}
