// The floor display: tiles by pit, kept live by the floor service (only the tiles that change and that
// this display's filter shows), and the jackpot panel. Tiles never carry a card.
"use strict";

(() => {
  const params = new URLSearchParams(location.search);
  const wall = location.pathname.endsWith("/wall") || params.get("wall") === "1";
  const tiles = new Map(); // table id -> tile data, as last received
  let jackpots = { hits: [], accounts: [], second_approval_above: null };
  let socket = null;
  let delay = 500;
  const $ = (id) => document.getElementById(id);
  const { el } = DA;

  // Amounts are integers in the tables' units (as their configuration's minor units say), shown as they are.
  function cents(amount) {
    return DA.money(amount, 0, "").trim();
  }

  // A meter or a hit in its jackpot's currency, with its decimals ("?" for a jackpot with no currency set yet).
  function inUnit(amount, item) {
    return DA.money(amount, item.minor_units || 0, item.currency || "?");
  }

  function shortTime(iso) {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  // -- the filter ---------------------------------------------------------------------------------

  function currentFilter() {
    if (wall) return { pit: params.get("pit") || "", game: params.get("game") || "", q: params.get("q") || "", flags: (params.get("flags") || "").split(",").filter(Boolean) };
    const flags = ["f-tilt", "f-jackpot", "f-lost", "f-camera"].filter((id) => $(id).checked).map((id) => $(id).value);
    // Before the first summary the selects have no options yet: the URL's pit and game still hold.
    const pit = $("pit").options.length > 1 ? $("pit").value : params.get("pit") || "";
    const game = $("game").options.length > 1 ? $("game").value : params.get("game") || "";
    return { pit, game, q: $("q").value.trim(), flags };
  }

  function applyFilterFromUrl() {
    $("q").value = params.get("q") || "";
    const flags = (params.get("flags") || "").split(",");
    for (const id of ["f-tilt", "f-jackpot", "f-lost", "f-camera"]) $(id).checked = flags.includes($(id).value);
  }

  let sendTimer = null;
  function filterChanged() {
    clearTimeout(sendTimer);
    sendTimer = setTimeout(() => {
      const f = currentFilter();
      const query = new URLSearchParams();
      for (const key of ["pit", "game", "q"]) if (f[key]) query.set(key, f[key]);
      if (f.flags.length) query.set("flags", f.flags.join(","));
      history.replaceState(null, "", location.pathname + (query.toString() ? "?" + query : ""));
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "filter", ...f }));
    }, 150);
  }

  function fillSelect(select, values, wanted) {
    const keep = select.value || wanted || "";
    const options = [...select.options].slice(1).map((o) => o.value);
    if (options.join("\u0000") === values.join("\u0000")) return;
    select.replaceChildren(select.options[0], ...values.map((v) => el("option", { value: v, text: v })));
    select.value = values.includes(keep) ? keep : "";
  }

  // -- tiles --------------------------------------------------------------------------------------

  // The camera's lamp on a tile: "Cam 29 fps", "Cam stale 12 s", "Cam lost". A stale camera's last frame
  // ages from the table's report: its age then plus the time since the table wrote it (``at``).
  function cameraText(t) {
    const cam = t.camera;
    const state = t.camera_state;
    if (state === "ok" && cam) return `Cam ${Math.round(cam.fps)} fps`;
    if (state === "stale" && cam && cam.age_s !== null) {
      const age = cam.age_s + Math.max(0, (DA.serverNow() - Date.parse(cam.at)) / 1000);
      return `Cam stale ${DA.seconds(age)}`;
    }
    return `Cam ${state}`;
  }

  function cameraChip(t) {
    if (t.camera_state === "none") return null;
    const cam = t.camera;
    const title = cam ? `camera ${t.camera_state}: ${cam.zones} zones watched, ${cam.covered} covered` : `camera ${t.camera_state}`;
    return el("span", { class: "cam", "data-camera": t.camera_state, title, text: cameraText(t) });
  }

  function tileElement(t) {
    const alerts = el("ul", { class: "alerts" });
    for (const kind of t.tilts) alerts.append(el("li", { class: "tilt", text: "TILT " + kind.replace(/-/g, " ") }));
    if (t.pending_hits) alerts.append(el("li", { class: "hit", text: `JACKPOT pending ×${t.pending_hits}` }));
    if (t.link === "lost") alerts.append(el("li", { class: "link", text: "LINK LOST" }));
    if (t.link === "none") alerts.append(el("li", { class: "link", text: "NEVER REPORTED" }));
    const classes = ["tile", `link-${t.link}`];
    if (t.tilts.length) classes.push("has-tilt");
    if (t.pending_hits) classes.push("has-hit");
    return el(
      "article",
      { class: classes.join(" "), "data-table": t.table, "data-phase": t.phase, "data-link": t.link, "data-version": String(t.version) },
      el("div", { class: "head" }, el("span", { class: "id", text: t.name || t.table, title: t.table }), cameraChip(t), el("span", { class: "lamp", title: "link " + t.link })),
      el("div", { class: "game", text: t.game, title: `${t.game} · pit ${t.pit}` }),
      el("div", { class: "row" }, el("span", { class: "phase", text: t.phase }), el("span", { class: "num", text: `#${t.round}` })),
      el(
        "div",
        { class: "row" },
        el("span", {}, el("b", { class: "num rounds", text: String(t.rounds_last_hour) }), " rounds/h"),
        el("span", { class: "prog", "data-state": t.progressive, title: "linked progressive (jackpot)", text: t.progressive === "none" ? "no JP" : `JP ${t.progressive}` }),
      ),
      alerts,
    );
  }

  function pitSection(pit) {
    let section = document.querySelector(`section.pit[data-pit="${CSS.escape(pit)}"]`);
    if (section) return section;
    section = el("section", { class: "pit", "data-pit": pit }, el("h2", {}, "Pit ", el("b", { text: pit }), el("span", { class: "pit-count" })), el("div", { class: "tiles" }));
    const after = [...document.querySelectorAll("section.pit")].find((s) => s.dataset.pit > pit);
    $("pits").insertBefore(section, after || null);
    return section;
  }

  function placeTile(t) {
    const node = tileElement(t);
    const old = document.querySelector(`.tile[data-table="${CSS.escape(t.table)}"]`);
    if (old && old.closest("section.pit").dataset.pit === t.pit) {
      old.replaceWith(node);
    } else {
      if (old) removeTile(t.table);
      const grid = pitSection(t.pit).querySelector(".tiles");
      const key = (x) => `${x.name || x.table}\u0000${x.table}`;
      const next = [...grid.children].find((c) => key(tiles.get(c.dataset.table) || { table: c.dataset.table }) > key(t));
      grid.insertBefore(node, next || null);
    }
    tiles.set(t.table, t);
  }

  function removeTile(table) {
    const old = document.querySelector(`.tile[data-table="${CSS.escape(table)}"]`);
    if (old) {
      const section = old.closest("section.pit");
      old.remove();
      if (section && !section.querySelector(".tile")) section.remove();
    }
    tiles.delete(table);
  }

  // The wall screen shows every table at once: pits in a near-square arrangement, the type as large as fits.
  let fitTimer = null;
  function fitWall() {
    if (!wall) return;
    clearTimeout(fitTimer);
    fitTimer = setTimeout(() => {
      const style = document.body.style;
      const pits = document.querySelectorAll("section.pit").length || 1;
      style.setProperty("--pit-columns", String(Math.ceil(Math.sqrt(pits))));
      let scale = 1.4;
      style.setProperty("--wall-scale", String(scale));
      while (scale > 0.6 && !fitsHeight()) {
        scale = Math.round((scale - 0.05) * 100) / 100;
        style.setProperty("--wall-scale", String(scale));
      }
      document.body.dataset.wallScale = String(scale);
    }, 100);
  }

  function fitsHeight() {
    const bottom = Math.max(...[...document.querySelectorAll("section.pit")].map((s) => s.getBoundingClientRect().bottom), 0);
    return bottom <= window.innerHeight;
  }

  function counted() {
    $("n-shown").textContent = String(tiles.size);
    for (const section of document.querySelectorAll("section.pit")) {
      section.querySelector(".pit-count").textContent = ` · ${section.querySelectorAll(".tile").length} tables`;
    }
  }

  // -- jackpots -----------------------------------------------------------------------------------

  async function decide(hit, action) {
    try {
      await DA.api("POST", `/api/floor/jackpots/${encodeURIComponent(hit.account)}/${hit.hit_no}/${action}`);
      DA.clearError();
    } catch (error) {
      DA.showError(error.message);
    }
  }

  function hitButtons(hit) {
    const me = DA.user();
    if (!me || me.role === "dealer") return el("p", { class: "meta", text: "A supervisor confirms this hit." });
    const buttons = el("div", { class: "buttons" });
    if (hit.needs_second && !hit.approved_by) {
      buttons.append(el("button", { type: "button", class: "gold approve", onclick: () => decide(hit, "approve"), text: "Approve (1 of 2)" }));
    } else {
      const mine = hit.approved_by === me.name;
      buttons.append(el("button", { type: "button", class: "primary confirm", disabled: mine, title: mine ? "a different supervisor confirms it" : null, onclick: () => decide(hit, "confirm"), text: hit.needs_second ? "Confirm (2 of 2)" : "Confirm" }));
    }
    return buttons;
  }

  function drawJackpots() {
    // Each jackpot's amount in its own money (its own, else the floor's): one raw number would mean
    // different sums in jackpots of different currencies.
    const above = jackpots.second_approval_above;
    const rules = jackpots.accounts.filter((a) => a.second_approval_above !== null && a.second_approval_above !== undefined)
      .map((a) => `${a.name} above ${inUnit(a.second_approval_above, a)}`);
    $("approval-rule").textContent = rules.length
      ? `Two supervisors (one approves, a different one confirms) for hits of ${rules.join(" · ")}; one confirms any other.`
      : above === null || jackpots.accounts.length
        ? "One supervisor confirms each hit."
        : `Hits above ${cents(above)}: one supervisor approves, a different one confirms.`;
    $("hits").replaceChildren(
      ...jackpots.hits.map((hit, i) =>
        el(
          "li",
          { "data-account": hit.account, "data-hit": String(hit.hit_no), "data-order": String(i + 1) },
          el("div", { class: "amount", text: inUnit(hit.amount, hit) }),
          el("div", { class: "meta", text: `${hit.account} · hit ${hit.hit_no} · table ${hit.name || hit.table} (pit ${hit.pit}) · ${shortTime(hit.at)}` }),
          el("div", { class: "step", text: hit.needs_second ? (hit.approved_by ? `approved by ${hit.approved_by} ${shortTime(hit.approved_at)}: awaiting a second supervisor` : "needs two supervisors") : "awaiting confirmation" }),
          hitButtons(hit),
        ),
      ),
    );
    $("no-hits").hidden = jackpots.hits.length > 0;
    $("meters").tBodies[0].replaceChildren(
      ...jackpots.accounts.map((a) => el("tr", {}, el("td", { text: a.name }), el("td", { class: "amt", text: inUnit(a.meter, a) }))),
    );
  }

  // -- the live feed ------------------------------------------------------------------------------

  function onMessage(message) {
    if (message.type === "reset") {
      tiles.clear();
      $("pits").replaceChildren();
      for (const t of message.tiles) placeTile(t);
    } else if (message.type === "tile") {
      placeTile(message.tile);
    } else if (message.type === "gone") {
      removeTile(message.table);
    } else if (message.type === "summary") {
      const s = message.summary;
      $("n-tables").textContent = String(s.tables);
      $("n-tilts").textContent = String(s.tilts);
      $("n-pending").textContent = String(s.pending);
      $("n-lost").textContent = String(s.lost);
      $("n-cameras").textContent = String(s.cameras);
      if (!wall) {
        fillSelect($("pit"), s.pits, params.get("pit"));
        fillSelect($("game"), s.games, params.get("game"));
      }
      setFeed(s.database === "ok", s.database === "ok" ? "live" : "floor database: " + s.database);
    } else if (message.type === "jackpots") {
      jackpots = message.jackpots;
      drawJackpots();
    } else if (message.type === "error") {
      DA.showError(message.error);
    }
    counted();
    if (["reset", "tile", "gone"].includes(message.type)) fitWall();
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
  }

  function setFeed(ok, text) {
    $("feed").dataset.state = ok ? "ok" : "down";
    $("feed").querySelector(".state").textContent = text;
  }

  function connect() {
    const f = currentFilter();
    const query = new URLSearchParams({ pit: f.pit, game: f.game, q: f.q, flags: f.flags.join(",") });
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/floor/live?${query}`);
    socket.onopen = () => {
      delay = 500;
      setFeed(true, "live");
    };
    socket.onmessage = (event) => onMessage(JSON.parse(event.data));
    socket.onclose = (event) => {
      setFeed(false, "reconnecting");
      if (event.code === 1008) {
        DA.whoami(); // signed out or expired: to the sign-in page
        return;
      }
      // Refused before it opened (1006): the session may have ended; whoami goes to sign-in if so.
      if (event.code === 1006) DA.whoami();
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }

  async function start() {
    if (wall) {
      document.body.classList.add("wall");
      window.addEventListener("resize", fitWall);
    }
    const me = await DA.whoami();
    if (!me) return;
    $("user-name").textContent = `${me.name} (${me.role})`;
    $("sign-out").addEventListener("click", DA.signOut);
    if (!wall) {
      applyFilterFromUrl();
      $("filters").addEventListener("input", filterChanged);
      $("filters").addEventListener("change", filterChanged);
      $("filters").addEventListener("submit", (event) => event.preventDefault());
    }
    connect();
    // A stale camera's age counts up between reports.
    setInterval(() => {
      for (const chip of document.querySelectorAll('.tile .cam[data-camera="stale"]')) {
        const t = tiles.get(chip.closest(".tile").dataset.table);
        if (t) chip.textContent = cameraText(t);
      }
    }, 1000);
  }

  start();
})();
