"""The recognizer's calibrated path (what a table's camera link runs) against the one the link ran before.

Run: ./run bench vision_paths [--scenes N] [--seed S] [--designs kennard,hershey,dondorf] [--list]

Both read the same generated tables (``vision.scenes.random_table``, as ``./run bench vision``): the
calibrated path rectifies the frame with the table's homography (every card 82 px tall in the
plane); the old one read the half-size frame with one card height for the whole frame, the
calibration's at the table's middle. ``--list`` prints every card the two paths judge differently.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_vision import load_design

from vision.deck import DeckProfile
from vision.recognize import Recognizer, RecognizerSettings
from vision.scenes import random_table, render_table, truth_centres, view_calibration
from vision.synth import Tally, score_reading

PATHS = ("calibrated", "before")
GOOD = ("correct", "counted")


def compare(
    deck: DeckProfile, *, scenes: int, seed: int, listing: bool
) -> tuple[dict[str, Tally], dict[str, float], tuple[int, int]]:
    """Both paths' tallies, CPU per frame (ms) over ``scenes`` tables, and how many cards only the
    calibrated path, and only the old one, gets right; prints those cards when ``listing``."""
    tallies = {path: Tally() for path in PATHS}
    cpu = dict.fromkeys(PATHS, 0.0)
    gained = lost = 0
    for i in range(scenes):
        table = random_table(np.random.default_rng(seed + i))
        renderer, frame = render_table(deck, table, seed=seed + i)
        calibration = view_calibration(table.view)
        middle = calibration.card_height_px((table.view.table_w_mm / 2, table.view.table_h_mm / 2))
        recognizers = {
            "calibrated": Recognizer(deck=deck, calibration=calibration),
            "before": Recognizer(deck=deck, settings=RecognizerSettings(card_height_px=middle)),
        }
        truth = truth_centres(renderer, table.scene)
        outcomes: dict[str, list[str]] = {}
        for path, recognizer in recognizers.items():
            start = time.process_time()
            reading = recognizer.read(frame)
            cpu[path] += time.process_time() - start
            outcomes[path] = []
            reads = [(c.code, c.center) for c in reading.cards]
            tallies[path].add(score_reading(truth, reads, tol_px=22, outcomes=outcomes[path]))
        for k, (now, before) in enumerate(zip(outcomes["calibrated"], outcomes["before"], strict=True)):
            if now == before or (now in GOOD) == (before in GOOD):
                continue
            gained += now in GOOD
            lost += before in GOOD
            if listing:
                card = table.scene.cards[k]
                print(
                    f"    table {seed + i} (tilt {table.view.tilt_deg:4.1f}, k1 {table.view.distortion_k1:+.3f})"
                    f" {table.roles[k]:12s} {card.code} calibrated {now}, before {before}"
                )
    return tallies, {path: 1000.0 * spent / max(scenes, 1) for path, spent in cpu.items()}, (gained, lost)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=30, help="random tables per design (20 cards each)")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--designs", default="kennard,hershey,dondorf", help="comma-separated designs")
    parser.add_argument("--list", action="store_true", help="print every card the paths judge differently")
    args = parser.parse_args()
    print(f"calibrated vs old recognizer path: {args.scenes} tables per design from seed {args.seed}")
    print(f"  {'design':10s} {'path':11s} {'face-up read':>13s} {'misread':>8s} {'backs counted':>14s}", end="")
    print(f" {'phantoms':>9s} {'CPU/frame':>10s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.designs.split(","):
            deck = load_design(name, Path(tmp))
            tallies, cpu, (gained, lost) = compare(deck, scenes=args.scenes, seed=args.seed, listing=args.list)
            for path in PATHS:
                t = tallies[path]
                print(
                    f"  {name:10s} {path:11s} {t.correct:6d}/{t.face_up:<6d} {t.misread:8d}"
                    f" {t.backs_found:7d}/{t.face_down:<6d} {t.phantoms:9d} {cpu[path]:7.0f} ms"
                )
            print(f"  {'':10s} cards (read or counted) only the calibrated path gets: {gained}, only the old: {lost}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
