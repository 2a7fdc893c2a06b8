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

// A lay-down puzzle: tap cards of the hand and they go to the marked row, the first row not yet
// whole (a meld of the contract, then the discard): a row with its meld's size that could be its
// kind passes on to the next, and where the rules lay down exact sizes takes no more. A row can be
// chosen (tapped, or a card dragged onto it); "Make a set" / "Make a run" moves the cards of the
// marked row to the first empty row of that kind (a meld tapped out of the contract's order);
// "Undo" takes back the last card. A placed card is taken back by clicking it; a wild card gets a
// "stands for" choice only where the row leaves its meaning open (a spare wild card of a run that
// could go at either end, or a row of wild cards alone). The rows are the form's own text fields
// and select, so what is sent is what a player without script would type; Enter in a row moves
// to the next row, never submits.
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
  const exact = builder.dataset.exact === "true";
  const discardIndex = rows.length - 1;
  let explicit = null; // the row the player chose; null: the first row not yet whole
  const history = []; // the rows cards were put in, in order: "Undo" takes back the last
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
  const sizeOf = (row) => Number(row.dataset.size || 1);
  // What a row's cards stand for, as far as they say: the naturals (and wild cards said outright),
  // and how many wild cards are left to their place.
  const readRow = (row) => {
    const naturals = [];
    let wilds = 0;
    for (const written of tokensOf(row)) {
      const [card, meaning] = written.split("=");
      if (meaning) naturals.push(meaning);
      else if (wild.has(card)) wilds += 1;
      else naturals.push(card);
    }
    return { naturals: naturals.filter((token) => suitOf(token)), wilds };
  };
  // A run's naturals: their span (the ace low or high, whichever is shorter) and the gaps in it;
  // null when they are not one suit of distinct ranks.
  const runSpan = (naturals) => {
    if (new Set(naturals.map((token) => token.slice(-1))).size > 1) return null;
    const ranks = naturals.map((token) => RANKS.indexOf(token.slice(0, -1)) + 1);
    if (new Set(ranks).size < ranks.length) return null;
    let best = null;
    for (const aceHigh of [false, true]) {
      const places = ranks.map((place) => (place === 1 && aceHigh ? 14 : place));
      const low = Math.min(...places), high = Math.max(...places);
      if (!best || high - low < best.high - best.low) best = { low, high, gaps: high - low + 1 - places.length };
    }
    return best;
  };
  // Whether a meld row's cards could be a meld of its kind (the validator judges the rest).
  const couldBe = (row) => {
    const { naturals, wilds } = readRow(row);
    if (row.dataset.kind !== "run") return new Set(naturals.map((token) => token.slice(0, -1))).size <= 1;
    if (!naturals.length) return true;
    const span = runSpan(naturals);
    return span !== null && span.gaps <= wilds;
  };
  const whole = (r) => (r === discardIndex ? tokensOf(rows[r]).length > 0
    : tokensOf(rows[r]).length >= sizeOf(rows[r]) && couldBe(rows[r]));
  // Whether a wild card's meaning in this row is open: a set's with no naturals, a run's when a
  // spare wild card could go at either end.
  const open = (row) => {
    const { naturals, wilds } = readRow(row);
    if (!naturals.length) return true;
    if (row.dataset.kind !== "run" && new Set(naturals.map((token) => token.slice(0, -1))).size === 1) return false;
    const span = runSpan(naturals);
    return span !== null && wilds > span.gaps && span.low > 1 && span.high < 14;
  };
  // The row cards go to: the one chosen (until, where sizes are exact, it is whole), else the first
  // meld row not yet whole, else the discard.
  const activeIndex = () => {
    if (explicit !== null && !(exact && explicit !== discardIndex && tokensOf(rows[explicit]).length >= sizeOf(rows[explicit])
                                && couldBe(rows[explicit]))) return explicit;
    const next = rows.findIndex((row, r) => r !== discardIndex && !whole(r));
    return next === -1 ? discardIndex : next;
  };
  const free = (button) => button.getAttribute("aria-disabled") !== "true";

  function focusCard(button) {
    for (const other of handButtons) other.tabIndex = other === button ? 0 : -1;
    button.focus();
  }

  function choose(index, announce) {
    explicit = index;
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
        if (wild.has(card) && inputOf(row) && (meaning || open(row))) item.append(standsForChoice(row, r, index, card, meaning));
        placed.append(item);
      });
      const active = activeIndex();
      row.classList.toggle("active", r === active);
      if (r === active) radios[r].checked = true;
      note(row, r);
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

  // A row's count, and what is wrong with it as it stands (a refused answer's message stays until
  // the row changes).
  function note(row, r) {
    const count = row.querySelector(".row-count");
    const message = row.querySelector(".row-problem");
    const tokens = tokensOf(row);
    if (count) count.textContent = `${tokens.length} of ${sizeOf(row)}${exact ? "" : "+"}`;
    row.classList.toggle("full", r !== discardIndex && whole(r));
    if (!message || row.dataset.sent === tokens.join(" ")) return;
    row.classList.remove("has-problem");
    let text = "";
    if (r !== discardIndex && tokens.length && !couldBe(row)) {
      const other = row.dataset.kind === "run" ? "set" : "run";
      text = `not a ${row.dataset.kind}` + (form.querySelector(`[data-make='${other}']`) ? `: “Make a ${other}” moves these cards to a ${other}'s row` : "");
    } else if (r !== discardIndex && exact && tokens.length > sizeOf(row)) {
      text = `${tokens.length} cards: a ${row.dataset.kind} here takes exactly ${sizeOf(row)}`;
    }
    message.textContent = text;
    if (text) inputOf(row).setAttribute("aria-invalid", "true");
    else if (inputOf(row)) inputOf(row).removeAttribute("aria-invalid");
  }

  function place(button) {
    if (!free(button)) return;
    const r = activeIndex();
    const row = rows[r];
    const card = button.dataset.card;
    setTokens(row, inputOf(row) ? [...tokensOf(row), card] : [card]);
    history.push(r);
    if (explicit === r && exact && whole(r)) explicit = null;
    render();
    const next = activeIndex();
    say(`${face(card)} put in ${row.dataset.name}.` + (next !== r ? ` Next: ${rows[next].dataset.name}.` : ""));
    if (document.activeElement === button || document.activeElement === document.body) {
      const at = handButtons.indexOf(button);
      const next = [...handButtons.slice(at + 1), ...handButtons.slice(0, at)].find(free);
      if (next) focusCard(next);
    }
  }

  function undo() {
    while (history.length && !tokensOf(rows[history[history.length - 1]]).length) history.pop();
    const r = history.length ? history.pop() : rows.map((row, index) => index).reverse().find((index) => tokensOf(rows[index]).length);
    if (r === undefined) return say("Nothing to take back.");
    const tokens = tokensOf(rows[r]);
    const [card] = tokens.pop().split("=");
    setTokens(rows[r], tokens);
    explicit = null;
    render();
    say(`${face(card)} taken back from ${rows[r].dataset.name}.`);
  }

  // The marked row's cards to the first empty row of ``kind`` (the row itself when it is one).
  function make(kind) {
    const r = activeIndex();
    const tokens = r === discardIndex ? [] : tokensOf(rows[r]);
    if (!tokens.length) return say(`Tap the cards of the ${kind} first.`);
    explicit = null;
    if (rows[r].dataset.kind === kind) {
      render();
      return say(whole(r) ? `${rows[r].dataset.name} is made.` : `${rows[r].dataset.name} needs ${sizeOf(rows[r])} cards.`);
    }
    const to = rows.findIndex((row, index) => index !== discardIndex && row.dataset.kind === kind && !tokensOf(row).length);
    if (to === -1) return say(`No empty ${kind} row is left: take cards back first.`);
    setTokens(rows[to], tokens);
    setTokens(rows[r], []);
    history.push(...tokens.map(() => to));
    render();
    say(`${tokens.map((token) => face(token.split("=")[0])).join(" ")} made into ${rows[to].dataset.name}.`);
  }

  form.querySelector(".builder-actions").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) return;
    if (button.dataset.action === "undo") undo();
    else make(button.dataset.make);
  });

  // Enter in a row's text box moves to the next row (never submits); so does a space after a row
  // has its meld's cards.
  const controls = rows.map((row) => inputOf(row) || discard);
  rows.forEach((row, r) => {
    const input = inputOf(row);
    if (!input) return;
    const onward = () => { explicit = null; controls[Math.min(r + 1, controls.length - 1)].focus(); };
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      onward();
    });
    input.addEventListener("input", (event) => {
      if (event.data === " " && input.selectionStart === input.value.length && whole(r)) onward();
    });
  });

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
      explicit = r;
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
    // "input" comes before the form's own listener draws the rows again (and "change" after it)
    radios[r].addEventListener("input", () => { if (radios[r].checked) explicit = r; });
    radios[r].addEventListener("change", () => say("Cards now go to " + row.dataset.name + "."));
  });
  form.addEventListener("input", render);
  form.addEventListener("change", render);
  for (const row of rows) row.dataset.sent = tokensOf(row).join(" ");
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
