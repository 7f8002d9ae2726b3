"""Errors raised by frame sources."""

from __future__ import annotations

from vision.errors import VisionError


class CameraError(VisionError):
    """A frame source cannot be opened, or has stopped delivering frames for good."""
