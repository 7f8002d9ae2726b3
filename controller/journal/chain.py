"""The hash chain: each entry's SHA-256 over the previous entry's hash and its own canonical form."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def canonical(*, seq: int, kind: str, data: Mapping[str, Any], actor: str, at: str) -> bytes:
    """An entry as the bytes its hash covers: compact, sorted-key JSON of ``[seq, kind, data, actor, at]``.

    ``data`` is written exactly as the journal stores it (the same encoding), so a replica that keeps the
    JSON text can check the hash without re-encoding."""
    return json.dumps([seq, kind, data, actor, at], separators=(",", ":"), sort_keys=True).encode()


def genesis(table_id: str) -> str:
    """The hash before the first entry: ties the chain to the table it belongs to."""
    return hashlib.sha256(f"dealer-assist journal {table_id}".encode()).hexdigest()


def link(previous: str, *, seq: int, kind: str, data: Mapping[str, Any], actor: str, at: str) -> str:
    """The hash of entry ``seq`` following an entry whose hash is ``previous`` (hex)."""
    digest = hashlib.sha256(bytes.fromhex(previous))
    digest.update(canonical(seq=seq, kind=kind, data=data, actor=actor, at=at))
    return digest.hexdigest()


def encode_data(data: Mapping[str, Any]) -> str:
    """The stored text of an entry's data (what :func:`canonical` embeds)."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True)
