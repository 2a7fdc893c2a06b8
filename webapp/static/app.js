// The page's own script (served from here: the Content-Security-Policy allows no inline script).
// The card picker, and the CSRF token on htmx's state-changing requests.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  setUpPicker();
  // The live answer swaps each field's message in out of band; mark the field itself to match.
  document.body.addEventListener("htmx:afterSettle", () => {
    for (const message of document.querySelectorAll(".field-error[id^='error-']")) {
      const field = document.getElementById(message.id.slice("error-".length));
      if (!field) continue;
      if (message.textContent.trim()) field.setAttribute("aria-invalid", "true");
      else field.removeAttribute("aria-invalid");
    }
  });
  document.body.addEventListener("htmx:configRequest", (event) => {
    const token = document.querySelector('meta[name="csrf-token"]');
    if (token && event.detail.verb !== "get") event.detail.headers["X-CSRFToken"] = token.content;
  });
});

// Clicking (or Enter/Space on) a card adds its token to the hand; the arrow keys move through the
// grid (one tab stop for the whole grid: a roving tabindex); Home/End go to a row's ends.
function setUpPicker() {
  const picker = document.getElementById("picker");
  const hand = document.getElementById("hand");
  if (!picker || !hand) return;
  picker.hidden = false;
  const rows = [...picker.querySelectorAll(".picker-row")].map((row) => [...row.querySelectorAll("button.pick")]);

  const changed = () => hand.dispatchEvent(new Event("input", { bubbles: true }));
  picker.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.card) {
      hand.value = (hand.value.trim() ? hand.value.trimEnd() + " " : "") + button.dataset.card;
    } else if (button.dataset.picker === "undo") {
      hand.value = hand.value.trimEnd().replace(/\S+$/, "").trimEnd();
    } else if (button.dataset.picker === "clear") {
      hand.value = "";
    } else {
      return;
    }
    changed();
  });

  picker.addEventListener("keydown", (event) => {
    const button = event.target.closest("button.pick");
    if (!button) return;
    const r = rows.findIndex((row) => row.includes(button));
    const c = rows[r].indexOf(button);
    const moves = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] };
    let target = null;
    if (moves[event.key]) {
      const [dr, dc] = moves[event.key];
      const row = rows[Math.min(Math.max(r + dr, 0), rows.length - 1)];
      target = row[Math.min(Math.max(c + dc, 0), row.length - 1)];
    } else if (event.key === "Home") {
      target = rows[r][0];
    } else if (event.key === "End") {
      target = rows[r][rows[r].length - 1];
    }
    if (!target) return;
    event.preventDefault();
    button.tabIndex = -1;
    target.tabIndex = 0;
    target.focus();
  });
}
