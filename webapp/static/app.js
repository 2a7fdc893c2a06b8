// The page's own script (served from here: the Content-Security-Policy allows no inline script).
// The card picker, the lay-down puzzle's meld builder, and the CSRF token on htmx's state-changing requests.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  setUpPicker();
  setUpMeldBuilder();
  focusVerdict();
  // The live answer swaps each field's message in out of band; mark the field itself to match.
  document.body.addEventListener("htmx:afterSettle", () => {
    for (const message of document.querySelectorAll(".field-error[id^='error-']")) {
      const field = document.getElementById(message.id.slice("error-".length));
      if (!field) continue;
      if (message.textContent.trim()) field.setAttribute("aria-invalid", "true");
      else field.removeAttribute("aria-invalid");
    }
  });
  quietReplacedRequests();
  document.body.addEventListener("htmx:configRequest", (event) => {
    const token = document.querySelector('meta[name="csrf-token"]');
    if (token && event.detail.verb !== "get") event.detail.headers["X-CSRFToken"] = token.content;
  });
});

// An answer's page: the verdict gets the focus, so a keyboard or screen reader user starts at
// "Right!" or "Not quite" and the next Tab reaches the best play's links and "Next puzzle".
function focusVerdict() {
  const heading = document.querySelector("#verdict h1");
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}

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
// to put them there (or drag them onto a row), click a placed card to take it back; a wild card
// placed in a meld gets a "stands for" choice (by its place, or a card named outright: JK=3H). The
// rows are the form's own text fields and select, so what is sent is what a player without script
// would type.
// Keyboard: the hand is one tab stop (a roving tabindex); Left/Right (Home/End) move through the
// cards still free, Up/Down choose the row, Enter or Space puts the card there. A live region
// says what each step did.
const SUITS = { C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"] };
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const RANK_WORDS = { A: "ace", J: "jack", Q: "queen", K: "king" };

// A typed token as the hand's buttons spell it (the server reads "joker", "th" and "10h" too).
const canonical = (written) => {
  const [card, meaning] = written.toUpperCase().split("=");
  const spelled = (token) => (token === "JOKER" ? "JK" : /^T[CDHS]$/.test(token) ? "10" + token[1] : token);
  return spelled(card) + (meaning === undefined ? "" : "=" + spelled(meaning));
};
const suitOf = (token) => SUITS[token.slice(-1)];
const face = (token) => (token === "JK" ? "Joker" : suitOf(token) ? token.slice(0, -1) + suitOf(token)[0] : token);
const words = (token) => {
  if (token === "JK") return "joker";
  const suit = suitOf(token);
  const rank = token.slice(0, -1);
  return suit ? (RANK_WORDS[rank] || rank) + " of " + suit[1] : token;
};
const suitClass = (token) => (token === "JK" ? "joker" : suitOf(token) ? suitOf(token)[1] : "unknown");

function setUpMeldBuilder() {
  const form = document.querySelector("form.answer-form[data-kind='lay-down']");
  if (!form) return;
  const builder = form.querySelector(".builder");
  const wild = new Set((builder.dataset.wild || "").split(/\s+/).filter(Boolean));
  const hand = form.querySelector("#hand-cards");
  const handButtons = [...hand.querySelectorAll("button[data-card]")];
  const rows = [...form.querySelectorAll(".meld-row")];
  const radios = rows.map((row) => row.querySelector(".target input"));
  const discard = form.querySelector("select[name='discard']");
  const status = form.querySelector("#builder-status");
  for (const hidden of form.querySelectorAll("#hand-cards button[data-card], .target input, .script-hint")) hidden.hidden = false;
  for (const shown of form.querySelectorAll(".no-script-hand")) shown.hidden = true;
  form.classList.add("scripted");

  const say = (text) => { status.textContent = text; };
  const inputOf = (row) => row.querySelector("input[type=text]");
  const tokensOf = (row) => {
    const input = inputOf(row);
    if (input) return input.value.split(/[\s,]+/).filter(Boolean).map(canonical);
    return discard.value ? [discard.value] : [];
  };
  const setTokens = (row, tokens) => {
    const input = inputOf(row);
    if (input) input.value = tokens.join(" ");
    else discard.value = tokens.length ? tokens[tokens.length - 1] : "";
  };
  const activeIndex = () => Math.max(0, radios.findIndex((radio) => radio.checked));
  const free = (button) => button.getAttribute("aria-disabled") !== "true";

  function focusCard(button) {
    for (const other of handButtons) other.tabIndex = other === button ? 0 : -1;
    button.focus();
  }

  function choose(index, announce) {
    radios[index].checked = true;
    render();
    if (announce) say("Cards now go to " + rows[index].dataset.name + ".");
  }

  // The cards a wild card in this row may stand for: the run's suit, the set's rank, or any card.
  function meanings(row) {
    const naturals = tokensOf(row).map((written) => {
      const [card, meaning] = written.split("=");
      return meaning || (wild.has(card) ? null : card);
    }).filter((token) => token && suitOf(token));
    const ranks = new Set(naturals.map((token) => token.slice(0, -1)));
    const suits = new Set(naturals.map((token) => token.slice(-1)));
    const kind = row.dataset.kind;
    if (suits.size === 1 && (kind === "run" || ranks.size > 1)) return RANKS.map((rank) => rank + [...suits][0]);
    if (ranks.size === 1) return Object.keys(SUITS).map((suit) => [...ranks][0] + suit);
    return Object.keys(SUITS).flatMap((suit) => RANKS.map((rank) => rank + suit));
  }

  function standsForChoice(row, r, index, card, meaning) {
    const select = document.createElement("select");
    select.className = "stands-for-choice";
    select.dataset.focusKey = `means-${r}-${index}`;
    select.setAttribute("aria-label", `the ${words(card)} in ${row.dataset.name} stands for`);
    select.append(new Option("by its place", ""));
    const options = meanings(row);
    if (meaning && !options.includes(meaning)) options.push(meaning);
    for (const token of options) select.append(new Option("= " + face(token), token, false, token === meaning));
    select.addEventListener("change", () => {
      const tokens = tokensOf(row);
      tokens[index] = card + (select.value ? "=" + select.value : "");
      setTokens(row, tokens);
      render();
      say(`The ${words(card)} in ${row.dataset.name} stands for ` +
          (select.value ? `the ${words(select.value)}.` : "what its place says."));
    });
    return select;
  }

  function takeBack(r, index) {
    const row = rows[r];
    const tokens = tokensOf(row);
    const [card] = tokens.splice(index, 1)[0].split("=");
    setTokens(row, tokens);
    render();
    say(`${face(card)} taken back from ${row.dataset.name}.`);
    const chips = [...row.querySelectorAll(".placed-card")];
    const next = chips[Math.min(index, chips.length - 1)];
    if (next) next.focus();
    else focusCard(handButtons.find((button) => button.tabIndex === 0) || handButtons[0]);
  }

  function render() {
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focusKey : null;
    const used = {};
    rows.forEach((row, r) => {
      const placed = row.querySelector(".placed");
      placed.replaceChildren();
      tokensOf(row).forEach((written, index) => {
        const [card, meaning] = written.split("=");
        used[card] = (used[card] || 0) + 1;
        const item = document.createElement("span");
        item.className = "placed-item";
        const chip = document.createElement("button");
        chip.type = "button";
        chip.className = "card placed-card " + suitClass(card);
        chip.textContent = face(card);
        chip.dataset.focusKey = `chip-${r}-${index}`;
        chip.setAttribute("aria-label", `take back the ${words(card)} from ${row.dataset.name}`);
        chip.addEventListener("click", () => takeBack(r, index));
        item.append(chip);
        if (wild.has(card) && inputOf(row)) item.append(standsForChoice(row, r, index, card, meaning));
        placed.append(item);
      });
      row.classList.toggle("active", r === activeIndex());
    });
    const seen = {};
    for (const button of handButtons) {
      const token = button.dataset.card;
      seen[token] = (seen[token] || 0) + 1;
      const taken = seen[token] <= (used[token] || 0);
      button.classList.toggle("used", taken);
      button.setAttribute("aria-disabled", String(taken));
      button.setAttribute("aria-label", button.dataset.words + (taken ? ", placed" : ""));
    }
    if (focused && (!document.activeElement || document.activeElement === document.body)) {
      const again = form.querySelector(`[data-focus-key="${focused}"]`);
      if (again) again.focus();
    }
  }

  function place(button) {
    if (!free(button)) return;
    const row = rows[activeIndex()];
    const card = button.dataset.card;
    setTokens(row, inputOf(row) ? [...tokensOf(row), card] : [card]);
    render();
    say(`${face(card)} put in ${row.dataset.name}.`);
    if (document.activeElement === button || document.activeElement === document.body) {
      const at = handButtons.indexOf(button);
      const next = [...handButtons.slice(at + 1), ...handButtons.slice(0, at)].find(free);
      if (next) focusCard(next);
    }
  }

  handButtons.forEach((button, index) => {
    button.tabIndex = index === 0 ? 0 : -1;
    button.addEventListener("click", () => place(button));
    // or dragged onto a row: the row becomes the chosen one and the card goes there
    button.draggable = true;
    button.addEventListener("dragstart", (event) => {
      if (!free(button)) return event.preventDefault();
      event.dataTransfer.setData("text/plain", String(index));
      event.dataTransfer.effectAllowed = "move";
    });
  });
  rows.forEach((row, r) => {
    row.addEventListener("dragover", (event) => { event.preventDefault(); row.classList.add("drop-here"); });
    row.addEventListener("dragleave", () => row.classList.remove("drop-here"));
    row.addEventListener("drop", (event) => {
      event.preventDefault();
      row.classList.remove("drop-here");
      const button = handButtons[Number(event.dataTransfer.getData("text/plain"))];
      if (!button) return;
      radios[r].checked = true;
      place(button);
    });
  });
  hand.addEventListener("keydown", (event) => {
    const button = event.target.closest("button[data-card]");
    if (!button) return;
    const at = handButtons.indexOf(button);
    const freeCards = handButtons.filter((other, index) => index === at || free(other));
    const here = freeCards.indexOf(button);
    let target = null;
    if (event.key === "ArrowRight") target = freeCards[Math.min(here + 1, freeCards.length - 1)];
    else if (event.key === "ArrowLeft") target = freeCards[Math.max(here - 1, 0)];
    else if (event.key === "Home") target = freeCards[0];
    else if (event.key === "End") target = freeCards[freeCards.length - 1];
    else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      choose(Math.min(Math.max(activeIndex() + step, 0), rows.length - 1), true);
      event.preventDefault();
      return;
    } else return;
    event.preventDefault();
    focusCard(target);
  });
  rows.forEach((row, r) => {
    // a click anywhere on a row (not on its own controls) makes it the row the cards go to
    row.addEventListener("click", (event) => {
      if (!event.target.closest("input, select, button, label")) choose(r, false);
    });
    for (const control of row.querySelectorAll("input[type=text], select#discard")) {
      control.addEventListener("focus", () => { if (activeIndex() !== r) choose(r, false); });
    }
    radios[r].addEventListener("change", () => say("Cards now go to " + row.dataset.name + "."));
  });
  form.addEventListener("input", render);
  form.addEventListener("change", render);
  render();
}

// hx-sync "replace" aborts a live answer still on its way when a newer question is asked: that is
// the design, yet htmx 2 reports every abort as an error ("htmx:afterRequest", "htmx:sendAbort").
// The request's own abort handler still runs (its events, the request lock let go); only htmx's
// lines logged while it runs are kept out of the console.
function quietReplacedRequests() {
  const requests = new WeakMap();
  document.body.addEventListener("htmx:beforeSend", (event) => requests.set(event.detail.elt, event.detail.xhr));
  document.addEventListener("htmx:abort", (event) => {
    const xhr = requests.get(event.detail.elt || event.target);
    if (!xhr || !xhr.onabort || xhr.quietAbort) return;
    const abort = xhr.onabort;
    xhr.quietAbort = true;
    xhr.onabort = function (...args) {
      const log = console.error;
      console.error = (...parts) => { if (!String(parts[0]).startsWith("htmx:")) log(...parts); };
      try { return abort.apply(this, args); } finally { console.error = log; }
    };
  }, true);
}
