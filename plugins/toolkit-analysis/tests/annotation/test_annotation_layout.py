"""The pairwise annotation page fits a 1280 x 860 window, measured in headless Chromium against
the real ``refig annotate`` process: the text under each side stays inside its panel, a long
program line included (it spilled out, 4,153 px wide). The rating page is measured on a real
deck edit in ``plugins/family-deck-edit/tests/test_task_pages.py``."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from refig.store import RunStore
from refig_toolkit_testing import chromium_launch

BROWSER = chromium_launch()
WINDOW = {"width": 1280, "height": 860}


@contextmanager
def annotate(store: RunStore, *options: str) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", "from refig.cli import main; main()", "annotate",
         str(store.root), "--port", "0", "--no-open", *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert line.startswith("serving http://127.0.0.1:"), line
        yield line.split()[1]
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)


@contextmanager
def opened(url: str) -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(**(BROWSER or {}))
        try:
            page = browser.new_page(viewport=WINDOW)
            page.goto(url)
            page.fill("#annotator-input", "alice")
            page.click("#start")
            yield page
        finally:
            browser.close()


def _box(page, selector: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")


@pytest.fixture
def store(make_run) -> RunStore:  # type: ignore[no-untyped-def]
    if BROWSER is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    return make_run(gate_failures=0.0)


def test_the_pairwise_answer_text_stays_inside_its_panel(store: RunStore) -> None:
    with annotate(store) as url, opened(url) as page:
        page.wait_for_selector("#left-audit")  # type: ignore[attr-defined]
        # a program line with no space to break at, as a figure-to-code audit holds
        page.eval_on_selector(  # type: ignore[attr-defined]
            "#left-audit", "e => { e.textContent = 'plt.plot(' + 'x_values_'.repeat(60) + ')'; }")
        for side, text in (("#side-a", "#left-audit"), ("#side-b", "#right-audit")):
            panel, inner = _box(page, side), _box(page, text)
            assert panel["left"] - 0.5 <= inner["left"] and inner["right"] <= panel["right"] + 0.5
        assert page.evaluate("document.documentElement.scrollWidth") <= WINDOW["width"]  # type: ignore[attr-defined]
