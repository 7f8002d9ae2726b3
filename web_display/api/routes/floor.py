"""The floor display's data: every table at a glance (read only, no cards)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from web_display.api.deps import CurrentUser, StateDep

router = APIRouter(prefix="/api/floor", tags=["floor"])


@router.get("")
def floor(user: CurrentUser, state: StateDep) -> list[dict[str, Any]]:
    """Each table's summary: game, phase, rounds today and in the last hour, tilts, jackpot, large payouts."""
    return state.hub.floor_state()
