"""Deck designs for tests and benchmarks: Debian's KDE card decks, rendered and registered like a casino's deck.

The SVG decks of Debian's ``kdegames-card-data-kf5`` (``/usr/share/carddecks``) are a dozen
designs by other hands than the shipped Kennard cards: other index fonts, sizes and places, court
pictures and backs. They are *not* shipped with the package; ``./run`` installs the Debian package
for the tests and the benchmark. Each design is rendered by Debian's Chromium (the one the browser
tests drive; its SVG engine places every card's element exactly, where ``rsvg-convert``'s export
by id mis-sizes many of these files), written as 52 face images and a back, and registered
through :func:`vision.deck.register_deck` as a casino would with ``vision register-deck``. The
profile is cached (``$XDG_CACHE_HOME/dealer-assist/decks``), keyed by the design and the
package's file, so a later run loads it in a couple of seconds.

Run ``.venv/bin/python -m vision.tools.kde_decks [NAME ...] [--faces DIR]`` to build them (and,
with ``--faces``, keep the face images for ``vision register-deck``).
"""

# ruff: noqa: T201 - a command-line tool reports on stdout

from __future__ import annotations

import argparse
import fcntl
import functools
import gzip
import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Final

from vision.deck import CODES, DeckProfile, load_deck, register_deck, save_deck
from vision.errors import DeckError

CARDDECKS: Final = Path("/usr/share/carddecks")
DEBIAN_PACKAGE: Final = "kdegames-card-data-kf5"
CHROMIUM: Final = "/usr/bin/chromium"
# Design name -> the package's folder. Left out: designs whose cards are not standard French
# playing cards (xskat-german's German suits, future's landscape tiles, penguins' cartoon layout)
# or whose SVG does not name every card (konqi-modern, xskat-french, gm-paris, tigullio-international).
DESIGNS: Final = {
    "standard": "svg-standard",
    "nicu-ornamental": "svg-nicu-ornamental",
    "nicu-white": "svg-nicu-white",
    "dondorf": "svg-dondorf",
    "oxygen": "svg-oxygen",
    "oxygen-white": "svg-oxygen-white",
    "oxygen-air": "svg-oxygen-air",
    "jolly-royal": "svg-jolly-royal",
    "ancient-egyptians": "svg-ancient-egyptians",
}
_RANKS: Final = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUITS: Final = {"c": "club", "d": "diamond", "h": "heart", "s": "spade"}
# Rendered card width in pixels (the profile keeps 160 x 224; rendering larger and shrinking
# gives the smooth edges a camera's optics do).
_WIDTH_PX: Final = 480
# 2: profiles of format 2, with the back signature learnt at registration. 3: the index box
# leaves out faces whose index runs on into their picture (see deck._find_index_box).
_CACHE_VERSION: Final = 3


def element_id(code: str) -> str:
    """The SVG element id of a card in KDE's card-deck format (``As`` -> ``1_spade``)."""
    rank, suit = code[0], code[1]
    return f"{_RANKS.get(rank, rank)}_{_SUITS[suit]}"


def design_file(name: str) -> Path:
    """The design's compressed SVG in the Debian package.

    Raises:
        DeckError: no such design, or the package is not installed.
    """
    if name not in DESIGNS:
        raise DeckError(f"no test design {name!r} (have: {', '.join(DESIGNS)})")
    folder = CARDDECKS / DESIGNS[name]
    found = sorted(folder.glob("*.svgz")) if folder.is_dir() else []
    if not found:
        raise DeckError(f"{folder}: missing; install Debian's {DEBIAN_PACKAGE} (./run test does)")
    return found[0]


def render_design(name: str, out: Path) -> Path:
    """Write the design's 52 faces (``As.png`` ...) into ``out`` and its back beside them.

    Returns the back's path.

    Raises:
        DeckError: the design or Chromium is missing, or a card is not in the SVG.
    """
    from playwright.sync_api import sync_playwright  # a test dependency: this tool serves the tests

    svg_path = design_file(name)
    if not Path(CHROMIUM).exists():
        raise DeckError(f"{CHROMIUM}: missing; install Debian's chromium (./run test does)")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        svg = Path(tmp) / "deck.svg"
        svg.write_bytes(gzip.decompress(svg_path.read_bytes()))
        ids = [element_id(code) for code in CODES] + ["back"]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page(viewport={"width": 800, "height": 600})
                page.goto(svg.as_uri())
                # Each element's box in the root's user units (its screen box mapped back through
                # the root's own transform), so the root can then be framed on one card at a time.
                boxes = page.evaluate(
                    """ids => {
                        const root = document.documentElement;
                        const back = root.getScreenCTM().inverse();
                        return ids.map(id => {
                            const e = document.getElementById(id);
                            if (!e) return null;
                            const r = e.getBoundingClientRect();
                            const p = new DOMPoint(r.x, r.y).matrixTransform(back);
                            const q = new DOMPoint(r.x + r.width, r.y + r.height).matrixTransform(back);
                            return [p.x, p.y, q.x - p.x, q.y - p.y];
                        });
                    }""",
                    ids,
                )
                missing = [i for i, box in zip(ids, boxes, strict=True) if not box or box[2] < 1 or box[3] < 1]
                if missing:
                    raise DeckError(f"{svg_path}: no card element {missing[0]!r}")
                page.evaluate(
                    """() => {
                        const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
                        style.textContent = 'svg * { visibility: hidden; } .__show, .__show * { visibility: visible; }';
                        document.documentElement.appendChild(style);
                        document.documentElement.setAttribute('preserveAspectRatio', 'none');
                    }"""
                )
                for ident, (x, y, w, h) in zip(ids, boxes, strict=True):
                    width, height = _WIDTH_PX, max(round(_WIDTH_PX * h / w), 1)
                    page.set_viewport_size({"width": width, "height": height})
                    # Only this card shows: in some sheets a neighbour reaches into its box.
                    page.evaluate(
                        """([id, box, width, height]) => {
                            const root = document.documentElement;
                            root.setAttribute('viewBox', box.join(' '));
                            root.setAttribute('width', width);
                            root.setAttribute('height', height);
                            document.querySelectorAll('.__show').forEach(e => e.classList.remove('__show'));
                            document.getElementById(id).classList.add('__show');
                        }""",
                        [ident, [x, y, w, h], width, height],
                    )
                    target = out.parent / f"{out.name}-back.png" if ident == "back" else out / f"{_code_of(ident)}.png"
                    page.screenshot(path=str(target), omit_background=True)
            finally:
                browser.close()
    return out.parent / f"{out.name}-back.png"


def _code_of(ident: str) -> str:
    rank, suit = ident.split("_")
    ranks = {v: k for k, v in _RANKS.items()}
    suits = {v: k for k, v in _SUITS.items()}
    return ranks.get(rank, rank) + suits[suit]


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dealer-assist" / "decks"


@functools.cache
def kde_deck(name: str) -> DeckProfile:
    """The registered profile of one design (rendered and registered once, then cached on disk).

    Raises:
        DeckError: the design cannot be rendered or registered.
    """
    svg = design_file(name)
    digest = hashlib.sha256(svg.read_bytes()).hexdigest()[:12]
    cached = _cache_dir() / f"kde-{name}-{digest}-v{_CACHE_VERSION}.npz"
    cached.parent.mkdir(parents=True, exist_ok=True)
    # Test workers and benchmarks run side by side: the first to find no cache builds it while the
    # others wait on the lock, then load what it wrote instead of rendering the design again.
    with open(cached.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if cached.is_file():
            try:
                return load_deck(cached)
            except DeckError:
                cached.unlink(missing_ok=True)  # a stale or broken cache entry is rebuilt
        with tempfile.TemporaryDirectory() as tmp:
            faces = Path(tmp) / name
            back = render_design(name, faces)
            profile = register_deck(faces_dir=faces, back_path=back, name=f"kde-{name}")
        partial = cached.with_suffix(".tmp")
        save_deck(profile, partial)
        partial.replace(cached)
        return load_deck(cached)  # as a table would load it (faces JPEG-coded in the profile)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"designs (default: all of {', '.join(DESIGNS)})")
    parser.add_argument("--faces", type=Path, help="also keep each design's face images in DIR/NAME")
    args = parser.parse_args()
    status = 0
    for name in args.names or list(DESIGNS):
        try:
            if args.faces is not None:
                back = render_design(name, args.faces / name)
                print(f"{name}: faces in {args.faces / name}, back {back}")
            profile = kde_deck(name)
        except DeckError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            status = 1
            continue
        box = profile.index_box
        print(f"{name}: registered, index box {box.x0:.3f},{box.y0:.3f}-{box.x1:.3f},{box.y1:.3f}")
    return status


if __name__ == "__main__":
    sys.exit(main())
