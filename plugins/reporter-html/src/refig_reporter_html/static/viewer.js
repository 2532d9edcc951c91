// refig viewer: the sample list, the picture comparison, the transcript stepper, the pair view
// and live refresh. Written for this project; no library. Every string from the run reaches the
// page through textContent or an attribute, never as markup.
"use strict";

const body = document.body;
const root = body.dataset.root || "";
const live = body.dataset.live === "yes";
const PAGE_SIZE = 100;
// More judge totals, axes and metrics than FOLD share one cell of the list, SHOWN of them in its summary.
const FOLD = 3, SHOWN = 2;
// The list's filters; "run" only in a folder of runs.
const FACETS = ["config", "status", "category", "tier", "family", "run"];

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// A number with thousands separators and at most `digits` decimals (never 9.005e+4).
function fmt(value, digits = 1) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "number") return String(value);
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, useGrouping: true });
}

// --- live refresh ---------------------------------------------------------------------------

// A page other than the list reloads (at the same scroll position) only when its own content
// changed: the server's copy of it carries another digest.
let onNews = async () => {
  const response = await fetch(location.pathname, { cache: "no-store" });
  const text = await response.text();
  const found = /data-digest="([0-9a-f]+)"/.exec(text);
  if (found && found[1] !== body.dataset.digest) {
    sessionStorage.setItem("refig-scroll:" + location.pathname, String(window.scrollY));
    location.reload();
  }
};

function watch() {
  let token = body.dataset.token;
  const state = document.getElementById("live-state");
  const poll = async () => {
    try {
      const response = await fetch(root + "api/token", { cache: "no-store" });
      const found = (await response.json()).token;
      if (state) { state.textContent = "up to date"; state.classList.remove("stale"); }
      if (found !== token) { token = found; onNews(); }
    } catch (error) {
      if (state) { state.textContent = "viewer not reachable"; state.classList.add("stale"); }
    }
  };
  setInterval(poll, 2000);
  const saved = sessionStorage.getItem("refig-scroll:" + location.pathname);
  if (saved !== null) {
    sessionStorage.removeItem("refig-scroll:" + location.pathname);
    window.scrollTo(0, Number(saved));
  }
}

// --- sample list ----------------------------------------------------------------------------

function samplesPage() {
  const table = document.getElementById("samples");
  const form = document.getElementById("filters");
  const state = { doc: null, sort: { key: "task", dir: 1 }, page: 0, checked: new Set(), folded: [] };

  // The first rows come with the page (data/rows.js, also from the viewer); news is fetched.
  async function load(fresh) {
    if (!fresh) return window.REFIG_ROWS;
    const response = await fetch(root + "api/rows.json", { cache: "no-store" });
    return response.json();
  }

  // "" in a folder of runs whose main judges differ: each row's own run's main judge.
  function judge() { return form.elements.judge.value || state.doc.primary || ""; }
  function ownScore(row) { return row.scores[judge() || row.primary] || {}; }
  // Totals of judges with different full marks (a /10 and a /100 rubric) are put on one scale,
  // percent of each judge's full marks, when the rows shown mix them.
  function mixedScales(rows) {
    return new Set(rows.map(r => ownScore(r).full).filter(f => f)).size > 1;
  }
  function scoreOf(row) {
    const found = ownScore(row);
    if (found.total === undefined || found.total === null) return null;
    return state.mixed && found.full ? 100 * found.total / found.full : found.total;
  }
  function facet(key) { return state.doc.facets[key] || []; }
  function sampleId(row) { return (row.run || "") + "\u0000" + row.task + "\u0000" + row.config; }
  function hasAny(rows, get) { return rows.some(r => { const v = get(r); return v !== null && v !== undefined; }); }

  // The columns of the rows shown: a judge, axis or metric no shown row has is left out, so a
  // list filtered to one family shows that family's own columns. Turns, tokens, cost and time
  // come right after the status, in view without scrolling. Beyond FOLD of them, the other
  // judges' totals, the axes and the metrics share one compact cell ("values": the first few,
  // every one on demand), sortable through the select in its header, so the list fits the
  // window however many axes a judge has.
  function columns(rows) {
    const cols = allColumns(rows);
    const foldable = cols.filter(c => c.fold);
    if (foldable.length <= FOLD) return cols;
    state.folded = foldable;
    return cols.filter(c => !c.fold).concat([{ key: "values", label: "values", sortable: false }]);
  }

  function allColumns(rows) {
    state.folded = [];
    const doc = state.doc;
    const families = new Set(rows.map(r => r.family));
    const cols = [
      { key: "pick", label: "", sortable: false },
      { key: "thumbs", label: "source · result", sortable: false },
      { key: "task", label: "task", get: r => r.task },
      { key: "config", label: "configuration", get: r => r.config },
    ];
    if (doc.facets.run) cols.push({ key: "run", label: "run", get: r => r.run });
    if (doc.facets.run || facet("family").length > 1) {
      cols.push({ key: "family", label: "family", get: r => r.family });
    }
    cols.push(
      { key: "status", label: "status", get: r => r.status + ":" + r.reason },
      { key: "detail", label: "detail", get: r => r.detail });
    cols.push({ key: "turns", label: "turns", num: true, digits: 0, get: r => r.turns },
              { key: "tokens", label: "tokens", num: true, digits: 0, get: r => r.tokens },
              { key: "cost", label: "cost $", num: true, digits: 3, get: r => r.cost },
              { key: "wall", label: "wall s", num: true, digits: 0, get: r => r.wall });
    if (!judge() && Object.keys(doc.judges).length) {
      cols.push({ key: "score", label: state.mixed ? "main judge total (% of full marks)" : "main judge total",
                  num: true, get: scoreOf });
    }
    for (const label of Object.keys(doc.judges)) {
      const get = r => (r.scores[label] || {}).total ?? null;
      if (hasAny(rows, get) || label === judge()) {
        cols.push({ key: "j:" + label, label: label, num: true, get, fold: label !== judge() });
      }
    }
    const shown = judge();
    for (const axis of doc.judges[shown] || []) {
      const get = r => ((r.scores[shown] || {}).axes || {})[axis] ?? null;
      if (hasAny(rows, get)) cols.push({ key: "a:" + axis, label: shown + " " + axis, short: axis, num: true, get, fold: true });
    }
    for (const metric of doc.metrics) {
      // a metric belongs to the families whose rows carry it (measured or not)
      if (!rows.some(r => families.has(r.family) && metric in r.metrics)) continue;
      cols.push({ key: "m:" + metric, label: metric, num: true, digits: 3, fold: true,
                  get: r => r.metrics[metric] ?? null });
    }
    return cols;
  }

  function fillFacets() {
    for (const key of FACETS) {
      const select = form.elements[key];
      const keep = new Set([...select.selectedOptions].map(o => o.value));
      select.replaceChildren(...facet(key).map(v => {
        const option = el("option", { value: v }, v);
        option.selected = keep.has(v);
        return option;
      }));
      select.closest("label").hidden = facet(key).length === 0;
    }
    const judgeSelect = form.elements.judge;
    const current = judgeSelect.value;
    const each = state.doc.primary === "" ? [el("option", { value: "" }, "each run's main judge")] : [];
    judgeSelect.replaceChildren(...each, ...Object.keys(state.doc.judges).map(j => el("option", { value: j }, j)));
    judgeSelect.value = current || state.doc.primary || "";
  }

  function filtered() {
    const chosen = key => new Set([...form.elements[key].selectedOptions].map(o => o.value));
    const sets = Object.fromEntries(FACETS.map(k => [k, chosen(k)]));
    const min = form.elements.min.value === "" ? null : Number(form.elements.min.value);
    const max = form.elements.max.value === "" ? null : Number(form.elements.max.value);
    const q = form.elements.q.value.trim().toLowerCase();
    const rows = state.doc.rows.filter(r => {
      for (const [key, set] of Object.entries(sets)) {
        if (set.size && !set.has(String(r[key]))) return false;
      }
      return !q || r.task.toLowerCase().includes(q);
    });
    // the scale of the rows the facets keep; the score range is read on that scale
    state.mixed = mixedScales(rows);
    return rows.filter(r => {
      if (min !== null || max !== null) {
        const total = scoreOf(r);
        if (total === null) return false;
        if (min !== null && total < min) return false;
        if (max !== null && total > max) return false;
      }
      return true;
    });
  }

  function sorted(rows, cols) {
    const col = cols.concat(state.folded).find(c => c.key === state.sort.key) || cols[2];
    const dir = state.sort.dir;
    return rows.slice().sort((a, b) => {
      const x = col.get(a), y = col.get(b);
      if (x === y) return a.task < b.task ? -1 : a.task > b.task ? 1 : 0;
      if (x === null || x === undefined) return 1; // unscored last, whatever the direction
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * dir;
    });
  }

  function thumb(row, sha, alt) {
    if (!sha) return el("span", { class: "description" }, "—");
    return el("img", { src: root + (row.base || "") + "img/thumb/" + sha + ".png", alt: alt, loading: "lazy" });
  }

  function cell(row, col) {
    const td = el("td", { class: col.num ? "float" : null, "data-key": col.key });
    if (col.key === "pick") {
      const box = el("input", { type: "checkbox", "aria-label": "pick for pair view" });
      box.checked = state.checked.has(sampleId(row));
      box.addEventListener("change", () => {
        const id = sampleId(row);
        box.checked ? state.checked.add(id) : state.checked.delete(id);
        pairButton();
      });
      td.append(box);
    } else if (col.key === "thumbs") {
      const wrap = el("a", { href: row.href, class: "thumbs" });
      wrap.append(thumb(row, row.source, "source"), thumb(row, row.result, "result"));
      td.append(wrap);
    } else if (col.key === "task") {
      td.append(el("a", { href: row.href }, row.task));
    } else if (col.key === "status") {
      td.append(el("span", { class: "badge status-" + row.status },
                   row.reason ? row.status + ": " + row.reason : row.status));
    } else if (col.key === "detail") {
      td.className = "detail";
      td.textContent = row.detail;
    } else if (col.key === "values") {
      td.append(foldedValues(row));
    } else {
      const value = col.get(row);
      td.textContent = col.num ? fmt(value, col.digits ?? 1) : (value ?? "");
    }
    return td;
  }

  // The folded columns of one row: the first SHOWN (the sorted one first) in the summary line,
  // each of them, named, when opened.
  function foldedValues(row) {
    const named = state.folded.map(c => [c, c.get(row)]).filter(([, v]) => v !== null && v !== undefined);
    named.sort(([a], [b]) => (b.key === state.sort.key) - (a.key === state.sort.key));
    const text = ([c, v]) => (c.short || c.label) + " " + fmt(v, c.digits ?? 1);
    if (!named.length) return el("span", { class: "description" }, "—");
    const box = el("details", { class: "values" });
    const rest = named.length > SHOWN ? " · +" + (named.length - SHOWN) : "";
    box.append(el("summary", {}, named.slice(0, SHOWN).map(text).join(" · ") + rest));
    const list = el("dl");
    for (const [c, v] of named) list.append(el("dt", {}, c.label), el("dd", {}, fmt(v, c.digits ?? 1)));
    box.append(list);
    return box;
  }

  // The header of the folded cell: which of its values the rows are sorted by.
  function valuesHeader(th) {
    const pick = el("select", { name: "sort-values", "aria-label": "sort by a value" });
    pick.append(el("option", { value: "" }, "values: sort by…"),
                ...state.folded.map(c => el("option", { value: c.key }, c.label)));
    pick.value = state.folded.some(c => c.key === state.sort.key) ? state.sort.key : "";
    pick.addEventListener("change", () => {
      if (!pick.value) return;
      state.sort = { key: pick.value, dir: state.sort.key === pick.value ? -state.sort.dir : -1 };
      draw();
    });
    th.replaceChildren(pick);
    if (pick.value) th.setAttribute("aria-sort", state.sort.dir > 0 ? "ascending" : "descending");
  }

  function draw() {
    const kept = filtered();
    const cols = columns(kept);
    const rows = sorted(kept, cols);
    document.getElementById("scale-note").hidden = !state.mixed;
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    const head = table.tHead.rows[0];
    head.replaceChildren(...cols.map(col => {
      const th = el("th", { "data-key": col.key, class: col.num ? "float" : "" }, col.label);
      if (col.key === state.sort.key) th.setAttribute("aria-sort", state.sort.dir > 0 ? "ascending" : "descending");
      if (col.key === "values") valuesHeader(th);
      if (col.sortable !== false) {
        th.addEventListener("click", () => {
          state.sort = { key: col.key, dir: state.sort.key === col.key ? -state.sort.dir : (col.num ? -1 : 1) };
          draw();
        });
      }
      return th;
    }));
    const start = state.page * PAGE_SIZE;
    table.tBodies[0].replaceChildren(...rows.slice(start, start + PAGE_SIZE).map(row => {
      const tr = el("tr", { "data-task": row.task, "data-config": row.config, "data-status": row.status,
                            "data-family": row.family, "data-run": row.run });
      tr.append(...cols.map(col => cell(row, col)));
      return tr;
    }));
    document.getElementById("count").textContent = rows.length === state.doc.rows.length
      ? String(rows.length) : rows.length + " of " + state.doc.rows.length;
    document.getElementById("page-info").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
  }

  function pairButton() {
    const picked = state.doc.rows.filter(r => state.checked.has(sampleId(r)));
    const button = document.getElementById("pair");
    button.disabled = !(picked.length === 2 && picked[0].task === picked[1].task
                        && picked[0].run === picked[1].run);
    button.onclick = () => {
      const page = picked[0].href.split("#")[0];
      location.href = page + "?a=" + encodeURIComponent(picked[0].anchor) + "&b=" + encodeURIComponent(picked[1].anchor);
    };
  }

  form.addEventListener("input", () => { state.page = 0; draw(); });
  form.addEventListener("reset", () => setTimeout(() => { state.page = 0; draw(); }));
  document.getElementById("prev").addEventListener("click", () => { state.page--; draw(); });
  document.getElementById("next").addEventListener("click", () => { state.page++; draw(); });

  async function refresh(fresh) {
    state.doc = await load(fresh);
    fillFacets();
    draw();
    pairButton();
    if (!performance.getEntriesByName("refig-list-drawn").length) performance.mark("refig-list-drawn");
  }
  onNews = () => { refresh(true); };
  refresh(false);
}

// --- picture comparison: zoom, pan, overlay slider, difference ------------------------------

function compare(box) {
  const stage = box.querySelector(".stage");
  const layer = box.querySelector(".layer");
  const pics = [...box.querySelectorAll(".pic")];
  const result = box.querySelector(".pic-result");
  const slider = box.querySelector(".slider");
  const level = box.querySelector(".zoom-level");
  const view = { scale: 1, x: 0, y: 0 };
  let base = 0;

  function apply() {
    layer.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.scale})`;
    level.textContent = Math.round(view.scale * 100) + "%";
  }
  function fit() {
    if (!base) return;
    const height = Math.max(...pics.map(p => p.naturalWidth ? p.naturalHeight * base / p.naturalWidth : 0));
    view.scale = Math.min(stage.clientWidth / base, stage.clientHeight / (height || 1), 4);
    view.x = (stage.clientWidth - base * view.scale) / 2;
    view.y = 0;
    apply();
  }
  function sized() {
    base = Math.max(...pics.map(p => p.naturalWidth || 0));
    // Every picture is drawn at the widest one's width, so the overlay lines up source and result.
    for (const p of pics) p.style.width = base + "px";
    fit();
  }
  function zoom(factor, cx = stage.clientWidth / 2, cy = stage.clientHeight / 2) {
    const next = Math.min(40, Math.max(0.02, view.scale * factor));
    view.x = cx - (cx - view.x) * next / view.scale;
    view.y = cy - (cy - view.y) * next / view.scale;
    view.scale = next;
    apply();
  }
  function clip() {
    if (result) result.style.clipPath = box.dataset.mode === "slider" ? `inset(0 0 0 ${slider.value}%)` : "none";
  }
  function mode(name) {
    box.dataset.mode = name;
    for (const b of box.querySelectorAll("[data-mode]")) {
      if (b.tagName === "BUTTON") b.classList.toggle("on", b.dataset.mode === name);
    }
    clip();
  }

  for (const p of pics) {
    if (p.complete) sized(); else p.addEventListener("load", sized);
  }
  for (const b of box.querySelectorAll("button[data-mode]")) b.addEventListener("click", () => mode(b.dataset.mode));
  box.querySelector('[data-zoom="in"]').addEventListener("click", () => zoom(1.25));
  box.querySelector('[data-zoom="out"]').addEventListener("click", () => zoom(0.8));
  box.querySelector('[data-zoom="reset"]').addEventListener("click", fit);
  slider.addEventListener("input", clip);
  stage.addEventListener("wheel", event => {
    event.preventDefault();
    const rect = stage.getBoundingClientRect();
    zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });
  let drag = null;
  stage.addEventListener("pointerdown", event => {
    drag = { x: event.clientX - view.x, y: event.clientY - view.y };
    stage.setPointerCapture(event.pointerId);
    stage.classList.add("dragging");
  });
  stage.addEventListener("pointermove", event => {
    if (!drag) return;
    view.x = event.clientX - drag.x;
    view.y = event.clientY - drag.y;
    apply();
  });
  const stop = () => { drag = null; stage.classList.remove("dragging"); };
  stage.addEventListener("pointerup", stop);
  stage.addEventListener("pointercancel", stop);
  mode(box.dataset.mode);
}

// --- transcript stepper ---------------------------------------------------------------------

function stepper(details) {
  const list = details.querySelector("ol.steps");
  if (!list) return;
  const steps = [...list.children];
  const info = details.querySelector(".step-info");
  let current = 0;
  function show(index) {
    current = Math.max(0, Math.min(steps.length - 1, index));
    list.classList.add("stepping");
    steps.forEach((s, i) => s.classList.toggle("current", i === current));
    info.textContent = "step " + (current + 1) + " of " + steps.length;
  }
  details.querySelector('[data-step="prev"]').addEventListener("click", () => show(current - 1));
  details.querySelector('[data-step="next"]').addEventListener("click", () => show(current + 1));
  details.querySelector('[data-step="all"]').addEventListener("click", () => {
    list.classList.remove("stepping");
    info.textContent = steps.length + " steps";
  });
  show(0);
}

// --- pair view ------------------------------------------------------------------------------

function pairView() {
  const params = new URLSearchParams(location.search);
  const a = params.get("a"), b = params.get("b");
  const holder = document.getElementById("samples-of-task");
  const form = document.getElementById("pair-form");
  if (form) {
    if (a) form.elements.a.value = a;
    if (b) form.elements.b.value = b;
    form.addEventListener("submit", event => {
      event.preventDefault();
      location.search = "?a=" + encodeURIComponent(form.elements.a.value) + "&b=" + encodeURIComponent(form.elements.b.value);
    });
  }
  if (!a || !b || !holder) return;
  holder.classList.add("pair");
  for (const section of holder.querySelectorAll("section.sample")) {
    const side = section.id === a ? 1 : section.id === b ? 2 : 0;
    section.classList.toggle("off", side === 0);
    section.style.order = String(side);
  }
}

// --- start ----------------------------------------------------------------------------------

if (body.dataset.page === "list") samplesPage();
if (body.dataset.page === "task") {
  pairView();
  document.querySelectorAll(".compare").forEach(compare);
  document.querySelectorAll("details.transcript").forEach(stepper);
}
if (live) watch();
