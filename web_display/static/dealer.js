// The dealer display: the table as the live feed shows it, and the dealer's commands, on one screen.
"use strict";

const DealerView = (() => {
  const { api, el, money, handName, cardElement, showError, clearError } = DA;
  const tableName = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
  const base = `/api/tables/${encodeURIComponent(tableName)}`;
  const NO_QUALIFICATION = new Set(["holdem-bonus"]);
  const EARLY_SHOW = new Set(["holdem-exchange"]); // games with the dealer's "dealer-shown" action
  const FIVE_CARD_GAMES = new Set(["oasis"]); // five cards a box: smaller cards than the hold'em games' two
  const MONEY_KEYS = new Set(["min_bet", "max_bet", "max_payout", "bonus.min_bet", "bonus.max_bet", "jackpot.reset", "jackpot.contribution"]);
  let view = null;
  let cameraReceived = 0; // performance.now() when the camera's last report arrived
  let me = null;
  let online = false;
  const discard = new Set();
  let discardFor = "";

  const $ = (id) => document.getElementById(id);
  // replaceChildren() would write a null child as the text "null": optional parts are left out.
  const put = (node, ...kids) => node.replaceChildren(...kids.filter((k) => k !== null && k !== undefined && k !== false));
  const fmt = (amount) => money(amount, view.table.minor_units, view.table.currency);
  const amount = (value) => el("span", { class: "amt", text: fmt(value) });

  async function command(method, path, body) {
    clearError();
    try {
      return await api(method, base + path, body);
    } catch (error) {
      showError(error.message);
      return null;
    }
  }

  // ------------------------------------------------------------ status and instruction

  function renderStatus() {
    $("table-name").textContent = view.table.name;
    $("game-title").textContent = view.table.title;
    $("round-no").textContent = view.round || "–";
    $("phase").textContent = view.phase;
    $("phase").dataset.phase = view.phase;
    const progressive = view.jackpot.progressive || "none";
    const closed = view.jackpot.enabled && progressive === "closed";
    // A linked progressive closed by the floor link: no jackpot-eligible bet until it reopens.
    $("jackpot-meter").textContent = !view.jackpot.enabled ? "off" : closed ? "closed" : fmt(view.jackpot.meter);
    $("jackpot-meter").title = closed ? `Progressive closed: ${view.jackpot.progressive_detail}. No bonus bets until it reopens.` : "";
    $("jackpot-meter").classList.toggle("closed", closed);
    $("dev-floor").hidden = progressive === "none";
    if (progressive !== "none") {
      device("dev-floor", closed ? ["alarm", "progressive closed"] : ["ok", "linked"],
        closed ? view.jackpot.progressive_detail : "the linked progressive is open");
    }
    // With a tilt open the line says what to do now; the tilt itself (in the controls) says what happened.
    const tilt = view.tilts[0];
    $("expected").textContent = tilt ? tilt.instruction : view.expected;
    $("expected").classList.toggle("alert", Boolean(tilt));
    const kinds = new Set(view.tilts.map((t) => t.kind));
    const shoeFault = view.tilts.find((t) => t.kind === "shoe-fault");
    // The shoe's lamp: its tilts first, then its link as the table reports it. A table whose camera
    // deals (no reading shoe) has no shoe lamp; a table that reports no shoe at all keeps the tilts' word.
    const shoe = view.shoe;
    const cameraDeals = view.camera && view.camera.role === "deals";
    const shoeTilt = kinds.has("shoe-link-lost") || Boolean(shoeFault);
    $("dev-shoe").hidden = !shoe && cameraDeals && !shoeTilt;
    let shoeLamp = ["ok", "OK", "no shoe fault reported"];
    if (shoe && shoe.state === "connecting") shoeLamp = ["unknown", "connecting", "waiting for the shoe's link"];
    if (shoe && shoe.state === "lost") shoeLamp = ["alarm", "link lost", "lost the link to the shoe"];
    if (kinds.has("shoe-link-lost")) shoeLamp = ["alarm", "link lost", "lost the link to the shoe"];
    if (shoeFault) shoeLamp = ["alarm", "fault", shoeFault.message];
    device("dev-shoe", shoeLamp.slice(0, 2), shoeLamp[2]);
    renderCamera();
  }

  const CAMERA_LAMP = {
    ok: ["ok", "OK"],
    starting: ["unknown", "starting"],
    stale: ["alarm", "stale"],
    stopped: ["alarm", "stopped"],
    lost: ["alarm", "lost"],
    disagrees: ["alarm", "disagrees"],
  };

  // The camera's lamp and its health beside it; run at every report and between reports (its age).
  // A table with no camera (and no camera tilt) shows no camera lamp at all.
  function renderCamera() {
    const kinds = new Set(view.tilts.map((t) => t.kind));
    const camera = view.camera;
    const node = $("dev-camera");
    node.hidden = !camera && !kinds.has("camera-link-lost") && !kinds.has("camera-mismatch");
    if (node.hidden) return;
    const { state, age } = DA.cameraState(camera, kinds, cameraReceived);
    const [lamp, text] = CAMERA_LAMP[state] || ["unknown", state];
    const titles = {
      disagrees: "the camera and the shoe disagree about a card",
      lost: camera && camera.failure ? `the camera failed: ${camera.failure}` : "the camera over the table is not working",
      stale: "no frame from the camera lately: its checks are not running",
      stopped: "the camera stopped",
      starting: "waiting for the camera's first frame",
      ok: "the camera reads the table",
    };
    device("dev-camera", [lamp, text], titles[state] || "");
    node.dataset.camera = state;
    const health = $("camera-health");
    if (!camera) {
      health.replaceChildren();
      return;
    }
    const ageText = age === null ? "no frame yet" : state === "ok" ? `frame ${DA.seconds(age)} ago` : `no frame for ${DA.seconds(age)}`;
    const covered = camera.covered.length;
    const counts = Object.entries(camera.cards);
    health.replaceChildren(
      // The rate is the last few seconds': shown only while frames come (a stale camera's is history).
      state === "ok" ? el("span", { class: "cam-fps", text: `${Math.round(camera.fps)} fps` }) : null,
      el("span", { class: "cam-age", text: ageText }),
      el("span", { class: "cam-zones", text: `${camera.zones} zones${covered ? ` · ${covered} covered` : ""}`, title: covered ? `covered now: ${camera.covered.join(", ")}` : "no zone covered" }),
      el(
        "span",
        { class: "cam-cards", title: "cards the camera counts in each zone" },
        ...counts.map(([zone, count]) => el("span", { class: `cam-zone${camera.covered.includes(zone) ? " covered" : ""}`, "data-zone": zone }, `${zone} `, el("b", { text: String(count) }))),
      ),
    );
  }

  function device(id, [state, text], title) {
    const node = $(id);
    node.dataset.state = state;
    node.querySelector(".state").textContent = text;
    node.title = title || "";
  }

  function renderLink() {
    document.body.classList.toggle("offline", !online);
    device("dev-link", online ? ["ok", "live"] : ["down", "reconnecting"], online ? "the live feed is connected" : "");
  }

  // ----------------------------------------------------------------------- banners

  function renderBanners() {
    const banners = [];
    const hits = view.settlement ? view.settlement.jackpot.hits : [];
    if (!online) {
      banners.push(el("div", { class: "banner offline", id: "offline-banner" }, el("span", { class: "text", text: "Display offline: reconnecting. What is shown may be out of date; wait before paying or dealing." })));
    }
    if (hits.length) {
      banners.push(
        el(
          "div",
          { class: "banner jackpot", id: "jackpot-banner", role: "alert" },
          el("span", { class: "headline", text: "JACKPOT!" }),
          el("span", { class: "text" }, ...hits.map((h) => el("span", { class: "hit", "data-box": h.box, text: `Box ${h.box} · ${handName(h.hand)} · ${fmt(h.amount)}  ` })),
            el("span", { text: "Pay the table as shown and confirm; the jackpot is paid when a supervisor confirms it." })),
        ),
      );
    }
    // Hits of earlier rounds (or this one, once confirmed) awaiting the supervisor: a line, never in the way.
    const current = view.phase === "showdown" && hits.length ? view.round : null;
    for (const hit of view.jackpot.pending) {
      if (hit.round === current) continue;
      banners.push(
        el(
          "div",
          { class: "banner pending-hit", "data-hit": hit.hit },
          el("span", { class: "text", text: `Jackpot awaiting a supervisor: round ${hit.round} · box ${hit.box} · ${handName(hit.hand)} · ${fmt(hit.amount)}` }),
          el("button", { type: "button", class: "gold", id: `confirm-jackpot-${hit.hit}`, text: "Jackpot paid: confirm", onclick: () => confirmJackpot(hit) }),
        ),
      );
    }
    const pending = view.pending_config;
    if (pending) {
      const change = (c) => {
        const show = (v) => (MONEY_KEYS.has(c.key) && typeof v === "number" ? fmt(v) : v === undefined || v === null ? "–" : JSON.stringify(v).replace(/"/g, ""));
        return `${c.key.replace(/_/g, " ")} ${show(c.old)} → ${show(c.new)}`;
      };
      banners.push(
        el("div", { class: "banner config", id: "pending-config" },
          el("span", { class: "text", text: `Configuration change by ${pending.by}, from the next round: ${pending.changes.map(change).join(" · ") || "no setting changes"}` })),
      );
    }
    put($("banners"), ...banners);
  }

  function confirmJackpot(hit) {
    Authorise.open({
      table: tableName,
      title: `Confirm the jackpot of round ${hit.round}, box ${hit.box}: ${fmt(hit.amount)} paid`,
      fields: [],
      action: () => ({ kind: "confirm-jackpot", hit: hit.hit }),
      direct: () => api("POST", `${base}/jackpot/${hit.hit}/confirm`),
    });
  }

  // ---------------------------------------------------------------------- the layout

  function renderHouse() {
    const idle = view.phase === "idle";
    $("house").hidden = idle;
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

  // Before the showdown: what is on each betting spot.
  function stakeLines(box) {
    const lines = box.stakes.map((s) =>
      el("li", { class: "stake", "data-stake": s.bet }, el("span", { text: Words.title(s.bet) }), el("b", { text: fmt(s.amount) })),
    );
    if (box.bonus) lines.push(el("li", { class: "stake", "data-stake": "bonus" }, el("span", { text: "Bonus" }), el("b", { text: fmt(box.bonus) })));
    for (const p of box.bettors) {
      lines.push(el("li", { class: "bettor" }, el("span", { text: p.name }), el("b", { text: `${fmt(p.ante)}${p.bonus ? ` + bonus ${fmt(p.bonus)}` : ""}` })));
    }
    return el("ul", { class: "lines stakes" }, ...lines);
  }

  // After it: what to do with the chips on each spot, the cap, the jackpot, each bettor's share.
  function resultLines(result) {
    const lines = [];
    for (const b of result.bets) {
      if (b.bet === "cap") continue;
      const chips = Words.chips(b, fmt);
      lines.push(
        el(
          "li",
          { class: `bet-result ${chips.cls}`, "data-bet": b.bet, "data-result": b.result },
          el("span", {}, `${Words.title(b.bet)} `, b.stake ? amount(b.stake) : null),
          el("b", { text: chips.text }),
        ),
      );
    }
    if (result.capped) {
      lines.push(
        el("li", { class: "cap" }, el("span", {}, "Capped at ", amount(view.table.max_payout)), el("b", { text: `−${fmt(result.cap_cut)}` })),
      );
    }
    if (result.jackpot) {
      lines.push(el("li", { class: "jackpot-result" }, el("span", { text: "Jackpot, on confirm" }), el("b", { text: `+${fmt(result.jackpot)}` })));
    }
    for (const b of result.bettors || []) {
      lines.push(el("li", { class: "share", "data-bettor": b.name }, el("span", { text: b.name }), el("b", { text: (b.net > 0 ? "+" : "") + fmt(b.net) })));
    }
    return el("ul", { class: "lines results" }, ...lines);
  }

  function renderBoxes() {
    const results = new Map((view.settlement ? view.settlement.boxes : []).map((b) => [b.box, b]));
    const hits = new Set((view.settlement ? view.settlement.jackpot.hits : []).map((h) => h.box));
    const tiles = view.boxes.map((box) => {
      const result = results.get(box.box);
      const hand = box.hand || (result && result.hand);
      const turn = view.decide && view.decide.box === box.box;
      const tags = [box.blind ? "blind" : "", box.folded ? "folded" : "", box.bettors.length ? `shared by ${box.bettors.length}` : ""].filter(Boolean);
      const net = result ? Words.net(result, fmt) : null;
      return el(
        "article",
        { class: `box${box.folded ? " folded" : ""}${turn ? " turn" : ""}${hits.has(box.box) ? " jackpot" : ""}`, id: `box-${box.box}`, "data-box": box.box },
        el(
          "div",
          { class: "box-inner", "data-cards": FIVE_CARD_GAMES.has(view.table.game) ? "many" : "few" },
          el(
            "div",
            { class: "box-head" },
            el("h3", { text: `Box ${box.box}` }),
            el("span", { class: "tags", text: tags.join(" · ") }),
            hits.has(box.box) ? el("span", { class: "badge jackpot-badge", text: "JACKPOT" }) : null,
            result ? el("span", { class: `badge outcome outcome-${result.outcome}`, text: result.outcome.toUpperCase() }) : null,
          ),
          el("div", { class: "cards" }, ...box.cards.map(cardElement)),
          el(
            "div",
            { class: "hand-line" },
            el("span", { class: "hand", text: hand ? handName(hand) : "" }),
            el("span", { class: "decisions", text: box.decisions.join(" · ") }),
            turn && view.decide.deadline ? el("span", { class: "countdown", "data-deadline": view.decide.deadline, role: "timer" }) : null,
          ),
          result ? resultLines(result) : stakeLines(box),
          net ? el("div", { class: `net ${net.cls}`, "data-net": result.net, text: net.text }) : null,
        ),
      );
    });
    $("boxes").hidden = view.phase === "idle";
    put($("boxes"), ...tiles);
    fitBoxes();
  }

  // Columns and rows for the boxes: the arrangement that gives each box the most room for its type
  // (its width and height both bound the type: see .box-inner's --f in dealer.css).
  function fitBoxes() {
    const grid = $("boxes");
    const n = grid.children.length;
    if (!n || grid.hidden) return;
    const w = grid.clientWidth;
    const h = grid.clientHeight;
    const em = parseFloat(getComputedStyle(grid).fontSize);
    let best = null;
    for (let cols = 1; cols <= n; cols++) {
      const rows = Math.ceil(n / cols);
      const size = Math.min(0.064 * Math.min(w / cols, 32 * em), (0.052 * h) / rows);
      const waste = cols * rows - n;
      if (!best || size > best.size + 0.2 || (Math.abs(size - best.size) <= 0.2 && waste < best.waste)) best = { cols, rows, size, waste };
    }
    grid.style.setProperty("--cols", best.cols);
    grid.style.setProperty("--rows", best.rows);
    shrinkToFit(grid);
  }

  // A box with more to say than its share of the screen (a capped jackpot, three bettors) gets smaller
  // type rather than hidden lines: in steps of 6 %, down to 60 % of its size.
  function shrinkToFit(grid) {
    for (const inner of grid.querySelectorAll(".box-inner")) {
      inner.style.fontSize = "";
      const size = parseFloat(getComputedStyle(inner).fontSize);
      for (let factor = 0.94; inner.scrollHeight > inner.clientHeight + 1 && factor > 0.6; factor -= 0.06) {
        inner.style.fontSize = `${size * factor}px`;
      }
    }
  }

  // --------------------------------------------------------------- the dealer's controls

  function renderTilts() {
    const box = $("tilts");
    const tiles = view.tilts.map((tilt) =>
      el(
        "div",
        { class: "tilt", "data-tilt": tilt.id, "data-kind": tilt.kind, role: "alert" },
        el("h2", { text: `TILT ${tilt.id} · ${tilt.kind.replace(/-/g, " ")}` }),
        el("p", { class: "what", text: tilt.message.charAt(0).toUpperCase() + tilt.message.slice(1) }),
        tilt.held ? el("p", { class: "held", text: `${tilt.held} card${tilt.held > 1 ? "s" : ""} held` }) : null,
        tilt.restore && tilt.restore.length
          ? el("p", { class: "held restore", text: `As recorded: ${tilt.restore.map((r) => `${r.place} ${r.cards}`).join(" · ")}` })
          : null,
        el("button", {
          class: "big clear",
          type: "button",
          text: Authorise.supervisor() ? "Clear tilt…" : "Supervisor: clear tilt",
          onclick: () => clearTilt(tilt),
        }),
      ),
    );
    put(box, ...tiles);
  }

  function clearTilt(tilt) {
    const choice = el("select", { name: "resolution" }, ...tilt.resolutions.map((r) => el("option", { value: r, text: r.replace(/-/g, " ") })));
    const why = el("input", { name: "why", placeholder: "why (goes in the log)", autocomplete: "off" });
    const card = el("input", { name: "card", placeholder: "e.g. 8c", autocomplete: "off", size: 4 });
    const cardField = Authorise.field("Card, as the supervisor reads it", card);
    const showCard = () => {
      cardField.hidden = !["enter-card", "continue"].includes(choice.value);
    };
    choice.addEventListener("change", showCard);
    showCard();
    const body = () => ({ resolution: choice.value, why: why.value, card: cardField.hidden ? null : card.value.trim() || null });
    Authorise.open({
      table: tableName,
      title: `Clear tilt ${tilt.id}: ${tilt.message}`,
      fields: [Authorise.field("Resolution", choice), Authorise.field("Why", why), cardField],
      action: () => ({ kind: "clear-tilt", tilt: tilt.id, ...body() }),
      direct: () => api("POST", `${base}/tilts/${tilt.id}/clear`, body()),
    });
  }

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
          el("span", { class: "prompt", text: "Exchange which card?" }),
          ...box.cards.map((_, pos) =>
            el("button", {
              type: "button",
              class: `discard${discard.has(pos) ? " picked" : ""}`,
              "data-pos": pos,
              text: String(pos + 1),
              "aria-label": `card ${pos + 1}`,
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
        class: `big action action-${option}${option === "fold" ? " danger" : " primary"}`,
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
            class: "danger",
            text: "Dealer hand shown early",
            onclick: () => command("POST", "/actions", { box: 0, action: "dealer-shown" }),
          })
        : null;
    // Seed 002: the 5th board card turned where the 4th was due counts as the 4th; said while the
    // buyers decide, so that the screens show the card that lies face up.
    const b = view.board || [];
    const fifth =
      EARLY_SHOW.has(view.table.game) && decide.stage === "after-buying" && b.length === 5 && b[3].face_up && !b[4].face_up
        ? el("button", {
            id: "fifth-turned",
            type: "button",
            text: "5th card turned for the 4th",
            onclick: () => command("POST", "/actions", { box: 0, action: "fifth-turned" }),
          })
        : null;
    const stage = Words.stage(decide.stage);
    put(
      panel,
      el("h2", {}, `Box ${decide.box} decides`, stage ? el("span", { class: "stage", text: ` · ${stage}` }) : null),
      picks,
      el("div", { class: "buttons" }, ...buttons),
      earlyShow || fifth ? el("div", { class: "buttons dealer-actions" }, earlyShow, fifth) : null,
    );
  }

  // "House pays EUR 2,495": the words may wrap, the amount never.
  function houseLine(pays) {
    const text = Words.house(pays, fmt);
    const at = text.indexOf(view.table.currency);
    return at > 0 ? [text.slice(0, at), el("span", { class: "amt", text: text.slice(at) })] : [text];
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
    put(
      panel,
      el("h2", { id: "house-pays" }, ...houseLine(s.house_pays)),
      s.jackpot.hits.length ? el("p", { class: "note", text: "The jackpot is not in this total: a supervisor confirms it." }) : null,
      el("button", {
        id: "confirm-settlement",
        class: "big primary",
        type: "button",
        text: "Paid as shown: confirm",
        disabled: view.tilts.length > 0,
        onclick: () => command("POST", "/settlement/confirm"),
      }),
      el("button", {
        id: "paid-otherwise",
        type: "button",
        text: "Paid another amount…",
        disabled: view.tilts.length > 0 || !s.boxes.some((b) => b.main + b.bonus > 0),
        onclick: () => paidOtherwise(s),
      }),
    );
  }

  // The dealer paid some box another amount than shown: record what was paid; the difference is
  // owed until a supervisor settles it (the seed's "corrects a mistake in case of short payment").
  function paidOtherwise(s) {
    const dialog = $("paid-dialog");
    const inputs = s.boxes
      .filter((b) => b.main + b.bonus > 0)
      .map((b) => ({ box: b.box, due: b.main + b.bonus, input: el("input", { name: `paid-${b.box}`, type: "number", min: "0", step: "1", value: String(b.main + b.bonus) }) }));
    put($("paid-fields"), ...inputs.map((i) => el("label", {}, `Box ${i.box}: shown ${fmt(i.due)}, paid`, i.input)));
    $("paid-error").textContent = "";
    $("paid-form").onsubmit = async (event) => {
      event.preventDefault();
      const paid = {};
      for (const i of inputs) {
        const value = Number(i.input.value);
        if (!Number.isInteger(value) || value < 0) {
          $("paid-error").textContent = `Box ${i.box}: a whole amount, 0 or more`;
          return;
        }
        if (value !== i.due) paid[String(i.box)] = value;
      }
      dialog.close();
      await command("POST", "/settlement/confirm", { paid });
    };
    $("paid-cancel").onclick = () => dialog.close();
    dialog.showModal();
  }

  // Payments that were not what was due: a slim banner (after the others, rebuilt with them) until a
  // supervisor settles them.
  function renderOwed() {
    const owed = view.payments_owed || [];
    if (!owed.length) return;
    const text = owed
      .map((p) => `round ${p.round} box ${p.box}: paid ${fmt(p.paid)} of ${fmt(p.due)} (${p.short > 0 ? `${fmt(p.short)} short` : `${fmt(-p.short)} over`})`)
      .join(" · ");
    $("banners").append(el("div", { id: "payments-owed", class: "banner owed", role: "status" }, el("span", { class: "text", text: `Payment to settle: ${text}. A supervisor settles it.` })));
  }

  function renderControls() {
    const t = view.table;
    DealerBets.build(t);
    const idle = view.phase === "idle";
    $("bets").hidden = !idle;
    $("open-panel").hidden = !idle;
    $("limits").textContent = `Limits ${fmt(t.min_bet)} – ${fmt(t.max_bet)} · maximum payout ${fmt(t.max_payout)}`;
    // A closed linked progressive takes no bonus bet (the table refuses it): the fields say so.
    const closed = view.jackpot.enabled && view.jackpot.progressive === "closed";
    for (const field of $("bets").querySelectorAll("input[name^='bonus']")) {
      if (field.dataset.placeholder === undefined) field.dataset.placeholder = field.placeholder;
      field.disabled = closed;
      field.placeholder = closed ? "closed" : field.dataset.placeholder;
      field.title = closed ? "The progressive is closed: no bonus bet until it reopens." : "";
    }
    $("repeat-bets").disabled = !view.last_bets || Boolean(view.shuffle_due);
    $("open-round").disabled = Boolean(view.shuffle_due);
    const tools = $("round-tools");
    // A cancelled, redealt or voided round's cards are known: the next card comes from a new deck.
    // A shoe that signals a new deck clears this by itself; else the dealer confirms it here.
    const shuffled = view.shuffle_due
      ? el("button", { id: "deck-shuffled", type: "button", class: "big primary shuffle", text: "New deck shuffled: confirm", onclick: () => command("POST", "/deck/shuffled") })
      : null;
    if (idle) {
      put(tools, ...(shuffled ? [shuffled] : []));
      return;
    }
    put(
      tools,
      ...(shuffled ? [shuffled] : []),
      el("button", { id: "report-exposed", type: "button", text: "Dealer card exposed", onclick: () => command("POST", "/reports", { kind: "dealer-card-exposed" }) }),
      el("button", { id: "report-missing", type: "button", text: "Missing card", onclick: () => command("POST", "/reports", { kind: "missing-card" }) }),
      el("button", { id: "report-wrong-box", type: "button", text: "Card in wrong box", onclick: () => command("POST", "/reports", { kind: "wrong-box" }) }),
      el("button", { id: "report-extra-card", type: "button", text: "Extra card in a box", onclick: () => command("POST", "/reports", { kind: "extra-card" }) }),
      el("button", { id: "report-skipped-box", type: "button", text: "Box skipped", onclick: () => command("POST", "/reports", { kind: "skipped-box" }) }),
      el("button", { id: "void-round", type: "button", class: "danger void", text: Authorise.supervisor() ? "Void round…" : "Supervisor: void round", onclick: voidRound }),
    );
  }

  function voidRound() {
    const why = el("input", { name: "void-why", placeholder: "why void the round", autocomplete: "off" });
    Authorise.open({
      table: tableName,
      title: `Void round ${view.round}: every stake goes back`,
      fields: [Authorise.field("Why", why)],
      action: () => ({ kind: "void-round", why: why.value }),
      direct: () => api("POST", `${base}/rounds/void`, { why: why.value }),
    });
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
    renderStatus();
    renderLink();
    renderBanners();
    renderOwed();
    renderHouse();
    renderControls();
    renderTilts();
    renderDecide();
    renderShowdown();
    renderBoxes();
    tickCountdown();
    document.body.dataset.version = String(view.version);
  }

  function sameTable(a, b) {
    const other = (v) => JSON.stringify({ ...v, shoe: null, camera: null });
    return a.version === b.version && other(a) === other(b);
  }

  async function openRound() {
    let bets;
    try {
      bets = DealerBets.read();
    } catch (error) {
      showError(error.message);
      return;
    }
    if (!bets.length) {
      showError("enter at least one box's ante");
      return;
    }
    if (await command("POST", "/rounds", { bets })) DealerBets.clear();
  }

  async function start() {
    me = await DA.whoami();
    if (!me) return;
    $("user-name").textContent = me.name;
    $("user-role").textContent = me.role;
    document.body.dataset.role = me.role;
    Authorise.start();
    $("sign-out").addEventListener("click", DA.signOut);
    $("open-round").addEventListener("click", openRound);
    $("repeat-bets").addEventListener("click", () => command("POST", "/rounds/repeat"));
    $("clear-bets").addEventListener("click", () => DealerBets.clear());
    $("open-recall").addEventListener("click", () => view && Recall.open(tableName, view.table));
    setInterval(() => {
      tickCountdown();
      if (view) renderCamera();
    }, 250);
    new ResizeObserver(() => view && fitBoxes()).observe($("layout"));
    DA.live(
      `/ws/tables/${encodeURIComponent(tableName)}`,
      (message) => {
        if (message.type !== "table") return;
        // A device's report alone (the camera's, about once a second): only the status strip changes, so
        // the rest of the screen (and whatever the dealer is typing in it) is left as it is.
        const devicesOnly = view !== null && sameTable(view, message.view);
        view = message.view;
        // Recall lists amounts in the table's currency, which only the live view says.
        $("open-recall").disabled = false;
        cameraReceived = performance.now();
        if (devicesOnly) renderStatus();
        else render();
      },
      (up) => {
        online = up;
        if (view) {
          renderLink();
          renderBanners();
        } else {
          renderLink();
        }
      },
    );
  }

  start();
  return { table: () => (view ? view.table : null) };
})();
