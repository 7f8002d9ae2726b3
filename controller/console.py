"""A readable console view of a table snapshot, for terminals and logs (the displays use the web)."""

from __future__ import annotations

from typing import Any


def money(amount: int | None, table: dict[str, Any]) -> str:
    if amount is None:
        return "-"
    units = table["minor_units"]
    text = f"{abs(amount) / 10**units:,.{units}f}" if units else f"{abs(amount):,}"
    return f"{'-' if amount < 0 else ''}{text}"


def _cards(cards: list[dict[str, Any] | None]) -> str:
    return " ".join("··" if c is None else (c["code"] if c["face_up"] else "▒▒") for c in cards) or "-"


def render(view: dict[str, Any]) -> str:
    """The snapshot as a few lines of text: phase, what is expected, boxes, dealer, tilts, results."""
    table = view["table"]
    lines = [
        f"{table['name']} · {table['title']} · round {view['round']} · {view['phase']}"
        f" · limits {money(table['min_bet'], table)}-{money(table['max_bet'], table)}"
        f" · max payout {money(table['max_payout'], table)}",
        f"  next: {view['expected']}",
    ]
    if view["jackpot"]["enabled"]:
        pending = view["jackpot"]["pending"]
        lines.append(
            f"  jackpot {money(view['jackpot']['meter'], table)}"
            + (f" · {len(pending)} hit(s) pending" if pending else "")
        )
    for tilt in view["tilts"]:
        lines.append(f"  TILT {tilt['id']} {tilt['kind']}: {tilt['message']} — {tilt['instruction']}")
    if view["dealer"] or view["board"]:
        lines.append(f"  dealer {_cards(view['dealer'])}   board {_cards(view['board'])}")
    results = {b["box"]: b for b in (view["settlement"] or {}).get("boxes", [])}
    for box in view["boxes"]:
        line = f"  box {box['box']}: ante {money(box['ante'], table)}"
        if box["bonus"]:
            line += f" bonus {money(box['bonus'], table)}"
        if box["blind"]:
            line += " (blind)"
        line += f"  {_cards(box['cards'])}"
        if box["decisions"]:
            line += f"  [{', '.join(box['decisions'])}]"
        result = results.get(box["box"])
        if result:
            line += f"  {result['hand'] or ''} {result['outcome']} {money(result['net'], table)}"
            if result["capped"]:
                line += f" (capped, {money(result['cap_cut'], table)} over the maximum payout)"
            if result["jackpot"]:
                line += f"  JACKPOT {money(result['jackpot'], table)}"
        lines.append(line)
    if view["settlement"]:
        dealer = view["settlement"]["dealer"]
        qualifies = {True: "qualifies", False: "does not qualify", None: ""}[dealer["qualifies"]]
        lines.append(f"  dealer has {dealer['hand'] or '-'} {qualifies}")
    return "\n".join(lines)
