"""A table's camera on the floor: the floor link's status heartbeat carries the camera's health as the
table's real camera link reports it (a simulated camera, sim://), on SQLite and on PostgreSQL; frames that
stop turn it stale there too."""

from __future__ import annotations

from pathlib import Path

from floor import open_store
from floor.link import FloorLink, LinkSettings
from tests.floor.test_link import Table
from tests.vision.camera_kit import camera_link
from tests.waiting import wait_for


def test_the_heartbeat_carries_the_cameras_health_and_a_stale_camera(floor_url: str, tmp_path: Path) -> None:
    with open_store(floor_url) as store:
        store.open_account(name="oasis-link", scope="game", scope_value="oasis", reset=5000, increment=2, cap=60_000)
        table = Table(tmp_path / "a", "Oasis 1")
        bare = Table(tmp_path / "b", "Oasis 2")
        camera, gate = camera_link(table.t)
        link = FloorLink(table=table.t, store=store, settings=LinkSettings(pit="A", heartbeat=0.0))
        other = FloorLink(table=bare.t, store=store, settings=LinkSettings(pit="A"))
        camera.start()
        try:

            def on_floor() -> dict[str, object] | None:
                link.pass_once()
                return {s.name: s for s in store.statuses()}["Oasis 1"].camera

            def running() -> bool:
                cam = on_floor() or {}
                return cam.get("state") == "ok" and float(cam.get("fps") or 0) > 0  # type: ignore[arg-type]

            wait_for(running, "the camera's frames on the floor", timeout=60)
            cam = on_floor()
            assert cam is not None
            assert cam["zones"] == 5 and cam["covered"] == 0
            assert cam["age_s"] is not None and cam["at"]
            other.pass_once()
            assert {s.name: s for s in store.statuses()}["Oasis 2"].camera is None  # no camera, none shown
            version = {s.name: s for s in store.statuses()}["Oasis 1"].version
            gate.open.clear()
            wait_for(lambda: (on_floor() or {}).get("state") == "stale", "the stale camera on the floor", timeout=30)
            stale = {s.name: s for s in store.statuses()}["Oasis 1"]
            assert stale.version > version  # a change the floor service is signalled
            assert stale.camera is not None and float(stale.camera["age_s"]) >= 2.0  # type: ignore[arg-type]
        finally:
            gate.open.set()  # else the link's thread waits on the frozen camera: stop() gives up after 5 s, it runs on
            camera.stop()
            link.stop()
            other.stop()
