"""The floor service's reports: GET /reports (a page for supervisors) and GET /api/reports (JSON or CSV).

Mount with ``app.include_router(reports_router(store=lambda: the_store))``; links on the page are relative,
so the router works under any prefix. Reports only read; they show no cards.
"""

# No ``from __future__ import annotations`` here: FastAPI must see the endpoints' dependency annotations as
# objects, and they name a function local to reports_router.
import html
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query
from fastapi.responses import HTMLResponse, JSONResponse, Response

from floor.base import FloorStore
from floor.errors import FloorError, FloorUnavailable
from floor.report_cli import TEXT_COLUMNS, make_report, row_name, text_cells
from floor.report_periods import DEFAULT_SHIFTS, shift_starts, zone
from floor.report_sources import FloorSource
from floor.reports import LEVELS, Level, Report, ReportError


class _Params:
    """The query both endpoints take (``from``/``to``, or ``day``, or ``shift``; none: today's gaming day)."""

    def __init__(
        self,
        *,
        start: Annotated[str | None, Query(alias="from")] = None,
        to: str | None = None,
        day: str | None = None,
        shift: str | None = None,
        group: str = "range",
        by: str = "table",
        tz: str | None = None,
        shifts: str | None = None,
        pit: Annotated[list[str] | None, Query()] = None,
        table: Annotated[list[str] | None, Query()] = None,
    ) -> None:
        self.start, self.to, self.day, self.shift = start or None, to or None, day or None, shift or None
        self.by: Level = by if by in LEVELS else "table"
        self._bad_by = None if by in LEVELS else by
        self.group, self.tz, self.shifts = group, tz or None, shifts or None
        self.pit, self.table = pit or [], table or []

    def query(self, **extra: str) -> str:
        pairs: list[tuple[str, str]] = [
            (k, v)
            for k, v in (
                ("from", self.start),
                ("to", self.to),
                ("day", self.day),
                ("shift", self.shift),
                ("group", self.group),
                ("by", self.by),
                ("tz", self.tz),
                ("shifts", self.shifts),
            )
            if v
        ]
        pairs += [("pit", p) for p in self.pit] + [("table", t) for t in self.table]
        return urlencode(pairs + list(extra.items()))

    def report(self, store: FloorStore) -> Report:
        """Raises: ReportError, FloorUnavailable (as :func:`floor.report_cli.make_report`)."""
        if self._bad_by is not None:
            raise ReportError(f"by {self._bad_by!r}: one of {', '.join(LEVELS)}")
        day = self.day
        if not (self.start or day or self.shift):
            day = today(tz=self.tz, shifts=self.shifts)
        return make_report(
            FloorSource(store),
            start=self.start,
            end=self.to,
            day=day,
            shift=self.shift,
            group=self.group,
            shifts=self.shifts,
            tz=self.tz,
            pits=self.pit,
            tables=self.table,
        )


def today(*, tz: str | None, shifts: str | None) -> str:
    """The gaming day now (before the first shift start, it is still yesterday's)."""
    zone_info = zone(tz)
    first = shift_starts(shifts or DEFAULT_SHIFTS)[0]
    now = datetime.now(UTC).astimezone(zone_info)
    since = timedelta(hours=first.hour, minutes=first.minute)
    return (now - since).date().isoformat()


def _status(exc: FloorError) -> int:
    return 503 if isinstance(exc, FloorUnavailable) else 400


def reports_router(*, store: Callable[[], FloorStore]) -> APIRouter:
    """The reports endpoints, reading the floor store ``store()`` returns (the floor service's own)."""
    router = APIRouter()

    def floor_store() -> FloorStore:
        return store()

    # Plain ``def`` endpoints: FastAPI runs them in its thread pool, so the database reads never block the loop.
    @router.get("/api/reports", response_model=None)
    def api_reports(
        params: Annotated[_Params, Depends()],
        floor: Annotated[FloorStore, Depends(floor_store)],
        format: str = "json",
    ) -> Response:
        if format not in ("json", "csv"):
            return JSONResponse({"detail": f"format {format!r}: json or csv"}, status_code=400)
        try:
            report = params.report(floor)
        except FloorError as exc:
            return JSONResponse({"detail": str(exc)}, status_code=_status(exc))
        if format == "csv":
            name = f"report-{report.start[:16]}-{report.end[:16]}.csv".replace(":", "")
            return Response(
                report.to_csv(by=params.by),
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="{name}"'},
            )
        return JSONResponse(report.to_json(by=params.by))

    @router.get("/reports", response_class=HTMLResponse)
    def reports_page(
        params: Annotated[_Params, Depends()],
        floor: Annotated[FloorStore, Depends(floor_store)],
    ) -> HTMLResponse:
        if params.day or params.shift:  # the form keeps its from/to fields filled: a day chosen replaces them
            params.start = params.to = None
        try:
            report = params.report(floor)
        except FloorError as exc:
            return HTMLResponse(_page(params, None, error=str(exc)), status_code=_status(exc))
        return HTMLResponse(_page(params, report, error=None))

    # The page's style is a file of its own: the service's Content-Security-Policy forbids inline styles.
    @router.get("/reports.css")
    def reports_css() -> Response:
        return Response(_STYLE, media_type="text/css; charset=utf-8")

    return router


_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#111}
form{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin-bottom:1rem}
label{display:flex;flex-direction:column;font-size:.85rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child,td.game{text-align:left}
tr.total td{font-weight:bold;border-top:2px solid #111}
nav a{font-size:.9rem}
.error{color:#a00;font-weight:bold}
"""


def _page(params: _Params, report: Report | None, *, error: str | None) -> str:
    e = html.escape
    options = "".join

    def select(name: str, values: tuple[str, ...], chosen: str) -> str:
        items = options(f"<option{' selected' if v == chosen else ''}>{e(v)}</option>" for v in values)
        return f'<label>{e(name)}<select name="{e(name)}">{items}</select></label>'

    form = (
        '<form method="get" action="reports">'
        f'<label>from<input type="datetime-local" name="from" value="{e(params.start or "")}"></label>'
        f'<label>to<input type="datetime-local" name="to" value="{e(params.to or "")}"></label>'
        f'<label>or day<input type="date" name="day" value="{e(params.day or "")}"></label>'
        + select("group", ("range", "day", "shift"), params.group)
        + select("by", ("table", "pit", "floor"), params.by)
        + f'<label>time zone<input name="tz" value="{e(params.tz or "")}" placeholder="the server\'s"></label>'
        + '<button type="submit">Show</button></form>'
    )
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Floor reports</title>"]
    parts.append(
        '<link rel="stylesheet" href="reports.css"></head><body>'
        f'<nav><a href="floor">Floor</a></nav><h1>Floor reports</h1>{form}'
    )
    if error is not None:
        parts.append(f'<p class="error">{e(error)}</p>')
    if report is not None:
        data = report.to_json()
        parts.append(
            f"<p>{e(data['from'])} to {e(data['to'])} (UTC), times in {e(data['tz'])}. Amounts in each line's "
            "currency; money in two currencies is never added up (a pit or the floor has a line per currency). "
            f'Download <a href="api/reports?{e(params.query(format="csv"))}">CSV</a> or '
            f'<a href="api/reports?{e(params.query(format="json"))}">JSON</a>.</p>'
        )
        periods: dict[str, list[dict[str, Any]]] = {}
        for row in data["rows"]:
            periods.setdefault(row["period"], []).append(row)
        for label, rows in periods.items():
            chosen = [r for r in rows if r["level"] == params.by and params.by != "floor"]
            parts.append(f"<h2>{e(label)}</h2>")
            parts.append(_table(chosen, [r for r in rows if r["level"] == "floor"]))
        if len(periods) > 1:
            parts.append("<h2>Whole range</h2>" + _table([], data["totals"]))
        parts.append(_tilts(report.tilts_by_kind()))
    parts.append("</body></html>")
    return "".join(parts)


def _table(rows: list[dict[str, Any]], totals: list[dict[str, Any]]) -> str:
    """The rows, then the floor's total line per currency."""
    e = html.escape
    head = "".join(f"<th>{e(title)}</th>" for _, title in TEXT_COLUMNS)
    out = [f"<table><thead><tr><th>Table</th><th>Game</th>{head}</tr></thead><tbody>"]
    for row in [*rows, *totals]:
        cells = text_cells(row)
        is_total = any(row is t for t in totals)
        name = "Total" if is_total else row_name(row)
        css = " class=total" if is_total else ""
        out.append(
            f'<tr{css}><td>{e(name)}</td><td class="game">{e(row["game"] or "-")}</td>'
            + "".join(f"<td>{e(cells[key])}</td>" for key, _ in TEXT_COLUMNS)
            + "</tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)


def _tilts(by_kind: dict[str, dict[str, Any]]) -> str:
    e = html.escape
    if not by_kind:
        return "<p>No tilts.</p>"
    rows = "".join(
        f"<tr><td>{e(kind)}</td><td>{s['raised']}</td><td>{s['cleared']}</td><td>{s['open']}</td>"
        f"<td>{e(s['avg_clear_s'] or '-')}</td><td>{e(s['max_clear_s'] or '-')}</td></tr>"
        for kind, s in by_kind.items()
    )
    return (
        "<h2>Tilts by kind</h2><table><thead><tr><th>Kind</th><th>Raised</th><th>Cleared</th><th>Open</th>"
        f"<th>Avg clear s</th><th>Longest s</th></tr></thead><tbody>{rows}</tbody></table>"
    )
