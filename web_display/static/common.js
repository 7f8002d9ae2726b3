// Shared by every page: the API with its CSRF token, money and card formatting, the live socket.
"use strict";

const DA = (() => {
  let me = null;
  let clockOffset = 0;

  async function whoami() {
    const response = await fetch("/api/me", { credentials: "same-origin" });
    if (response.status === 401) {
      location.assign("/login?next=" + encodeURIComponent(location.pathname));
      return null;
    }
    // The server's clock as its Date header gives it (whole seconds): a countdown to a deadline the
    // server set must not run a display's wrong clock. Differences under 1.5 s are rounding, not skew.
    const serverDate = Date.parse(response.headers.get("Date") || "");
    if (!Number.isNaN(serverDate)) {
      const skew = serverDate + 500 - Date.now();
      clockOffset = Math.abs(skew) > 1500 ? skew : 0;
    }
    me = await response.json();
    return me;
  }

  // Milliseconds to add to this display's clock to read the server's.
  function serverNow() {
    return Date.now() + clockOffset;
  }

  // A camera's health as a lamp shows it (docs/web-display.md, "Camera health"): {state, age}, state one
  // of ok, stale, lost, disagrees, stopped, starting; age: seconds since its last frame (null: none yet).
  // The table sends the camera's report when something in it changes and at least once a second while
  // frames come; ``received`` (performance.now() when that report arrived) ages it here in between, so a
  // camera whose frames stop turns stale on the screen although nothing more is sent. The tilts win:
  // a camera that failed for good is lost, one that read another card than the shoe disagrees.
  function cameraState(camera, kinds, received) {
    const age = camera && camera.last_frame_age_s !== null && camera.last_frame_age_s !== undefined
      ? camera.last_frame_age_s + Math.max(0, performance.now() - received) / 1000
      : null;
    if (kinds.has("camera-link-lost")) return { state: "lost", age };
    if (kinds.has("camera-mismatch")) return { state: "disagrees", age };
    let state = camera ? camera.state : "starting";
    if (state === "ok" && age !== null && age > camera.stale_after_s) state = "stale";
    return { state, age };
  }

  // Seconds as a lamp's detail says them: "0.3 s", "12 s", "4 min".
  function seconds(value) {
    if (value < 10) return `${value.toFixed(1)} s`;
    if (value < 120) return `${Math.floor(value)} s`;
    return `${Math.floor(value / 60)} min`;
  }

  // Every change carries the session's CSRF token; every refusal comes back as {"error": "..."}.
  // A body is sent as JSON unless another content type is given (then it is sent as the text it is).
  async function api(method, path, body, contentType) {
    const headers = { "Content-Type": contentType || "application/json" };
    if (me && method !== "GET") headers[me.csrf_header] = me.csrf;
    let payload;
    if (body !== undefined) payload = contentType ? body : JSON.stringify(body);
    const response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: payload,
    });
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    if (!response.ok) {
      const message = (data && data.error) || `${response.status} ${response.statusText}`;
      throw new Error(message);
    }
    return data;
  }

  function showError(message) {
    const toast = document.getElementById("toast");
    if (!toast) return;
    toast.textContent = message;
    toast.classList.add("show");
    clearTimeout(showError.timer);
    showError.timer = setTimeout(() => toast.classList.remove("show"), 8000);
  }

  function clearError() {
    const toast = document.getElementById("toast");
    if (toast) toast.classList.remove("show");
  }

  // Amounts are integers in minor units; shown with the currency, never through floating point.
  function money(amount, minorUnits, currency) {
    if (amount === null || amount === undefined) return "";
    const negative = amount < 0;
    let digits = String(Math.abs(amount));
    let fraction = "";
    if (minorUnits > 0) {
      digits = digits.padStart(minorUnits + 1, "0");
      fraction = "." + digits.slice(-minorUnits);
      digits = digits.slice(0, -minorUnits);
    }
    const whole = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return `${negative ? "−" : ""}${currency} ${whole}${fraction}`;
  }

  // "12.50" -> 1250 for minor_units 2; refuses more decimals than the currency has.
  function parseMoney(text, minorUnits) {
    const value = String(text).trim();
    if (value === "") return 0;
    const match = value.match(/^(\d+)(?:\.(\d+))?$/);
    if (!match) throw new Error(`${value} is not an amount`);
    const fraction = match[2] || "";
    if (fraction.length > minorUnits) throw new Error(`${value}: at most ${minorUnits} decimals`);
    return Number(match[1] + fraction.padEnd(minorUnits, "0"));
  }

  const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };

  function cardElement(card) {
    const el = document.createElement("span");
    if (card && card.face_up && card.code) {
      const rank = card.code[0] === "T" ? "10" : card.code[0];
      const suit = card.code[1];
      el.className = `card up suit-${suit}`;
      el.dataset.code = card.code;
      el.setAttribute("aria-label", card.code);
      const r = document.createElement("span");
      r.className = "rank";
      r.textContent = rank;
      const s = document.createElement("span");
      s.className = "suit";
      s.textContent = SUITS[suit];
      el.append(r, s);
    } else if (card === null) {
      el.className = "card empty";
    } else {
      el.className = "card back";
      el.setAttribute("aria-label", "face-down card");
    }
    return el;
  }

  function handName(name) {
    if (!name) return "";
    const text = name.replace(/-/g, " ");
    return text === "ace king" ? "Ace-king" : text[0].toUpperCase() + text.slice(1);
  }

  // A live feed: reconnects with backoff (0.5 s doubling to 10 s) after a drop, a restart or a network loss.
  function live(path, onMessage, onState) {
    let delay = 500;
    let socket = null;
    function connect() {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}${path}`);
      socket.onopen = () => {
        delay = 500;
        if (onState) onState(true);
      };
      socket.onmessage = (event) => onMessage(JSON.parse(event.data));
      socket.onclose = (event) => {
        if (onState) onState(false);
        if (event.code === 1008) {
          whoami(); // signed out or expired: go to the sign-in page
          return;
        }
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 10000);
      };
    }
    connect();
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("data-")) node.setAttribute(key, value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child);
    }
    return node;
  }

  async function signOut() {
    try {
      await api("POST", "/api/logout");
    } finally {
      location.assign("/login?next=" + encodeURIComponent(location.pathname));
    }
  }

  function user() {
    return me;
  }

  return { whoami, serverNow, cameraState, seconds, api, showError, clearError, money, parseMoney, cardElement, handName, live, el, signOut, user };
})();
