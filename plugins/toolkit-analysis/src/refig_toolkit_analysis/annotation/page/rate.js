// The rating page: one task x configuration at a time, whole points per rubric axis (common.js).
"use strict";


let current = null;
let shownAt = 0;
let busy = false;
let canUndo = false;
let values = {};     // axis id -> points entered
let active = 0;      // index of the highlighted axis
let pending = "";    // digits typed on the active axis that a further digit could extend
let view = 0;        // index of the view on screen

function setBusy(value) {
  busy = value;
  document.body.dataset.state = value ? "busy" : "ready";
  $("save").disabled = value || current === null;
  $("rate-undo").disabled = value || !canUndo;
  $("undo-finished").disabled = value || !canUndo;
}

function showAxes() {
  current.axes.forEach((axis, k) => {
    const row = $(`axis-${axis.id}`);
    row.classList.toggle("active", k === active);
    row.dataset.value = axis.id in values ? String(values[axis.id]) : "";
    for (const button of row.querySelectorAll("button")) {
      button.classList.toggle("chosen", Number(button.dataset.value) === values[axis.id]);
    }
    row.querySelector(".value").textContent =
      axis.id in values ? `${values[axis.id]} / ${axis.max}` : `– / ${axis.max}`;
  });
}

function showView(k) {
  view = (k + current.views.length) % current.views.length;
  document.body.dataset.view = String(view);
  const shown = current.views[view];
  $("view").replaceChildren(...shown.images.map((image) => {
    const figure = document.createElement("figure");
    const caption = document.createElement("figcaption");
    caption.textContent = image.label;
    const img = document.createElement("img");
    img.src = image.src;
    img.alt = image.label;
    img.addEventListener("click", () => img.classList.toggle("zoomed"));
    figure.append(caption, img);
    return figure;
  }));
  $("views-nav").querySelectorAll("button").forEach((button, i) => {
    button.classList.toggle("current", i === view);
  });
  return Promise.all([...$("view").querySelectorAll("img")]
    .map((img) => img.decode().catch(() => undefined)));
}

const PAGE = {main: "rate", message: "rate-message", noun: "rating",
              subtitle: "· rate each result on the rubric"};

async function render(state) {
  canUndo = state.can_undo;
  current = showState(state, PAGE);
  if (current === null) return;
  values = state.previous ? {...state.previous} : {};
  active = 0;
  pending = "";
  $("rate-task").textContent = `(${current.task})`;
  $("brief").textContent = current.brief || "";
  $("brief").hidden = !current.brief;
  $("views-nav").replaceChildren(...current.views.map((shown, k) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.textContent = `${shown.selected ? "★ " : ""}${shown.title || `view ${k + 1}`}`;
    button.addEventListener("click", () => showView(k));
    return button;
  }));
  $("views-nav").hidden = current.views.length < 2;
  $("axes").replaceChildren(...current.axes.map((axis, k) => {
    const row = document.createElement("div");
    row.className = "axis";
    row.id = `axis-${axis.id}`;
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = axis.title;
    row.append(title);
    for (let v = 0; v <= axis.max; v++) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.value = String(v);
      button.textContent = String(v);
      button.addEventListener("click", () => { set(k, v); pending = ""; showAxes(); });
      row.append(button);
    }
    const value = document.createElement("span");
    value.className = "value";
    row.append(value);
    return row;
  }));
  showAxes();
  // Ratings open once the first view's images are on screen.
  await showView(0);
  shownAt = performance.now();
}

function set(k, points) {
  values[current.axes[k].id] = points;
  active = Math.min(k + 1, current.axes.length - 1);
}

function digit(d) {
  const axis = current.axes[active];
  let typed = pending + d;
  if (Number(typed) > axis.max) typed = d;
  if (Number(typed) > axis.max) return;  // a single digit above the scale
  values[axis.id] = Number(typed);
  if (typed === "0" || Number(typed) * 10 > axis.max) {
    pending = "";
    set(active, Number(typed));
  } else {
    pending = typed;
  }
  showAxes();
}

function save() {
  if (busy || current === null || annotation.annotator === null) return;
  const missing = current.axes.filter((axis) => !(axis.id in values));
  if (missing.length) {
    showError(`Rate every axis first: ${missing.map((a) => a.title).join(", ")}.`);
    return;
  }
  sendAnswer("/api/rate", current, {scores: values}, shownAt, render, setBusy);
}

function undo() {
  if (busy || annotation.annotator === null) return;
  undoLast(render, setBusy);
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.altKey || event.ctrlKey || event.metaKey
      || current === null && !UNDO_KEYS.has(event.key.toLowerCase())) {
    return;
  }
  const key = event.key.toLowerCase();
  if (event.repeat && key !== "arrowleft" && key !== "arrowright") {
    event.preventDefault();
    return;
  }
  if (/^[0-9]$/.test(key)) digit(key);
  else if (key === "enter" && pending) { set(active, Number(pending)); pending = ""; showAxes(); }
  else if (key === "enter") save();
  else if (key === "arrowup") { active = Math.max(active - 1, 0); pending = ""; showAxes(); }
  else if (key === "arrowdown") {
    active = Math.min(active + 1, current.axes.length - 1); pending = ""; showAxes();
  } else if (key === "arrowleft") showView(view - 1);
  else if (key === "arrowright") showView(view + 1);
  else if (UNDO_KEYS.has(key)) undo();
  else return;
  event.preventDefault();
});

$("save").addEventListener("click", save);
$("rate-undo").addEventListener("click", undo);
$("undo-finished").addEventListener("click", undo);

startAnnotating(PAGE, load);

function load() {
  return handleRequest(api(stateUrl()), render, setBusy);
}
