"""The annotation page stays blind to derived verdicts: in headless Chromium against the real
``refig annotate`` process, the audits under each slide count objects by kind and say nothing of
a pasted source, flattening or text recall, unless ``--audit-verdicts`` asks for them; either way
each stored vote records which audits its annotator saw."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from refig.models import Preference
from refig.store import RunStore
from refig_toolkit_testing import chromium_launch

BROWSER = chromium_launch()
VERDICTS = ("pasted", "flattened", "of the source's words found")


@contextmanager
def _serving(store: RunStore, *extra: str) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", "from refig.cli import main; main()", "annotate",
         str(store.root), "--port", "0", "--no-open", "--annotator", "carol", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:"), (line, process.stderr.read())
        yield line.split()[1]
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        process.wait(30)


def _audits_then_vote(url: str) -> list[str]:
    """The two audits the page shows, read from the DOM; then one vote by click."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(**BROWSER)
        try:
            page = browser.new_context().new_page()
            page.goto(url)
            page.wait_for_selector("body[data-state=ready]")
            audits = [page.inner_text("#left-audit"), page.inner_text("#right-audit")]
            token = page.evaluate("document.body.dataset.item")
            page.click("#vote-a")
            page.wait_for_function("t => document.body.dataset.item !== t", arg=token)
            return audits
        finally:
            browser.close()


@pytest.mark.parametrize("shown", [False, True], ids=["counts only", "--audit-verdicts"])
def test_audits_show_counts_and_verdicts_only_when_asked(make_run, shown: bool) -> None:
    if BROWSER is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")
    store = make_run(gate_failures=0.0)
    with _serving(store, *(["--audit-verdicts"] if shown else [])) as url:
        audits = _audits_then_vote(url)
    for audit in audits:
        assert audit.startswith("objects: ") and "raster: " in audit
        found = [word for word in VERDICTS[:2] if word in audit]
        assert found == (list(VERDICTS[:2]) if shown else []), audit
    [vote] = RunStore.open(store.root).query(Preference)
    assert vote.annotator == "carol" and vote.audit_verdicts is shown
