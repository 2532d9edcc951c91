"""The static HTML report (the viewer's pages written to a folder) opened in headless Chromium
(Debian's, driven by Playwright): every page loads without console errors or network requests,
every image decodes, every internal link resolves, and the files are the run's objects."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest
from refig.cli import run as cli
from refig.models import AxisScore, Configuration, Judgment, JudgmentStatus
from refig_toolkit_testing import chromium_launch
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

BROWSER = chromium_launch()
HOSTILE = '<script>alert("x")</script> & "quoted"'


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("html")
    configs = [
        Configuration(model="m", harness=h, workflow=w)
        for h, w in (("h1", "direct"), ("h1", "specialized"), ("h2", "direct"))
    ]
    spec = SyntheticSpec(
        configs=configs,
        quality=[[0.6] * 5, [0.7] * 5, [0.4] * 5],
        tasks=6,
        repeats=2,
        votes=40,
        gate_failures=0.2,
    )
    store = synthetic_run(root / "run", spec)
    judged = next(j for j in store.query(Judgment) if j.status == JudgmentStatus.OK)
    store.put(
        judged.model_copy(
            update={
                "repeat": 9,
                "scores": (
                    AxisScore(axis="text", score=1, max_score=20, rationale=HOSTILE),
                    *judged.scores[1:],
                ),
            }
        )
    )
    out = root / "html"
    assert cli(["report", str(store.root), "--html", str(out), "--resamples", "500", "-q"]) == 0
    return out


def test_report_folder_is_complete(report: Path) -> None:
    assert (report / "index.html").is_file() and (report / "summary.html").is_file()
    assert len(list((report / "configs").glob("*.html"))) == 3
    assert len(list((report / "tasks").glob("*.html"))) == 6
    assert "<svg" in (report / "summary.html").read_text()  # the plots, inline
    html = "".join(p.read_text() for p in report.rglob("*.html"))
    text = html + (report / "data" / "rows.js").read_text()
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")  # opens offline
    assert "https://" not in text
    assert HOSTILE not in html and "&lt;script&gt;alert(" in html  # autoescaped
    for copied in (report / "files").iterdir():  # every linked file is the object it names
        assert hashlib.sha256(copied.read_bytes()).hexdigest() == copied.name


def test_report_in_headless_chromium(report: Path) -> None:
    if BROWSER is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    errors: list[str] = []
    external: list[str] = []
    dialogs: list[str] = []
    visited: set[str] = set()
    links = 0
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(**BROWSER)
        try:
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
            page.on(
                "request",
                lambda r: None if r.url.startswith(("file:", "data:")) else external.append(r.url),
            )
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            queue = [(report / "index.html").as_uri()]
            while queue:
                url = queue.pop()
                if url in visited:
                    continue
                visited.add(url)
                page.goto(url, wait_until="load")
                page.wait_for_load_state("load")
                broken = page.eval_on_selector_all(  # lazy ones too: load them all, then look
                    "img",
                    "els => Promise.all(els.map(e => { e.loading = 'eager'; return e.decode()"
                    ".then(() => e.naturalWidth > 0 ? null : e.getAttribute('src'),"
                    " () => e.getAttribute('src')); })).then(found => found.filter(Boolean))",
                )
                assert broken == [], (url, broken)
                hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
                for href in hrefs:
                    target, fragment = urldefrag(href)
                    assert urlparse(target).scheme == "file", href
                    path = Path(unquote(urlparse(target).path))
                    assert path.is_file(), (url, href)
                    links += 1
                    if fragment and target == url:
                        assert page.locator(f"#{fragment}").count() == 1, href
                    if path.suffix == ".html" and target not in visited:
                        queue.append(target)
            page.goto((report / "index.html").as_uri())
            rows = page.locator("#samples tbody tr")
            sync_api.expect(rows).to_have_count(3 * 6)  # the list works from file:// too
            page.click("#samples thead th[data-key='config']")
            configs = page.eval_on_selector_all(
                "#samples tbody tr", "trs => trs.map(tr => tr.dataset.config)")
            assert configs == sorted(configs) and len(set(configs)) == 3
            task_page = next(u for u in visited if "/tasks/" in u)
            page.goto(task_page)
            assert page.locator(".compare img.pic").count() >= 3  # sources, results, differences
        finally:
            browser.close()
    assert errors == [] and external == [] and dialogs == []
    assert len(visited) == 2 + 3 + 6 and links > 30
    shots = os.environ.get("REFIG_SCREENSHOTS")
    if shots:  # the summary of a run with two judges and paired effects, for docs/viewer.md
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(**BROWSER)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto((report / "summary.html").as_uri())
            page.locator("#plots").screenshot(path=f"{shots}/viewer-summary.png")
            browser.close()
    hostile_page = [
        p for p in (report / "tasks").glob("*.html") if "&lt;script&gt;" in p.read_text()
    ]
    assert len(hostile_page) == 1


def test_a_file_given_as_the_report_folder_is_refused_before_the_analysis(tmp_path, capsys):
    spec = SyntheticSpec(configs=[Configuration(model="m", harness="h", workflow="direct")],
                         quality=[[0.5] * 5], tasks=2, repeats=1, votes=0)
    store = synthetic_run(tmp_path / "run", spec)
    taken = tmp_path / "taken.html"
    taken.write_text("mine")
    assert cli(["report", str(store.root), "--html", str(taken)]) == 2
    captured = capsys.readouterr()
    assert f"{taken} is a file, not a folder for the html report" in " ".join(captured.err.split())
    assert captured.out == ""  # no table was printed: the analysis never ran
    assert taken.read_text() == "mine"
