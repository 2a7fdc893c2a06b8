// The /play table's hand arranged by dragging (webapp/templates/play/table.html): a progressive
// enhancement. Without this script the hand is sorted by suit or by rank (the links) and nothing
// else changes. With it, a card is dragged (mouse, pen or finger) or moved with Shift+Left/Right
// when focused; the order is kept in this browser per game and round (localStorage) and laid on
// again each time htmx swaps the table in, a card new to the hand going to the right end. The
// discard buttons and the lay-down rows follow the hand's order. "by suit" or "rank" forgets it.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  arrangeHand();
  // Every new #play htmx puts in (a quick move can replace the table again before the last swap
  // has settled, so "afterSettle" alone can miss it); arrangeHand runs once per hand.
  document.body.addEventListener("htmx:load", arrangeHand);
  document.body.addEventListener("htmx:afterSettle", arrangeHand);
});

function handCards(row) {
  return Array.from(row.querySelectorAll(":scope > .card"));
}

// Elements in the order of `tokens` (each token takes the first element of it not yet taken),
// those not named after them in their order: appended to their parent in that order.
function lineUp(elements, tokenOf, tokens) {
  const left = elements.slice();
  const ordered = [];
  for (const token of tokens) {
    const index = left.findIndex((element) => tokenOf(element) === token);
    if (index >= 0) ordered.push(left.splice(index, 1)[0]);
  }
  for (const element of ordered.concat(left)) element.parentNode.appendChild(element);
}

function arrangeHand() {
  const hand = document.querySelector("#hand[data-game]");
  if (!hand || hand.dataset.arranged) return;
  hand.dataset.arranged = "yes";
  const row = hand.querySelector(".cards");
  if (!row) return;
  const key = "play-hand/" + hand.dataset.game + "/" + hand.dataset.round;
  const tokens = () => handCards(row).map((card) => card.dataset.card);
  const follow = () => {
    const order = tokens();
    const buttons = Array.from(document.querySelectorAll("#discard-form button[value]"));
    if (buttons.length) lineUp(buttons, (button) => button.value, order);
    const rows = Array.from(document.querySelectorAll("#lay-down-form .rows > li"));
    if (rows.length) lineUp(rows, (li) => li.querySelector("input[type=hidden]").value, order);
  };
  const save = () => {
    try { localStorage.setItem(key, JSON.stringify(tokens())); } catch (error) { /* private mode: not kept */ }
    follow();
  };
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(key) || "null"); } catch (error) { saved = null; }
  if (Array.isArray(saved)) {
    lineUp(handCards(row), (card) => card.dataset.card, saved);
    follow();
  }
  for (const link of document.querySelectorAll("a.sort-link")) {
    link.addEventListener("click", () => { try { localStorage.removeItem(key); } catch (error) { /* nothing kept */ } });
  }
  const note = document.getElementById("drag-note");
  if (note) note.hidden = false;
  row.classList.add("arrangeable");
  for (const card of handCards(row)) {
    card.tabIndex = 0;
    card.setAttribute("aria-keyshortcuts", "Shift+ArrowLeft Shift+ArrowRight");
  }

  let dragged = null;
  row.addEventListener("pointerdown", (event) => {
    const card = event.target.closest(".card");
    if (!card || card.parentNode !== row || event.button !== 0) return;
    dragged = card;
    card.setPointerCapture(event.pointerId);
    card.classList.add("dragging");
    event.preventDefault();
  });
  row.addEventListener("pointermove", (event) => {
    if (!dragged) return;
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const over = under && under.closest(".card");
    if (!over || over === dragged || over.parentNode !== row) return;
    const box = over.getBoundingClientRect();
    const after = event.clientX > box.left + box.width / 2;
    row.insertBefore(dragged, after ? over.nextSibling : over);
  });
  const drop = () => {
    if (!dragged) return;
    dragged.classList.remove("dragging");
    dragged = null;
    save();
  };
  row.addEventListener("pointerup", drop);
  row.addEventListener("pointercancel", drop);
  row.addEventListener("keydown", (event) => {
    const card = event.target.closest(".card");
    if (!card || !event.shiftKey || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
    event.preventDefault();
    const cards = handCards(row);
    const index = cards.indexOf(card);
    const other = cards[index + (event.key === "ArrowLeft" ? -1 : 1)];
    if (!other) return;
    row.insertBefore(card, event.key === "ArrowLeft" ? other : other.nextSibling);
    card.focus();
    save();
  });
}
