"""Accounts and the audit log: admin only; every change audited with who, and ends that account's sessions."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from web_display.api.deps import AdminReader, AdminUser, StateDep

router = APIRouter(prefix="/api", tags=["admin"])


class NewAccount(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=32)]
    role: Annotated[str, Field(min_length=1, max_length=20)]
    password: Annotated[str, Field(min_length=1, max_length=1024)]


class NewPassword(BaseModel):
    password: Annotated[str, Field(min_length=1, max_length=1024)]


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.get("/accounts")
def list_accounts(user: AdminReader, state: StateDep) -> list[dict[str, Any]]:
    return [{"name": a.name, "role": a.role, "created_at": a.created_at} for a in state.accounts.accounts()]


@router.post("/accounts", status_code=201)
async def add_account(body: NewAccount, request: Request, user: AdminUser, state: StateDep) -> dict[str, Any]:
    """Raises AccountError: bad name, role or password, or the name is taken; ServerBusy: hashing is full."""
    async with state.gate.slot(_address(request)):  # a password hash: bounded like a sign-in
        account = await asyncio.to_thread(
            state.accounts.add, name=body.name, role=body.role, password=body.password, by=str(user.actor)
        )
    return {"name": account.name, "role": account.role, "created_at": account.created_at}


@router.post("/accounts/{account}/password")
async def set_password(
    account: str, body: NewPassword, request: Request, user: AdminUser, state: StateDep
) -> dict[str, Any]:
    """Change a password; that user's sessions end. Raises AccountError: no such account, short password."""
    async with state.gate.slot(_address(request)):
        await asyncio.to_thread(state.accounts.set_password, name=account, password=body.password, by=str(user.actor))
    state.hub.drop_account(account)
    return {"ok": True}


@router.delete("/accounts/{account}")
async def remove_account(account: str, user: AdminUser, state: StateDep) -> dict[str, Any]:
    """Remove an account; its sessions end. Raises AccountError: no such account."""
    await asyncio.to_thread(state.accounts.remove, name=account, by=str(user.actor))
    state.hub.drop_account(account)
    return {"ok": True}


@router.get("/audit")
def audit(user: AdminReader, state: StateDep, last: int = 100) -> list[dict[str, Any]]:
    """The last lines of the audit log (sign-ins, failed sign-ins per burst, sign-outs, account changes)."""
    state.failures.flush(idle_only=True)
    return [e.to_json() for e in state.accounts.audit_log(last=min(max(last, 1), 1000))]
