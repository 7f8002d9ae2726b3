// What the dealer reads at a glance, in one form everywhere (the boxes, the showdown, recall):
// per bet spot what to do with its chips, per box the net, for the table what the house pays or collects.
"use strict";

const Words = (() => {
  const title = (text) => text.charAt(0).toUpperCase() + text.slice(1).replace(/-/g, " ");
  // Fees (an exchange, buying a card) are kept by the house whatever happens: never "collect" twice.
  const isFee = (bet) => bet.endsWith("-fee");

  // One bet's result as chips on the layout: { cls, text }.
  function chips(bet, fmt) {
    const r = bet.result;
    if (isFee(bet.bet)) return r < 0 ? { cls: "keep", text: "house keeps" } : { cls: "push", text: "fee back" };
    if (r > 0) return { cls: "pay", text: `pay ${fmt(r)}` };
    if (r < 0) return { cls: "collect", text: `collect ${fmt(-r)}` };
    return { cls: "push", text: "push" };
  }

  // A box's net: what the dealer does with the box as a whole: { cls, text }.
  function net(result, fmt) {
    if (result.outcome === "void") return { cls: "push", text: "Void: stakes back" };
    if (result.net > 0) return { cls: "pay", text: `Pay ${fmt(result.net)}` };
    if (result.net < 0) return { cls: "collect", text: `Collect ${fmt(-result.net)}` };
    const bets = result.bets.filter((b) => b.bet !== "cap");
    const paid = bets.reduce((sum, b) => sum + Math.max(b.result, 0), 0) + (result.jackpot || 0);
    if (!paid) return { cls: "push", text: "Push" };
    // Even overall, but not bet by bet (e.g. the ante wins what the exchange fee cost): say both.
    const kept = bets.reduce((sum, b) => sum + Math.max(-b.result, 0), 0);
    return { cls: "even", text: `Even: pay ${fmt(paid)} · keep ${fmt(kept)}` };
  }

  function house(pays, fmt) {
    if (pays > 0) return `House pays ${fmt(pays)}`;
    if (pays < 0) return `House collects ${fmt(-pays)}`;
    return "House even";
  }

  const STAGES = {
    decision: "",
    "first-decision": "first decision",
    "after-buying": "after buying the 4th card",
  };
  const stage = (name) => (name in STAGES ? STAGES[name] : (name || "").replace(/-/g, " "));

  return { title, isFee, chips, net, house, stage };
})();
