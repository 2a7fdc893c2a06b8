// The page's own script (served from here: the Content-Security-Policy allows no inline script).
// The card picker, the lay-down puzzle's meld builder, and the CSRF token on htmx's state-changing requests.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  setUpPicker();
  setUpMeldBuilder();
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

// A lay-down puzzle: choose a row (a meld of the contract, or the discard), click cards of the hand
// to put them there; click a placed card to take it back. The rows are the form's own text fields
// and select, so what is sent is what a player without script would type.
function setUpMeldBuilder() {
  const form = document.querySelector("form.answer-form[data-kind='lay-down']");
  if (!form) return;
  const handButtons = [...form.querySelectorAll("#hand-cards button[data-card]")];
  const rows = [...form.querySelectorAll(".meld-row")];
  const discard = form.querySelector("select[name='discard']");
  for (const hidden of form.querySelectorAll("#hand-cards button[data-card], .target input, .script-hint")) hidden.hidden = false;
  for (const shown of form.querySelectorAll(".no-script-hand")) shown.hidden = true;
  form.classList.add("scripted");

  const tokensOf = (row) => {
    const input = row.querySelector("input[type=text]");
    if (input) return input.value.split(/[\s,]+/).filter(Boolean);
    return discard.value ? [discard.value] : [];
  };
  const setTokens = (row, tokens) => {
    const input = row.querySelector("input[type=text]");
    if (input) input.value = tokens.join(" ");
    else discard.value = tokens.length ? tokens[tokens.length - 1] : "";
  };
  const activeRow = () => {
    const chosen = form.querySelector(".target input:checked");
    return rows.find((row) => row.dataset.row === (chosen ? chosen.value : "meld-0")) || rows[0];
  };

  function render() {
    const used = {};
    for (const row of rows) {
      const placed = row.querySelector(".placed");
      placed.replaceChildren();
      tokensOf(row).forEach((written, index) => {
        const token = written.split("=")[0].toUpperCase();
        used[token] = (used[token] || 0) + 1;
        const source = handButtons.find((button) => button.dataset.card === token);
        const chip = document.createElement("button");
        chip.type = "button";
        chip.className = source ? source.className.replace("pick", "placed-card") : "card";
        chip.textContent = source ? source.textContent : written;
        if (written.includes("=")) {
          const meaning = document.createElement("span");
          meaning.className = "stands-for";
          meaning.textContent = "=" + written.split("=")[1];
          chip.append(meaning);
        }
        chip.setAttribute("aria-label", "take back the " + (source ? source.getAttribute("aria-label").replace(/^put the | in the chosen row$/g, "") : written));
        chip.addEventListener("click", () => {
          const tokens = tokensOf(row);
          tokens.splice(index, 1);
          setTokens(row, tokens);
          render();
        });
        placed.append(chip);
      });
      row.classList.toggle("active", row === activeRow());
    }
    const seen = {};
    for (const button of handButtons) {
      const token = button.dataset.card;
      seen[token] = (seen[token] || 0) + 1;
      const taken = seen[token] <= (used[token] || 0);
      button.disabled = taken;
      button.classList.toggle("used", taken);
    }
  }

  for (const button of handButtons) {
    button.addEventListener("click", () => {
      const row = activeRow();
      setTokens(row, row === rows[rows.length - 1] && !row.querySelector("input[type=text]")
        ? [button.dataset.card] : [...tokensOf(row), button.dataset.card]);
      render();
    });
  }
  form.addEventListener("input", render);
  form.addEventListener("change", render);
  render();
}
