"""A simulated table playing against the floor: used by the tests in threads and as a separate process.

Run as a script: ``table_worker.py URL TABLE_PREFIX TABLES SEQS`` plays TABLES tables, one thread each.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from dataclasses import dataclass

from controller.journal.base import Entry
from floor import FloorUnavailable, open_store

HIT_ACCOUNT = "floor-wide"
HIT_EVERY = 7
HIT_SHARE_BP = 5_000


@dataclass
class Played:
    unavailable: int = 0  # operations refused with FloorUnavailable (then retried)


def _retry(played: Played, op):  # type: ignore[no-untyped-def]
    while True:
        try:
            return op()
        except FloorUnavailable:
            played.unavailable += 1
            time.sleep(0.05)


def play_table(url: str, table_id: str, seqs: int, *, hits: bool = True) -> Played:
    """Entry ``seq`` of the table contributes to every account the table feeds; every HIT_EVERY-th one
    also hits the floor-wide account for half its meter. Each entry is then replicated with what the floor
    did, as a table journals it. Deterministic: playing again replays and must change nothing."""
    played = Played()
    store = _retry(played, lambda: open_store(url, max_connections=1))
    try:
        accounts = _retry(played, lambda: store.feeds(table_id))
        for seq in range(1, seqs + 1):
            ops = []
            for account in accounts:
                done = _retry(played, lambda a=account, s=seq: store.contribute(account=a, table_id=table_id, seq=s))
                ops.append({"account": account, "kind": "contribution", "amount": done.credited})
            if hits and seq % HIT_EVERY == 0 and HIT_ACCOUNT in accounts:
                hit = _retry(
                    played,
                    lambda s=seq: store.hit(account=HIT_ACCOUNT, table_id=table_id, seq=s, share_bp=HIT_SHARE_BP),
                )
                ops.append({"account": HIT_ACCOUNT, "kind": "hit", "amount": hit.amount})
            data = {"ops": ops}
            digest = hashlib.sha256(json.dumps([table_id, seq, data], sort_keys=True).encode()).hexdigest()
            entry = Entry(
                seq=seq, kind="jackpot-ops", data=data, actor="system:controller", at=f"seq-{seq}", hash=digest
            )
            _retry(played, lambda e=entry: store.replicate(table_id=table_id, entries=[e]))
    finally:
        store.close()
    return played


def main(argv: list[str]) -> int:
    url, prefix, tables, seqs = argv[0], argv[1], int(argv[2]), int(argv[3])
    results: list[Played] = []
    threads = [
        threading.Thread(target=lambda i=i: results.append(play_table(url, f"{prefix}{i}", seqs)))
        for i in range(tables)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"tables": len(results), "unavailable": sum(p.unavailable for p in results)}))
    return 0 if len(results) == tables else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
