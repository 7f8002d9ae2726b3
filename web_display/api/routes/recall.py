"""Recall of one finished round for a dispute: the last rounds for anyone signed in, any round for a supervisor."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from controller.recall import find_round, recall_detail
from controller.table import RecalledRound, TableService
from web_display.api.deps import CurrentUser, TableDep
from web_display.errors import Forbidden, NotFound

router = APIRouter(prefix="/api/tables", tags=["recall"])


@router.get("/{name}/rounds/{number}")
async def recall_round(number: int, user: CurrentUser, table: TableDep) -> dict[str, Any]:
    """Round ``number``: every card in deal order with where it went (only those that were face up
    show their identity), the bets, the decisions and the settlement bet by bet.

    Raises:
        Forbidden: a dealer asks for a round older than the table's recall window.
        NotFound: no such finished round.
        RecallError: the journal cannot be read back.
    """
    return await run_in_threadpool(detail_of, table, number, supervisor=user.role in ("supervisor", "admin"))


def detail_of(table: TableService, number: int, *, supervisor: bool) -> dict[str, Any]:
    """The recall detail of round ``number`` as ``recall_round`` answers it (also for an override).

    Raises:
        Forbidden, NotFound, RecallError: as :func:`recall_round`.
    """
    window = list(table.recall)
    recent: RecalledRound | None = next((r for r in window if r.round == number), None)
    older = number <= table.round_no and (not window or number < window[0].round)
    if recent is None and older:
        if not supervisor:
            raise Forbidden(
                f"round {number} is not among the last {table.recall.maxlen} rounds: only a supervisor may "
                "recall an older round (ask one to authorise it)"
            )
        recent = find_round(table.journal_store, number)
    if recent is None:
        raise NotFound(f"there is no finished round {number} at this table")
    detail = recall_detail(recent)
    # What was paid, where it differed from the settlement, and every later correction: with the round.
    detail["payments"] = table.inspect(lambda t: [dict(p) for p in t.payments.values() if p["round"] == number])
    return detail
