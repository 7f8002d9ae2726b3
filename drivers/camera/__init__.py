"""Camera frame sources: one base class, the backend chosen by a source string from configuration."""

# Backends are imported when chosen, so naming a source string does not load OpenCV or the deck.

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from drivers.camera.base import Frame, FrameSource
from drivers.camera.errors import CameraError

__all__ = ["CameraError", "Frame", "FrameSource", "open_frame_source"]

_STREAM_SCHEMES = ("rtsp", "rtsps", "http", "https", "rtmp", "udp", "tcp")


def open_frame_source(spec: str | int, *, loop: bool = False) -> FrameSource:
    """Open the frame source a configuration names.

    - ``0``, ``"0"``: camera device index; ``"/dev/video2"``: a V4L2 device path;
    - ``"rtsp://…"``, ``"http://…"``: a network stream, reopened when it drops;
    - a folder: its images in name order (``loop`` repeats them);
    - a file: a video file (ends at its last frame);
    - ``"sim://"``: the simulated camera with the default deck and an empty table; options as a
      query, e.g. ``sim://?width=1280&height=720&seed=3&frames=100&deck=/path/deck.npz``.

    Raises:
        CameraError: unknown scheme, missing file or folder, or the source cannot be opened.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        from drivers.camera.opencv import CaptureSource

        return CaptureSource(target=int(spec))
    text = spec.strip()
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme == "sim":
        return _open_sim(parse_qs(parts.query))
    if scheme in _STREAM_SCHEMES:
        from drivers.camera.opencv import CaptureSource

        return CaptureSource(target=text, reconnect=True)
    if scheme and len(scheme) > 1:
        raise CameraError(f"{text}: unknown camera source scheme {scheme!r}")
    path = Path(text)
    if text.startswith("/dev/"):
        from drivers.camera.opencv import CaptureSource

        return CaptureSource(target=text)
    if path.is_dir():
        from drivers.camera.folder import FolderSource

        return FolderSource(folder=path, loop=loop)
    if path.is_file():
        from drivers.camera.opencv import CaptureSource

        return CaptureSource(target=text, finite=True)
    raise CameraError(f"{text}: no such camera source (not a device, URL, folder or file)")


def _open_sim(query: dict[str, list[str]]) -> FrameSource:
    from drivers.camera.sim import SimulatedCamera, TableView
    from vision.deck import default_deck, load_deck
    from vision.errors import DeckError

    known = {"width", "height", "seed", "frames", "deck", "keystone"}
    unknown = sorted(set(query) - known)
    if unknown:
        raise CameraError(f"sim://: unknown option {unknown[0]!r} (known: {', '.join(sorted(known))})")

    def number(key: str, default: float) -> float:
        try:
            return float(query[key][-1]) if key in query else default
        except ValueError:
            raise CameraError(f"sim://: option {key} must be a number") from None

    try:
        deck = load_deck(Path(query["deck"][-1])) if "deck" in query else default_deck()
    except DeckError as exc:
        raise CameraError(f"sim://: {exc}") from exc
    view = TableView(
        width_px=int(number("width", 1920)),
        height_px=int(number("height", 1080)),
        keystone=number("keystone", 0.0),
    )
    if not (64 <= view.width_px <= 8192 and 64 <= view.height_px <= 8192):
        raise CameraError("sim://: width and height must be between 64 and 8192")
    frames = int(number("frames", -1))
    return SimulatedCamera(deck=deck, view=view, seed=int(number("seed", 0)), frames=None if frames < 0 else frames)
