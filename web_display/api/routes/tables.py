"""A table's state and commands: the dealer's, and the supervisor-only clear, void and confirm."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import AfterValidator, BaseModel, Field, StrictBool, StrictInt

from controller.cards import Card
from controller.config import build_config, to_toml
from controller.engine import Action, Bettor, BoxBet
from controller.redaction import for_display
from controller.table import TableError, TableService
from controller.view import recalled
from web_display.api.deps import (
    ActingUser,
    AdminReader,
    AdminUser,
    CurrentUser,
    StateDep,
    SupervisorUser,
    TableDep,
)
from web_display.errors import InvalidInput

router = APIRouter(prefix="/api/tables", tags=["tables"])

Amount = Annotated[StrictInt, Field(ge=0, description="minor units of the table's currency")]


def _named(name: str) -> str:
    """A bettor's name as the settlement shows it: trimmed, and not blank."""
    name = " ".join(name.split())
    if not name:
        raise ValueError("a bettor needs a name (not only spaces)")
    return name


class BettorIn(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=40), AfterValidator(_named)]
    ante: Amount
    bonus: Amount = 0


class BetIn(BaseModel):
    box: Annotated[StrictInt, Field(ge=1, le=12)]
    ante: Amount
    bonus: Amount = 0
    blind: StrictBool = False
    bettors: list[BettorIn] = Field(default_factory=list, max_length=7)


class OpenRound(BaseModel):
    bets: Annotated[list[BetIn], Field(min_length=1, max_length=12)]


class Decision(BaseModel):
    # Box 0 is the dealer's own action (Hold'em with exchange: "dealer-shown"); the engine checks it.
    box: Annotated[StrictInt, Field(ge=0, le=12)]
    action: Annotated[str, Field(min_length=1, max_length=20)]
    # Which of the box's cards to exchange, by position (0 = first card): the display never knows
    # a face-down card's identity, so it names the place the player discarded from.
    discard: Annotated[list[Annotated[StrictInt, Field(ge=0, le=9)]], Field(max_length=3)] = Field(default_factory=list)


class Report(BaseModel):
    kind: Literal["dealer-card-exposed", "missing-card", "wrong-box", "extra-card", "skipped-box"]
    detail: Annotated[str, Field(max_length=200)] = ""


class ClearTilt(BaseModel):
    resolution: Literal["continue", "burn", "enter-card", "redeal", "cancel", "void", "dealer-shown"]
    why: Annotated[str, Field(max_length=500)]  # the table says why an empty reason is refused
    card: Annotated[str | None, Field(max_length=3)] = None


class Confirm(BaseModel):
    # Box number -> what the dealer paid it, for the boxes paid another amount than shown.
    paid: dict[Annotated[int, Field(ge=1, le=99)], Annotated[int, Field(ge=0)]] = Field(
        default_factory=dict, max_length=16
    )


class PaymentCorrection(BaseModel):
    paid: Annotated[int, Field(ge=0)]
    handed: int
    why: Annotated[str, Field(max_length=500)]


class Void(BaseModel):
    why: Annotated[str, Field(max_length=500)]  # the table says why an empty reason is refused


def _done(table: TableService, seq: int) -> dict[str, Any]:
    """A command's reply; what the table waits for passes the redaction with the table's cards as they lie."""
    return table.inspect(lambda t: for_display(t, {"ok": True, "version": seq, "expected": t.expected()}))


@router.get("")
def list_tables(user: CurrentUser, state: StateDep) -> list[dict[str, Any]]:
    """The tables this server runs."""
    return [{"name": name, "game": t.config.game, "title": t.config.name} for name, t in state.tables.items()]


@router.get("/{name}")
def table_view(name: str, user: CurrentUser, state: StateDep, table: TableDep) -> Response:
    """The table's latest published snapshot (the same text the live feed sends)."""
    return Response(state.hub.latest(name), media_type="application/json")


@router.get("/{name}/rounds")
def last_rounds(user: CurrentUser, table: TableDep) -> list[dict[str, Any]]:
    """The last finished rounds, newest first, with only the cards that were face up."""
    return [recalled(item) for item in reversed(list(table.recall))]


@router.get("/{name}/config")
def table_config(user: AdminReader, table: TableDep) -> dict[str, Any]:
    """The table's full configuration (admin only)."""
    return {"game": table.config.game, **table.table_settings}


@router.get("/{name}/config/toml")
def table_config_toml(user: AdminReader, table: TableDep) -> dict[str, Any]:
    """The table's configuration as the TOML an admin edits (admin only)."""
    return {"game": table.config.game, "toml": to_toml(table.config)}


MAX_CONFIG_BYTES = 256 * 1024  # a whole configuration is a few kilobytes; paytables with comments, a few more
MAX_NESTING = 32  # a configuration is a few levels deep; deeper input is refused before it is parsed


# The configuration upload's path, for its own body limit (see web_display.main).
CONFIG_PATH = re.compile(r"/api/tables/[^/]+/config")


@router.put("/{name}/config")
async def reconfigure(name: str, request: Request, user: AdminUser, state: StateDep, table: TableDep) -> dict[str, Any]:
    """An admin replaces the table's configuration (same game); journaled and audited. Between rounds
    it applies at once; during a round it is pending (``"pending": true``) and applies when the round ends.

    The body is the whole configuration: TOML text (``Content-Type: application/toml`` or
    ``text/plain``) or a JSON object of the same settings.

    Raises:
        InvalidInput: the body is too long, not UTF-8, or not TOML / a JSON object.
        ConfigError: a setting the configuration refuses (the message names the key and value).
        TableError: the game would change.
    """
    body = await request.body()
    settings = _config_settings(body, request.headers.get("content-type", ""))
    config = build_config(settings)
    old = table.table_settings
    # In a worker thread: the table journals (fsyncs) the change.
    entry = await run_in_threadpool(table.reconfigure, config, actor=user.actor)
    pending = entry.kind == "configuration-staged"
    staged = table.staged_changes() if pending else None
    changed = [c["key"] for c in staged["changes"]] if staged else _changed_keys(old, table.table_settings)
    # In a worker thread too: the account store may be the floor's database, across the network.
    await run_in_threadpool(
        state.accounts.audit,
        who=str(user.actor),
        action="table-configuration-staged" if pending else "table-configured",
        detail=f"{name}: {', '.join(changed) or 'no change'}{f' (from round {table.round_no + 1})' if pending else ''}",
    )
    return {
        **_done(table, entry.seq),
        "changed": changed,
        "pending": pending,
        "round": table.round_no if pending else None,
        "toml": to_toml(config if pending else table.config),
    }


@router.post("/{name}/rounds", status_code=201)
def open_round(body: OpenRound, user: ActingUser, table: TableDep) -> dict[str, Any]:
    """Open a round with these bets (amounts in minor units)."""
    bets = [
        BoxBet(
            box=b.box,
            ante=b.ante,
            bonus=b.bonus,
            blind=b.blind,
            bettors=tuple(Bettor(p.name, p.ante, p.bonus) for p in b.bettors),
        )
        for b in body.bets
    ]
    return _done(table, table.open_round(bets, actor=user.actor).seq)


@router.post("/{name}/rounds/repeat", status_code=201)
def repeat_last_bets(user: ActingUser, table: TableDep) -> dict[str, Any]:
    """Open a round with the previous round's bets."""
    return _done(table, table.repeat_last_bets(actor=user.actor).seq)


@router.post("/{name}/actions")
def decide(body: Decision, user: ActingUser, table: TableDep) -> dict[str, Any]:
    """A box's decision as the dealer enters it; exchanges name the discarded cards by position.
    Box 0 is the dealer's own action (e.g. "dealer-shown": he showed his hand early).

    Raises:
        TableError: a discard position the box does not have.
    """
    discard = _discards(table, body.box, body.discard)
    return _done(table, table.act(Action(body.box, body.action, discard=discard), actor=user.actor).seq)


@router.post("/{name}/settlement/confirm")
def confirm_settlement(user: ActingUser, table: TableDep, body: Confirm | None = None) -> dict[str, Any]:
    """The dealer has paid the table as shown, or, with ``paid``, some boxes another amount."""
    paid = body.paid if body is not None else None
    return _done(table, table.confirm_settlement(actor=user.actor, paid=paid).seq)


@router.post("/{name}/rounds/{number}/payments/{box}")
def correct_payment(
    number: int, box: int, body: PaymentCorrection, user: SupervisorUser, table: TableDep
) -> dict[str, Any]:
    """A supervisor settles a payment after the confirmation: what the box has received in all."""
    entry = table.correct_payment(number, box, paid=body.paid, handed=body.handed, actor=user.actor, why=body.why)
    return _done(table, entry.seq)


@router.post("/{name}/reports", status_code=201)
def report(body: Report, user: ActingUser, table: TableDep) -> dict[str, Any]:
    """The dealer reports an irregularity; it becomes a tilt for a supervisor."""
    return _done(table, table.report(body.kind, actor=user.actor, detail=body.detail).seq)


@router.post("/{name}/tilts/{tilt}/clear")
def clear_tilt(tilt: int, body: ClearTilt, user: SupervisorUser, table: TableDep) -> dict[str, Any]:
    """A supervisor clears a tilt with a resolution and the reason (journaled with who)."""
    entry = table.clear_tilt(tilt, resolution=body.resolution, actor=user.actor, why=body.why, card=body.card)
    return _done(table, entry.seq)


@router.post("/{name}/deck/shuffled")
def deck_shuffled(user: ActingUser, table: TableDep) -> dict[str, Any]:
    """The dealer confirms a freshly shuffled deck is in the shoe (a shoe with no new-deck signal)."""
    return _done(table, table.deck_shuffled(actor=user.actor).seq)


@router.post("/{name}/rounds/void")
def void_round(body: Void, user: SupervisorUser, table: TableDep) -> dict[str, Any]:
    """A supervisor voids the open round: every stake goes back."""
    return _done(table, table.void_round(actor=user.actor, why=body.why).seq)


@router.post("/{name}/jackpot/{hit}/confirm")
def confirm_jackpot(hit: int, user: SupervisorUser, table: TableDep) -> dict[str, Any]:
    """A supervisor confirms a jackpot hit has been paid."""
    return _done(table, table.confirm_jackpot(hit, actor=user.actor).seq)


def _discards(table: TableService, box: int, positions: list[int]) -> tuple[Card, ...]:
    """The cards at these positions of a box, resolved here so no client ever needs their identity.

    Raises:
        TableError: no round, no such box, or a position past the box's cards.
    """
    if not positions:
        return ()
    rnd = table.round
    if rnd is None or box not in rnd.state.boxes:
        raise TableError(f"box {box} is not playing a round now")
    cards = list(rnd.state.boxes[box].cards)
    for p in positions:
        if p >= len(cards):
            raise TableError(f"box {box} has {len(cards)} cards: there is no card {p + 1} to exchange")
    return tuple(cards[p] for p in positions)


def _config_settings(body: bytes, content_type: str) -> dict[str, Any]:
    """The settings in a configuration request body, TOML or JSON by its content type.

    Raises:
        InvalidInput: too long, not UTF-8, nested too deeply, not parseable, or not a table of settings.
    """
    if len(body) > MAX_CONFIG_BYTES:
        raise InvalidInput(f"configuration: {len(body)} bytes, at most {MAX_CONFIG_BYTES}")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("configuration: not UTF-8 text") from None
    is_json = content_type.split(";", maxsplit=1)[0].strip().lower() == "application/json"
    kind = "JSON" if is_json else "TOML"
    if _nesting(text) > MAX_NESTING:
        raise InvalidInput(f"configuration {kind}: nested more than {MAX_NESTING} levels deep")
    try:
        settings = json.loads(text) if is_json else tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"configuration JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"configuration TOML: {exc}") from None
    except RecursionError:  # nesting the bracket count above missed (e.g. dotted keys): still refused cleanly
        raise InvalidInput(f"configuration {kind}: nested too deeply") from None
    if not isinstance(settings, dict):
        raise InvalidInput("configuration JSON: expected an object of settings")
    return settings


def _nesting(text: str) -> int:
    """The deepest bracket nesting in the text (strings included: an over-count only refuses nonsense)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest


def _changed_keys(old: Any, new: Any, prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two settings trees (for the audit line)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            out.extend(_changed_keys(old.get(key), new.get(key), f"{prefix}{key}."))
        return out
    return [] if old == new else [prefix.rstrip(".")]
