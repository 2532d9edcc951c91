"""The task page shows each edit probe's before and after renderings, read in headless Chromium
on ``refig report --html`` of a copy of ``refig demo``'s figure-to-slide run evaluated again with
``-m edit-probes``; a run without probe values still shows its pages, without the probes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from refig.plugin import MetricValue
from refig.store import RunStore
from refig_reporter_html.slugs import slug

REFIG = str(Path(sys.executable).parent / "refig")


def _refig(*args: str) -> None:
    done = subprocess.run([REFIG, *args], capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory, demo_run: Any) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("probes")
    run = root / "run"
    shutil.copytree(demo_run.folder / "run", run)
    _refig("report", str(run), "--html", str(root / "plain"), "--resamples", "100", "-q")
    _refig("evaluate", str(run), "-m", "edit-probes", "-q")
    _refig("report", str(run), "--html", str(root / "probed"), "--resamples", "100", "-q")
    return {"plain": root / "plain", "probed": root / "probed", "run": run}


def _task_pages(site: Path) -> list[Path]:
    pages = sorted((site / "runs" / slug("run") / "tasks").glob("*.html"))
    if not pages:
        pages = sorted(site.glob("tasks/*.html"))
    assert pages, f"no task pages under {site}"
    return pages


def test_the_store_keeps_every_probe_rendering(sites: dict[str, Path]) -> None:
    store = RunStore.open(sites["run"])
    scores = [
        v for v in store.iter(MetricValue) if v.metric == "edit-probes" and v.name == "probe_score"
    ]
    assert scores
    shown = [p for v in scores for p in v.detail["probes"] if p.get("renders")]
    assert shown, "no probe kept its renderings"
    for probe in shown:
        assert set(probe["renders"]) == {"before", "after"}
        for sha in probe["renders"].values():
            assert store.objects.read_bytes(sha)[:8] == b"\x89PNG\r\n\x1a\n"
    applied = [
        p
        for v in scores
        for p in v.detail["probes"]
        if p["applicable"] and p.get("passed") is not None
    ]
    assert len(shown) == len(applied)  # every measured probe, and no other


def test_the_task_page_shows_each_probe_before_and_after(
    sites: dict[str, Path], browsing: Any
) -> None:
    with browsing.api.sync_playwright() as pw:
        browser, page, problems = browsing.Browser("file://").open(pw)
        try:
            probed = plain = 0
            for task_page in _task_pages(sites["probed"]):
                page.goto(task_page.as_uri(), wait_until="load")
                page.eval_on_selector_all("img", "is => is.forEach(i => i.loading = 'eager')")
                page.wait_for_function("() => [...document.images].every(i => i.complete)")
                titles = page.locator("h4").all_inner_texts()
                assert any(t.startswith("Edit probes: score") for t in titles), task_page
                for title in ("move", "relabel", "delete", "recolour"):
                    heads = page.locator("h4", has_text=f"{title}: ")
                    for n in range(heads.count()):
                        pictures = heads.nth(n).locator("xpath=following-sibling::div[1]//img")
                        widths = pictures.evaluate_all("is => is.map(i => i.naturalWidth)")
                        labels = pictures.evaluate_all("is => is.map(i => i.alt)")
                        after = f"after the {title}" + (
                            " (the node drawn hidden: its lines show where they went)"
                            if title == "move" else "")
                        assert labels == [f"before the {title}", after]
                        assert widths == [800, 800], (task_page.name, title, widths)
                        probed += 1
            for task_page in _task_pages(sites["plain"]):
                page.goto(task_page.as_uri(), wait_until="load")
                titles = page.locator("h4").all_inner_texts()
                assert "Object audit" in titles
                assert not any(t.startswith("Edit probes") for t in titles)
                plain += 1
        finally:
            browser.close()
    assert probed > 0 and plain > 0
    assert [p for p in problems if "external" in p] == []
