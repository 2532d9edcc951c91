"""Expert ratings end to end on real runs: a deck-edit run (identity and oracle baselines, real
LibreOffice renders, the deck-metrics proxy) and a figure-to-code run (reference and blank
programs run for real, the code-metrics proxy) are rated in headless Chromium by two annotators
through the real `refig annotate --rate` process, with keys and clicks and an undo each; the
stored ratings must equal what was entered, and the report's judge-human Pearson and experts'
alpha must equal values computed here with scipy and the definition of alpha."""

from __future__ import annotations

import io
import shutil
import signal
import subprocess
import sys
import urllib.request
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from refig.cli import run as refig
from refig.engine.stages import render_key
from refig.judging import inputs_key
from refig.models import Configuration, Judgment, Rating, Render, Task
from refig.store import RunStore
from refig_toolkit_analysis import analysis_for
from refig_toolkit_testing import chromium_launch
from scipy.stats import pearsonr

BROWSER = chromium_launch()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BROWSER is None, reason="Debian's chromium is not installed"),
    pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice"),
]
#: Each annotator's leniency per axis (added to the points the images earn), so they disagree.
LENIENCY = {"alice": (0, 1, -1, 0, 2), "bob": (-1, 0, 0, 1, -2)}


def _build(tmp: Path, family: str) -> Path:
    """A small evaluated run of the family's offline baselines under its proxy judge."""
    suite, run = tmp / "suite", tmp / "run"
    if family == "deck-edit":
        steps = [["suite", "build", "deck-sample", "--out", str(suite), "-n", "3", "-q"],
                 ["run", "--suite", str(suite), "--harness", "identity", "--out", str(run), "-q"],
                 ["run", "--suite", str(suite), "--harness", "oracle", "--harness-opt",
                  f"suite={suite}", "--out", str(run), "-q"],
                 ["evaluate", str(run), "--judge", "deck-metrics", "-q"]]
    else:
        steps = [["suite", "build", "code-sample", "--out", str(suite), "--language", "python",
                  "--category", "statistical", "--category", "relational", "--category",
                  "temporal", "-q"],
                 ["run", "--suite", str(suite), "--harness", "reference", "--harness-opt",
                  f"suite={suite}", "--out", str(run), "-q"],
                 ["run", "--suite", str(suite), "--harness", "blank", "--out", str(run), "-q"],
                 ["evaluate", str(run), "--judge", "code-metrics", "-q"]]
    for step in steps:
        assert refig(step) == 0, step
    return run


@pytest.fixture(scope="module", params=["deck-edit", "figure-to-code"])
def rated_run(request, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    pytest.importorskip("playwright.sync_api")
    run = _build(tmp_path_factory.mktemp(request.param), request.param)
    return run


def _similarity(url: str, one: str, two: str) -> float:
    """1 - mean absolute grey difference of two images at 64 x 48 (what the rater sees)."""
    grey = []
    for src in (one, two):
        with urllib.request.urlopen(url.rstrip("/") + src, timeout=30) as answer:
            image = Image.open(io.BytesIO(answer.read())).convert("L").resize((64, 48))
        grey.append(np.asarray(image, dtype=float))
    return 1.0 - float(np.abs(grey[0] - grey[1]).mean()) / 255.0


class Rater:
    """One browser context: reads the item from the DOM, rates it by keys or clicks, undoes."""

    def __init__(self, page, name: str, url: str):  # type: ignore[no-untyped-def]
        self.page, self.name, self.url = page, name, url
        self.entered: list[tuple[str, dict[str, int]]] = []

    def token(self) -> str:
        return str(self.page.evaluate("document.body.dataset.item"))

    def axes(self) -> list[tuple[str, int]]:
        return self.page.eval_on_selector_all(
            "#axes .axis", "rows => rows.map(r => [r.id.slice(5), r.querySelectorAll('button')"
            ".length - 1])")

    def tabs(self) -> list[str]:
        return self.page.eval_on_selector_all("#views-nav button", "bs => bs.map(b => "
                                              "b.textContent)")

    def judge_by_eye(self) -> dict[str, int]:
        """Points from how close the result is to the target, in the first (selected) view."""
        images = self.page.eval_on_selector_all(
            "#view figure", "fs => fs.map(f => [f.querySelector('figcaption').textContent, "
            "f.querySelector('img').getAttribute('src')])")
        wanted = [src for label, src in images if label.startswith(("target", "reference"))]
        made = [src for label, src in images if label.startswith(("edited", "generated"))]
        closeness = _similarity(self.url, wanted[0], made[0]) ** 8 if wanted and made else 0.5
        return {axis: int(np.clip(round(top * closeness) + LENIENCY[self.name][k % 5], 0, top))
                for k, (axis, top) in enumerate(self.axes())}

    def type_in(self, scores: dict[str, int]) -> None:
        """Digits per axis (Enter ends a number that a further digit could extend), Enter saves."""
        for axis, top in self.axes():
            digits = str(scores[axis])
            self.page.keyboard.type(digits)
            if int(digits) != 0 and int(digits) * 10 <= top:
                self.page.keyboard.press("Enter")
        self.page.keyboard.press("Enter")

    def click_in(self, scores: dict[str, int]) -> None:
        for axis, _ in self.axes():
            self.page.click(f"#axis-{axis} button[data-value='{scores[axis]}']")
        self.page.click("#save")

    def rate(self, by_keys: bool) -> None:
        token, task = self.token(), self.page.inner_text("#rate-task").strip("()")
        scores = self.judge_by_eye()
        # every view is reachable by key before rating, and the rater comes back to the first
        views = len(self.tabs()) or 1
        for k in range(1, views + 1):
            self.page.keyboard.press("ArrowRight")
            assert self.page.evaluate("document.body.dataset.view") == str(k % views)
        shown = {axis: self.page.get_attribute(f"#axis-{axis}", "data-value")
                 for axis, _ in self.axes()}
        assert set(shown.values()) == {""}  # a fresh item starts blank
        (self.type_in if by_keys else self.click_in)(scores)
        self.entered.append((task, scores))
        self.wait_for_next(token)

    def wait_for_next(self, token: str) -> None:
        self.page.wait_for_function(
            "t => document.body.dataset.item !== t && document.body.dataset.state === 'ready'",
            arg=token)

    def undo_and_change(self, by_key: bool) -> None:
        """Take the last rating back; the item returns with its points; change one and save."""
        token = self.token()
        if by_key:
            self.page.keyboard.press("u")
        else:
            self.page.click("#rate-undo")
        self.wait_for_next(token)
        task, scores = self.entered.pop()
        assert self.page.inner_text("#rate-task").strip("()") == task
        shown = {a: int(self.page.get_attribute(f"#axis-{a}", "data-value")) for a, _ in
                 self.axes()}
        assert shown == scores
        first, top = self.axes()[0]
        changed = {**scores, first: (scores[first] + 1) % (top + 1)}
        self.page.click(f"#axis-{first} button[data-value='{changed[first]}']")
        token = self.token()
        self.page.keyboard.press("Enter")
        self.entered.append((task, changed))
        self.wait_for_next(token)


@pytest.fixture
def server(rated_run: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    process = subprocess.Popen(
        [sys.executable, "-c", "from refig.cli import main; main()", "annotate", str(rated_run),
         "--rate", "--port", "0", "--no-open", "--seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:"), line
        yield line.split()[1], process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        process.wait(120)


def _alpha(units: dict) -> float:
    """Interval alpha from its definition: pairable values, ordered pairs within and across."""
    pairable = [np.asarray(list(v.values()), float) for v in units.values() if len(v) >= 2]
    values = np.concatenate(pairable)
    n = len(values)
    observed = sum((np.subtract.outer(v, v) ** 2).sum() / (len(v) - 1) for v in pairable) / n
    expected = (np.subtract.outer(values, values) ** 2).sum() / (n * (n - 1))
    return float(1 - observed / expected)


def test_two_experts_rate_in_chromium_and_the_report_agrees(rated_run, server) -> None:
    url, process = server
    from playwright.sync_api import sync_playwright

    store = RunStore.open(rated_run)
    configs = [c.id for c in store.iter(Configuration)]
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**BROWSER)
        try:
            raters = []
            for name in ("alice", "bob"):
                page = browser.new_context().new_page()
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"{url}?annotator={name}")
                page.wait_for_selector("body[data-state=ready]")
                raters.append(Rater(page, name, url))
            alice, bob = raters
            html = alice.page.content()
            assert configs and not [c for c in configs if c in html]  # blinded
            planned = int(alice.page.inner_text("#progress").split("/")[1])
            assert planned == 6
            tabs = alice.tabs()
            if len(tabs) > 1:  # deck-edit: the selected slides first, then every other slide
                marked = [t.startswith("★") for t in tabs]
                assert marked[0] and marked == sorted(marked, reverse=True)
                edited = sorted(int(t.split("edited ")[1]) for t in tabs if "edited " in t)
                assert edited == list(range(1, len(edited) + 1)) and len(edited) >= 4
            alice.rate(by_keys=True)
            bob.rate(by_keys=False)
            alice.rate(by_keys=True)
            alice.undo_and_change(by_key=True)
            bob.undo_and_change(by_key=False)
            while alice.token() or bob.token():
                for k, rater in enumerate((alice, bob)):
                    if rater.token():
                        rater.rate(by_keys=(len(rater.entered) + k) % 2 == 0)
            for rater in raters:
                assert rater.page.inner_text("#progress") == f"{planned} / {planned}"
                assert "Nothing left to rate" in rater.page.inner_text("#finished-message")
        finally:
            browser.close()
    assert errors == []
    process.send_signal(signal.SIGINT)
    assert process.wait(120) == 0

    # the stored rows are what was entered, in order; each undo left one retraction
    held = sorted(store.iter(Rating), key=lambda r: r.created_at)
    for rater in raters:
        mine = [r for r in held if r.annotator == rater.name]
        assert [(r.task_id, r.scores) for r in mine if r.active] == rater.entered
        assert sum(not r.active for r in mine) == 1
    active = [r for r in held if r.active]
    assert len({(r.task_id, r.config_id) for r in active}) == planned

    # the report against scipy and alpha's definition, computed from the stored records
    analysis = analysis_for(rated_run, {})
    tables = {t.key: t for t in analysis.tables}
    deck = active[0].rubric.startswith("pptarena")
    human_key, alpha_key = (("deck-judge-human", "deck-expert-agreement") if deck
                            else ("code_judge_human", "code_expert_agreement"))
    human, agreement = tables[human_key], tables[alpha_key]
    raters = tables["deck-raters" if deck else "code_raters"].rows
    assert [(r["annotator"], r["ratings"], r["undone"]) for r in raters] == [
        ("alice", planned, 1), ("bob", planned, 1)]
    artifact = {(r.task_id, r.config_id): r.artifact for r in active}
    by_case: dict[tuple[str, str], dict[str, Rating]] = defaultdict(dict)
    for rating in active:
        by_case[(rating.task_id, rating.config_id)][rating.annotator] = rating
    axes = list(active[0].scores)
    judgments = list(store.iter(Judgment))
    # A judgment belongs to one task's inputs (its rendering and that task's source): the same
    # program handed in for two tasks is judged once per task.
    tasks = {t.id: t for t in store.iter(Task)}
    # renderings are stored by render key: a program's is made per task, with that task's inputs
    page = {r.artifact_sha256: r.png_sha256 for r in store.iter(Render) if r.png_sha256}
    rendered = {case: page.get(render_key(sha, tasks[case[0]].family, tasks[case[0]]))
                for case, sha in artifact.items()}
    inputs = {case: inputs_key(rendered[case], tasks[case[0]].input("figure").sha256
                               if tasks[case[0]].input("figure") else
                               tasks[case[0]].input("deck").sha256)
              for case in artifact}
    rows = {(row["judge"], row["axis"]): row for row in human.rows}
    assert rows, human.insufficient
    compared = 0
    for judge in {j for j, _ in rows}:
        for axis in [*axes, "total"]:
            mine, theirs = [], []
            for case, by in sorted(by_case.items()):
                scored = [j for j in judgments if j.judge == judge and str(j.status) == "ok"
                          and j.artifact_sha256 == artifact[case]
                          and j.inputs_sha256 == inputs[case]]
                if not scored:
                    continue
                if axis == "total":
                    mine.append(np.mean([j.total for j in scored]))
                    theirs.append(sum(np.mean([r.scores[a] for r in by.values()]) for a in axes))
                else:
                    mine.append(np.mean([next(s.score for s in j.scores if s.axis == axis)
                                         for j in scored]))
                    theirs.append(np.mean([r.scores[axis] for r in by.values()]))
            row = rows[(judge, axis)]
            assert row["cases"] == len(mine) == planned
            if len(set(mine)) > 1 and len(set(theirs)) > 1:
                expected = pearsonr(mine, theirs).statistic
                estimate = row["pearson"]
                assert estimate.value == pytest.approx(expected, abs=1e-9), (judge, axis)
                if row["clusters"] < 5:  # too few source clusters for an interval
                    assert estimate.low is None and estimate.high is None
                else:
                    assert estimate.low <= estimate.value <= estimate.high
                compared += 1
            else:
                assert row["pearson"] is None
    assert rows[(judge, "total")]["pearson"] is not None and compared >= 2
    for row in agreement.rows:
        axis = row["axis"]
        units = {case: {who: float(sum(r.scores.values()) if axis == "total" else r.scores[axis])
                        for who, r in by.items()} for case, by in by_case.items()}
        assert row["units"] == planned and row["annotators"] == 2 and row["values"] == 2 * planned
        assert row["alpha"] == pytest.approx(_alpha(units), abs=1e-9)
    assert refig(["report", str(rated_run)]) == 0
