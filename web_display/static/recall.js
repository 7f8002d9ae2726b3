// Recall for disputes: the last rounds at the table (any round by number for a supervisor), each card in
// deal order with where it went, bets, decisions and the settlement bet by bet; printable.
"use strict";

const Recall = (() => {
  const { api, el, money, handName, cardElement } = DA;
  const $ = (id) => document.getElementById(id);
  let table = "";
  let info = null; // the table's currency, from the live view
  let shown = null;

  const base = () => `/api/tables/${encodeURIComponent(table)}`;

  // name: the table; tableInfo: the live view's table (currency for the list of last rounds).
  function open(name, tableInfo) {
    table = name;
    info = tableInfo;
    const pane = $("recall");
    pane.hidden = false;
    put(pane, el("p", { text: "Loading the last rounds…" }));
    loadList();
  }

  function close() {
    $("recall").hidden = true;
    shown = null;
  }

  const put = (node, ...kids) => node.replaceChildren(...kids.filter((k) => k !== null && k !== undefined));

  async function loadList() {
    let rounds;
    try {
      rounds = await api("GET", `${base()}/rounds`);
    } catch (error) {
      DA.showError(error.message);
      return;
    }
    const list = el(
      "nav",
      { class: "list", "aria-label": "last rounds" },
      el("h2", { text: "Last rounds" }),
      ...rounds.map((r) => {
        const s = r.settlement;
        const fmt = (amount) => money(amount, info.minor_units, info.currency);
        return el(
          "button",
          { type: "button", "data-round": r.round, onclick: () => show(r.round) },
          el("b", { text: `Round ${r.round}` }),
          el("span", { text: new Date(r.finished_at).toLocaleTimeString() }),
          el("span", { class: "amt", text: s.void ? "void" : Words.house(s.house_pays, fmt) }),
        );
      }),
      rounds.length ? null : el("p", { text: "No round has finished at this table yet." }),
      finder(),
    );
    const detail = el("article", { id: "recall-detail", class: "detail" }, el("p", { text: "Choose a round." }));
    const tools = el(
      "div",
      { class: "tools" },
      el("button", { type: "button", id: "recall-print", text: "Print", onclick: () => window.print() }),
      el("button", { type: "button", id: "recall-close", class: "primary", text: "Back to the table", onclick: close }),
    );
    put($("recall"), el("div", { class: "side-list" }, list, tools), detail);
    if (rounds.length) show(shown ?? rounds[0].round);
  }

  // Any round by its number: a supervisor opens it; at a dealer's session a supervisor authorises it.
  function finder() {
    const number = el("input", { id: "recall-number", inputmode: "numeric", "aria-label": "round number", placeholder: "no." });
    const go = async () => {
      const n = Number(number.value);
      if (!Number.isInteger(n) || n < 1) {
        DA.showError("give a round number");
        return;
      }
      show(n);
    };
    return el(
      "div",
      { class: "find" },
      el("span", { text: "Round" }),
      number,
      el("button", { type: "button", id: "recall-open", text: "Open", onclick: go }),
    );
  }

  async function show(n) {
    shown = n;
    for (const b of document.querySelectorAll("#recall .list button[data-round]")) {
      b.classList.toggle("current", Number(b.dataset.round) === n);
    }
    let detail;
    try {
      detail = await api("GET", `${base()}/rounds/${n}`);
    } catch (error) {
      if (/only a supervisor/.test(error.message) && !Authorise.supervisor()) {
        Authorise.open({
          table,
          title: `Recall round ${n} (older than the last rounds)`,
          fields: [el("p", { text: "A supervisor authorises recalling an older round." })],
          action: () => ({ kind: "recall-round", round: n }),
          done: (result) => render(result.recall),
        });
        return;
      }
      put($("recall-detail"), el("p", { class: "error", text: error.message }));
      return;
    }
    render(detail);
  }

  function render(d) {
    const t = d.table;
    const fmt = (amount) => money(amount, t.minor_units, t.currency);
    const s = d.settlement;
    const where = (c) => {
      const label = c.label.replace(/^board /, "");
      if (c.target === "box") return `Box ${c.box} · ${label}`;
      return `${c.target === "dealer" ? "Dealer" : "Board"} · ${label}`;
    };
    const cardCell = (code) => (code ? cardElement({ code, face_up: true }) : el("span", { class: "face-down", text: "face down" }));
    const cards = d.cards.map((c) =>
      el(
        "tr",
        { "data-n": c.n },
        el("td", { text: String(c.n) }),
        el("td", {}, cardCell(c.code)),
        el("td", { text: where(c) }),
        el(
          "td",
          { text: [c.dealt_face_up ? "dealt face up" : "", c.discarded ? "discarded in an exchange" : "", c.code ? "" : "never face up: not shown"].filter(Boolean).join(" · ") },
        ),
      ),
    );
    const actions = d.actions.map((a) =>
      el(
        "li",
        {},
        `${a.box ? `Box ${a.box}` : "Dealer"}: ${a.action.replace(/-/g, " ")}`,
        a.discard.length ? ` (card${a.discard.length > 1 ? "s" : ""} ${a.discard.join(", ")})` : "",
        Words.stage(a.stage) ? ` · ${Words.stage(a.stage)}` : "",
      ),
    );
    const bets = d.bets.map((b) =>
      el(
        "tr",
        {},
        el("td", { text: `Box ${b.box}` }),
        el("td", { class: "amt", text: fmt(b.ante) }),
        el("td", { class: "amt", text: b.bonus ? fmt(b.bonus) : "" }),
        el("td", { text: [b.blind ? "blind" : "", ...(b.bettors || []).map((p) => `${p.name} ${fmt(p.ante)}${p.bonus ? ` + bonus ${fmt(p.bonus)}` : ""}`)].filter(Boolean).join(" · ") }),
      ),
    );
    const results = [];
    for (const box of s.boxes) {
      const rows = box.bets.map((b) => {
        const cap = b.bet === "cap";
        const chips = cap ? { text: `−${fmt(-b.result)}` } : Words.chips(b, fmt);
        return el(
          "tr",
          { "data-box": box.box, "data-bet": b.bet },
          el("td", { text: `Box ${box.box}` }),
          el("td", { text: cap ? `Capped at the maximum payout ${fmt(t.max_payout)}` : Words.title(b.bet) }),
          el("td", { class: "amt", text: cap ? "" : fmt(b.stake) }),
          el("td", { class: "amt", text: chips.text }),
        );
      });
      if (box.jackpot) rows.push(el("tr", { class: "jackpot" }, el("td", { text: `Box ${box.box}` }), el("td", { text: "Jackpot" }), el("td"), el("td", { class: "amt", text: `pay ${fmt(box.jackpot)}` })));
      const net = Words.net(box, fmt);
      rows.push(
        el(
          "tr",
          { class: "net-row", "data-box": box.box },
          el("th", { text: `Box ${box.box}` }),
          el("th", { text: `${box.outcome}${box.hand ? ` · ${handName(box.hand)}` : ""}` }),
          el("th"),
          el("th", { class: "amt", text: net.text }),
        ),
      );
      for (const p of box.bettors || []) {
        rows.push(el("tr", { class: "share" }, el("td"), el("td", { text: p.name }), el("td", { class: "amt", text: fmt(p.ante) }), el("td", { class: "amt", text: (p.net > 0 ? "+" : "") + fmt(p.net) })));
      }
      results.push(...rows);
    }
    const dealer = s.dealer;
    const jackpot = s.jackpot;
    put(
      $("recall-detail"),
      el("h2", { id: "recall-title", text: `Round ${d.round} · ${d.title} · ${t.name}` }),
      el("p", { text: `Finished ${new Date(d.finished_at).toLocaleString()} · limits ${fmt(t.min_bet)}–${fmt(t.max_bet)}, maximum payout ${fmt(t.max_payout)}` }),
      d.void ? el("p", { class: "error", text: `Void: ${d.void}` }) : null,
      el("h3", { text: "Bets" }),
      el("table", { class: "bets-table" }, el("thead", {}, el("tr", {}, ...["Box", "Ante", "Bonus", "Blind, bettors"].map((h) => el("th", { text: h })))), el("tbody", {}, ...bets)),
      el("h3", { text: "Cards in deal order" }),
      el("table", { class: "cards-table" }, el("thead", {}, el("tr", {}, ...["#", "Card", "Where", ""].map((h) => el("th", { text: h })))), el("tbody", {}, ...cards)),
      el("h3", { text: "Decisions" }),
      actions.length ? el("ol", { class: "actions" }, ...actions) : el("p", { text: "None." }),
      el("h3", { text: "Dealer" }),
      el("p", { class: "dealer-line", text: dealer.hand ? `${handName(dealer.hand)} · ${dealer.qualifies === null ? "" : dealer.qualifies ? "qualifies" : "does not qualify"}` : "Not shown." }),
      el("h3", { text: "Settlement" }),
      el("table", { class: "settlement-table" }, el("thead", {}, el("tr", {}, ...["Box", "Bet", "Stake", "Chips"].map((h) => el("th", { text: h })))), el("tbody", {}, ...results)),
      el("p", { class: "house-line", text: `${Words.house(s.house_pays, fmt)}${jackpot.won ? ` · jackpot won ${fmt(jackpot.won)}` : ""}` }),
      el("p", { text: `Jackpot meter ${fmt(jackpot.meter)} → ${fmt(jackpot.meter_after)} (contribution ${fmt(jackpot.contribution)})` }),
      ...payments(d, fmt),
    );
  }

  // What was paid where it was not what the settlement showed, every correction with who and why, and,
  // for a supervisor, the form that records a correction (docs/irregularities.md, short payment).
  function payments(d, fmt) {
    const out = [el("h3", { text: "Payments" })];
    const rows = (d.payments || []).map((p) =>
      el("li", {},
        `Box ${p.box}: due ${fmt(p.due)}, paid ${fmt(p.paid)}${p.paid === p.due ? " (settled)" : ` (${p.due > p.paid ? `${fmt(p.due - p.paid)} short` : `${fmt(p.paid - p.due)} over`})`}`,
        ...(p.corrections || []).map((c) => el("div", { class: "correction", text: `${new Date(c.at).toLocaleString()} · ${c.by}: paid ${fmt(c.paid)} in all, ${fmt(c.handed)} handed over — ${c.why}` })),
      ),
    );
    out.push(rows.length ? el("ul", { id: "recall-payments" }, ...rows) : el("p", { text: "Paid as shown." }));
    const paying = d.settlement.boxes.filter((b) => b.main + b.bonus > 0);
    if (d.void || !paying.length) return out;
    if (!Authorise.supervisor()) {
      out.push(el("p", { class: "note", text: "A supervisor records a payment correction from their own session." }));
      return out;
    }
    const box = el("select", { name: "payment-box" }, ...paying.map((b) => el("option", { value: String(b.box), text: `Box ${b.box}` })));
    const paid = el("input", { name: "payment-paid", type: "number", min: "0", step: "1", placeholder: "paid in all" });
    const handed = el("input", { name: "payment-handed", type: "number", step: "1", placeholder: "handed now" });
    const why = el("input", { name: "payment-why", placeholder: "why", autocomplete: "off" });
    const message = el("p", { class: "error", role: "alert" });
    const save = el("button", { id: "payment-save", type: "button", text: "Record the correction" });
    save.onclick = async () => {
      message.textContent = "";
      try {
        await api("POST", `${base()}/rounds/${d.round}/payments/${box.value}`, {
          paid: Number(paid.value), handed: Number(handed.value), why: why.value,
        });
        await show(d.round);
      } catch (error) {
        message.textContent = error.message;
      }
    };
    out.push(el("div", { class: "payment-form" }, box, paid, handed, why, save), message);
    return out;
  }

  return { open, close };
})();
