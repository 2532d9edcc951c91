"""A real deck run (the generated suite, the identity and oracle harnesses, real LibreOffice,
the proxy judge, the HTML report) opened in headless Chromium: the original and target decks are
rendered once per content into the run store, and every task page shows original, target and
edited side by side for each selected slide, and every slide of the three decks."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from refig.demo import DEMOS, run_family_demo
from refig.plugin import Attempt, PluginKind, Registry, Render, Task
from refig.store import RunStore
from refig.testing import chromium_launch

from .conftest import read

BROWSER = chromium_launch()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")]


@pytest.fixture(scope="module")
def deck_run(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("deck-pages")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REFIG_CACHE_DIR", str(root / "cache"))
        demo = next(d for d in DEMOS if d.family == "deck-edit")
        outcome = run_family_demo(Registry.load(), demo, root / "demo", tasks=2, seed=0, jobs=2,
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
    from refig.evaluation import Evaluation

    registry = Registry.load()
    again = Evaluation(store=store, renderer=registry.resolve(PluginKind.RENDERER, "libreoffice"),
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
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
            for task_page in pages:
                page.goto(task_page.as_uri(), wait_until="load")
                task_id = next(t for t in slides if t in page.locator("h1").inner_text())
                broken = page.eval_on_selector_all(
                    ".panel img", "els => Promise.all(els.map(e => { e.loading = 'eager'; "
                    "return e.decode().then(() => e.naturalWidth > 0 ? null : e.src, "
                    "() => e.src); })).then(found => found.filter(Boolean))")
                assert broken == [], (task_page, broken)
                for sample in page.locator(".panel").all():  # identity, then oracle
                    titles = sample.locator("h4").all_inner_texts()
                    selected = [t for t in titles if t.startswith("Selected: ")]
                    assert selected, titles
                    first = sample.locator("h4", has_text="Selected: ").first
                    row = first.locator("xpath=following-sibling::div[1]//figcaption")
                    labels = row.all_inner_texts()
                    assert [label.split(" slide ")[0] for label in labels] == \
                        ["original", "target", "edited"], labels
                    for deck in ("original", "target", "edited"):
                        every = sample.locator("h4", has_text=f"Every slide of the {deck} deck")
                        assert every.count() == 1, (deck, titles)
                        shown = every.locator("xpath=following-sibling::div[1]//img").count()
                        if deck == "original":  # every slide reachable, hidden ones marked
                            assert shown == slides[task_id], (task_id, shown)
                            marked = every.locator("xpath=following-sibling::div[1]//figcaption",
                                                   has_text="(hidden)").count()
                            assert marked == hidden[task_id], (task_id, marked)
        finally:
            browser.close()
    assert errors == []
