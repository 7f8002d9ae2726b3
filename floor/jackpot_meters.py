"""Money into a linked progressive's meter: contributions, logged corrections and the ledger's totals."""

from __future__ import annotations

from dataclasses import dataclass

from controller.sql import Cursor
from floor.errors import FloorConfigError, FloorIntegrityError
from floor.jackpot_accounts import Account, JackpotAccounts, now_text
from floor.status import JACKPOT


@dataclass(frozen=True, slots=True)
class Contribution:
    """What one contribution did: ``credited`` went into the meter, the rest (over the cap) to overflow."""

    account: str
    table_id: str
    seq: int
    amount: int
    credited: int
    meter_after: int
    replayed: bool


class JackpotMeters(JackpotAccounts):
    """The meters' layer of the jackpot store: contributions and corrections, idempotent by their keys."""

    def _recorded(
        self, cur: Cursor, account: str, table_id: str, seq: int, kind: str
    ) -> tuple[str, int, int, int] | None:
        cur.execute(
            "SELECT kind, amount, credited, meter_after FROM jackpot_ops "
            "WHERE account = %s AND table_id = %s AND seq = %s AND kind = %s",
            (account, table_id, seq, kind),
        )
        row = cur.fetchone()
        return None if row is None else (str(row[0]), int(row[1]), int(row[2]), int(row[3]))

    def contribute(self, *, account: str, table_id: str, seq: int, amount: int | None = None) -> Contribution:
        """Add a contribution from entry ``seq`` of ``table_id`` (default: the account's increment).

        Idempotent by (account, table, seq): a replay returns what the first call did and changes nothing
        (an entry may both contribute and hit: each kind is keyed apart). Past the cap, the excess goes to
        ``overflow`` rather than the meter."""
        if seq < 1:
            raise FloorConfigError(f"seq must be >= 1, not {seq}")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            amount = acc.increment if amount is None else amount
            if amount <= 0:
                raise FloorConfigError(f"a contribution must be positive, not {amount}")
            done = self._recorded(cur, account, table_id, seq, "contribution")
            if done is not None:
                if done[:2] != ("contribution", amount):
                    raise FloorIntegrityError(
                        f"{table_id} entry {seq} is already recorded on {account} as {done[0]} of {done[1]}, "
                        f"not a contribution of {amount}"
                    )
                return Contribution(account, table_id, seq, amount, done[2], done[3], replayed=True)
            self._check_feeds(cur, acc, table_id)
            credited = max(0, min(amount, acc.cap - acc.meter))
            meter = acc.meter + credited
            cur.execute(
                "INSERT INTO jackpot_ops (account, table_id, seq, kind, amount, credited, meter_after, at) "
                "VALUES (%s, %s, %s, 'contribution', %s, %s, %s, %s)",
                (account, table_id, seq, amount, credited, meter, now_text()),
            )
            cur.execute(
                "UPDATE accounts SET meter = %s, contributions = contributions + %s, "
                "contribution_count = contribution_count + 1, overflow = overflow + %s WHERE name = %s",
                (meter, credited, amount - credited, account),
            )
            return Contribution(account, table_id, seq, amount, credited, meter, replayed=False)

    def correct(self, *, account: str, amount: int, ref: int, by: str, reason: str) -> Account:
        """A logged correction of the meter (either sign): the only way besides a hit to lower it.

        ``ref`` numbers the correction (idempotent by it); ``by`` and ``reason`` are kept with it."""
        if amount == 0 or not by or not reason:
            raise FloorConfigError("a correction needs a non-zero amount, who made it and why")
        with self._transaction(lock=True) as cur:
            acc = self._account(cur, account, lock=True)
            done = self._recorded(cur, account, "correction", ref, "correction")
            if done is not None:
                if done[:2] != ("correction", amount):
                    raise FloorIntegrityError(f"correction {ref} on {account} was already recorded with another amount")
                return acc
            meter = acc.meter + amount
            if meter < 0:
                raise FloorConfigError(f"a correction of {amount} would take {account}'s meter below zero")
            cur.execute(
                "INSERT INTO jackpot_ops "
                "(account, table_id, seq, kind, amount, credited, meter_after, at, actor, reason) "
                "VALUES (%s, 'correction', %s, 'correction', %s, %s, %s, %s, %s, %s)",
                (account, ref, amount, amount, meter, now_text(), by, reason),
            )
            cur.execute(
                "UPDATE accounts SET meter = %s, corrections = corrections + %s WHERE name = %s",
                (meter, amount, account),
            )
            self._notify(cur, JACKPOT)
            return self._account(cur, account, lock=False)

    def ledger_total(self, account: str) -> tuple[int, int]:
        """(sum credited to the meter by contributions and corrections, sum won by hits) from the op rows."""
        with self._transaction(lock=False) as cur:
            cur.execute(
                "SELECT COALESCE(SUM(CASE WHEN kind <> 'hit' THEN credited ELSE 0 END), 0), "
                "COALESCE(SUM(CASE WHEN kind = 'hit' THEN amount ELSE 0 END), 0) FROM jackpot_ops WHERE account = %s",
                (account,),
            )
            row = cur.fetchone()
            return int(row[0]), int(row[1])
