// The floor display: every table at a glance, read only, kept live by one websocket.
"use strict";

(() => {
  const { el, money, handName } = DA;
  const tables = new Map();
  const $ = (id) => document.getElementById(id);

  function tile(t) {
    const fmt = (amount) => money(amount, t.minor_units, t.currency);
    const alerts = [];
    for (const tilt of t.tilts) alerts.push(el("li", { class: "tilt", text: `TILT: ${tilt.message}` }));
    for (const hit of t.pending_hits) {
      alerts.push(el("li", { class: "hit", text: `JACKPOT box ${hit.box}: ${fmt(hit.amount)} awaiting confirmation` }));
    }
    const payouts = t.large_payouts.map((p) =>
      el("li", { text: `Round ${p.round} box ${p.box}${p.hand ? ` ${handName(p.hand)}` : ""}: ${fmt(p.net)}` }),
    );
    return el(
      "article",
      {
        class: `tile phase-${t.phase}${t.tilts.length ? " has-tilt" : ""}${t.pending_hits.length ? " has-hit" : ""}`,
        id: `table-${t.name.replace(/[^A-Za-z0-9_-]/g, "_")}`,
        "data-table": t.name,
        "data-version": t.version,
      },
      el("h2", {}, el("a", { href: `/tables/${encodeURIComponent(t.name)}`, text: t.name })),
      el("p", { class: "game", text: t.title }),
      el(
        "dl",
        {},
        el("dt", { text: "Phase" }),
        el("dd", { class: "phase", text: t.phase }),
        el("dt", { text: "Round" }),
        el("dd", { class: "round", text: String(t.round) }),
        el("dt", { text: "Rounds today" }),
        el("dd", { class: "rounds-today", text: String(t.rounds_today) }),
        el("dt", { text: "Rounds last hour" }),
        el("dd", { class: "rounds-hour", text: String(t.rounds_last_hour) }),
        el("dt", { text: "Open tilts" }),
        el("dd", { class: "tilts", text: String(t.tilts.length) }),
        el("dt", { text: "Pending jackpots" }),
        el("dd", { class: "hits", text: String(t.pending_hits.length) }),
        el("dt", { text: "Jackpot" }),
        el("dd", { class: "meter", text: t.jackpot.enabled ? fmt(t.jackpot.meter) : "off" }),
      ),
      alerts.length ? el("ul", { class: "alerts" }, ...alerts) : null,
      payouts.length ? el("div", { class: "payouts" }, el("h3", { text: "Large payouts" }), el("ul", {}, ...payouts)) : null,
    );
  }

  function render() {
    const all = [...tables.values()];
    $("grid").replaceChildren(...all.map(tile));
    $("table-count").textContent = String(all.length);
    $("tilt-count").textContent = String(all.reduce((n, t) => n + t.tilts.length, 0));
    $("hit-count").textContent = String(all.reduce((n, t) => n + t.pending_hits.length, 0));
  }

  let pending = false;
  function schedule() {
    // Many tables change at once on a busy floor: draw at most once per frame.
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      render();
    });
  }

  async function start() {
    const me = await DA.whoami();
    if (!me) return;
    $("user-name").textContent = `${me.name} (${me.role})`;
    $("sign-out").addEventListener("click", DA.signOut);
    DA.live(
      "/ws/floor",
      (message) => {
        if (message.type !== "floor-table") return;
        tables.set(message.name, message.table);
        schedule();
      },
      (up) => $("link").classList.toggle("down", !up),
    );
  }

  start();
})();
