"""A folder of still images played as a camera, in file-name order (optionally looping)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import cv2
import numpy as np

from drivers.camera.base import ByteImage, FrameSource
from drivers.camera.errors import CameraError

IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")


class FolderSource(FrameSource):
    """Every image in a folder, sorted by name; ends after the last unless ``loop``."""

    def __init__(self, *, folder: Path, loop: bool = False) -> None:
        """List the images.

        Raises:
            CameraError: the folder is missing or holds no images.
        """
        super().__init__(name=str(folder))
        if not folder.is_dir():
            raise CameraError(f"{folder}: no such folder")
        self._paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._paths:
            raise CameraError(f"{folder}: no images in the folder")
        self._loop = loop
        self._next = 0

    def _grab(self) -> ByteImage | None:
        if self._next >= len(self._paths):
            if not self._loop:
                return None
            self._next = 0
        path = self._paths[self._next]
        self._next += 1
        data = np.fromfile(str(path), dtype=np.uint8)
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if image is None:
            raise CameraError(f"{path}: cannot decode as an image")
        return np.asarray(image, dtype=np.uint8)
