"""Build the shipped deck profiles (vision/data/*.npz) from Adrian Kennard's CC0 SVG cards with rsvg-convert.

Run from the repository root: ``.venv/bin/python -m vision.tools.build_default_deck``.
Needs ``npm`` (to fetch the package tarball) and Debian's ``rsvg-convert``
(``apt-get install librsvg2-bin``). The card faces are Adrian Kennard's CC0 designs as shipped in
``@heruka_urgyen/react-playing-cards`` (MIT wrapper); the back is a plain casino back drawn here.
"""

# ruff: noqa: T201 - a command-line tool reports on stdout

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.deck import CODES, register_deck, save_deck

PACKAGE = "@heruka_urgyen/react-playing-cards@0.5.0"
# The package's folders: two or four colours, and "-bf" for the large ("big font") corner index.
VARIANTS = {
    "2color": "default_deck.npz",
    "2color-bf": "default_deck_large.npz",
    "4color": "default_deck_4color.npz",
    "4color-bf": "default_deck_4color_large.npz",
}


def plain_back(width: int = 480, height: int = 672) -> npt.NDArray[np.uint8]:
    """A plain casino back: white border, deep red field, fine diamond lattice, inner frame."""
    img = np.full((height, width, 3), 255, np.uint8)
    border = width // 16
    field = np.full((height - 2 * border, width - 2 * border, 3), (40, 30, 150), np.uint8)
    fh, fw = field.shape[:2]
    step = width // 12
    for k in range(-fh, fw + fh, step):
        cv2.line(field, (k, 0), (k + fh, fh), (70, 60, 185), 2, cv2.LINE_AA)
        cv2.line(field, (k, 0), (k - fh, fh), (70, 60, 185), 2, cv2.LINE_AA)
    cv2.rectangle(field, (step // 2, step // 2), (fw - step // 2, fh - step // 2), (220, 220, 235), 3)
    img[border : height - border, border : width - border] = field
    return img


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent.parent / "data")
    args = parser.parse_args()
    for tool in ("npm", "rsvg-convert"):
        if shutil.which(tool) is None:
            print(f"build_default_deck: {tool} is required", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, check=True, capture_output=True)
        tarball = next(tmp.glob("*.tgz"))
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        back_path = tmp / "back.png"
        cv2.imwrite(str(back_path), plain_back())
        for variant, out_name in VARIANTS.items():
            src = tmp / "package" / "src" / "images" / variant
            faces = tmp / variant
            faces.mkdir()
            for code in CODES:
                svg = src / f"{code[0]}{code[1].upper()}.svg"
                subprocess.run(["rsvg-convert", "-h", "672", str(svg), "-o", str(faces / f"{code}.png")], check=True)
            profile = register_deck(faces_dir=faces, back_path=back_path, name=f"kennard-{variant}")
            out = args.out_dir / out_name
            save_deck(profile, out)
            print(f"{out}: {out.stat().st_size} bytes, index box {profile.index_box}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
