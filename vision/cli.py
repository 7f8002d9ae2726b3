"""``dealer-assist vision …``: register a deck design and read the cards in an image."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from vision.errors import VisionError

ERRORS: tuple[type[BaseException], ...] = (VisionError,)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``vision`` command group."""
    parser = subparsers.add_parser("vision", help="camera card recognition: decks and reading images")
    commands = parser.add_subparsers(dest="vision_command", required=True, metavar="SUBCOMMAND")

    reg = commands.add_parser(
        "register-deck",
        help="build a deck profile from 52 face images named by code (As.png, Td.png, ...) and a back",
    )
    reg.add_argument("faces", type=Path, metavar="DIR", help="folder with the 52 face images")
    reg.add_argument("--back", type=Path, required=True, metavar="BACK.png", help="image of the card back")
    reg.add_argument("--out", type=Path, required=True, metavar="deck.npz", help="profile to write")
    reg.add_argument("--name", help="name of the design (default: the folder's name)")
    reg.set_defaults(run=_register_deck)

    read = commands.add_parser("read", help="print every card found in an image, one JSON line each")
    read.add_argument("image", type=Path, metavar="IMAGE")
    read.add_argument("--deck", type=Path, metavar="deck.npz", help="deck profile (default: the shipped deck)")
    read.add_argument("--config", type=Path, metavar="table.toml", help="table configuration: adds each card's zone")
    read.add_argument("--debug", type=Path, metavar="OUT.png", help="also draw what was found (cards, zones, stages)")
    read.set_defaults(run=_read)

    render = commands.add_parser("render", help="draw a test frame of a known layout with the simulated camera")
    render.add_argument("--config", type=Path, required=True, metavar="table.toml", help="table configuration (zones)")
    render.add_argument("--deck", type=Path, metavar="deck.npz", help="deck profile (default: the shipped deck)")
    render.add_argument(
        "--cards", required=True, metavar="LAYOUT", help='cards per zone, e.g. "box1=As,Kd;dealer=back,back"'
    )
    render.add_argument("--out", type=Path, required=True, metavar="frame.png", help="image to write")
    render.set_defaults(run=_render)


def _register_deck(args: argparse.Namespace) -> int:
    from vision.deck import register_deck, save_deck

    profile = register_deck(faces_dir=args.faces, back_path=args.back, name=args.name)
    save_deck(profile, args.out)
    box = profile.index_box
    print(
        f"registered {profile.name!r}: 52 faces and a back -> {args.out} "
        f"(index box {box.x0:.3f},{box.y0:.3f}-{box.x1:.3f},{box.y1:.3f} of the card)"
    )
    return 0


def _read(args: argparse.Namespace) -> int:
    from vision.calibration import Calibration, ZoneMap, calibrate_markers, calibrate_points
    from vision.config import load_table_vision
    from vision.deck import default_deck, load_deck, read_image
    from vision.errors import ConfigError
    from vision.lens import Lens
    from vision.recognize import Recognizer, RecognizerSettings

    zones = None
    calibration: Calibration | None = None
    settings = RecognizerSettings()
    deck_path: Path | None = args.deck
    if args.config is not None:
        config = load_table_vision(args.config)
        settings = RecognizerSettings.from_config(config.vision)
        if deck_path is None and config.vision.deck is not None:
            deck_path = args.config.parent / config.vision.deck  # relative to the configuration
    deck = load_deck(deck_path) if deck_path is not None else default_deck()
    image = read_image(args.image)
    if args.config is not None:
        k1 = config.vision.lens_k1
        if config.vision.markers:
            calibration = calibrate_markers(image, config.vision.markers, lens_k1=k1)
        elif config.vision.points:
            lens = None if k1 is None else Lens(k1=k1, width=image.shape[1], height=image.shape[0])
            calibration = calibrate_points(config.vision.points, lens=lens)
        else:
            raise ConfigError(f"{args.config}: [vision] needs markers or points to place the zones")
        zones = ZoneMap.build(config.zones, calibration)
        settings = settings.sized_by(calibration, config.zones)
    from vision.recognize import Trace

    trace = Trace()
    # With a configuration, the calibrated path a table's camera link runs (the plane rectified).
    reading = Recognizer(deck=deck, settings=settings, calibration=calibration).read(image, trace=trace)
    if args.debug is not None:
        from vision.debug import draw_debug

        _write_image(args.debug, draw_debug(image, reading, trace, zones=zones))
    for card in reading.cards:
        line: dict[str, object] = {
            "code": card.code,
            "confidence": round(card.confidence, 3),
            "corners": [[round(x, 1), round(y, 1)] for x, y in card.corners],
        }
        if zones is not None:
            line["zone"] = zones.zone_of(card.center)
        print(json.dumps(line))
    return 0


def _write_image(path: Path, image: Any) -> None:
    import cv2

    from vision.errors import ImageError

    try:
        ok = cv2.imwrite(str(path), image)
    except cv2.error as exc:
        raise ImageError(f"{path}: cannot write the image ({exc.err})") from exc
    if not ok:
        raise ImageError(f"{path}: cannot write the image (unknown extension or unwritable folder)")


def _render(args: argparse.Namespace) -> int:
    from vision.config import load_table_vision
    from vision.deck import default_deck, load_deck
    from vision.render import parse_layout, render_layout

    config = load_table_vision(args.config)
    deck = load_deck(args.deck) if args.deck is not None else default_deck()
    layout = parse_layout(args.cards, zones=[z.name for z in config.zones])
    _write_image(args.out, render_layout(config, deck, layout))
    placed = sum(len(cards) for cards in layout.values())
    print(f"rendered {placed} card(s) in {len(layout)} zone(s) -> {args.out}")
    return 0
