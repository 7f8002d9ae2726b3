"""Accounts and the audit log: admin only; every change audited with who."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from web_display.api.deps import AdminReader, AdminUser, StateDep

router = APIRouter(prefix="/api", tags=["admin"])


class NewAccount(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=32)]
    role: Annotated[str, Field(min_length=1, max_length=20)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]


class NewPassword(BaseModel):
    password: Annotated[str, Field(min_length=1, max_length=1024)]


@router.get("/accounts")
def list_accounts(user: AdminReader, state: StateDep) -> list[dict[str, Any]]:
    return [{"name": a.name, "role": a.role, "created_at": a.created_at} for a in state.accounts.list()]


@router.post("/accounts", status_code=201)
def add_account(body: NewAccount, user: AdminUser, state: StateDep) -> dict[str, Any]:
    """Raises AccountError: bad name, role or password, or the name is taken."""
    account = state.accounts.add(name=body.name, role=body.role, password=body.password, by=str(user.actor))
    return {"name": account.name, "role": account.role, "created_at": account.created_at}


@router.post("/accounts/{account}/password")
def set_password(account: str, body: NewPassword, user: AdminUser, state: StateDep) -> dict[str, Any]:
    """Change a password; that user's sessions end. Raises AccountError: no such account, short password."""
    state.accounts.set_password(name=account, password=body.password, by=str(user.actor))
    for sid in state.sessions.end_user(account):
        state.hub.drop_session(sid)
    return {"ok": True}


@router.delete("/accounts/{account}")
def remove_account(account: str, user: AdminUser, state: StateDep) -> dict[str, Any]:
    """Remove an account; its sessions end. Raises AccountError: no such account."""
    state.accounts.remove(name=account, by=str(user.actor))
    for sid in state.sessions.end_user(account):
        state.hub.drop_session(sid)
    return {"ok": True}


@router.get("/audit")
def audit(user: AdminReader, state: StateDep, last: int = 100) -> list[dict[str, Any]]:
    """The last lines of the audit log (sign-ins, sign-outs, account changes)."""
    return [e.to_json() for e in state.accounts.audit_log(last=min(max(last, 1), 1000))]
