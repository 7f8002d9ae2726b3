"""A linked progressive as one table plays it: its hits journaled back at the table, its meter, its parameters."""

from __future__ import annotations

from collections.abc import Sequence

from controller.journal.base import Entry, JackpotAccount, JackpotHitRecord
from controller.settlement import split
from controller.table import Actor, TableService
from floor.base import FloorStore
from floor.errors import FloorConfigError
from floor.jackpots import FULL_SHARE_BP, Hit


class LinkedJackpot:
    """The table's side of its linked account (:class:`~floor.link.FloorLink` holds one): every settled
    round's contribution and hit sent to the floor, keyed by (table, seq); the floor's amount for each hit
    journaled back once, split over the boxes; the meter and pending hits the table shows; the account's
    parameters taken between rounds."""

    def __init__(self, *, table: TableService, store: FloorStore) -> None:
        self.table = table
        self.store = store
        self.journal = table.journal_store
        self.table_id = self.journal.table_id
        self.account: str | None = None  # the account it plays, once joined (None: no jackpot, or not yet)
        self._meter = 0
        self._pending: tuple[JackpotHitRecord, ...] = ()
        self._recorded: set[int] = set()  # settled seqs whose floor hit is journaled here
        self._hit_rounds: dict[int, tuple[int, dict[int, str], dict[int, int]]] = {}
        self.fresh: list[Hit] = []  # hits sent by this pass, to journal once it is done

    def view(self) -> JackpotAccount:
        """The linked account as the table shows it."""
        return JackpotAccount(name=self.account or "", meter=self._meter, hits=self._pending)

    def attach(self, *, account: str, meter: int) -> None:
        """Play ``account``, whose meter the floor has at ``meter``, journaling the hits the table missed."""
        self.account, self._meter = account, meter
        self._journal_missed_hits()

    def _journal_missed_hits(self) -> None:
        """Journal every hit of this table the floor recorded but the table did not (a stop between the
        floor's answer and the entry, and the hit confirmed since): what the floor's copy of the journal
        and the journal's unshipped tail say was journaled, the rest is journaled now."""
        assert self.account is not None
        done = {int(e.data["settled"]) for e in self.store.journal_of_kind(self.table_id, "jackpot-floor-hit")}
        tail = self.journal.entries(after=self.store.last_seq(self.table_id))
        done |= {int(e.data["settled"]) for e in tail if e.kind == "jackpot-floor-hit"}
        self._recorded |= done
        for hit in self.store.table_hits(account=self.account, table_id=self.table_id):
            if hit.seq > self.journal.base_seq:  # an archived round's hit was journaled long ago
                self._journal_hit(hit)

    def refresh(self) -> None:
        """Read the meter, journal this pass's hits with the floor's amounts, read the table's pending hits
        and take the account's new parameters between rounds."""
        assert self.account is not None
        account = self.store.account(self.account)
        self._meter = account.meter
        for hit in self.fresh:
            self._journal_hit(hit)
        self.fresh.clear()
        pending = self.store.table_pending_hits(account=self.account, table_id=self.table_id)
        self._pending = tuple(r for h in pending for r in self._records(h))
        self._take_parameters(reset=account.reset, increment=account.increment)

    def feed(self, entries: Sequence[Entry]) -> None:
        """The linked progressive's share of a batch about to be replicated: idempotent by (table, seq)."""
        if self.account is None:
            return
        for entry in entries:
            if entry.kind != "round-settled":
                continue
            jackpot = entry.data["settlement"]["jackpot"]
            if jackpot["hits"]:
                claimed = {h["box"]: h["amount"] for h in jackpot["hits"]}
                share = self._share_bp(jackpot["hits"])
                hit = self.store.hit(account=self.account, table_id=self.table_id, seq=entry.seq, share_bp=share)
                hands = {h["box"]: h["hand"] for h in jackpot["hits"]}
                self._hit_rounds[entry.seq] = (entry.data["round"], hands, claimed)
                self.fresh.append(hit)  # journaled after the pass, with the floor's amount (refresh)
            # As at a table of its own: the hits take the meter as it stands, then the round's losing boxes feed it.
            if jackpot["contribution"] > 0:
                self.store.contribute(
                    account=self.account, table_id=self.table_id, seq=entry.seq, amount=jackpot["contribution"]
                )

    def _share_bp(self, hits: Sequence[dict[str, object]]) -> int:
        """What the round's hits claim of the floor's meter, in basis points: the sum of each hand's
        percentage (the table's settlement scaled them to the meter it saw; the floor takes the same
        share of its own meter), never more than the whole meter."""
        percents = self.table.config.jackpot.hit_hands
        total = sum(percents.get(str(h["hand"]), 100) * 100 for h in hits)
        return min(FULL_SHARE_BP, total)

    def _journal_hit(self, hit: Hit) -> None:
        """Journal the floor's amount of a hit once, split over the boxes as the table's settlement claimed."""
        if hit.seq in self._recorded:  # complete since the join read what was journaled (_journal_missed_hits)
            return
        self.table.record_floor_hit(
            settled=hit.seq,
            round_no=self._hit_round(hit.seq)[0],
            account=hit.account,
            hit_no=hit.hit_no,
            amount=hit.amount,
            boxes={r.box: r.amount for r in self._records(hit)},
        )
        self._recorded.add(hit.seq)

    def _hit_round(self, seq: int) -> tuple[int, dict[int, str], dict[int, int]]:
        found = self._hit_rounds.get(seq)
        if found is None:
            entry = self.journal.entry(seq)
            if entry is None or entry.kind != "round-settled":
                raise FloorConfigError(f"the floor's hit at entry {seq} is not a settled round of this journal")
            hits = entry.data["settlement"]["jackpot"]["hits"]
            found = (entry.data["round"], {h["box"]: h["hand"] for h in hits}, {h["box"]: h["amount"] for h in hits})
            self._hit_rounds[seq] = found
        return found

    def _records(self, hit: Hit) -> list[JackpotHitRecord]:
        """A floor hit as the table's pending hits: one per box, each with its share of the floor's amount."""
        round_no, hands, claimed = self._hit_round(hit.seq)
        boxes = sorted(claimed)
        shares = split(hit.amount, [max(1, claimed[b]) for b in boxes]) if hit.amount else [0] * len(boxes)
        return [
            JackpotHitRecord(hit=hit.hit_no, round=round_no, box=b, hand=hands[b], amount=a, at=hit.at)
            for b, a in zip(boxes, shares, strict=True)
        ]

    def _take_parameters(self, *, reset: int, increment: int) -> None:
        """The account's contribution and reset become the table's, between rounds (a round open now keeps
        the ones it was opened with: the change is staged and journaled with who made it on the floor)."""
        jackpot = self.table.config.jackpot
        if (jackpot.reset, jackpot.contribution) == (reset, increment) or self.table.staged is not None:
            return
        changes = self.store.parameter_changes(self.account) if self.account else []
        who = changes[-1]["by"] if changes else "floor"
        config = self.table.config.model_copy(
            update={"jackpot": jackpot.model_copy(update={"reset": reset, "contribution": increment})}
        )
        self.table.reconfigure(config, actor=Actor(f"floor/{who}", "admin"))
