"""Calibration from points and from ArUco markers, the bumped-camera check, zones and config."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from drivers.camera.sim import Marker, Scene, SimHand, TableRenderer, TableView, to_px
from vision.calibration import ZoneMap, calibrate_markers, calibrate_points, check_camera
from vision.config import MarkerConfig, PointConfig, ZoneConfig, load_table_vision
from vision.deck import DeckProfile
from vision.errors import CalibrationError, ConfigError
from vision.lens import Lens

MARKERS = [
    MarkerConfig(id=0, x_mm=40, y_mm=40),
    MarkerConfig(id=1, x_mm=960, y_mm=40),
    MarkerConfig(id=2, x_mm=960, y_mm=520),
    MarkerConfig(id=3, x_mm=40, y_mm=520),
]


def _sim_markers() -> list[Marker]:
    return [Marker(id=m.id, x_mm=m.x_mm, y_mm=m.y_mm, size_mm=m.size_mm) for m in MARKERS]


def test_points_give_the_true_homography() -> None:
    view = TableView(width_px=1280, height_px=720, keystone=0.1, roll_deg=2.0)
    truth = view.homography()
    mm = np.array([[60, 60], [940, 60], [940, 500], [60, 500], [500, 280], [250, 400]], dtype=np.float64)
    px = (truth @ np.c_[mm, np.ones(len(mm))].T).T
    px = px[:, :2] / px[:, 2:]
    points = [PointConfig(x_mm=a, y_mm=b, u_px=u, v_px=v) for (a, b), (u, v) in zip(mm, px, strict=True)]
    cal = calibrate_points(points)
    assert cal.rms_px < 0.01
    assert cal.to_px([[700.0, 100.0]]) == pytest.approx(_apply(truth, 700, 100), abs=0.01)
    assert cal.to_mm(cal.to_px([[123.0, 456.0]]))[0] == pytest.approx([123.0, 456.0], abs=1e-6)


def _apply(h: np.ndarray, x: float, y: float) -> np.ndarray:
    v = h @ np.array([x, y, 1.0])
    return (v[:2] / v[2]).reshape(1, 2)


def test_too_few_or_collinear_points_are_refused() -> None:
    three = [PointConfig(x_mm=i, y_mm=0, u_px=i, v_px=0) for i in (0, 10, 20)]
    with pytest.raises(CalibrationError, match="at least 4"):
        calibrate_points(three)
    line = [PointConfig(x_mm=i, y_mm=2 * i, u_px=i, v_px=i) for i in (0, 10, 20, 30, 40)]
    with pytest.raises(CalibrationError, match="collinear"):
        calibrate_points(line)


def test_markers_calibrate_and_notice_a_bumped_camera(kennard: DeckProfile) -> None:
    view = TableView(width_px=1280, height_px=720, keystone=0.08)
    frame = TableRenderer(deck=kennard, view=view, markers=_sim_markers()).render(Scene())
    cal = calibrate_markers(frame, MARKERS)
    assert len(cal.markers_px) == 4
    # The marker homography matches the simulator's own to within a pixel over the table.
    for x, y in ((100, 100), (500, 280), (900, 500)):
        assert cal.to_px([[x, y]]) == pytest.approx(_apply(view.homography(), x, y), abs=1.5)
    same = check_camera(cal, frame, tolerance_px=3.0)
    assert not same.moved and same.markers_seen == 4
    bumped_view = TableView(width_px=1280, height_px=720, keystone=0.08, roll_deg=1.5)
    bumped = TableRenderer(deck=kennard, view=bumped_view, markers=_sim_markers()).render(Scene())
    check = check_camera(cal, bumped, tolerance_px=3.0)
    assert check.moved and check.shift_px > 3.0


def test_a_hand_over_a_marker_is_not_a_bump(kennard: DeckProfile) -> None:
    view = TableView(width_px=1280, height_px=720)
    renderer = TableRenderer(deck=kennard, view=view, markers=_sim_markers())
    cal = calibrate_markers(renderer.render(Scene()), MARKERS)
    covered = renderer.render(Scene(hands=(SimHand(x_mm=40, y_mm=60, angle_deg=90),)))
    check = check_camera(cal, covered, tolerance_px=3.0)
    assert not check.moved and check.markers_seen == 3


def test_no_markers_in_view_is_an_error(kennard: DeckProfile) -> None:
    frame = TableRenderer(deck=kennard, view=TableView(width_px=640, height_px=360)).render(Scene())
    with pytest.raises(CalibrationError, match="no calibration marker"):
        calibrate_markers(frame, MARKERS)
    cal = calibrate_points([PointConfig(x_mm=x, y_mm=y, u_px=x, v_px=y) for x, y in ((0, 0), (9, 0), (9, 9), (0, 9))])
    with pytest.raises(CalibrationError, match="no markers"):
        check_camera(cal, frame, tolerance_px=3.0)


def test_zone_lookup() -> None:
    cal = calibrate_points(
        [PointConfig(x_mm=x, y_mm=y, u_px=2 * x, v_px=2 * y) for x, y in ((0, 0), (9, 0), (9, 9), (0, 9))]
    )
    zones = ZoneMap.build(
        [
            ZoneConfig(name="box1", polygon_mm=[(0, 0), (100, 0), (100, 100), (0, 100)]),
            ZoneConfig(name="dealer", kind="dealer", polygon_mm=[(200, 0), (300, 0), (300, 100)]),
        ],
        cal,
    )
    assert zones.zone_of((100.0, 100.0)) == "box1"
    assert zones.zone_of((590.0, 20.0)) == "dealer"
    assert zones.zone_of((1000.0, 1000.0)) is None


GOOD = """
[table]
name = "T1"  # other parts of the controller's configuration are not vision's business

[vision]
camera = "sim://"
vote_frames = 5
vote_needed = 3

[[vision.markers]]
id = 0
x_mm = 40
y_mm = 40

[[zones]]
name = "box1"
polygon_mm = [[0, 0], [100, 0], [100, 100], [0, 100]]

[[zones]]
name = "dealer"
kind = "dealer"
polygon_mm = [[200, 0], [300, 0], [300, 100]]
"""


def test_config_loads(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(GOOD)
    config = load_table_vision(path)
    assert [z.name for z in config.zones] == ["box1", "dealer"]
    assert config.vision.markers[0].id == 0
    from vision.recognize import RecognizerSettings
    from vision.tracking import TrackerSettings

    tracker = TrackerSettings.from_config(config.vision.model_copy(update={"absent_frames": 9}))
    assert (tracker.vote_frames, tracker.vote_needed, tracker.absent_frames) == (5, 3, 9)
    assert RecognizerSettings.from_config(config.vision).accept_score == config.vision.accept_score


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("vote_frames = 5", "vote_frames = 0"), "vision.vote_frames"),
        (("vote_needed = 3", "vote_needed = 9"), "vote_needed must not exceed"),
        (('camera = "sim://"', 'camera = "sim://"\nzoom = 2'), "vision.zoom"),
        (('kind = "dealer"', 'kind = "bar"'), "zones.1.kind"),
        (('name = "dealer"', 'name = "box1"'), "zone names must be distinct"),
        (("[[0, 0], [100, 0], [100, 100], [0, 100]]", "[[0, 0], [1, 1]]"), "zones.0.polygon_mm"),
        (("x_mm = 40", 'x_mm = "left"'), "vision.markers.0.x_mm"),
        (("[vision]", "[vision"), "not valid TOML"),
    ],
)
def test_bad_config_names_the_key(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    path = tmp_path / "table.toml"
    path.write_text(GOOD.replace(*change, 1))
    with pytest.raises(ConfigError, match=message):
        load_table_vision(path)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_table_vision(tmp_path / "nope.toml")


# ------------------------------------------------------------------ the lens


WIDE = [
    *MARKERS,
    MarkerConfig(id=4, x_mm=500, y_mm=40),
    MarkerConfig(id=5, x_mm=960, y_mm=280),
    MarkerConfig(id=6, x_mm=500, y_mm=520),
    MarkerConfig(id=7, x_mm=40, y_mm=280),
]


def _wide_frame(kennard: DeckProfile, k1: float) -> tuple[TableRenderer, np.ndarray]:
    view = TableView(tilt_deg=20.0, distortion_k1=k1)
    markers = [Marker(id=m.id, x_mm=m.x_mm, y_mm=m.y_mm, size_mm=m.size_mm) for m in WIDE]
    renderer = TableRenderer(deck=kennard, view=view, markers=markers)
    return renderer, renderer.render(Scene())


def test_markers_measure_a_wide_lens_and_then_fit_the_layout(kennard: DeckProfile) -> None:
    renderer, frame = _wide_frame(kennard, -0.06)
    cal = calibrate_markers(frame, WIDE)
    assert cal.lens is not None and cal.lens.k1 == pytest.approx(-0.06, abs=0.012)
    pinhole = calibrate_markers(frame, WIDE, lens_k1=0.0)
    assert pinhole.lens is not None and pinhole.lens.k1 == 0.0
    # Card corners all over the layout: where the simulator put them, within a pixel and a half
    # through the measured lens; several pixels off through a homography alone.
    mm = np.array([[x, y] for x in (80.0, 300.0, 500.0, 700.0, 920.0) for y in (60.0, 280.0, 500.0)])
    truth = renderer.lens.distort(to_px(renderer.homography, mm))
    assert np.abs(cal.to_px(mm) - truth).max() < 1.5
    assert np.abs(pinhole.to_px(mm) - truth).max() > 4.0
    assert cal.to_mm(cal.to_px(mm)) == pytest.approx(mm, abs=1e-3)


def test_a_pinhole_camera_is_not_given_a_lens(kennard: DeckProfile) -> None:
    _renderer, frame = _wide_frame(kennard, 0.0)
    assert calibrate_markers(frame, WIDE).lens is None
    # Four markers near the frame's middle cannot tell a barrel from the homography's own freedom.
    near = [
        MarkerConfig(id=i, x_mm=x, y_mm=y) for i, (x, y) in enumerate([(400, 200), (600, 200), (600, 360), (400, 360)])
    ]
    view = TableView(distortion_k1=-0.06)
    markers = [Marker(id=m.id, x_mm=m.x_mm, y_mm=m.y_mm, size_mm=m.size_mm) for m in near]
    frame = TableRenderer(deck=kennard, view=view, markers=markers).render(Scene())
    assert calibrate_markers(frame, near).lens is None


def test_a_configured_lens_is_taken_as_given() -> None:
    points = [PointConfig(x_mm=x, y_mm=y, u_px=x, v_px=y) for x, y in [(0, 0), (1000, 0), (1000, 500), (0, 500)]]
    cal = calibrate_points(points, lens=Lens(k1=-0.04, width=1920, height=1080))
    assert cal.lens == Lens(k1=-0.04, width=1920, height=1080)
    assert cal.to_mm(cal.to_px([[250.0, 125.0]])) == pytest.approx(np.array([[250.0, 125.0]]), abs=1e-3)
