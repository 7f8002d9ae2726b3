"""`dealer-assist history` as a user runs it, with every round it prints checked to settle again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from controller.record import loads, parse_record, settle_record


def read_back(data: Path, *args: str) -> list[dict[str, Any]]:
    """The finished rounds `history --data DATA ARGS` prints; each must settle again from its record
    alone to the settlement it shows."""
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "history", "--data", str(data), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    for line in lines:
        assert settle_record(parse_record(loads(json.dumps(line)))).to_json() == line["settlement"], line["round"]
    return lines
