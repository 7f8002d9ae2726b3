// The page a signed-in user who is not an admin gets at /admin: who they are, and where to go instead.
"use strict";

(async () => {
  const me = await DA.whoami();
  if (!me) return;
  document.getElementById("who").textContent =
    `You are signed in as ${me.name} (${me.role}): this page is for admins (accounts, table configurations, the audit log).`;
  document.getElementById("sign-out").addEventListener("click", DA.signOut);
})();
