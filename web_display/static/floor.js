// The floor display: every table at a glance, read only, kept live by one websocket.
"use strict";

(() => {
  const { el, money, handName } = DA;
  const tables = new Map();
  const $ = (id) => document.getElementById(id);
  const PAYOUTS = 3; // the newest large payouts a tile shows

  const received = new Map(); // table name -> performance.now() when its summary arrived (ages the camera's report)

  // The shoe and the camera: their tilts, and their own reports. A table whose camera deals has no shoe;
  // a table with no camera shows none.
  function devices(t) {
    const kinds = new Set(t.tilts.map((x) => x.kind));
    const parts = [];
    const cameraDeals = t.camera && t.camera.role === "deals";
    if (t.shoe || !cameraDeals || kinds.has("shoe-link-lost") || kinds.has("shoe-fault")) {
      let shoe = t.shoe && t.shoe.state === "connecting" ? "connecting" : t.shoe && t.shoe.state === "lost" ? "link lost" : "OK";
      if (kinds.has("shoe-link-lost")) shoe = "link lost";
      if (kinds.has("shoe-fault")) shoe = "fault";
      parts.push(el("span", { class: "dev-shoe" }, "Shoe ", el("b", { class: shoe === "OK" ? "" : shoe === "connecting" ? "" : "alarm", text: shoe })));
    }
    if (t.camera || kinds.has("camera-link-lost") || kinds.has("camera-mismatch")) {
      const { state, age } = DA.cameraState(t.camera, kinds, received.get(t.name) || performance.now());
      let text = state === "ok" ? "OK" : state;
      if (state === "ok" && t.camera) text = `OK ${Math.round(t.camera.fps)} fps`;
      if (state === "stale" && age !== null) text = `stale ${DA.seconds(age)}`;
      const zones = t.camera ? ` · ${t.camera.zones} zones${t.camera.covered ? `, ${t.camera.covered} covered` : ""}` : "";
      parts.push(
        el(
          "span",
          { class: "dev-camera", "data-camera": state },
          "Camera ",
          el("b", { class: state === "ok" ? "" : state === "starting" ? "" : "alarm", text }),
          state === "ok" ? zones : "",
        ),
      );
    }
    if (!parts.length) return null;
    return el("p", { class: "devices" }, ...parts.flatMap((p, i) => (i ? [" · ", p] : [p])));
  }

  function tile(t) {
    const fmt = (amount) => money(amount, t.minor_units, t.currency);
    const alerts = [];
    for (const tilt of t.tilts) alerts.push(el("li", { class: "tilt", text: `TILT: ${tilt.message}` }));
    for (const hit of t.pending_hits) {
      alerts.push(el("li", { class: "hit", text: `JACKPOT box ${hit.box}: ${fmt(hit.amount)} awaiting confirmation` }));
    }
    const payouts = t.large_payouts
      .slice(-PAYOUTS)
      .reverse()
      .map((p) =>
        el(
          "li",
          {},
          el("span", { text: `Round ${p.round} box ${p.box}${p.hand ? ` ${handName(p.hand)}` : ""}` }),
          el("b", { text: fmt(p.net) }),
        ),
      );
    return el(
      "article",
      {
        class: `tile phase-${t.phase}${t.tilts.length ? " has-tilt" : ""}${t.pending_hits.length ? " has-hit" : ""}`,
        id: `table-${t.name.replace(/[^A-Za-z0-9_-]/g, "_")}`,
        "data-table": t.name,
        "data-version": t.version,
      },
      el(
        "div",
        { class: "tile-inner" },
        el("h2", {}, el("a", { href: `/tables/${encodeURIComponent(t.name)}`, text: t.name })),
        el("p", { class: "game", text: t.title }),
        el(
          "dl",
          {},
          el("dt", { text: "Phase" }),
          el("dd", { class: "phase", text: t.phase }),
          el("dt", { text: "Round" }),
          el("dd", { class: "round", text: String(t.round) }),
          el("dt", { text: "Today" }),
          el("dd", { class: "rounds-today", text: String(t.rounds_today) }),
          el("dt", { text: "Last hour" }),
          el("dd", { class: "rounds-hour", text: String(t.rounds_last_hour) }),
          el("dt", { text: "Tilts" }),
          el("dd", { class: "tilts", text: String(t.tilts.length) }),
          el("dt", { text: "Jackpots" }),
          el("dd", { class: "hits", text: String(t.pending_hits.length), title: "pending jackpot hits" }),
          el("dt", { class: "wide", text: "Jackpot meter" }),
          el("dd", { class: "meter wide", text: t.jackpot.enabled ? fmt(t.jackpot.meter) : "off" }),
        ),
        devices(t),
        alerts.length ? el("ul", { class: "alerts" }, ...alerts) : null,
        el(
          "div",
          { class: "payouts" },
          el("h3", { text: "Large payouts" }),
          payouts.length ? el("ul", {}, ...payouts) : el("p", { class: "none", text: "none lately" }),
        ),
      ),
    );
  }

  // As many columns as make the tiles largest while every tile stays on the screen (a wall of a few
  // tables fills it); when they cannot all fit, the narrowest tiles the type allows, and the page scrolls.
  function fit(pass = 0) {
    const grid = $("grid");
    const tiles = [...grid.children];
    if (!tiles.length) return;
    const style = getComputedStyle(grid);
    const gap = parseFloat(style.columnGap) || 0;
    const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const root = parseFloat(getComputedStyle(document.body).fontSize);
    const width = grid.clientWidth - pad;
    const height = window.innerHeight - grid.getBoundingClientRect().top - parseFloat(style.paddingTop) * 2;
    // The tallest tile in its own type (em), measured as drawn now.
    const ems = Math.max(...tiles.map((t) => t.offsetHeight / parseFloat(getComputedStyle(t.firstChild).fontSize)));
    let best = null;
    for (let cols = 1; cols <= tiles.length; cols++) {
      const rows = Math.ceil(tiles.length / cols);
      const tileWidth = (width - gap * (cols - 1)) / cols;
      if (tileWidth < 15 * root) break;
      const type = Math.min(Math.max(root, 0.05 * tileWidth), 3.2 * root);
      if (rows * ems * type * 1.04 + gap * (rows - 1) <= height && (!best || type > best.type)) best = { cols, type };
    }
    const columns = best ? `repeat(${best.cols}, minmax(0, 1fr))` : "";
    if (grid.style.gridTemplateColumns === columns) return;
    grid.style.gridTemplateColumns = columns;
    // Tiles drawn wider wrap less: measure again in the new arrangement (settles in a pass or two).
    if (pass < 2) fit(pass + 1);
  }

  function render() {
    const all = [...tables.values()];
    $("grid").replaceChildren(...all.map(tile));
    fit();
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

  function link(up) {
    $("link").dataset.state = up ? "ok" : "down";
    $("link").querySelector(".state").textContent = up ? "live" : "reconnecting";
  }

  async function start() {
    window.addEventListener("resize", () => {
      $("grid").style.gridTemplateColumns = "";
      fit();
    });
    const me = await DA.whoami();
    if (!me) return;
    $("user-name").textContent = `${me.name} (${me.role})`;
    $("sign-out").addEventListener("click", DA.signOut);
    DA.live(
      "/ws/floor",
      (message) => {
        if (message.type !== "floor-table") return;
        tables.set(message.name, message.table);
        received.set(message.name, performance.now());
        schedule();
      },
      link,
    );
    // A camera's last frame ages between reports (a camera whose frames stop turns stale here).
    setInterval(() => {
      if ([...tables.values()].some((t) => t.camera)) schedule();
    }, 1000);
  }

  start();
})();
