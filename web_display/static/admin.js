// Accounts, the tables' configurations and the audit log, for admins.
"use strict";

(() => {
  const { api, el, showError } = DA;
  const $ = (id) => document.getElementById(id);

  async function load() {
    try {
      const accounts = await api("GET", "/api/accounts");
      $("accounts").tBodies[0].replaceChildren(
        ...accounts.map((a) =>
          el(
            "tr",
            { "data-account": a.name },
            el("td", { text: a.name }),
            el("td", { text: a.role }),
            el("td", { text: a.created_at }),
            el("td", {}, removeButton(a.name)),
          ),
        ),
      );
    } catch (error) {
      showError(error.message);
    }
    loadAudit();
  }

  // Removing an account ends its sessions at once: the admin confirms it, on the page, first.
  function removeButton(name) {
    const cell = el("span", { class: "remove" });
    const ask = () =>
      cell.replaceChildren(
        el(
          "span",
          { class: "confirm-remove" },
          el("span", { text: `Remove ${name}? Their sessions end now.` }),
          el("button", {
            type: "button",
            class: "danger confirm",
            text: "Yes, remove",
            onclick: async () => {
              try {
                await api("DELETE", `/api/accounts/${encodeURIComponent(name)}`);
              } catch (error) {
                showError(error.message);
              }
              load();
            },
          }),
          el("button", { type: "button", class: "keep", text: "Keep", onclick: reset }),
        ),
      );
    const reset = () => cell.replaceChildren(el("button", { type: "button", class: "remove-account", "data-account": name, text: "Remove", onclick: ask }));
    reset();
    return cell;
  }

  // Built once: reloading the accounts must not throw away a configuration being edited.
  async function loadConfigs() {
    try {
      const tables = await api("GET", "/api/tables");
      const configs = await Promise.all(
        tables.map((t) => api("GET", `/api/tables/${encodeURIComponent(t.name)}/config/toml`)),
      );
      $("configs").replaceChildren(...tables.map((t, i) => configEditor(t.name, configs[i])));
    } catch (error) {
      showError(error.message);
    }
  }

  // The whole configuration as TOML; a bad setting is refused (the refusal, naming the key, stays under
  // the editor until the next save); during a round the change is pending until the round ends.
  function configEditor(name, config) {
    const text = el("textarea", { name: "toml", rows: 24, cols: 70, spellcheck: "false", autocomplete: "off" });
    text.value = config.toml;
    const message = el("p", { class: "config-message", role: "status" });
    const save = el("button", {
      type: "button",
      class: "big primary save-config",
      text: "Save configuration",
      onclick: async () => {
        message.className = "config-message";
        message.textContent = "";
        try {
          const done = await api("PUT", `/api/tables/${encodeURIComponent(name)}/config`, text.value, "application/toml");
          text.value = done.toml;
          const what = done.changed.length ? done.changed.join(", ") : "no change";
          // During a round the table keeps its configuration until the round ends.
          message.textContent = done.pending ? `Saved: ${what} — pending, applies when round ${done.round} ends` : `Saved: ${what}`;
          message.classList.add(done.pending ? "pending" : "ok");
        } catch (error) {
          message.textContent = error.message;
          message.classList.add("error");
        }
        loadAudit();
      },
    });
    return el(
      "details",
      { class: "config", "data-table": name },
      el("summary", { text: `${name} (${config.game})` }),
      text,
      el("div", { class: "buttons" }, save),
      message,
    );
  }

  async function loadAudit() {
    try {
      const audit = await api("GET", "/api/audit");
      $("audit").tBodies[0].replaceChildren(
        ...audit
          .reverse()
          .map((e) =>
            el("tr", {}, el("td", { text: e.at }), el("td", { text: e.who }), el("td", { text: e.action }), el("td", { text: e.detail })),
          ),
      );
    } catch (error) {
      showError(error.message);
    }
  }

  async function start() {
    const me = await DA.whoami();
    if (!me) return;
    $("user-name").textContent = `${me.name} (${me.role})`;
    $("sign-out").addEventListener("click", DA.signOut);
    $("add-account").addEventListener("submit", async (event) => {
      event.preventDefault();
      const form = event.currentTarget;
      try {
        await api("POST", "/api/accounts", {
          name: form.elements.name.value,
          role: form.elements.role.value,
          password: form.elements.password.value,
        });
        form.reset();
      } catch (error) {
        showError(error.message);
      }
      load();
    });
    load();
    loadConfigs();
  }

  start();
})();
