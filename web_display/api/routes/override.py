"""Supervisor override: a supervisor authorises one action on a dealer's terminal with their own credentials.

1. ``POST /api/tables/{name}/override`` (the signed-in display, with its CSRF token) names the action;
   the table's checks that need no supervisor run now, and the answer is a one-shot grant id.
2. ``POST /api/tables/{name}/override/{grant}`` carries the supervisor's name and password. The grant
   is taken first (used once, right or wrong), the credentials are checked as a sign-in is (same
   lock-out), and the action runs as the supervisor: the journal and the audit log name them. The
   dealer's session is untouched: still signed in, with the rights it had.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from controller.table import Actor, TableError, TableService
from web_display.api.deps import ActingUser, StateDep, TableDep
from web_display.api.routes.auth import checked_credentials
from web_display.api.routes.recall import detail_of
from web_display.errors import Forbidden
from web_display.state import AppState

router = APIRouter(prefix="/api/tables", tags=["override"])

Why = Annotated[str, Field(max_length=500)]


class ClearTiltAction(BaseModel):
    kind: Literal["clear-tilt"]
    tilt: Annotated[int, Field(ge=1)]
    resolution: Literal["continue", "burn", "enter-card", "redeal", "cancel", "void", "dealer-shown"]
    why: Why
    card: Annotated[str | None, Field(max_length=3)] = None


class VoidRoundAction(BaseModel):
    kind: Literal["void-round"]
    why: Why


class ConfirmJackpotAction(BaseModel):
    kind: Literal["confirm-jackpot"]
    hit: Annotated[int, Field(ge=1)]


class RecallRoundAction(BaseModel):
    kind: Literal["recall-round"]
    round: Annotated[int, Field(ge=1)]


OverrideAction = Annotated[
    ClearTiltAction | VoidRoundAction | ConfirmJackpotAction | RecallRoundAction, Field(discriminator="kind")
]


class OverrideRequest(BaseModel):
    action: OverrideAction


class Credentials(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]


@router.post("/{name}/override", status_code=201)
def request_override(
    name: str, body: OverrideRequest, user: ActingUser, state: StateDep, table: TableDep
) -> dict[str, Any]:
    """Name the action a supervisor is to authorise on this terminal; returns the one-shot grant.

    Raises:
        TableError: the table would refuse the action whoever asked (no such tilt, no reason given, ...).
    """
    action = body.action
    _precheck(table, action)
    grant = state.overrides.issue(
        session=user.session.id,
        table=name,
        action=action.model_dump(),
        ttl=state.settings.override_seconds,
    )
    return {"grant": grant.id, "expires_in": state.settings.override_seconds, "action": describe(action)}


@router.post("/{name}/override/{grant}")
async def authorise(
    *,
    name: str,
    grant: str,
    body: Credentials,
    request: Request,
    user: ActingUser,
    state: StateDep,
    table: TableDep,
) -> dict[str, Any]:
    """The supervisor's credentials for the grant's action; the action runs as the supervisor.

    Raises:
        OverrideRefused: the grant was used, lapsed or is another terminal's.
        WrongCredentials: unknown name or wrong password (counted as a failed sign-in).
        TooManyAttempts, ServerBusy: as a sign-in (the same throttle and password gate).
        Forbidden: the credentials are not a supervisor's or an admin's.
        TableError, RuleViolation: the table refuses the action now.
    """
    taken = state.overrides.take(grant, session=user.session.id, table=name)
    action = OverrideRequest.model_validate({"action": taken.action}).action
    account = await checked_credentials(state, request, name=body.name, password=body.password)
    if account.role not in ("supervisor", "admin"):
        await asyncio.to_thread(
            state.accounts.audit,
            who=f"{account.role}:{account.name}",
            action="override-refused",
            detail=f"{name}: {describe(action)}",
        )
        raise Forbidden("only a supervisor may authorise this: these are not a supervisor's credentials")
    supervisor = Actor(account.name, account.role)
    return await asyncio.to_thread(
        lambda: _authorised(state, table, name=name, action=action, supervisor=supervisor, terminal=str(user.actor))
    )


def _authorised(
    state: AppState, table: TableService, *, name: str, action: OverrideAction, supervisor: Actor, terminal: str
) -> dict[str, Any]:
    """Run the action as the supervisor and audit it (off the event loop: the journal fsyncs)."""
    result = _run(table, action, supervisor)
    state.accounts.audit(
        who=str(supervisor), action="override", detail=f"{name}: {describe(action)}, on the terminal of {terminal}"
    )
    return {"ok": True, "by": str(supervisor), "version": table.version, **result}


def describe(action: OverrideAction) -> str:
    """The action in a line (the dialog's title and the audit log)."""
    if isinstance(action, ClearTiltAction):
        return f"clear tilt {action.tilt} ({action.resolution})"
    if isinstance(action, VoidRoundAction):
        return "void the round"
    if isinstance(action, ConfirmJackpotAction):
        return f"confirm jackpot hit {action.hit}"
    return f"recall round {action.round}"


def _precheck(table: TableService, action: OverrideAction) -> None:
    """What the table would refuse whoever asked: said before the supervisor types a password."""
    if isinstance(action, ClearTiltAction | VoidRoundAction) and not action.why.strip():
        raise TableError("say why: it goes in the log with the supervisor's name")
    if isinstance(action, ClearTiltAction):
        tilt = table.tilts.get(action.tilt)
        if tilt is None:
            raise TableError(f"there is no open tilt {action.tilt}")
        if action.resolution not in table.resolutions(tilt):
            raise TableError(f"tilt {action.tilt} cannot be cleared with {action.resolution!r}")
        if action.resolution == "enter-card" and not (action.card or "").strip():
            raise TableError("enter-card needs the card's code, as the supervisor reads it")
    elif isinstance(action, VoidRoundAction) and table.round is None:
        raise TableError("no round is open")
    elif isinstance(action, ConfirmJackpotAction):
        account = table.jackpot_account()
        if account is None or all(h.hit != action.hit for h in account.pending):
            raise TableError(f"there is no pending jackpot hit {action.hit}")


def _run(table: TableService, action: OverrideAction, supervisor: Actor) -> dict[str, Any]:
    if isinstance(action, ClearTiltAction):
        card = (action.card or "").strip() or None
        entry = table.clear_tilt(action.tilt, resolution=action.resolution, actor=supervisor, why=action.why, card=card)
    elif isinstance(action, VoidRoundAction):
        entry = table.void_round(actor=supervisor, why=action.why)
    elif isinstance(action, ConfirmJackpotAction):
        entry = table.confirm_jackpot(action.hit, actor=supervisor)
    else:
        return {"recall": detail_of(table, action.round, supervisor=True)}
    return {"version": entry.seq}
