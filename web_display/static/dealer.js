// The dealer display: the table as the live feed shows it, and the dealer's commands.
"use strict";

(() => {
  const { api, el, money, handName, cardElement, showError, clearError } = DA;
  const tableName = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
  const base = `/api/tables/${encodeURIComponent(tableName)}`;
  const NO_QUALIFICATION = new Set(["holdem-bonus"]);
  const EARLY_SHOW = new Set(["holdem-exchange"]); // games with the dealer's "dealer-shown" action
  let view = null;
  let me = null;
  let betsBuiltFor = null;
  let tiltsKey = "";
  let historyRound = -1;
  let jackpotKey = "";
  let jackpotHidden = false;
  const discard = new Set();
  let discardFor = "";

  const $ = (id) => document.getElementById(id);
  // replaceChildren() would write a null child as the text "null": optional parts are left out.
  const put = (node, ...kids) => node.replaceChildren(...kids.filter((k) => k !== null && k !== undefined));
  const fmt = (amount) => money(amount, view.table.minor_units, view.table.currency);
  const signed = (amount) => (amount > 0 ? "+" : "") + fmt(amount);
  const title = (text) => text.charAt(0).toUpperCase() + text.slice(1).replace(/-/g, " ");

  async function command(method, path, body) {
    clearError();
    try {
      return await api(method, base + path, body);
    } catch (error) {
      showError(error.message);
      return null;
    }
  }

  // ------------------------------------------------------------------ header

  function renderHeader() {
    $("table-name").textContent = view.table.name;
    $("game-title").textContent = view.table.title;
    $("round-no").textContent = view.round || "–";
    $("phase").textContent = view.phase;
    $("phase").dataset.phase = view.phase;
    $("jackpot-meter").textContent = view.jackpot.enabled ? fmt(view.jackpot.meter) : "off";
    $("expected").textContent = view.expected;
    $("expected").classList.toggle("alert", view.tilts.length > 0);
  }

  // ------------------------------------------------------------------- tilts

  function renderTilts() {
    const key = JSON.stringify(view.tilts.map((t) => [t.id, t.held, t.resolutions])) + me.role;
    if (key === tiltsKey) return; // keep what a supervisor is typing
    tiltsKey = key;
    const box = $("tilts");
    put(box);
    const supervisor = me.role === "supervisor" || me.role === "admin";
    for (const tilt of view.tilts) {
      const why = el("input", { name: "why", placeholder: "why (goes in the log)", autocomplete: "off" });
      const card = el("input", { name: "card", placeholder: "card, e.g. 8c", autocomplete: "off", size: 4 });
      const choice = el(
        "select",
        { name: "resolution" },
        ...tilt.resolutions.map((r) => el("option", { value: r, text: r.replace(/-/g, " ") })),
      );
      const form = supervisor
        ? el(
            "div",
            { class: "tilt-form" },
            choice,
            why,
            card,
            el("button", {
              class: "big danger clear",
              type: "button",
              text: "Clear tilt",
              onclick: async () => {
                const body = { resolution: choice.value, why: why.value, card: card.value.trim() || null };
                await command("POST", `/tilts/${tilt.id}/clear`, body);
              },
            }),
          )
        : el("p", { class: "call", text: "Call a supervisor: they sign in here to clear it." });
      box.append(
        el(
          "div",
          { class: "tilt", "data-tilt": tilt.id, "data-kind": tilt.kind },
          el("h2", { text: `TILT ${tilt.id}: ${tilt.message}` }),
          el("p", { class: "instruction", text: tilt.instruction }),
          tilt.held ? el("p", { text: `${tilt.held} card(s) held` }) : null,
          form,
        ),
      );
    }
  }

  // ------------------------------------------------------------------ cards

  function renderCards() {
    put($("dealer-cards"), ...view.dealer.map(cardElement));
    $("board-area").hidden = view.board.length === 0;
    put($("board-cards"), ...view.board.map(cardElement));
    const dealer = view.settlement ? view.settlement.dealer : null;
    $("dealer-hand").textContent = dealer && dealer.hand ? handName(dealer.hand) : "";
    let qualifies = "";
    if (dealer && dealer.qualifies !== null && dealer.hand) {
      if (NO_QUALIFICATION.has(view.table.game)) qualifies = "Dealer plays (no qualification)";
      else qualifies = dealer.qualifies ? "Dealer qualifies" : "Dealer does not qualify";
    }
    $("dealer-qualifies").textContent = qualifies;
    $("dealer-qualifies").dataset.qualifies = dealer ? String(dealer.qualifies) : "";
  }

  function stakeLines(box) {
    const lines = box.stakes.map((s) => el("li", { "data-stake": s.bet, text: `${title(s.bet)} ${fmt(s.amount)}` }));
    if (box.bonus) lines.push(el("li", { "data-stake": "bonus", text: `Bonus ${fmt(box.bonus)}` }));
    for (const p of box.bettors) {
      const bonus = p.bonus ? ` · bonus ${fmt(p.bonus)}` : "";
      lines.push(el("li", { class: "bettor", text: `${p.name}: ${fmt(p.ante)}${bonus}` }));
    }
    return el("ul", { class: "stakes" }, ...lines);
  }

  function resultLines(result) {
    const lines = [];
    for (const b of result.bets) {
      if (b.bet === "cap") continue;
      lines.push(
        el(
          "li",
          { class: "bet-result", "data-bet": b.bet },
          el("span", { text: `${title(b.bet)} ${b.stake ? fmt(b.stake) : ""}` }),
          el("b", { text: b.result === 0 ? "push" : signed(b.result) }),
        ),
      );
    }
    if (result.capped) {
      lines.push(
        el(
          "li",
          { class: "cap" },
          el("span", { text: `Capped at the maximum payout ${fmt(view.table.max_payout)}` }),
          el("b", { text: `−${fmt(result.cap_cut)}` }),
        ),
      );
    }
    if (result.jackpot) {
      lines.push(
        el("li", { class: "jackpot-result" }, el("span", { text: "JACKPOT" }), el("b", { text: signed(result.jackpot) })),
      );
    }
    // A shared box: each bettor's share, already split by the controller (remainder to the owner).
    const shares = (result.bettors || []).map((b) =>
      el("li", { class: "share", "data-bettor": b.name }, el("span", { text: b.name }), el("b", { text: signed(b.net) })),
    );
    let net = "Push";
    if (result.net > 0) net = `Pay ${fmt(result.net)}`;
    if (result.net < 0) net = `Collect ${fmt(-result.net)}`;
    return el(
      "div",
      { class: `result outcome-${result.outcome}` },
      el("div", { class: "outcome", text: result.outcome.toUpperCase() }),
      el("ul", { class: "bet-results" }, ...lines),
      el("div", { class: "net", "data-net": result.net, text: net }),
      shares.length ? el("ul", { class: "shares" }, ...shares) : null,
    );
  }

  function renderBoxes() {
    const results = new Map((view.settlement ? view.settlement.boxes : []).map((b) => [b.box, b]));
    const tiles = view.boxes.map((box) => {
      const result = results.get(box.box);
      const hand = box.hand || (result && result.hand);
      return el(
        "article",
        {
          class: `box${box.folded ? " folded" : ""}${view.decide && view.decide.box === box.box ? " turn" : ""}`,
          id: `box-${box.box}`,
        },
        el("h3", { text: `Box ${box.box}${box.blind ? " · blind" : ""}${box.folded ? " · folded" : ""}` }),
        stakeLines(box),
        el("div", { class: "cards" }, ...box.cards.map(cardElement)),
        el("div", { class: "hand", text: hand ? handName(hand) : "" }),
        el("div", { class: "decisions", text: box.decisions.join(" · ") }),
        view.decide && view.decide.box === box.box && view.decide.deadline
          ? el("div", { class: "countdown", "data-deadline": view.decide.deadline, role: "timer" })
          : null,
        result ? resultLines(result) : null,
      );
    });
    put($("boxes"), ...tiles);
  }

  // --------------------------------------------------------------- commands

  function renderDecide() {
    const panel = $("decide");
    const decide = view.decide;
    if (!decide || view.tilts.length) {
      put(panel);
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const key = `${view.round}:${decide.box}:${decide.stage}`;
    if (key !== discardFor) {
      discard.clear();
      discardFor = key;
    }
    const box = view.boxes.find((b) => b.box === decide.box);
    const picks = decide.options.includes("exchange")
      ? el(
          "div",
          { class: "discards" },
          el("span", { text: "Exchange which card?" }),
          ...box.cards.map((_, pos) =>
            el("button", {
              type: "button",
              class: `discard${discard.has(pos) ? " picked" : ""}`,
              "data-pos": pos,
              text: `Card ${pos + 1}`,
              onclick: (event) => {
                if (discard.has(pos)) discard.delete(pos);
                else discard.add(pos);
                event.currentTarget.classList.toggle("picked", discard.has(pos));
              },
            }),
          ),
        )
      : null;
    const buttons = decide.options.map((option) =>
      el("button", {
        type: "button",
        class: `big action action-${option}`,
        "data-action": option,
        text: option.toUpperCase(),
        onclick: async () => {
          const body = { box: decide.box, action: option };
          if (option === "exchange") body.discard = [...discard].sort();
          await command("POST", "/actions", body);
        },
      }),
    );
    // Hold'em with exchange: a dealer who showed his hand before every box decided says so here;
    // the boxes still to decide may then only fold or withdraw (their options come from the table).
    const earlyShow =
      EARLY_SHOW.has(view.table.game) && !view.dealer.every((c) => c.face_up)
        ? el("button", {
            id: "dealer-shown",
            type: "button",
            class: "big danger",
            text: "Dealer hand shown early",
            onclick: () => command("POST", "/actions", { box: 0, action: "dealer-shown" }),
          })
        : null;
    put(
      panel,
      el("h2", { text: `Box ${decide.box}: ${decide.stage ? decide.stage.replace(/-/g, " ") + " — " : ""}decide` }),
      picks,
      el("div", { class: "buttons" }, ...buttons),
      earlyShow ? el("div", { class: "buttons dealer-actions" }, earlyShow) : null,
    );
  }

  function renderShowdown() {
    const panel = $("showdown");
    const s = view.settlement;
    if (view.phase !== "showdown" || !s) {
      put(panel);
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const pays = s.house_pays;
    put(panel, 
      el("h2", { id: "house-pays", text: pays >= 0 ? `House pays ${fmt(pays)}` : `House collects ${fmt(-pays)}` }),
      el("button", {
        id: "confirm-settlement",
        class: "big primary",
        type: "button",
        text: "Paid as shown: confirm",
        disabled: view.tilts.length > 0,
        onclick: () => command("POST", "/settlement/confirm"),
      }),
    );
  }

  // Amount fields of a box's bettors, and the box's own fields (read-only totals while it is shared).
  const bettorRows = (n) => [...$("bets").querySelectorAll(`.bettor-row[data-box='${n}']`)];
  const plain = (amount, minorUnits) => {
    if (minorUnits === 0) return String(amount);
    const digits = String(amount).padStart(minorUnits + 1, "0");
    return `${digits.slice(0, -minorUnits)}.${digits.slice(-minorUnits)}`;
  };

  // A shared box's ante and bonus are its bettors' sums: shown in the box's fields as they are typed.
  function totalShares(n) {
    const t = view.table;
    const form = $("bets");
    const rows = bettorRows(n);
    const fields = [form.elements[`ante-${n}`], form.elements[`bonus-${n}`]].filter(Boolean);
    for (const field of fields) field.readOnly = rows.length > 0;
    if (!rows.length) return;
    for (const [field, kind] of [
      [form.elements[`ante-${n}`], "ante"],
      [form.elements[`bonus-${n}`], "bonus"],
    ]) {
      if (!field) continue;
      try {
        const sum = rows.reduce((total, row) => total + DA.parseMoney(row.querySelector(`[data-field=${kind}]`).value, t.minor_units), 0);
        field.value = sum ? plain(sum, t.minor_units) : "";
      } catch (_) {
        field.value = ""; // an amount that does not read: refused with its reason when the round opens
      }
    }
  }

  function bettorRow(n, { name = "", ante = "", bonus = "" } = {}) {
    const t = view.table;
    const input = (field, value, attrs) =>
      el("input", { "data-field": field, value, autocomplete: "off", oninput: () => totalShares(n), ...attrs });
    const row = el(
      "div",
      { class: "bettor-row", "data-box": n },
      el("span", { class: "bettor-label" }),
      el("label", {}, "Name ", input("name", name, { maxlength: 40, size: 10 })),
      el("label", {}, "Ante ", input("ante", ante, { inputmode: "decimal" })),
      t.bonus ? el("label", {}, "Bonus ", input("bonus", bonus, { inputmode: "decimal" })) : null,
      el("button", {
        type: "button",
        class: "remove-bettor",
        text: "✕",
        "aria-label": "remove this bettor",
        onclick: () => {
          row.remove();
          labelBettors(n);
          totalShares(n);
        },
      }),
    );
    return row;
  }

  // The first bettor owns the box (decides and takes the remainder of a split); the label says so.
  function labelBettors(n) {
    bettorRows(n).forEach((row, i) => {
      row.querySelector(".bettor-label").textContent = i === 0 ? "Owner" : `Bettor ${i + 1}`;
    });
  }

  function addBettor(n) {
    const form = $("bets");
    const holder = form.querySelector(`.bettors[data-box='${n}']`);
    if (!bettorRows(n).length) {
      // Sharing starts from what is on the box: that is the owner's stake; the next bettor is added empty.
      const bonusField = form.elements[`bonus-${n}`];
      holder.append(bettorRow(n, { ante: form.elements[`ante-${n}`].value, bonus: bonusField ? bonusField.value : "" }));
    }
    holder.append(bettorRow(n));
    labelBettors(n);
    totalShares(n);
    bettorRows(n).at(-1).querySelector("[data-field=name]").focus();
  }

  function clearBets() {
    const form = $("bets");
    form.reset();
    for (const holder of form.querySelectorAll(".bettors")) holder.replaceChildren();
    for (const field of form.querySelectorAll("input[readonly]")) field.readOnly = false;
  }

  function buildBets() {
    const form = $("bets");
    const t = view.table;
    const key = [t.name, t.game, t.boxes, t.bonus].join("|");
    if (betsBuiltFor === key) return;
    betsBuiltFor = key;
    const rows = [];
    for (let n = 1; n <= t.boxes; n++) {
      rows.push(
        el(
          "div",
          { class: "bet-row" },
          el("span", { class: "box-label", text: `Box ${n}` }),
          el("label", {}, "Ante ", el("input", { name: `ante-${n}`, inputmode: "decimal", autocomplete: "off" })),
          t.bonus
            ? el("label", {}, "Bonus ", el("input", { name: `bonus-${n}`, inputmode: "decimal", autocomplete: "off" }))
            : null,
          t.game === "oasis" ? el("label", {}, el("input", { name: `blind-${n}`, type: "checkbox" }), " blind") : null,
          el("button", { type: "button", class: "add-bettor", "data-box": n, text: "+ Bettor", onclick: () => addBettor(n) }),
        ),
        el("div", { class: "bettors", "data-box": n }),
      );
    }
    put(form, ...rows);
  }

  function readBets() {
    const t = view.table;
    const form = $("bets");
    const bets = [];
    for (let n = 1; n <= t.boxes; n++) {
      const blindField = form.elements[`blind-${n}`];
      const blind = Boolean(blindField && blindField.checked);
      const rows = bettorRows(n);
      if (rows.length) {
        const bettors = rows.map((row, i) => {
          const value = (field) => {
            const input = row.querySelector(`[data-field=${field}]`);
            return input ? input.value : "";
          };
          const name = value("name").trim();
          if (!name) throw new Error(`box ${n}: ${i === 0 ? "the owner" : `bettor ${i + 1}`} needs a name`);
          return { name, ante: DA.parseMoney(value("ante"), t.minor_units), bonus: DA.parseMoney(value("bonus"), t.minor_units) };
        });
        const ante = bettors.reduce((sum, b) => sum + b.ante, 0);
        const bonus = bettors.reduce((sum, b) => sum + b.bonus, 0);
        bets.push({ box: n, ante, bonus, blind, bettors });
        continue;
      }
      const ante = DA.parseMoney(form.elements[`ante-${n}`].value, t.minor_units);
      const bonusField = form.elements[`bonus-${n}`];
      const bonus = bonusField ? DA.parseMoney(bonusField.value, t.minor_units) : 0;
      if (ante || bonus) bets.push({ box: n, ante, bonus, blind });
    }
    return bets;
  }

  function renderControls() {
    buildBets();
    // Outside the form: an admin may change the limits between rounds without the bets typed so far going.
    const t = view.table;
    $("limits").textContent = `Limits ${fmt(t.min_bet)} – ${fmt(t.max_bet)} · maximum payout ${fmt(t.max_payout)}`;
    const idle = view.phase === "idle";
    $("bets-panel").hidden = !idle;
    $("repeat-bets").disabled = !view.last_bets;
    const tools = $("round-tools");
    const supervisor = me.role === "supervisor" || me.role === "admin";
    if (idle) {
      put(tools);
      return;
    }
    const reason = el("input", { name: "void-why", placeholder: "why void the round", autocomplete: "off" });
    put(tools, 
      el("button", {
        id: "report-exposed",
        type: "button",
        class: "big",
        text: "Dealer card exposed",
        onclick: () => command("POST", "/reports", { kind: "dealer-card-exposed" }),
      }),
      el("button", {
        id: "report-missing",
        type: "button",
        class: "big",
        text: "Missing card",
        onclick: () => command("POST", "/reports", { kind: "missing-card" }),
      }),
      supervisor ? reason : null,
      supervisor
        ? el("button", {
            id: "void-round",
            type: "button",
            class: "big danger",
            text: "Void round",
            onclick: () => command("POST", "/rounds/void", { why: reason.value }),
          })
        : null,
    );
  }

  // ------------------------------------------------------------- jackpot hit

  function renderJackpot() {
    const screen = $("jackpot-screen");
    const atShowdown = view.settlement ? view.settlement.jackpot.hits : [];
    const pending = view.jackpot.pending;
    const key = JSON.stringify([atShowdown, pending.map((h) => h.hit)]);
    if (key !== jackpotKey) {
      jackpotKey = key;
      jackpotHidden = false;
    }
    if ((!atShowdown.length && !pending.length) || jackpotHidden) {
      screen.hidden = true;
      return;
    }
    screen.hidden = false;
    const supervisor = me.role === "supervisor" || me.role === "admin";
    const lines = [];
    for (const hit of atShowdown) {
      lines.push(el("p", { class: "hit", text: `Box ${hit.box} · ${handName(hit.hand)} · ${fmt(hit.amount)}` }));
    }
    if (atShowdown.length && view.phase === "showdown") {
      lines.push(el("p", { text: "Pay the table as shown and confirm; a supervisor then confirms the jackpot." }));
      lines.push(
        el("button", {
          class: "big primary",
          type: "button",
          id: "jackpot-confirm-settlement",
          text: "Paid as shown: confirm",
          onclick: () => command("POST", "/settlement/confirm"),
        }),
      );
    }
    for (const hit of pending) {
      lines.push(
        el(
          "div",
          { class: "pending-hit", "data-hit": hit.hit },
          el("p", { class: "hit", text: `Round ${hit.round} · Box ${hit.box} · ${handName(hit.hand)} · ${fmt(hit.amount)}` }),
          supervisor
            ? el("button", {
                class: "big primary",
                type: "button",
                id: `confirm-jackpot-${hit.hit}`,
                text: "Jackpot paid: confirm",
                onclick: () => command("POST", `/jackpot/${hit.hit}/confirm`),
              })
            : el("p", { text: "Awaiting a supervisor's confirmation." }),
        ),
      );
    }
    put(screen, 
      el("h1", { text: "JACKPOT!" }),
      ...lines,
      el("button", {
        type: "button",
        id: "jackpot-hide",
        text: "Show the table",
        onclick: () => {
          jackpotHidden = true;
          screen.hidden = true;
        },
      }),
    );
  }

  // ----------------------------------------------------------------- history

  async function renderHistory() {
    if (view.round === historyRound && view.phase !== "idle") return;
    const marker = `${view.round}:${view.phase}`;
    if (renderHistory.last === marker) return;
    renderHistory.last = marker;
    historyRound = view.round;
    let rounds;
    try {
      rounds = await api("GET", `${base}/rounds`);
    } catch (error) {
      showError(error.message);
      return;
    }
    const rows = rounds.map((r) => {
      const s = r.settlement;
      const dealer = s.void ? `void: ${s.void}` : s.dealer.hand ? handName(s.dealer.hand) : "";
      const boxes = s.boxes
        .map((b) => `${b.box}: ${b.outcome}${b.hand ? ` ${handName(b.hand)}` : ""} ${signed(b.net)}`)
        .join(" · ");
      return el(
        "tr",
        { "data-round": r.round },
        el("td", { text: String(r.round) }),
        el("td", { text: new Date(r.finished_at).toLocaleTimeString() }),
        el("td", { text: dealer }),
        el("td", { text: boxes }),
        el("td", { text: fmt(s.house_pays) }),
      );
    });
    put($("history").tBodies[0], ...rows);
  }

  // Casino Hold'em's decision timer: the box to decide folds by itself at the deadline (the server
  // runs the timer; this only counts down to it). Ticks between snapshots, so it runs on its own.
  function tickCountdown() {
    for (const node of document.querySelectorAll(".countdown[data-deadline]")) {
      const left = Math.max(0, Date.parse(node.dataset.deadline) - DA.serverNow());
      const seconds = Math.ceil(left / 1000);
      node.textContent = left > 0 ? `${seconds} s to decide` : "Time: folds now";
      node.dataset.seconds = String(seconds);
      node.classList.toggle("urgent", seconds <= 5);
    }
  }

  function render() {
    renderHeader();
    renderTilts();
    renderCards();
    renderBoxes();
    tickCountdown();
    renderDecide();
    renderShowdown();
    renderControls();
    renderJackpot();
    renderHistory();
    document.body.dataset.version = String(view.version);
  }

  async function start() {
    me = await DA.whoami();
    if (!me) return;
    $("user-name").textContent = me.name;
    $("user-role").textContent = me.role;
    document.body.dataset.role = me.role;
    $("sign-out").addEventListener("click", DA.signOut);
    $("supervisor-sign-in").addEventListener("click", DA.signOut);
    $("open-round").addEventListener("click", async () => {
      let bets;
      try {
        bets = readBets();
      } catch (error) {
        showError(error.message);
        return;
      }
      if (!bets.length) {
        showError("enter at least one box's ante");
        return;
      }
      if (await command("POST", "/rounds", { bets })) clearBets();
    });
    $("repeat-bets").addEventListener("click", () => command("POST", "/rounds/repeat"));
    setInterval(tickCountdown, 250);
    DA.live(
      `/ws/tables/${encodeURIComponent(tableName)}`,
      (message) => {
        if (message.type !== "table") return;
        view = message.view;
        render();
      },
      (up) => $("link").classList.toggle("down", !up),
    );
  }

  start();
})();
