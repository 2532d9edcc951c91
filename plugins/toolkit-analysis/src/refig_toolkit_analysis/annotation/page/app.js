// The comparison page: one pair at a time, votes and undo through the JSON API (common.js).
"use strict";

const KEYS = {
  a: "A", arrowleft: "A",
  b: "B", arrowright: "B",
  t: "tie", arrowdown: "tie",
};

let current = null;
let shownAt = 0;
let busy = false;
let canUndo = false;

function setBusy(value) {
  busy = value;
  document.body.dataset.state = value ? "busy" : "ready";
  for (const button of document.querySelectorAll("[data-choice]")) {
    button.disabled = value || current === null;
  }
  $("undo").disabled = value || !canUndo;
  $("undo-finished").disabled = value || !canUndo;
}

const PAGE = {main: "compare", message: "message", noun: "vote",
              subtitle: "· which rebuild is better?"};

async function render(state) {
  canUndo = state.can_undo;
  current = showState(state, PAGE);
  if (current === null) return;
  $("task").textContent = `(${current.task})`;
  $("source").hidden = current.source === null;
  $("no-source").hidden = current.source !== null;
  if (current.source !== null) $("source").src = current.source;
  $("left-image").src = current.left.image;
  $("right-image").src = current.right.image;
  $("left-audit").textContent = current.left.audit;
  $("right-audit").textContent = current.right.audit;
  for (const image of document.querySelectorAll("img")) image.classList.remove("zoomed");
  // Votes open once the images are on screen, so nobody votes on a half-loaded pair.
  const images = [$("left-image"), $("right-image")];
  if (current.source !== null) images.push($("source"));
  await Promise.all(images.map((image) => image.decode().catch(() => undefined)));
  shownAt = performance.now();
}

function load() {
  return handleRequest(api(stateUrl()), render, setBusy);
}

function vote(choice) {
  if (busy || current === null || annotation.annotator === null) return;
  sendAnswer("/api/vote", current, {choice}, shownAt, render, setBusy);
}

function undo() {
  if (busy || annotation.annotator === null) return;
  undoLast(render, setBusy);
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.altKey || event.ctrlKey || event.metaKey) {
    return;
  }
  const key = event.key.toLowerCase();
  if (key in KEYS) {
    event.preventDefault();
    if (!event.repeat) vote(KEYS[key]);
  } else if (UNDO_KEYS.has(key)) {
    event.preventDefault();
    if (!event.repeat) undo();
  }
});

for (const button of document.querySelectorAll("[data-choice]")) {
  button.addEventListener("click", () => vote(button.dataset.choice));
}
$("undo").addEventListener("click", undo);
$("undo-finished").addEventListener("click", undo);
for (const image of document.querySelectorAll("img")) {
  image.addEventListener("click", () => image.classList.toggle("zoomed"));
}

startAnnotating(PAGE, load);
