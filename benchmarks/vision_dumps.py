"""Figures, misses, changed cards and stacked backs from `bench_vision.py --dump` directories."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

# A dump file is DESIGN-SEED.txt (beside it DESIGN-SEED.jpg and DESIGN-SEED-debug.png); the
# benchmark's own printout saved beside the dumps (o500.txt) is not one.
DUMP_STEM = re.compile(r"^(?P<design>.+)-\d+$")
# score_reading's words: a face-up card's, then a back's.
OUTCOMES = frozenset({"correct", "unknown", "misread", "missed", "counted", "other"})
GOOD = frozenset({"correct", "counted"})
SHOWN = 0.9  # vision.index_view.IN_VIEW: a face-up card whose better index corner is this much in view
SHOWING = 0.05  # vision.index_view.SHOWING: a back this much in view is one a camera can see
STACK_GAP_PX = 80.0  # about 0.6 card widths: a back dealt further from the last one starts a new stack
TIGHT_PX = 20.0  # a stacked back whose next card lies nearer than this is covered tightly
STACKED = "stacked back"
PHANTOM = "phantom"


class DumpError(Exception):
    """A directory with no dump in it, a line that is not a dump's, or two runs that cannot be compared."""


@dataclass(frozen=True)
class Row:
    """One line of a dump: a true card (``code`` its own) or a phantom (``code`` what was read)."""

    code: str
    side: str  # "up" or "down"; "" for a phantom
    role: str  # one of vision.scenes.ROLES, or "phantom"
    outcome: str  # score_reading's word; "" for a phantom
    x: float
    y: float
    # Face up: the share of the better index corner in view; face down: of the card (None: not dumped).
    view: float | None
    text: str
    number: int  # the line's number in its file, from 1


def dump_files(directory: Path) -> list[Path]:
    """The dump files in ``directory``, or, when it holds none, those in its ``d*`` subdirectories."""
    if not directory.is_dir():
        raise DumpError(f"{directory}: not a directory")
    for pattern in ("*.txt", "d*/*.txt"):
        found = sorted(p for p in directory.glob(pattern) if DUMP_STEM.match(p.stem))
        if found:
            return found
    raise DumpError(f"{directory}: no dump (DESIGN-SEED.txt) in it or in a d* directory below it")


def all_dump_files(directories: Iterable[Path]) -> list[Path]:
    return [f for d in directories for f in dump_files(d)]


def design(path: Path) -> str:
    return re.sub(r"-\d+$", "", path.stem)


def _number(token: str, *, what: str) -> float:
    try:
        value = float(token)
    except ValueError:
        raise ValueError(f"{what} {token!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} {token!r} is not a finite number")
    return value


def parse_line(text: str, *, number: int) -> Row:
    """One card or phantom line (``CODE up|down ROLE OUTCOME X Y [view=V]`` or ``phantom READ X Y``);
    ValueError says what is wrong with it."""
    tokens = text.split()
    if tokens[0] == PHANTOM:
        if len(tokens) != 4:
            raise ValueError("a phantom line is 'phantom READ X Y'")
        x, y = _number(tokens[2], what="x"), _number(tokens[3], what="y")
        return Row(tokens[1], "", PHANTOM, "", x, y, None, text, number)
    view = None
    if tokens[-1].startswith("view="):
        view = _number(tokens[-1].removeprefix("view="), what="view")
        tokens = tokens[:-1]
    if len(tokens) < 6:
        raise ValueError("a card line is 'CODE up|down ROLE OUTCOME X Y [view=V]'")
    code, side, outcome = tokens[0], tokens[1], tokens[-3]
    if side not in ("up", "down"):
        raise ValueError(f"side {side!r} is neither up nor down")
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome {outcome!r} is not one of {', '.join(sorted(OUTCOMES))}")
    x, y = _number(tokens[-2], what="x"), _number(tokens[-1], what="y")
    return Row(code, side, " ".join(tokens[2:-3]), outcome, x, y, view, text, number)


def read_dump(path: Path) -> list[Row]:
    """Every card and phantom line of one dump file, in file order ('#' lines and blank lines skipped)."""
    rows = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text.startswith("#") or not text.strip():
            continue
        try:
            rows.append(parse_line(text, number=number))
        except ValueError as error:
            raise DumpError(f"{path}:{number}: {error}: {text!r}") from None
    return rows


def cards(rows: Iterable[Row]) -> list[Row]:
    return [r for r in rows if r.role != PHANTOM]


def pct(part: int, whole: int) -> str:
    return f"{part}/{whole} {100 * part / whole:6.2f}%" if whole else "-"


# figs


def tally(rows: Iterable[Row], *, into: Counter[str]) -> None:
    for r in rows:
        if r.role == PHANTOM:
            into["phantom"] += 1
        elif r.side == "up":
            into["up"] += 1
            into["up_" + r.outcome] += 1
            if r.view is not None and r.view >= SHOWN:
                into["shown"] += 1
                into["shown_" + r.outcome] += 1
        else:
            into["down"] += 1
            into["down_" + r.outcome] += 1
            if r.view is not None and r.view >= SHOWING:
                into["showing"] += 1
                into["showing_" + r.outcome] += 1


def _figs_line(name: str, c: Counter[str]) -> str:
    return (
        f"{name:18s} {pct(c['up_correct'], c['up']):>16s} {pct(c['shown_correct'], c['shown']):>16s}"
        f" {c['up_misread']:7d} {c['up_unknown']:7d} {pct(c['down_counted'], c['down']):>16s}"
        f" {pct(c['showing_counted'], c['showing']):>16s} {c['phantom']:8d}"
    )


def figs(files: Iterable[Path]) -> list[str]:
    """Per design and for all: face-up cards read, those with an index corner in view read,
    misreads, unknowns, backs counted, backs a camera can see (``SHOWING`` of the card in view)
    counted, phantoms."""
    by: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for f in files:
        tally(read_dump(f), into=by[design(f)])
    total: Counter[str] = Counter()
    lines = [
        f"{'design':18s} {'read':>16s} {'shown':>16s} {'misread':>7s} {'unknown':>7s} {'backs':>16s}"
        f" {'showing':>16s} {'phantoms':>8s}"
    ]
    for name in sorted(by):
        total.update(by[name])
        lines.append(_figs_line(name, by[name]))
    lines.append(_figs_line("ALL", total))
    return lines


# misses


def misses(files: Iterable[Path], *, every_line: bool = False) -> list[str]:
    """Each cause of a miss (role, outcome and whether an index corner was in view, face up, or the
    card showed, face down) and each
    phantom (what it was read as), most frequent first; with ``every_line``, each miss's dump line under its cause."""
    counts: Counter[str] = Counter()
    examples: defaultdict[str, list[str]] = defaultdict(list)
    for f in files:
        for r in read_dump(f):
            if r.role == PHANTOM:
                cause = f"{PHANTOM} {r.code}"
            elif r.outcome in GOOD:
                continue
            else:
                bar = SHOWN if r.side == "up" else SHOWING
                tag = "" if r.view is None else " SHOWN" if r.view >= bar else " hidden"
                cause = f"{r.role} {r.outcome}{tag}"
            counts[cause] += 1
            examples[cause].append(f"{f.parent.name}/{f.stem}: {r.text}")
    lines = []
    for cause, n in counts.most_common():
        lines.append(f"{n:5d} {cause}")
        if every_line:
            lines.extend("        " + e for e in examples[cause])
    return lines


# diff


def _by_table(directory: Path) -> dict[Path, Path]:
    # (By the path below the directory given: two single --dump runs are two differently named
    # directories holding the same file names.)
    return {f.relative_to(directory): f for f in dump_files(directory)}


def diff(base: Path, after: Path) -> list[str]:
    """Every card whose outcome changed between two runs on the same seeds (matched by dump
    directory, file and line), every table whose phantom count changed, and a summary."""
    before_files, after_files = _by_table(base), _by_table(after)
    shared = sorted(before_files.keys() & after_files.keys())
    if not shared:
        raise DumpError(f"{base} and {after} have no dump file in common (DESIGN-SEED.txt or d*/DESIGN-SEED.txt)")
    changes: Counter[tuple[str, str, str]] = Counter()
    lines = []
    for key in shared:
        name = key.as_posix()
        rows_b, rows_a = read_dump(before_files[key]), read_dump(after_files[key])
        cards_b, cards_a = cards(rows_b), cards(rows_a)
        if [c.code for c in cards_b] != [c.code for c in cards_a]:
            raise DumpError(
                f"{before_files[key]} and {after_files[key]}: not the same table (the cards differ), "
                "so the two runs cannot be compared line by line"
            )
        for b, a in zip(cards_b, cards_a, strict=True):
            if b.outcome != a.outcome:
                changes[(b.role, b.outcome, a.outcome)] += 1
                lines.append(f"{name}: {b.code} {b.role} {b.outcome} -> {a.outcome}  ({b.x:.0f},{b.y:.0f})")
        phantoms_b = sum(r.role == PHANTOM for r in rows_b)
        phantoms_a = sum(r.role == PHANTOM for r in rows_a)
        if phantoms_b != phantoms_a:
            lines.append(f"{name}: phantoms {phantoms_b} -> {phantoms_a}")
            changes[(PHANTOM, str(phantoms_b), str(phantoms_a))] += 1
    lines.append("summary:")
    lines.extend(f"  {n:4d} {k[0]}: {k[1]} -> {k[2]}" for k, n in changes.most_common())
    for only, where in (
        (before_files.keys() - after_files.keys(), base),
        (after_files.keys() - before_files.keys(), after),
    ):
        if only:
            lines.append(f"  {len(only)} dump files only in {where}, not compared")
    return lines


# stacks


def distance(a: Row, b: Row) -> float:
    return math.hypot(a.x - b.x, a.y - b.y)


def group_stacks(rows: Sequence[Row]) -> list[list[Row]]:
    """The stacks of backs in one dump, each bottom card first: consecutive stacked-back lines are
    one stack, dealt in order, until a card lies more than STACK_GAP_PX from the one before it."""
    stacks: list[list[Row]] = []
    previous: Row | None = None
    for row in cards(rows):
        if row.role != STACKED:
            previous = None
            continue
        if previous is not None and distance(previous, row) <= STACK_GAP_PX:
            stacks[-1].append(row)
        else:
            stacks.append([row])
        previous = row
    return stacks


def place(stack: Sequence[Row], *, index: int) -> str:
    """Where the ``index``-th card of ``stack`` lies: bottom, middle or top; bottoms and middles
    "tight" or "loose" by how far the next card dealt on them lies."""
    if index == len(stack) - 1:
        return "top" if len(stack) > 1 else "alone"
    where = "bottom" if index == 0 else "middle"
    gap = distance(stack[index], stack[index + 1])
    return f"{where} {'tight' if gap < TIGHT_PX else 'loose'}"


_PLACES = ("bottom tight", "bottom loose", "middle tight", "middle loose", "top", "alone")


def stack_misses(files: Iterable[Path]) -> list[str]:
    """Stacked backs missed (not counted as a back) by the size of their stack and their place in it,
    of all and of those a camera can see (``SHOWING`` of the card in view, where the dump says)."""
    dealt: Counter[tuple[int, str]] = Counter()
    missed: Counter[tuple[int, str]] = Counter()
    showing: Counter[tuple[int, str]] = Counter()
    showing_missed: Counter[tuple[int, str]] = Counter()
    sizes: Counter[int] = Counter()
    for f in files:
        for stack in group_stacks(read_dump(f)):
            sizes[len(stack)] += 1
            for index, row in enumerate(stack):
                key = (len(stack), place(stack, index=index))
                dealt[key] += 1
                missed[key] += row.outcome != "counted"
                if row.view is not None and row.view >= SHOWING:
                    showing[key] += 1
                    showing_missed[key] += row.outcome != "counted"
    lines = [
        f"stacked backs missed, by stack size and place (tight: the next card's centre < {TIGHT_PX:.0f} px away)",
        f"{'size':>4s} {'place':12s} {'missed':>16s} {'showing, missed':>16s}",
    ]
    for key in sorted(dealt, key=lambda k: (k[0], _PLACES.index(k[1]))):
        seen = pct(showing_missed[key], showing[key])
        lines.append(f"{key[0]:4d} {key[1]:12s} {pct(missed[key], dealt[key]):>16s} {seen:>16s}")
    lines.append(
        f"{'all':>4s} {'':12s} {pct(missed.total(), dealt.total()):>16s}"
        f" {pct(showing_missed.total(), showing.total()):>16s}"
    )
    lines.append("stacks: " + (", ".join(f"{sizes[n]} of {n}" for n in sorted(sizes)) or "none"))
    return lines


# command line


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="vision_dumps.py",
        description=__doc__,
        epilog="A DIR is one --dump directory, or one holding d* directories that are (as d500/, d3000/).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("figs", help="per design: read, read with an index in view, misreads, backs, phantoms")
    f.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    m = sub.add_parser("misses", help="miss causes by role and outcome, most frequent first")
    m.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    m.add_argument("--lines", action="store_true", help="print every miss's dump line under its cause")
    d = sub.add_parser("diff", help="cards whose outcome changed between two runs (matched by file and line)")
    d.add_argument("base", type=Path, metavar="BASE")
    d.add_argument("after", type=Path, metavar="AFTER")
    s = sub.add_parser("stacks", help="stacked backs missed by stack size and place (bottom, middle, top)")
    s.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    return p


def run(args: argparse.Namespace) -> list[str]:
    if args.command == "figs":
        return figs(all_dump_files(args.dirs))
    if args.command == "misses":
        return misses(all_dump_files(args.dirs), every_line=args.lines)
    if args.command == "diff":
        return diff(args.base, args.after)
    return stack_misses(all_dump_files(args.dirs))


def main(argv: Sequence[str] | None = None) -> int:
    try:
        lines = run(parser().parse_args(argv))
    except DumpError as error:
        print(f"vision_dumps.py: {error}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
