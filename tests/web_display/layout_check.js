(opts) => {
  // The layout check run in the page by tests/web_display/layout.py: returns a list of problems.
  const problems = [];
  const vw = innerWidth, vh = innerHeight;
  const doc = document.scrollingElement;
  if (doc.scrollHeight > vh + 1) problems.push(`the page scrolls: ${doc.scrollHeight}px tall in a ${vh}px screen`);
  if (doc.scrollWidth > vw + 1) problems.push(`the page scrolls sideways: ${doc.scrollWidth}px in ${vw}px`);
  if (scrollY || scrollX) problems.push(`the page is scrolled to ${scrollX},${scrollY}`);
  const shown = (e) => {
    if (e.closest("[hidden]")) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
  };
  const name = (e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}` +
    (e.closest("[data-box]") ? ` (box ${e.closest("[data-box]").dataset.box})` : "") +
    (e.textContent ? ` "${e.textContent.trim().slice(0, 40)}"` : "");
  for (const selector of opts.inView) {
    const found = [...document.querySelectorAll(selector)].filter(shown);
    if (!found.length && opts.required.includes(selector)) problems.push(`${selector}: not shown`);
    for (const e of found) {
      const r = e.getBoundingClientRect();
      if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5)
        problems.push(`${name(e)} is outside the screen: ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
      // Something else drawn over its middle (a panel, an overlay) hides it as surely as the fold does.
      const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
      if (hit && !e.contains(hit) && !hit.contains(e)) problems.push(`${name(e)} is covered by ${name(hit)}`);
    }
  }
  for (const e of document.querySelectorAll("body *")) {
    if (["INPUT", "SELECT", "TEXTAREA", "OPTION", "SCRIPT", "STYLE"].includes(e.tagName) || !shown(e)) continue;
    if (e.clientWidth && e.scrollWidth > e.clientWidth + 1)
      problems.push(`${name(e)}: content ${e.scrollWidth}px wide in ${e.clientWidth}px`);
  }
  for (const selector of opts.noTaller) {
    for (const e of [...document.querySelectorAll(selector)].filter(shown)) {
      if (e.scrollHeight > e.clientHeight + 1) problems.push(`${name(e)}: content ${e.scrollHeight}px tall in ${e.clientHeight}px`);
    }
  }
  for (const row of [...document.querySelectorAll(".cards")].filter(shown)) {
    const tops = new Set([...row.children].map((c) => Math.round(c.getBoundingClientRect().top)));
    if (tops.size > 1) problems.push(`${name(row)}: the cards wrap onto ${tops.size} lines`);
  }
  for (const e of [...document.querySelectorAll(opts.oneLine)].filter(shown)) {
    const lines = new Set([...e.getClientRects()].map((r) => Math.round(r.top)));
    const rect = e.getBoundingClientRect();
    const lh = parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.3;
    if (lines.size > 1 || rect.height > lh * 1.6) problems.push(`${name(e)}: an amount broken across lines`);
  }
  for (const e of [...document.querySelectorAll("button")].filter(shown)) {
    if (e.closest(".foot-bar, #recall, .bettor-row, .discards")) continue;
    if (e.getBoundingClientRect().height < 36) problems.push(`${name(e)}: ${Math.round(e.getBoundingClientRect().height)}px tall, too small to touch`);
  }
  return problems;
}
