"""benchmarks/vision_dumps.py on small hand-written dumps: the figures, misses, changed cards and
stacks of backs it prints, and the errors it gives instead of a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.vision_dumps import (
    DumpError,
    diff,
    dump_files,
    figs,
    group_stacks,
    main,
    misses,
    place,
    read_dump,
    stack_misses,
)

ROOT = Path(__file__).resolve().parents[2]

# As bench_vision.py's _dump writes them: a conditions line, one line per card, then the phantoms;
# DONDORF as dumps were written before backs had their share in view.
KENNARD = """\
# tilt 20 deg, chips, shadows, blur 0.0 px, JPEG, noise
Kc up   fan bottom   correct   1410.4   554.7 view=1.00
4d up   fan middle   misread   1376.2   534.4 view=0.95
Th up   fan top      unknown   1350.6   505.2 view=0.40
7s down stacked back counted    807.5   828.6 view=0.62
3c down stacked back missed     834.8   849.1 view=0.08
Qh down stacked back counted    845.3   859.1 view=1.00
5h down stacked back missed     242.4   488.4 view=0.30
Ks down stacked back other      243.0   501.2 view=0.03
3h up   single       correct    298.5   195.8 view=1.00
6h down single back  other     1089.8   827.4 view=1.00
phantom back                              492.2   800.7
"""
DONDORF = """\
# tilt 0 deg, noise
2c up   single       correct    100.0   100.0 view=1.00
9d up   single       missed     400.0   100.0 view=0.20
8s down stacked back counted    600.0   600.0
Jd down stacked back counted    640.0   600.0
Ah down stacked back missed     700.0   600.0
phantom Kc                                900.0   900.0
"""


def write_run(root: Path, *, kennard: str = KENNARD, dondorf: str = DONDORF) -> Path:
    """A measurement directory as it is kept: the benchmark's printout beside the dump it wrote (d5/)."""
    dump = root / "d5"
    dump.mkdir(parents=True)
    (root / "o5.txt").write_text("vision benchmark: 1 random 1920x1080 tables x 20 cards per design, seed 5\n")
    (dump / "kennard-5.txt").write_text(kennard)
    (dump / "kennard-5.jpg").write_bytes(b"")
    (dump / "dondorf-5.txt").write_text(dondorf)
    return root


def columns(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def test_a_directory_is_a_dump_or_holds_dumps_and_the_benchmark_printout_is_not_one(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    assert dump_files(run) == [run / "d5" / "dondorf-5.txt", run / "d5" / "kennard-5.txt"]
    assert dump_files(run / "d5") == dump_files(run)


def test_figs_per_design_and_for_all(tmp_path: Path) -> None:
    lines = figs(dump_files(write_run(tmp_path / "run")))
    assert columns(lines) == [
        ["design", "read", "shown", "misread", "unknown", "backs", "showing", "phantoms"],
        # read 1 of 2 face up; shown: only the 2c has an index corner in view; backs 2 of 3; no share dumped
        ["dondorf", "1/2", "50.00%", "1/1", "100.00%", "0", "0", "2/3", "66.67%", "-", "1"],
        # the Th (view 0.40) is not shown; the Ks and 6h, read as faces, are not counted; the Ks
        # (0.03 of it in view) is not showing
        ["kennard", "2/4", "50.00%", "2/3", "66.67%", "1", "1", "2/6", "33.33%", "2/5", "40.00%", "1"],
        ["ALL", "3/6", "50.00%", "3/4", "75.00%", "1", "1", "4/9", "44.44%", "2/5", "40.00%", "2"],
    ]


def test_misses_by_cause_most_frequent_first_with_their_lines(tmp_path: Path) -> None:
    lines = misses(dump_files(write_run(tmp_path / "run")), every_line=True)
    assert lines[:3] == [
        "    2 stacked back missed SHOWN",
        "        d5/kennard-5: 3c down stacked back missed     834.8   849.1 view=0.08",
        "        d5/kennard-5: 5h down stacked back missed     242.4   488.4 view=0.30",
    ]
    causes = [line for line in lines if not line.startswith("        ")]
    # A back is SHOWN from 5 % of it in view (the Ks's 3 % is not); the Ah's share was not dumped.
    assert causes == [
        "    2 stacked back missed SHOWN",
        "    1 single missed hidden",
        "    1 stacked back missed",
        "    1 phantom Kc",
        "    1 fan middle misread SHOWN",
        "    1 fan top unknown hidden",
        "    1 stacked back other hidden",
        "    1 single back other SHOWN",
        "    1 phantom back",
    ]
    assert misses(dump_files(tmp_path / "run")) == causes


def test_diff_lists_each_changed_card_and_phantom_count(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base")
    changed = (
        KENNARD.replace("correct   1410.4", "unknown   1410.4")
        .replace("missed     834.8", "counted    834.8")
        .replace("phantom back                              492.2   800.7\n", "")
    )
    after = write_run(tmp_path / "after", kennard=changed)
    assert diff(base, after) == [
        "d5/kennard-5.txt: Kc fan bottom correct -> unknown  (1410,555)",
        "d5/kennard-5.txt: 3c stacked back missed -> counted  (835,849)",
        "d5/kennard-5.txt: phantoms 1 -> 0",
        "summary:",
        "     1 fan bottom: correct -> unknown",
        "     1 stacked back: missed -> counted",
        "     1 phantom: 1 -> 0",
    ]
    assert diff(base, base) == ["summary:"]


def test_diff_of_two_single_dumps_matches_their_files_by_name(tmp_path: Path) -> None:
    # One `--dump DIR` run writes its files straight into DIR: two runs are two directories named
    # differently, holding the same file names.
    base = write_run(tmp_path / "base") / "d5"
    after = (
        write_run(tmp_path / "after", kennard=KENNARD.replace("missed     834.8", "counted    834.8")) / "d5"
    ).rename(tmp_path / "after" / "run2")
    assert diff(base, after) == [
        "kennard-5.txt: 3c stacked back missed -> counted  (835,849)",
        "summary:",
        "     1 stacked back: missed -> counted",
    ]


def test_diff_says_which_tables_it_could_not_compare(tmp_path: Path) -> None:
    base = write_run(tmp_path / "base")
    after = write_run(tmp_path / "after")
    (after / "d5" / "dondorf-5.txt").rename(after / "d5" / "dondorf-6.txt")
    assert diff(base, after) == [
        "summary:",
        f"  1 dump files only in {base}, not compared",
        f"  1 dump files only in {after}, not compared",
    ]
    (after / "d5" / "dondorf-6.txt").write_text(DONDORF.replace("9d up", "9h up"))
    (after / "d5" / "dondorf-6.txt").rename(after / "d5" / "dondorf-5.txt")
    with pytest.raises(DumpError, match=r"dondorf-5\.txt: not the same table"):
        diff(base, after)


def test_stacked_backs_are_grouped_in_dealing_order(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    stacks = group_stacks(read_dump(run / "d5" / "kennard-5.txt"))
    assert [[card.code for card in stack] for stack in stacks] == [["7s", "3c", "Qh"], ["5h", "Ks"]]
    # 7s to 3c 34 px, 3c to Qh 14.5 px, 5h to Ks 12.8 px
    assert [[place(stack, index=i) for i in range(len(stack))] for stack in stacks] == [
        ["bottom loose", "middle tight", "top"],
        ["bottom tight", "top"],
    ]


def test_a_new_stack_starts_beyond_80_px_or_after_another_card(tmp_path: Path) -> None:
    dump = tmp_path / "kennard-1.txt"
    dump.write_text(
        "As down stacked back counted 100.0 100.0\n"
        "2s down stacked back counted 179.0 100.0\n"  # 79 px: on the As
        "3s down stacked back counted 260.0 100.0\n"  # 81 px: a stack of its own
        "4s down single back  counted 600.0 600.0\n"
        "5s down stacked back counted 270.0 100.0\n"  # 10 px from the 3s, but not dealt after it
        "6s down stacked back counted 280.0 100.0\n"
    )
    stacks = group_stacks(read_dump(dump))
    assert [[card.code for card in stack] for stack in stacks] == [["As", "2s"], ["3s"], ["5s", "6s"]]
    assert place(stacks[1], index=0) == "alone"


def test_stacks_miss_rate_by_size_and_place(tmp_path: Path) -> None:
    lines = stack_misses(dump_files(write_run(tmp_path / "run")))
    assert lines[0].startswith("stacked backs missed, by stack size and place")
    assert columns(lines[1:]) == [
        ["size", "place", "missed", "showing,", "missed"],
        ["2", "bottom", "tight", "1/1", "100.00%", "1/1", "100.00%"],  # 5h
        ["2", "top", "1/1", "100.00%", "-"],  # Ks, read as a face, 3 % of it in view
        ["3", "bottom", "loose", "0/2", "0.00%", "0/1", "0.00%"],  # 7s, 8s (no share dumped)
        ["3", "middle", "tight", "1/1", "100.00%", "1/1", "100.00%"],  # 3c
        ["3", "middle", "loose", "0/1", "0.00%", "-"],  # Jd (40 px to the Ah, 60 px from the 8s)
        ["3", "top", "1/2", "50.00%", "0/1", "0.00%"],  # Qh, Ah
        ["all", "4/8", "50.00%", "2/4", "50.00%"],
        ["stacks:", "1", "of", "2,", "2", "of", "3"],
    ]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("Kc up   fan bottom   correct   1410.4", "outcome 'bottom' is not one of"),
        ("Kc up   fan bottom   correct   1410.4   y=554.7", "y 'y=554.7' is not a number"),
        ("Kc face fan bottom   correct   1410.4   554.7", "side 'face' is neither up nor down"),
        ("Kc up   correct   1410.4   554.7 view=1.00", "a card line is 'CODE up|down ROLE OUTCOME X Y"),
        ("Kc up   fan bottom   correct   1410.4   554.7 view=all", "view 'all' is not a number"),
        ("phantom back 492.2", "a phantom line is 'phantom READ X Y'"),
    ],
)
def test_a_malformed_line_is_named_by_file_and_number_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, reason: str
) -> None:
    dump = tmp_path / "kennard-5.txt"
    dump.write_text(f"# tilt 20 deg\n3h up   single       correct    298.5   195.8 view=1.00\n{line}\n")
    assert main(["figs", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"vision_dumps.py: {dump}:3: {reason}")
    assert err.endswith(f": {line!r}\n")


def test_a_directory_without_dumps_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "o5.txt").write_text("vision benchmark: seed 5\n")
    (tmp_path / "d5").mkdir()
    for command in (["figs", str(tmp_path)], ["stacks", str(tmp_path)], ["diff", str(tmp_path), str(tmp_path)]):
        assert main(command) == 2
        assert capsys.readouterr() == (
            "",
            f"vision_dumps.py: {tmp_path}: no dump (DESIGN-SEED.txt) in it or in a d* directory below it\n",
        )


def test_run_as_the_readme_runs_it(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    script = ROOT / "benchmarks" / "vision_dumps.py"
    done = subprocess.run(
        [sys.executable, str(script), "misses", str(run)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[0] == "    2 stacked back missed SHOWN"
    broken = subprocess.run(
        [sys.executable, str(script), "figs", str(tmp_path / "none")], capture_output=True, text=True, check=False
    )
    assert (broken.returncode, broken.stdout) == (2, "")
    assert broken.stderr == f"vision_dumps.py: {tmp_path / 'none'}: not a directory\n"
