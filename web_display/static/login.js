// Sign in, then go back to the page that sent us here (a path on this site only).
"use strict";

document.getElementById("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("login-error");
  error.textContent = "";
  const response = await fetch("/api/login", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      name: document.getElementById("name").value,
      password: document.getElementById("password").value,
    }),
  });
  if (!response.ok) {
    let message = "sign-in failed";
    try {
      message = (await response.json()).error || message;
    } catch (_) {}
    error.textContent = message;
    document.getElementById("password").value = "";
    return;
  }
  const next = new URLSearchParams(location.search).get("next") || "/";
  location.assign(next.startsWith("/") && !next.startsWith("//") ? next : "/");
});
