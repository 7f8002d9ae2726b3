// The dealer's bets form: one card per box (ante, bonus, blind), shared boxes with their bettors.
"use strict";

const DealerBets = (() => {
  const { el, parseMoney } = DA;
  const form = () => document.getElementById("bets");
  let builtFor = null;
  let table = null;

  // Amount fields of a box's bettors, and the box's own fields (read-only totals while it is shared).
  const bettorRows = (n) => [...form().querySelectorAll(`.bettor-row[data-box='${n}']`)];
  const plain = (amount, minorUnits) => {
    if (minorUnits === 0) return String(amount);
    const digits = String(amount).padStart(minorUnits + 1, "0");
    return `${digits.slice(0, -minorUnits)}.${digits.slice(-minorUnits)}`;
  };

  // A shared box's ante and bonus are its bettors' sums: shown in the box's fields as they are typed.
  function totalShares(n) {
    const f = form();
    const rows = bettorRows(n);
    const fields = [f.elements[`ante-${n}`], f.elements[`bonus-${n}`]].filter(Boolean);
    for (const field of fields) field.readOnly = rows.length > 0;
    f.querySelector(`.bet-box[data-box='${n}']`).classList.toggle("shared", rows.length > 1);
    if (!rows.length) return;
    for (const [field, kind] of [
      [f.elements[`ante-${n}`], "ante"],
      [f.elements[`bonus-${n}`], "bonus"],
    ]) {
      if (!field) continue;
      try {
        const sum = rows.reduce((total, row) => total + parseMoney(row.querySelector(`[data-field=${kind}]`).value, table.minor_units), 0);
        field.value = sum ? plain(sum, table.minor_units) : "";
      } catch (_) {
        field.value = ""; // an amount that does not read: refused with its reason when the round opens
      }
    }
  }

  function bettorRow(n, { name = "", ante = "", bonus = "" } = {}) {
    const input = (field, value, attrs) =>
      el("input", { "data-field": field, value, autocomplete: "off", oninput: () => totalShares(n), ...attrs });
    const row = el(
      "div",
      { class: "bettor-row", "data-box": n },
      el("span", { class: "bettor-label" }),
      input("name", name, { maxlength: 40, placeholder: "name", "aria-label": "bettor's name" }),
      input("ante", ante, { inputmode: "decimal", placeholder: "ante", "aria-label": "bettor's ante" }),
      table.bonus ? input("bonus", bonus, { inputmode: "decimal", placeholder: "bonus", "aria-label": "bettor's bonus" }) : null,
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
    const add = form().querySelector(`.add-bettor[data-box='${n}']`);
    if (add) add.disabled = bettorRows(n).length >= table.max_bettors;
  }

  function addBettor(n) {
    const f = form();
    const holder = f.querySelector(`.bettors[data-box='${n}']`);
    if (!bettorRows(n).length) {
      // Sharing starts from what is on the box: that is the owner's stake; the next bettor is added empty.
      const bonusField = f.elements[`bonus-${n}`];
      holder.append(bettorRow(n, { ante: f.elements[`ante-${n}`].value, bonus: bonusField ? bonusField.value : "" }));
    }
    holder.append(bettorRow(n));
    labelBettors(n);
    totalShares(n);
    bettorRows(n).at(-1).querySelector("[data-field=name]").focus();
  }

  function clear() {
    const f = form();
    f.reset();
    for (const holder of f.querySelectorAll(".bettors")) holder.replaceChildren();
    for (const field of f.querySelectorAll("input[readonly]")) field.readOnly = false;
    for (const box of f.querySelectorAll(".bet-box.shared")) box.classList.remove("shared");
    for (const add of f.querySelectorAll(".add-bettor")) add.disabled = false;
  }

  // Built once per table shape: the bets typed so far survive a change of limits between rounds.
  function build(info) {
    table = info;
    const key = [info.name, info.game, info.boxes, info.bonus, info.max_bettors].join("|");
    if (builtFor === key) return;
    builtFor = key;
    const cards = [];
    for (let n = 1; n <= info.boxes; n++) {
      const money = (name, label) =>
        el("label", {}, label, el("input", { name, inputmode: "decimal", autocomplete: "off", "aria-label": `box ${n} ${label.toLowerCase()}` }));
      cards.push(
        el(
          "div",
          { class: "bet-box", "data-box": n },
          el(
            "div",
            { class: "bet-head" },
            el("span", { class: "box-label", text: `Box ${n}` }),
            info.max_bettors > 1
              ? el("button", { type: "button", class: "add-bettor", "data-box": n, text: "+ Bettor", onclick: () => addBettor(n) })
              : null,
          ),
          el(
            "div",
            { class: "bet-row" },
            money(`ante-${n}`, "Ante"),
            info.bonus ? money(`bonus-${n}`, "Bonus") : null,
            info.game === "oasis" ? el("label", { class: "blind" }, el("input", { name: `blind-${n}`, type: "checkbox" }), "blind") : null,
          ),
          el("div", { class: "bettors", "data-box": n }),
        ),
      );
    }
    form().replaceChildren(...cards);
  }

  // The bets as the API takes them. Throws an Error naming the box when something does not read.
  function read() {
    const f = form();
    const bets = [];
    for (let n = 1; n <= table.boxes; n++) {
      const blindField = f.elements[`blind-${n}`];
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
          return { name, ante: parseMoney(value("ante"), table.minor_units), bonus: parseMoney(value("bonus"), table.minor_units) };
        });
        const ante = bettors.reduce((sum, b) => sum + b.ante, 0);
        const bonus = bettors.reduce((sum, b) => sum + b.bonus, 0);
        bets.push({ box: n, ante, bonus, blind, bettors });
        continue;
      }
      const ante = parseMoney(f.elements[`ante-${n}`].value, table.minor_units);
      const bonusField = f.elements[`bonus-${n}`];
      const bonus = bonusField ? parseMoney(bonusField.value, table.minor_units) : 0;
      if (ante || bonus) bets.push({ box: n, ante, bonus, blind });
    }
    return bets;
  }

  return { build, read, clear };
})();
