"""GET /metrics: scraped by Prometheus from this machine, or from elsewhere with the metrics token."""

from __future__ import annotations

from pathlib import Path

import httpx2
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.web_display.kit import ORIGIN, PASSWORD, live_server, login, make_app, make_table


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_are_scraped_from_this_machine_with_live_clients_and_sign_ins(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    app = make_app(tmp_path, {"T1": table})
    with live_server(app) as server, httpx2.Client(base_url=server.url, timeout=30) as web:
        assert web.post("/api/login", json={"name": "dealer", "password": "wrong-password"}).status_code == 401
        assert web.post("/api/login", json={"name": "dealer", "password": PASSWORD}).status_code == 200
        table.on_card("9s", counter=1)  # an unexpected card: a tilt
        scraped = web.get("/metrics")
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
    got = samples(scraped.text)
    assert got[("dealer_assist_sign_ins_total", (("outcome", "ok"),))] == 1
    assert got[("dealer_assist_sign_ins_total", (("outcome", "failed"),))] == 1
    assert got[("dealer_assist_open_tilts", (("kind", "unexpected-card"), ("table", "T1")))] == 1
    assert got[("dealer_assist_websocket_clients", (("feed", "table"),))] == 0
    assert "9s" not in scraped.text


def test_metrics_from_another_machine_need_the_token(tmp_path: Path) -> None:
    table = make_table(tmp_path / "journal", "oasis", "T1")
    with TestClient(make_app(tmp_path / "a", {"T1": table})) as client:  # its client is "testclient"
        refused = client.get("/metrics")
        assert refused.status_code == 403 and "DEALER_ASSIST_WEB_METRICS_TOKEN" in refused.json()["error"]
    with TestClient(make_app(tmp_path / "b", {"T1": table}, metrics_token="s3cret-scrape")) as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        login(client, "dealer")
        with client.websocket_connect("/ws/tables/T1", headers={"origin": ORIGIN}) as ws:
            ws.receive_text()
            scraped = client.get("/metrics", headers={"Authorization": "Bearer s3cret-scrape"})
    assert scraped.status_code == 200
    assert samples(scraped.text)[("dealer_assist_websocket_clients", (("feed", "table"),))] == 1
