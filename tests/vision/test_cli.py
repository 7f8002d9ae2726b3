"""The vision commands end to end: register a deck, read an image with zones, and refuse bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from controller.cli import main
from drivers.camera.sim import Marker, Scene, SimCard, TableRenderer, TableView
from vision.deck import load_deck

CONFIG = """
[vision]
markers = [
  { id = 0, x_mm = 40, y_mm = 40 }, { id = 1, x_mm = 960, y_mm = 40 },
  { id = 2, x_mm = 960, y_mm = 520 }, { id = 3, x_mm = 40, y_mm = 520 },
]

[[zones]]
name = "box1"
polygon_mm = [[100, 150], [400, 150], [400, 450], [100, 450]]

[[zones]]
name = "dealer"
kind = "dealer"
polygon_mm = [[600, 150], [900, 150], [900, 450], [600, 450]]
"""


def _scene_image(tmp_path: Path, deck_path: Path | None = None) -> Path:
    from vision.deck import default_deck

    deck = load_deck(deck_path) if deck_path else default_deck()
    markers = [Marker(id=i, x_mm=x, y_mm=y) for i, (x, y) in enumerate([(40, 40), (960, 40), (960, 520), (40, 520)])]
    renderer = TableRenderer(deck=deck, view=TableView(keystone=0.05), markers=markers)
    cards = (
        SimCard(code="Ac", x_mm=250, y_mm=300, angle_deg=180),
        SimCard(code="Kd", x_mm=750, y_mm=300, angle_deg=20, face_up=False),
        SimCard(code="7h", x_mm=520, y_mm=100, angle_deg=90),
    )
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), renderer.render(Scene(cards=cards)))
    return path


def test_register_then_read_with_zones(
    second_design_dir: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    faces, back = second_design_dir
    deck = tmp_path / "deck.npz"
    assert main(["vision", "register-deck", str(faces), "--back", str(back), "--out", str(deck), "--name", "t"]) == 0
    assert "registered 't'" in capsys.readouterr().out
    image = _scene_image(tmp_path, deck)
    config = tmp_path / "table.toml"
    # The deck comes from the configuration, relative to it.
    config.write_text(CONFIG.replace("[vision]\n", '[vision]\ndeck = "deck.npz"\n', 1))
    assert main(["vision", "read", str(image), "--config", str(config)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_code = {line["code"]: line for line in lines}
    assert set(by_code) == {"Ac", "back", "7h"}
    assert by_code["Ac"]["zone"] == "box1"
    assert by_code["back"]["zone"] == "dealer"
    assert by_code["7h"]["zone"] is None
    assert len(by_code["Ac"]["corners"]) == 4 and 0.5 <= by_code["Ac"]["confidence"] <= 1


def test_read_without_config_has_no_zone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = _scene_image(tmp_path)
    assert main(["vision", "read", str(image)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(line["code"] for line in lines) == ["7h", "Ac", "back"]
    assert all("zone" not in line for line in lines)


def test_bad_inputs_give_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    garbled = tmp_path / "garbled.png"
    garbled.write_bytes(b"\x89PNG not really")
    bad_deck = tmp_path / "bad.npz"
    bad_deck.write_bytes(b"nope")
    bad_config = tmp_path / "bad.toml"
    bad_config.write_text("[vision]\nvote_frames = -1\n")
    image = _scene_image(tmp_path)
    cases = [
        (["vision", "read", str(tmp_path / "missing.png")], "no such image"),
        (["vision", "read", str(garbled)], "cannot decode"),
        (["vision", "read", str(image), "--deck", str(bad_deck)], "not a deck profile"),
        (["vision", "read", str(image), "--config", str(bad_config)], "vision.vote_frames"),
        (
            [
                "vision",
                "register-deck",
                str(tmp_path),
                "--back",
                str(image),
                "--out",
                str(tmp_path / "x.npz"),
            ],
            "no face image",
        ),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (argv, err)


def test_render_then_read_gives_back_the_named_layout_with_a_debug_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG)
    frame, debug = tmp_path / "frame.png", tmp_path / "debug.png"
    layout = "box1=As,Kd;dealer=back,back"
    assert main(["vision", "render", "--config", str(config), "--cards", layout, "--out", str(frame)]) == 0
    assert "4 card(s) in 2 zone(s)" in capsys.readouterr().out
    assert main(["vision", "read", str(frame), "--config", str(config), "--debug", str(debug)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    seen = sorted((line["zone"], line["code"]) for line in lines)
    assert seen == [("box1", "As"), ("box1", "Kd"), ("dealer", "back"), ("dealer", "back")]
    picture = cv2.imread(str(debug))
    image = cv2.imread(str(frame))
    # The frame with its overlays, and the stages' panels beside it.
    assert picture is not None and picture.shape[0] == image.shape[0] and picture.shape[1] > image.shape[1]
    assert not (picture[:, : image.shape[1]] == image).all()


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("box9=As", "no zone 'box9'"),
        ("box1=Zz", "'Zz' is not a card"),
        ("box1=As;dealer=As", "As is named twice"),
        ("box1", "needs ZONE=CARD"),
    ],
)
def test_render_refuses_a_bad_layout_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cards: str, message: str
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(CONFIG)
    out = tmp_path / "frame.png"
    assert main(["vision", "render", "--config", str(config), "--cards", cards, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err and not out.exists()
