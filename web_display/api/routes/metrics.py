"""``GET /metrics``: Prometheus metrics (counts and states, never a card), for this machine or a token holder."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, Counter, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from web_display.api.deps import StateDep
from web_display.core.security import same_token
from web_display.errors import Forbidden, NotAuthenticated
from web_display.state import AppState

router = APIRouter(tags=["metrics"], include_in_schema=False)


class _Live(Collector):
    """Read at every scrape: live display connections by feed, and each table's open tilts by kind."""

    def __init__(self, state: AppState) -> None:
        self._state = state

    def collect(self) -> Iterator[GaugeMetricFamily]:
        clients = GaugeMetricFamily("dealer_assist_websocket_clients", "Live display connections", labels=["feed"])
        hub = self._state.hub_
        table, floor = hub.client_counts() if hub is not None else (0, 0)
        clients.add_metric(["table"], table)
        clients.add_metric(["floor"], floor)
        yield clients
        tilts = GaugeMetricFamily("dealer_assist_open_tilts", "Tilts open now, by kind", labels=["table", "kind"])
        rounds = GaugeMetricFamily(
            "dealer_assist_round", "The table's current (or last) round number", labels=["table"]
        )
        for name, service in self._state.tables.items():
            kinds: dict[str, int] = {}
            for tilt in list(service.tilts.values()):
                kinds[tilt.kind] = kinds.get(tilt.kind, 0) + 1
            for kind, count in sorted(kinds.items()):
                tilts.add_metric([name, kind], count)
            rounds.add_metric([name], service.round_no)
        yield tilts
        yield rounds


class WebMetrics:
    """The web display's own counters, beside the tables' in the same registry."""

    def __init__(self, state: AppState) -> None:
        registry = state.metrics.registry
        self.sign_ins = Counter(
            "dealer_assist_sign_ins",
            "Sign-in attempts by outcome (ok, failed, throttled, busy)",
            ["outcome"],
            registry=registry,
        )
        registry.register(_Live(state))


def register_app_metrics(state: AppState) -> None:
    """Add the app's metrics to ``state.metrics`` (once per app)."""
    state.web_metrics = WebMetrics(state)


def _this_machine(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@router.get("/metrics")
def scrape(request: Request, state: StateDep) -> Response:
    """The metrics in Prometheus' text format.

    Raises:
        NotAuthenticated: a metrics token is set and the request does not carry it.
        Forbidden: no token is set and the request came from another machine.
    """
    token = state.settings.metrics_token
    if token is not None:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not same_token(given, token.get_secret_value()):
            raise NotAuthenticated("send the metrics token: Authorization: Bearer TOKEN")
    elif not _this_machine(request.client.host if request.client else ""):
        raise Forbidden("/metrics is served to this machine only; set DEALER_ASSIST_WEB_METRICS_TOKEN to scrape it")
    return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)
