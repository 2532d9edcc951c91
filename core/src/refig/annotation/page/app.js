// The annotation page: one pair at a time, votes and undo through the JSON API.
"use strict";

const STORE_KEY = "refig.annotator";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;
const KEYS = {
  a: "A", arrowleft: "A",
  b: "B", arrowright: "B",
  t: "tie", arrowdown: "tie",
};
const UNDO_KEYS = new Set(["u", "backspace"]);

const $ = (id) => document.getElementById(id);
let annotator = null;
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

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    return {ok: false, status: 0, data: {error: "the server does not answer; is refig annotate still running?"}};
  }
  const data = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  return {ok: response.ok, status: response.status, data};
}

function randomId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function render(state) {
  const {done, planned, votes} = state.progress;
  $("progress").textContent = `${done} / ${planned}`;
  $("progress-bar").max = Math.max(planned, 1);
  $("progress-bar").value = done;
  $("run-votes").textContent = `(${votes} ${votes === 1 ? "vote" : "votes"} in the run)`;
  canUndo = state.can_undo;
  $("message").textContent = state.message || "";
  current = state.item;
  document.body.dataset.item = current ? current.token : "";
  $("compare").hidden = current === null;
  $("finished").hidden = current !== null;
  if (current === null) {
    $("finished-message").textContent = state.message || "Nothing left to compare.";
    return;
  }
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

async function handle(request) {
  setBusy(true);
  const result = await request;
  if (result.ok) {
    showError("");
    await render(result.data);
  } else if (result.status === 409) {
    // stale pair or nothing to undo: say so and show what is current now
    const state = await api(`/api/state?annotator=${encodeURIComponent(annotator)}`);
    if (state.ok) await render(state.data);
    showError(result.data.error);
  } else {
    showError(result.data.error || `request failed (${result.status})`);
  }
  setBusy(false);
}

function load() {
  return handle(api(`/api/state?annotator=${encodeURIComponent(annotator)}`));
}

function vote(choice) {
  if (busy || current === null || annotator === null) return;
  handle(api("/api/vote", {
    annotator,
    token: current.token,
    choice,
    id: randomId(),
    seconds: (performance.now() - shownAt) / 1000,
  }));
}

function undo() {
  if (busy || annotator === null) return;
  handle(api("/api/undo", {annotator}));
}

function useAnnotator(name) {
  annotator = name;
  localStorage.setItem(STORE_KEY, name);
  $("annotator-name").textContent = name;
  $("login").hidden = true;
  load();
}

function askAnnotator() {
  annotator = null;
  current = null;
  $("compare").hidden = true;
  $("finished").hidden = true;
  $("login").hidden = false;
  $("annotator-input").focus();
  document.body.dataset.state = "login";
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
$("switch").addEventListener("click", askAnnotator);
for (const image of document.querySelectorAll("img")) {
  image.addEventListener("click", () => image.classList.toggle("zoomed"));
}
$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("annotator-input").value.trim();
  if (NAME.test(name)) useAnnotator(name);
  else showError("An annotator name is 1 to 64 letters, digits or . _ @ + - (no spaces).");
});

(async function start() {
  const info = await api("/api/session");
  if (!info.ok) {
    showError(info.data.error);
    return;
  }
  document.title = `refig · ${info.data.run}`;
  $("progress").textContent = `– / ${info.data.planned}`;
  const fromUrl = new URLSearchParams(location.search).get("annotator");
  const name = [fromUrl, localStorage.getItem(STORE_KEY), info.data.default_annotator]
    .find((n) => n && NAME.test(n));
  if (name) useAnnotator(name);
  else askAnnotator();
})();
