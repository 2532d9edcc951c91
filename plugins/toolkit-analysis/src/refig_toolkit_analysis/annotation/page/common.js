// What both annotation pages share: the JSON API, ids, errors, progress and the annotator name.
"use strict";

const STORE_KEY = "refig.annotator";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;
const UNDO_KEYS = new Set(["u", "backspace"]);
const $ = (id) => document.getElementById(id);
const annotation = {annotator: null};

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

// Progress, message and the current item's token; the main section or the finished note.
// Returns the item on screen now (null when the annotator is done).
function showState(state, page) {
  const {done, planned, votes} = state.progress;
  $("progress").textContent = `${done} / ${planned}`;
  $("progress-bar").max = Math.max(planned, 1);
  $("progress-bar").value = done;
  $("run-votes").textContent = `(${votes} ${votes === 1 ? page.noun : page.noun + "s"} in the run)`;
  $(page.message).textContent = state.message || "";
  const item = state.item;
  document.body.dataset.item = item ? item.token : "";
  $(page.main).hidden = item === null;
  $("finished").hidden = item !== null;
  if (item === null) $("finished-message").textContent = state.message || "Nothing left.";
  return item;
}

function stateUrl() {
  return `/api/state?annotator=${encodeURIComponent(annotation.annotator)}`;
}

// Send a request; render its answer, or on 409 (stale, nothing to undo) the current state.
async function handleRequest(request, render, setBusy) {
  setBusy(true);
  const result = await request;
  if (result.ok) {
    showError("");
    await render(result.data);
  } else if (result.status === 409) {
    const state = await api(stateUrl());
    if (state.ok) await render(state.data);
    showError(result.data.error);
  } else {
    showError(result.data.error || `request failed (${result.status})`);
  }
  setBusy(false);
}

// Answer the item on screen (a vote or a rating) under a fresh id, with the seconds it took.
function sendAnswer(path, item, fields, shownAt, render, setBusy) {
  return handleRequest(api(path, {
    annotator: annotation.annotator,
    token: item.token,
    id: randomId(),
    seconds: (performance.now() - shownAt) / 1000,
    ...fields,
  }), render, setBusy);
}

// Take back the annotator's last answer; the server shows that item again.
function undoLast(render, setBusy) {
  return handleRequest(api("/api/undo", {annotator: annotation.annotator}), render, setBusy);
}

// The annotator name: ?annotator=, else this browser's last, else --annotator, else ask.
async function startAnnotating(page, load) {
  const mainId = page.main;
  $("subtitle").textContent = page.subtitle;
  function use(name) {
    annotation.annotator = name;
    localStorage.setItem(STORE_KEY, name);
    $("annotator-name").textContent = name;
    $("login").hidden = true;
    load();
  }
  function ask() {
    annotation.annotator = null;
    $(mainId).hidden = true;
    $("finished").hidden = true;
    $("login").hidden = false;
    $("annotator-input").focus();
    document.body.dataset.state = "login";
  }
  $("switch").addEventListener("click", ask);
  $("login").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("annotator-input").value.trim();
    if (NAME.test(name)) use(name);
    else showError("An annotator name is 1 to 64 letters, digits or . _ @ + - (no spaces).");
  });
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
  if (name) use(name);
  else ask();
}
