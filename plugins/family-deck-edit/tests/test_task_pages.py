"""A real deck run (the generated suite, the identity and oracle harnesses, real LibreOffice,
the proxy judge, the HTML report) opened in headless Chromium: the original and target decks are
rendered once per content into the run store, and every task page leads with original, target
and edited side by side, large, for each selected slide and the diff's verdicts open, with every
slide of the three decks folded below; no page is wider than a 1,400 px window."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from refig.demo import run_family_demo
from refig.plugin import Attempt, Render, Task
from refig.plugins import Registry
from refig.records import PluginKind
from refig.store import RunStore
from refig_toolkit_testing import chromium_launch

from .conftest import read

BROWSER = chromium_launch()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")]


@pytest.fixture(scope="module")
def deck_run(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("deck-pages")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REFIG_CACHE_DIR", str(root / "cache"))
        registry = Registry.load()
        demo = registry.family("deck-edit").record.demo
        outcome = run_family_demo(registry, demo, root / "demo", tasks=2, seed=0, jobs=2,
                                  quiet=True)
    return root, outcome


def test_references_are_rendered_into_the_run_once(deck_run) -> None:
    root, outcome = deck_run
    store = RunStore.open(outcome.run)
    renders = {r.artifact_sha256: r for r in store.iter(Render)}
    tasks = list(store.iter(Task))
    references = {t.input(role).sha256 for t in tasks for role in ("deck", "target")}
    outputs = {a.outputs["deck"] for a in store.iter(Attempt)}
    assert references <= set(renders)
    # identity returns the original and oracle the target: one rendering serves both roles
    assert outputs == references and len(renders) == len(references) == 2 * len(tasks)
    for render in renders.values():
        assert render.error is None and render.pages
        for page in render.pages:
            data = store.objects.path(page.png_sha256).read_bytes()
            assert hashlib.sha256(data).hexdigest() == page.png_sha256
    assert not (root / "cache" / "deck-pages").exists()  # nothing rendered outside the run
    from refig.context import RunContext
    from refig.evaluation import Evaluation

    registry = Registry.load()
    again = Evaluation(context=RunContext.of(registry, store),
                       renderer=registry.resolve(PluginKind.RENDERER, "libreoffice"),
                       metrics=[], executor=registry.resolve(PluginKind.EXECUTOR, "local")
                       .create(), quiet=True).run()
    assert again.rendered == 0  # resumed: the references are not rendered again


def test_task_pages_show_the_three_decks_side_by_side(deck_run) -> None:
    if BROWSER is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    _, outcome = deck_run
    store = RunStore.open(outcome.run)
    slides = {t.id: len(next(r for r in store.iter(Render)
                             if r.artifact_sha256 == t.input("deck").sha256).pages)
              for t in store.iter(Task)}
    hidden = {t.id: sum(s.hidden for s in read(store.objects.path(t.input("deck").sha256)).slides)
              for t in store.iter(Task)}
    assert all(hidden.values())  # every generated deck has its hidden staging slide
    pages = sorted((outcome.html / "tasks").glob("*.html"))
    assert len(pages) == len(slides)
    errors: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(**BROWSER)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
            for task_page in pages:
                page.goto(task_page.as_uri(), wait_until="load")
                task_id = next(t for t in slides if t in page.locator("h1").inner_text())
                page.eval_on_selector_all("details", "ds => ds.forEach(d => d.open = true)")
                broken = page.eval_on_selector_all(
                    ".panel img", "els => Promise.all(els.map(e => { e.loading = 'eager'; "
                    "return e.decode().then(() => e.naturalWidth > 0 ? null : e.src, "
                    "() => e.src); })).then(found => found.filter(Boolean))")
                assert broken == [], (task_page, broken)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 1400, (task_page, width)
                for sample in page.locator("section.sample").all():  # identity, then oracle
                    lead = sample.locator(".panel.lead")
                    titles = lead.locator("h4").all_inner_texts()
                    selected = [t for t in titles if t.startswith("Selected: ")]
                    assert selected, titles
                    first = lead.locator("h4", has_text="Selected: ").first
                    row = first.locator("xpath=following-sibling::div[1]")
                    labels = row.locator("figcaption").all_inner_texts()
                    assert [label.split(" slide ")[0] for label in labels] == \
                        ["original", "target", "edited"], labels
                    # large enough to read a table cell: a third of the page each
                    widths = row.locator("img").evaluate_all(
                        "els => els.map(e => e.getBoundingClientRect().width)")
                    assert min(widths) >= 400, widths
                    verdicts = lead.locator("details", has_text="Requested and done changes")
                    assert verdicts.count() == 1
                    for deck in ("original", "target", "edited"):
                        every = sample.locator("details", has=page.locator(
                            "summary", has_text=f"Every slide of the {deck} deck"))
                        assert every.count() == 1, (deck, titles)
                        shown = every.locator("img").count()
                        if deck == "original":  # every slide reachable, hidden ones marked
                            assert shown == slides[task_id], (task_id, shown)
                            marked = every.locator("figcaption", has_text="(hidden)").count()
                            assert marked == hidden[task_id], (task_id, marked)
                # before opening anything: the verdicts are open, every slide folded away
                page.reload(wait_until="load")
                assert page.locator(".panel.lead details[open]").count() >= 1
                assert page.locator("details[open]:has(summary:has-text('Every slide'))"
                                    ).count() == 0
        finally:
            browser.close()
    assert errors == []


def test_the_rating_page_of_a_deck_edit_shows_two_axes_above_the_save_bar(deck_run) -> None:
    """At 1280 x 860, with the edit's instruction, the views of the changed slides and the
    original | target | edited pictures, the first two axes are not under the sticky Save bar."""
    if BROWSER is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    import signal
    import subprocess
    import sys

    _, outcome = deck_run
    process = subprocess.Popen(
        [sys.executable, "-c", "from refig.cli import main; main()", "annotate",
         str(outcome.run), "--rate", "--port", "0", "--no-open"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert line.startswith("serving http://127.0.0.1:"), line
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(**BROWSER)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.goto(line.split()[1])
                page.fill("#annotator-input", "alice")
                page.click("#start")
                page.wait_for_selector(".axis")
                page.wait_for_function(
                    "() => [...document.querySelectorAll('#view img')].every(i => i.complete)")
                bar = page.eval_on_selector("#rate-actions",
                                            "e => e.getBoundingClientRect().toJSON()")
                axes = page.eval_on_selector_all(
                    ".axis", "els => els.map(e => e.getBoundingClientRect().toJSON())")
            finally:
                browser.close()
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)
    assert len(axes) >= 2 and bar["bottom"] <= 860.5
    for axis in axes[:2]:
        assert axis["bottom"] <= bar["top"] + 0.5, (axis, bar)
