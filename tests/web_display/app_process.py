"""A web display in a process of its own (for tests that measure the server: memory, many addresses).

    python -m tests.web_display.app_process DATA_DIR [SETTINGS_JSON]

Serves one Oasis table with the demo accounts (password ``kit.PASSWORD``) on 127.0.0.1, any free port,
prints the URL on one line, and stops when its standard input closes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.web_display.kit import make_app, make_table
from web_display.server import serve


def main() -> None:
    data = Path(sys.argv[1])
    settings = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    table = make_table(data / "journal", "oasis", "T1")
    handle = serve(make_app(data, {"T1": table}, **settings), host="127.0.0.1", port=0)
    print(handle.url, flush=True)
    sys.stdin.read()  # until the test closes our stdin
    handle.stop()


if __name__ == "__main__":
    main()
