"""A simulated camera (the sim:// backend) over a small layout, run by a real camera link, with a gate that
freezes it: what the display and floor tests of the camera's health share."""

from __future__ import annotations

import threading

from controller.table import TableService
from drivers.camera.base import ByteImage, FrameSource
from drivers.camera.sim import Scene, SimCard, SimulatedCamera, TableView
from vision.calibration import Calibration
from vision.camera_only import CameraOnlySettings
from vision.config import ZoneConfig
from vision.deck import default_deck
from vision.link import CameraLink, LinkSettings

VIEW = TableView(width_px=1280, height_px=720, table_w_mm=700, table_h_mm=394)


def rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


ZONES = [
    ZoneConfig(name="dealer", kind="dealer", polygon_mm=rect(200, 10, 500, 120)),
    ZoneConfig(name="board", kind="board", polygon_mm=rect(150, 128, 550, 232)),
    *(ZoneConfig(name=f"box{n}", polygon_mm=rect(x, 260, x + 200, 390)) for n, x in ((1, 20), (2, 250), (3, 480))),
]
SCENE = Scene(
    cards=(
        SimCard(code="9h", x_mm=300, y_mm=325, face_up=False),
        SimCard(code="Kd", x_mm=370, y_mm=325, face_up=False),
        SimCard(code="4c", x_mm=330, y_mm=65, face_up=True),
    )
)


class Gate(FrameSource):
    """The simulated camera until the gate closes: then no frame comes (a camera that froze)."""

    def __init__(self, camera: SimulatedCamera) -> None:
        super().__init__(name="sim:// (gated)")
        self.camera = camera
        self.open = threading.Event()
        self.open.set()
        self.waiting = threading.Event()  # set once a read found the gate closed

    def _grab(self) -> ByteImage | None:
        if not self.open.is_set():
            self.waiting.set()
            self.open.wait()
        frame = self.camera.read()
        return None if frame is None else frame.image

    def _release(self) -> None:
        self.open.set()


# Seven boxes side by side (a full table's zones, for the widest camera strip a display shows).
SEVEN_BOXES = [
    *ZONES[:2],
    *(
        ZoneConfig(name=f"box{n}", polygon_mm=rect(10 + 97 * (n - 1), 260, 100 + 97 * (n - 1), 390))
        for n in range(1, 8)
    ),
]


def camera_link(
    table: TableService, *, deals: bool = False, zones: list[ZoneConfig] = ZONES
) -> tuple[CameraLink, Gate]:
    deck = default_deck()
    camera = SimulatedCamera(deck=deck, view=VIEW, scene=SCENE, seed=1)
    gate = Gate(camera)
    settings = LinkSettings(max_fps=10.0, camera_only=CameraOnlySettings() if deals else None)
    calibration = Calibration(homography=VIEW.homography(), rms_px=0.0)
    link = CameraLink(table=table, source=gate, deck=deck, calibration=calibration, zones=zones, settings=settings)
    return link, gate
