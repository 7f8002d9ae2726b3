// A supervisor's action on the dealer's terminal (clear a tilt, void, confirm a jackpot, recall an old round).
// A supervisor signed in here acts directly. At a dealer's session the supervisor types their own name and
// password into this dialog: the display asks the server for a one-shot grant naming the action, then sends
// the credentials with that grant; the action runs as the supervisor and the dealer stays signed in.
"use strict";

const Authorise = (() => {
  const { api, el } = DA;
  const $ = (id) => document.getElementById(id);
  let current = null;

  const supervisor = () => {
    const me = DA.user();
    return Boolean(me) && (me.role === "supervisor" || me.role === "admin");
  };

  // request: { table, title, fields: [nodes], action: () => action object, direct: () => Promise (a supervisor here) }
  function open(request) {
    current = request;
    const dialog = $("authorise");
    const form = $("authorise-form");
    $("authorise-title").textContent = request.title;
    $("authorise-fields").replaceChildren(...(request.fields || []));
    $("authorise-credentials").hidden = supervisor();
    $("authorise-error").textContent = "";
    $("authorise-submit").textContent = supervisor() ? "Do it" : "Authorise";
    form.elements.supervisor.value = "";
    form.elements.password.value = "";
    dialog.showModal();
    const first = dialog.querySelector("select, input:not([type=hidden])");
    const target = supervisor() ? first : request.fields && request.fields.length ? first : form.elements.supervisor;
    if (target) target.focus();
  }

  function close() {
    const form = $("authorise-form");
    form.elements.password.value = "";
    current = null;
    $("authorise").close();
  }

  async function submit(event) {
    event.preventDefault();
    if (!current) return;
    const request = current;
    const form = $("authorise-form");
    const button = $("authorise-submit");
    $("authorise-error").textContent = "";
    button.disabled = true;
    try {
      let result;
      if (supervisor()) {
        result = await request.direct();
      } else {
        const base = `/api/tables/${encodeURIComponent(request.table)}/override`;
        const grant = await api("POST", base, { action: request.action() });
        result = await api("POST", `${base}/${encodeURIComponent(grant.grant)}`, {
          name: form.elements.supervisor.value,
          password: form.elements.password.value,
        });
      }
      close();
      if (request.done) request.done(result);
    } catch (error) {
      form.elements.password.value = "";
      $("authorise-error").textContent = error.message;
    } finally {
      button.disabled = false;
    }
  }

  function start() {
    $("authorise-form").addEventListener("submit", submit);
    $("authorise-cancel").addEventListener("click", close);
    $("authorise").addEventListener("cancel", () => {
      current = null;
    });
  }

  // A labelled field for the dialog.
  function field(label, input) {
    return el("label", {}, label, input);
  }

  return { open, start, field, supervisor };
})();
