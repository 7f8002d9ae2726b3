"""The README and the docs link only inside the repository, and every link lands: a newcomer who clones
the repository finds every page and section they are sent to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("benchmarks/*.md")])
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title)))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_stays_in_the_repository_and_lands(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):  # a web address: allowed, it is not a file of ours
            continue
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.is_relative_to(ROOT), f"{page.name}: {target} points outside the repository"
        assert resolved.exists(), f"{page.name}: {target} does not exist"
        if fragment and resolved.suffix == ".md":
            assert fragment in anchors(resolved), f"{page.name}: {target}: no such section"


def test_the_rules_page_keeps_every_decided_point_and_names_its_setting() -> None:
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    # Each decided point of the rulebook, by the setting that carries it.
    for setting in (
        "bonus_lost_on_fold",
        "share_hits",
        "bet_multiple",
        "not_qualified_ante_pays",
        "withdraw_on_early_show",
        "max_bettors",
        "ante_pays_from",
        "bet_paytable",
    ):
        assert f"`{setting}" in rules, setting
    assert rules.count("**Decided") >= 10
