"""Frame sources: folder, capture (file, device failure, stream reconnection), factory and sim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from drivers.camera import CameraError, open_frame_source
from drivers.camera.folder import FolderSource
from drivers.camera.opencv import CaptureSource
from drivers.camera.sim import Scene, SimCard, SimulatedCamera, TableView
from vision.deck import default_deck


def _write_images(folder: Path, count: int) -> None:
    for i in range(count):
        img = np.full((40, 60, 3), i * 40, np.uint8)
        cv2.imwrite(str(folder / f"f{i:02d}.png"), img)


def test_folder_plays_images_in_name_order_then_ends(tmp_path: Path) -> None:
    _write_images(tmp_path, 3)
    with FolderSource(folder=tmp_path) as source:
        frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2]
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 40, 80]


def test_folder_loop_repeats(tmp_path: Path) -> None:
    _write_images(tmp_path, 2)
    source = FolderSource(folder=tmp_path, loop=True)
    values = [int(source.read().image[0, 0, 0]) for _ in range(5)]  # type: ignore[union-attr]
    assert values == [0, 40, 0, 40, 0]


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no images"):
        FolderSource(folder=tmp_path)
    with pytest.raises(CameraError, match="no such folder"):
        FolderSource(folder=tmp_path / "missing")
    (tmp_path / "bad.png").write_bytes(b"not a png")
    source = FolderSource(folder=tmp_path)
    with pytest.raises(CameraError, match="cannot decode"):
        source.read()


def test_closed_source_refuses_reads(tmp_path: Path) -> None:
    _write_images(tmp_path, 1)
    source = FolderSource(folder=tmp_path)
    source.close()
    with pytest.raises(CameraError, match="closed"):
        source.read()


def test_video_file_plays_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for i in range(4):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    with open_frame_source(str(path)) as source:
        frames = list(source)
    assert len(frames) == 4
    assert frames[0].image.shape == (48, 64, 3)


class _FakeCapture:
    """Plays a script: each entry is 'open-fail', or a number of frames before the stream drops."""

    def __init__(self, opened: bool, frames: int) -> None:
        self._opened = opened
        self._frames = frames

    def isOpened(self) -> bool:
        return self._opened

    def read(self) -> tuple[bool, Any]:
        if self._frames <= 0:
            return False, None
        self._frames -= 1
        return True, np.zeros((8, 8, 3), np.uint8)

    def release(self) -> None:
        self._opened = False


def _factory(script: list[int | str]) -> Any:
    def make(_target: str | int) -> _FakeCapture:
        step = script.pop(0)
        return _FakeCapture(False, 0) if step == "fail" else _FakeCapture(True, int(step))

    return make


def test_stream_reconnects_after_a_drop_with_backoff() -> None:
    sleeps: list[float] = []
    source = CaptureSource(
        target="rtsp://camera/1",
        reconnect=True,
        max_retries=3,
        retry_delay_s=0.5,
        capture_factory=_factory([2, "fail", "fail", 3]),
        sleep=sleeps.append,
    )
    got = [source.read() is not None for _ in range(5)]
    assert got == [True] * 5
    assert source.reconnections == 1
    assert sleeps == [0.5, 1.0]


def test_stream_gives_up_after_its_retries() -> None:
    source = CaptureSource(
        target="rtsp://camera/1",
        reconnect=True,
        max_retries=2,
        capture_factory=_factory([1, "fail", "fail", "fail"]),
        sleep=lambda _s: None,
    )
    assert source.read() is not None
    with pytest.raises(CameraError, match="cannot open"):
        source.read()


def test_device_that_stops_is_an_error() -> None:
    source = CaptureSource(target=0, capture_factory=_factory([1]))
    assert source.read() is not None
    with pytest.raises(CameraError, match="stopped"):
        source.read()


def test_factory_rejects_bad_specs(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="unknown camera source scheme"):
        open_frame_source("ftp://x/y")
    with pytest.raises(CameraError, match="no such camera source"):
        open_frame_source(str(tmp_path / "nothing.mp4"))
    with pytest.raises(CameraError, match="unknown option"):
        open_frame_source("sim://?colour=red")
    with pytest.raises(CameraError, match="must be a number"):
        open_frame_source("sim://?width=wide")
    with pytest.raises(CameraError, match="not a deck profile"):
        (tmp_path / "deck.npz").write_bytes(b"junk")
        open_frame_source(f"sim://?deck={tmp_path / 'deck.npz'}")


def test_factory_opens_sim_and_folder(tmp_path: Path) -> None:
    with open_frame_source("sim://?width=320&height=200&frames=2") as sim:
        frames = list(sim)
    assert len(frames) == 2 and frames[0].image.shape == (200, 320, 3)
    _write_images(tmp_path, 1)
    assert isinstance(open_frame_source(str(tmp_path)), FolderSource)


def test_simulated_camera_shows_the_scene_it_is_given() -> None:
    deck = default_deck()
    camera = SimulatedCamera(deck=deck, view=TableView(width_px=640, height_px=360))
    empty = camera.read()
    camera.scene = Scene(cards=(SimCard(code="As", x_mm=500, y_mm=280),))
    with_card = camera.read()
    assert empty is not None and with_card is not None
    centre = with_card.image[170:190, 310:330].astype(int)
    # The felt is green; the middle of a face-up ace is white paper.
    assert empty.image[180, 320, 1] > empty.image[180, 320, 2]
    assert centre.mean() > 180
    camera.scene = Scene(cards=(SimCard(code="Zz", x_mm=500, y_mm=280),))
    with pytest.raises(CameraError, match="no card"):
        camera.read()
