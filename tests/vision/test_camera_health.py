"""The camera lamp's state as the displays show it, from the link's health (no camera needed)."""

from __future__ import annotations

import pytest

from vision.link_health import STALE_AFTER, LinkHealth


@pytest.mark.parametrize(
    ("health", "lamp"),
    [
        (LinkHealth(state="idle", frames=0), "starting"),
        (LinkHealth(state="running", frames=0, running_for=0.5), "starting"),  # no frame yet, not for long
        (LinkHealth(state="running", frames=0, running_for=STALE_AFTER + 1), "stale"),  # never a frame
        (LinkHealth(state="running", frames=40, last_frame_age=0.03, running_for=9.0), "ok"),
        (LinkHealth(state="running", frames=40, last_frame_age=STALE_AFTER - 0.1, running_for=9.0), "ok"),
        (LinkHealth(state="running", frames=40, last_frame_age=STALE_AFTER + 0.1, running_for=9.0), "stale"),
        (LinkHealth(state="stopped", frames=40, last_frame_age=0.03), "stopped"),
        (LinkHealth(state="failed", frames=40, last_frame_age=0.03, failure="unplugged"), "lost"),
    ],
)
def test_the_lamp_follows_the_links_state_and_the_last_frames_age(health: LinkHealth, lamp: str) -> None:
    assert health.lamp() == lamp


def test_a_slower_camera_is_stale_later() -> None:
    health = LinkHealth(state="running", frames=3, last_frame_age=4.0, running_for=20.0)
    assert health.lamp() == "stale"
    assert health.lamp(stale_after=6.0) == "ok"
