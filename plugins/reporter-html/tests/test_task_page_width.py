"""Every family's task page fits a 1,400 px window, measured in headless Chromium on the pages
``refig report FOLDER --html`` writes for ``refig demo``'s runs (one per family), every fold
opened: no page scrolls sideways (the figure-to-code page was 1,748 px wide, one note in a table
cell), and what decides the verdict comes first: for code the metrics and the program within the
window, for a deck edit the changed slides large and the diff's lines open."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from refig_reporter_html.slugs import slug

WINDOW = {"width": 1400, "height": 900}
#: A run of each family in refig demo's folder.
RUNS = {"figure-to-slide": "run", "deck-edit": "deck-edit/run",
        "figure-to-code": "figure-to-code/run"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, demo_run: Any) -> Path:
    out = tmp_path_factory.mktemp("width") / "html"
    done = subprocess.run([str(Path(sys.executable).parent / "refig"), "report",
                           str(demo_run.folder), "--html", str(out), "--resamples", "200", "-q"],
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def _boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return page.eval_on_selector_all(
        selector, "els => els.map(e => e.getBoundingClientRect().toJSON())")


@pytest.mark.parametrize("family", list(RUNS))
def test_no_task_page_scrolls_sideways_at_1400_px(site: Path, family: str,
                                                  browsing: Any) -> None:
    pages = sorted((site / "runs" / slug(RUNS[family]) / "tasks").glob("*.html"))
    assert pages, f"no task pages for {family}"
    with browsing.api.sync_playwright() as pw:
        browser, page, problems = browsing.Browser("file://").open(pw)
        try:
            page.set_viewport_size(WINDOW)
            for task_page in pages:
                page.goto(task_page.as_uri(), wait_until="load")
                page.eval_on_selector_all("details", "ds => ds.forEach(d => d.open = true)")
                page.eval_on_selector_all("img", "is => is.forEach(i => i.loading = 'eager')")
                page.wait_for_function(
                    "() => [...document.images].every(i => i.complete)")
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= WINDOW["width"], (task_page.name, width)
                if family == "figure-to-code":
                    lead = page.locator(".panel.lead").first
                    titles = lead.locator("h4").all_inner_texts()
                    assert titles.index("Code metrics") < titles.index("Program"), titles
                    for box in _boxes(page, ".panel.lead table.pairs"):
                        assert box["right"] <= WINDOW["width"], box  # every value in view
                if family == "deck-edit":
                    for box in _boxes(page, ".panel.lead .thumbs.large img"):
                        assert box["width"] >= 400, box
        finally:
            browser.close()
    assert [p for p in problems if "external" in p] == []


#: The list's pages: the folder's one list, then each run's own.
LISTS = {"folder": "index.html", **{family: f"runs/{slug(run)}/index.html"
                                    for family, run in RUNS.items()}}
#: Columns the list keeps in view, whatever a judge's axes (plus the total).
KEPT = ("status", "detail", "turns", "tokens", "cost", "wall")


@pytest.mark.parametrize("which", list(LISTS))
def test_the_sample_list_fits_1400_px_with_every_value_reachable(site: Path, which: str,
                                                                 browsing: Any) -> None:
    with browsing.api.sync_playwright() as pw:
        browser, page, problems = browsing.Browser("file://").open(pw)
        try:
            page.set_viewport_size(WINDOW)
            page.goto((site / LISTS[which]).as_uri(), wait_until="load")
            page.wait_for_selector("#samples tbody tr")
            keys = page.eval_on_selector_all("#samples thead th",
                                             "ths => ths.map(th => th.dataset.key)")
            total = next(k for k in keys if k == "score" or k.startswith("j:"))
            for key in (*KEPT, total):
                box = page.locator(f"#samples thead th[data-key='{key}']").bounding_box()
                assert box is not None and box["x"] + box["width"] <= WINDOW["width"], (key, box)
            # the axes and metrics share one cell; opened, each row still fits
            assert "values" in keys and not any(k.startswith(("a:", "m:")) for k in keys), keys
            page.eval_on_selector_all("details.values", "ds => ds.forEach(d => d.open = true)")
            table, scroller = page.evaluate("""() => {
                const s = document.querySelector('#samples').parentElement;
                return [document.querySelector('#samples').scrollWidth, s.clientWidth]; }""")
            assert table <= scroller <= WINDOW["width"], (which, table, scroller)
            assert page.evaluate("document.documentElement.scrollWidth") <= WINDOW["width"]
            # sorting by a folded value: the first option after the prompt, best first
            select = page.locator("#samples thead select[name=sort-values]")
            box = select.bounding_box()
            assert box is not None and box["x"] + box["width"] <= scroller + 24, box  # in view
            chosen = select.locator("option").nth(1).get_attribute("value") or ""
            label = select.locator("option").nth(1).inner_text()
            select.select_option(chosen)
            values = page.eval_on_selector_all("#samples tbody tr", """(trs, label) => trs.map(
                tr => {
                  const names = [...tr.querySelectorAll('details.values dt')];
                  const at = names.find(dt => dt.textContent === label);
                  return at ? Number(at.nextElementSibling.textContent.replace(/,/g, ''))
                            : null; })""", label)
            known = [v for v in values if v is not None]
            assert known and known == sorted(known, reverse=True), (label, values)
            assert values[len(known):] == [None] * (len(values) - len(known))
        finally:
            browser.close()
    assert [p for p in problems if "external" in p] == []
