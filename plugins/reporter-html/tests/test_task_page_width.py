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
