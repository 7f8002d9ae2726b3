// Accounts and the audit log, for admins.
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
      const tables = await api("GET", "/api/tables");
      const configs = await Promise.all(
        tables.map((t) => api("GET", `/api/tables/${encodeURIComponent(t.name)}/config`)),
      );
      $("configs").replaceChildren(
        ...tables.map((t, i) =>
          el(
            "details",
            { class: "config", "data-table": t.name },
            el("summary", { text: `${t.name} (${configs[i].game})` }),
            el("pre", { text: JSON.stringify(configs[i], null, 2) }),
          ),
        ),
      );
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
  }

  start();
})();
