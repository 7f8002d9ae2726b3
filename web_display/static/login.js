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
  location.assign(sameSitePath(new URLSearchParams(location.search).get("next")));
});

// Where to go after signing in: the "next" path only if, parsed as a URL the way the browser will
// follow it, it stays on this site (not "/%5Cevil.example", "/%09/evil.example" or "//evil.example").
function sameSitePath(next) {
  if (!next || !next.startsWith("/")) return "/";
  let url;
  try {
    url = new URL(next, location.origin);
  } catch (_) {
    return "/";
  }
  return url.origin === location.origin ? url.pathname + url.search + url.hash : "/";
}
