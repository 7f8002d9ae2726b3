"""The live table, in layers: its state as a fold over the journal (``state``), read by observers under
the table's lock (``published``), kept in the journal (``core``), fed by its devices (``inputs``), and
driven by staff commands: reports and tilts (``irregularities``), payment disputes (``payments``) and
play (``service``)."""

from controller.table.codec import (
    CAMERA,
    SHOE,
    SYSTEM,
    Actor,
    Device,
    RecalledRound,
    Role,
    bets_from_json,
    bets_to_json,
    config_settings,
)
from controller.table.core import CHECKPOINT_EVERY, utcnow
from controller.table.errors import PermissionDenied, TableError
from controller.table.irregularities import DEAL_SEQUENCE_REPORTS, REPORTABLE
from controller.table.service import TableService
from controller.table.state import RECALL, STORAGE_TILT, TableState, card_slots, decisions

__all__ = [
    "CAMERA",
    "CHECKPOINT_EVERY",
    "DEAL_SEQUENCE_REPORTS",
    "RECALL",
    "REPORTABLE",
    "SHOE",
    "STORAGE_TILT",
    "SYSTEM",
    "Actor",
    "Device",
    "PermissionDenied",
    "RecalledRound",
    "Role",
    "TableError",
    "TableService",
    "TableState",
    "bets_from_json",
    "bets_to_json",
    "card_slots",
    "config_settings",
    "decisions",
    "utcnow",
]
