"""A folder of runs in the viewer, for real: ``refig demo``'s output (one run per family, each
from its family's offline baselines and proxy judge) plus real Claude Code and Codex attempts, as
one sample list in headless Chromium; a task page of each family; and a real ``refig run``
watched while it still adds attempts, down to why an attempt failed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from refig.plugin import Attempt
from refig.store import RunStore
from refig_reporter_html.collection import CollectionSite, LiveFolder
from refig_reporter_html.server import ViewServer
from refig_toolkit_testing.scripted import Fault, ScriptedServer

pytestmark = pytest.mark.slow
FAMILIES = {"run": "figure-to-slide", "deck-edit/run": "deck-edit",
            "figure-to-code/run": "figure-to-code"}


@pytest.fixture(scope="module")
def folder(viewed_run: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo's folder this module may add a run to."""
    target = tmp_path_factory.mktemp("folder") / "demo"
    shutil.copytree(viewed_run.folder, target)
    return target


@pytest.fixture(scope="module")
def server(folder: Path) -> Iterator[ViewServer]:
    live = LiveFolder(folder, check_every=0.0, scan_every=0.0)
    with ViewServer(CollectionSite(folder.name, live.members, live=True)) as running:
        yield running


def _rows(server: ViewServer) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(server.url + "api/rows.json", timeout=30) as response:
        return json.loads(response.read())


def test_every_run_of_the_folder_is_one_list(server: ViewServer, viewed_run: Any) -> None:
    document = _rows(server)
    assert len(document["rows"]) == viewed_run.all_samples
    assert document["facets"]["run"] == sorted(FAMILIES)
    assert {(r["run"], r["family"]) for r in document["rows"]} == set(FAMILIES.items())
    assert document["primary"] == ""  # each family has its own proxy judge
    assert {r["primary"] for r in document["rows"]} == {"metrics", "deck-metrics",
                                                        "code-metrics"}


def test_the_folder_is_served_read_only_and_closed(viewed_run: Any, tmp_path: Path,
                                                   browsing: Any) -> None:
    import http.client

    copy = tmp_path / "demo"
    shutil.copytree(viewed_run.folder, copy)
    state = browsing.tree_state(copy)
    live = LiveFolder(copy, check_every=0.0, scan_every=0.0)
    with ViewServer(CollectionSite(copy.name, live.members, live=True)) as running:
        def status(path: str) -> int:
            conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
            conn.request("GET", path)
            return conn.getresponse().status

        document = _rows(running)
        for row in document["rows"]:
            assert status("/" + row["href"].split("#")[0]) == 200, row["href"]
        base = document["rows"][0]["base"]
        for path in ("/summary.html", "/api/token", f"/{base}summary.html", f"/{base}api/token"):
            assert status(path) == 200, path
        for path in ("/runs/../refig.db", "/runs/nowhere-00000000/index.html",
                     f"/{base}../../suite/suite.json", f"/{base}refig.db", "/run/refig.db",
                     f"/{base}files/" + "0" * 64, "/files/" + viewed_run.slide_sha):
            assert status(path) == 404, path
    assert browsing.tree_state(copy) == state  # not a byte: no schema, no checkpoint, no cache


def test_a_folder_of_runs_in_headless_chromium(server: ViewServer, folder: Path,
                                               viewed_run: Any, browsing: Any) -> None:
    sync_api, column = browsing.api, browsing.column
    shots = os.environ.get("REFIG_SCREENSHOTS")
    with sync_api.sync_playwright() as pw:
        browser, page, problems = browsing.Browser(server.url).open(pw)
        try:
            page.goto(server.url)
            rows = page.locator("#samples tbody tr")
            sync_api.expect(rows).to_have_count(viewed_run.all_samples)
            assert set(column(page, "family")) == set(FAMILIES.values())
            # sort by each run's main judge, best first; unscored (failed) samples last
            page.click("#samples thead th[data-key='score']")
            scores = column(page, "score")
            known = [float(s) for s in scores if s != "—"]
            assert known == sorted(known, reverse=True) and known[0] == 100
            assert scores[len(known):] == ["—"] * (len(scores) - len(known))
            # filters: one run, then one family, then failed attempts with their typed reason
            page.select_option("select[name=run]", ["figure-to-code/run"])
            assert set(column(page, "family")) == {"figure-to-code"}
            page.click("button[type=reset]")
            page.select_option("select[name=family]", ["deck-edit"])
            assert set(column(page, "run")) == {"deck-edit/run"}
            assert len(column(page, "run")) == viewed_run.tasks * 2
            page.click("button[type=reset]")
            page.select_option("select[name=status]", ["infrastructure"])
            assert set(column(page, "status")) == {"infrastructure: bad_request"}
            page.click("button[type=reset]")
            sync_api.expect(rows).to_have_count(viewed_run.all_samples)
            # every family and the CLIs' long configuration ids: no sideways scroll at 1,400 px
            wide, room = page.evaluate("""() => { const t = document.querySelector('#samples');
                return [t.scrollWidth, t.parentElement.clientWidth]; }""")
            assert wide <= room, (wide, room)
            if shots:
                page.wait_for_load_state("networkidle")
                page.screenshot(path=f"{shots}/viewer-collection.png")

            # figure-to-slide: the Claude Code attempt's transcript, stepped through
            row = f"tr[data-run='run'][data-task='sample-000'][data-config^='{viewed_run.model}']"
            page.locator(f"#samples tbody {row} a").first.click()
            section = page.locator(f"section.sample[data-config^='{viewed_run.model}']")
            seen = []
            for _ in range(8):
                seen.append(section.locator(".step.current").text_content())
                section.locator("[data-step=next]").click()
            assert any("Write" in s and "build_slide.py" in s for s in seen)
            assert any(viewed_run.hostile in s for s in seen)  # shown as text, never run
            assert section.locator(".panel h4", has_text="Object audit").count() == 1
            with page.expect_download() as download:
                section.locator("a.download[data-role=slide]").click()
            saved = hashlib.sha256(Path(download.value.path()).read_bytes()).hexdigest()
            assert saved == viewed_run.slide_sha
            if shots:
                section.evaluate("e => e.scrollIntoView()")
                page.screenshot(path=f"{shots}/viewer-task-slide.png")
            # the way back to the whole folder
            page.locator("header nav a", has_text="all runs").click()
            sync_api.expect(rows).to_have_count(viewed_run.all_samples)

            # deck-edit: its plugin's panel (structural diff, the edited slides)
            page.locator("#samples tbody tr[data-family='deck-edit'] a").first.click()
            deck = page.locator("section.sample").first
            panel = deck.locator(".panel")
            assert panel.locator("h3").first.text_content() == "Deck edit"
            # exactly: a selected slide's heading may name "structural diff" as its reason
            assert panel.locator("h4", has_text=re.compile("^Structural diff$")).count() == 1
            assert panel.locator(".thumbs img").count() >= 1
            for image in panel.locator(".thumbs img").all():
                # eager first: a lazy thumbnail below the fold never loads, and decode() waits
                assert image.evaluate(
                    "e => { e.loading = 'eager'; return e.decode().then(() => e.naturalWidth); }")
            with page.expect_download() as download:
                deck.locator("a.download[data-role=deck]").click()
            assert download.value.suggested_filename.endswith(".pptx")
            config = deck.get_attribute("data-config")
            edited = {a.outputs["deck"] for a in RunStore.open(folder / "deck-edit/run")
                      .query(Attempt) if a.config_id == config}
            assert hashlib.sha256(Path(download.value.path()).read_bytes()).hexdigest() in edited
            if shots:  # the lead: the changed slides as original / target / edited
                deck.locator(".panel.lead").first.evaluate("e => e.scrollIntoView()")
                page.screenshot(path=f"{shots}/viewer-task-deck.png")

            # figure-to-code: the program, its metrics, a download of the program's bytes
            page.goto(server.url)
            page.select_option("select[name=config]", ["none@blank/direct"])
            page.locator("#samples tbody tr[data-family='figure-to-code'] a").first.click()
            code = page.locator("section.sample[data-config='none@blank/direct']")
            assert code.locator(".panel pre.code").first.text_content().strip()
            assert code.locator(".panel h4", has_text="Code metrics").count() == 1
            with page.expect_download() as download:
                code.locator("a.download[data-role=program]").click()
            run = page.url.split("/runs/")[1].split("/")[0]
            assert run.startswith("figure-to-code-run-")
            program = next(a for a in RunStore.open(folder / "figure-to-code/run").query(Attempt)
                           if a.config_id == "none@blank/direct").outputs["program"]
            saved = hashlib.sha256(Path(download.value.path()).read_bytes()).hexdigest()
            assert saved == program
            if shots:
                code.evaluate("e => e.scrollIntoView()")
                page.screenshot(path=f"{shots}/viewer-task-code.png")

            # the summary: each run's means and plots, under its family
            page.locator("header nav a", has_text="summary").click()  # the run's own
            assert page.locator("h1").text_content() == "Leaderboard"
            page.locator("header nav a", has_text="all runs").click()
            page.locator("header nav a", has_text="summary").click()  # the folder's
            sections = page.locator("section.run-summary")
            assert sections.count() == 3
            for family in FAMILIES.values():
                one = page.locator("section.run-summary h2", has_text=family)
                assert one.count() == 1
            assert page.locator("section.run-summary svg.plot").count() >= 3
            if shots:
                page.screenshot(path=f"{shots}/viewer-collection-summary.png", full_page=False)
        finally:
            browser.close()
    assert problems == []


def test_the_static_report_of_a_folder(viewed_run: Any, tmp_path: Path) -> None:
    out = tmp_path / "html"
    command = [str(Path(sys.executable).parent / "refig"), "report", str(viewed_run.folder),
               "--html", str(out), "--resamples", "200", "-q"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    script = (out / "data/rows.js").read_text()
    document = json.loads(script.removeprefix("window.REFIG_ROWS = ").rstrip().rstrip(";"))
    assert len(document["rows"]) == viewed_run.all_samples
    for row in document["rows"]:  # every row's page was written where the list links it
        assert (out / row["href"].split("#")[0]).is_file(), row["href"]
    assert (out / "summary.html").read_text().count('class="run-summary"') == 3
    for format_ in ("--json", "--latex"):  # one run's tables: refused, with the fix
        args = [*command[:3], format_, *((str(tmp_path / "tex"),) if format_ == "--latex" else ())]
        refused = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "folder of 3 runs" in " ".join(refused.stderr.split())


def test_watching_a_run_in_progress(server: ViewServer, folder: Path, viewed_run: Any,
                                    browsing: Any) -> None:
    """A real `refig run` adds a new run to the folder while the viewer is open: its rows appear
    as each attempt ends, and a failed attempt's page says why (the model never answers, so each
    attempt ends at its deadline)."""
    sync_api, column = browsing.api, browsing.column
    run = folder / "watched" / "run"
    command = [str(Path(sys.executable).parent / "refig"), "run", "--suite",
               str(folder / "suite"), "--harness", "claude-code", "--model", viewed_run.model,
               "--out", str(run), "--timeout", "8", "--jobs", "1", "-q"]
    with sync_api.sync_playwright() as pw, ScriptedServer(faults=(Fault("hang"),)) as model:
        browser, page, problems = browsing.Browser(server.url).open(pw)
        env = {**os.environ, "ANTHROPIC_BASE_URL": model.url}
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        try:
            page.goto(server.url)
            watched = page.locator("#samples tbody tr[data-run='watched/run']")
            sync_api.expect(watched).to_have_count(1, timeout=120_000)
            assert process.poll() is None  # seen while the run is still adding attempts
            sync_api.expect(watched).to_have_count(viewed_run.tasks, timeout=120_000)
            assert process.wait(timeout=120) in (0, 1)
            assert set(column(page, "status")) >= {"failed: timeout"}
            # why it failed, on its page: the typed reason and the error that ended it
            watched.first.locator("a").first.click()
            sample = page.locator("section.sample").first
            assert "failed: timeout" in sample.locator(".badge").text_content()
            ended = sample.locator(".transcript .error-detail").text_content()
            error = next(a for a in RunStore.open(run).query(Attempt)).error
            assert error is not None and error.kind == "timeout"
            assert "timeout" in ended and (error.message or "") in " ".join(ended.split())
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            browser.close()
    assert problems == []
