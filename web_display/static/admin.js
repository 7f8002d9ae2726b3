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
            {},
            el("td", { text: a.name }),
            el("td", { text: a.role }),
            el("td", { text: a.created_at }),
            el(
              "td",
              {},
              el("button", {
                type: "button",
                text: "Remove",
                onclick: async () => {
                  try {
                    await api("DELETE", `/api/accounts/${encodeURIComponent(a.name)}`);
                  } catch (error) {
                    showError(error.message);
                  }
                  load();
                },
              }),
            ),
          ),
        ),
      );
    } catch (error) {
      showError(error.message);
    }
    loadAudit();
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

  // The whole configuration as TOML; the table refuses it during a round or with a bad setting, and
  // the refusal (naming the key) stays under the editor until the next save.
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
          message.textContent = done.changed.length ? `Saved: ${done.changed.join(", ")}` : "Saved: no change";
          message.classList.add("ok");
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
