"""``refig view RUN`` for real: the server over HTTP (read-only, loopback, no escape from the run)
and the pages in headless Chromium (sort, filter, a task page, a transcript, a download, live
refresh), on the demo's figure-to-slide run with real Claude Code and Codex attempts added (a
folder of runs: test_collection.py)."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from refig.plugin import Attempt, AttemptStatus, ErrorInfo
from refig.store import RunStore
from refig_reporter_html.server import ViewServer
from refig_reporter_html.site import Site, live_site
from refig_reporter_html.snapshot import LiveRun

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def copy(viewed_run: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the run this module may write to (the live-refresh test adds attempts)."""
    target = tmp_path_factory.mktemp("copy") / "run"
    shutil.copytree(viewed_run.root, target)
    return target


@pytest.fixture(scope="module")
def server(copy: Path) -> Iterator[ViewServer]:
    # read again in the background, as `refig view` does
    with ViewServer(live_site(LiveRun(copy, check_every=0.0))) as running:
        yield running


def _get(server: ViewServer, path: str, method: str = "GET",
         host: str | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.putrequest(method, path, skip_host=host is not None)
    if host is not None:
        conn.putheader("Host", host)
    conn.endheaders()
    response = conn.getresponse()
    return response.status, response.read()


def test_the_viewer_never_writes_the_run(viewed_run: Any, tmp_path: Path,
                                         browsing: Any) -> None:
    _tree_state = browsing.tree_state
    run = tmp_path / "run"
    shutil.copytree(viewed_run.root, run)
    before = _tree_state(run)
    source = LiveRun(run, check_every=0.0)
    with ViewServer(Site(source.snapshot, live=True)) as running:
        for path in ("/", "/api/rows.json", "/summary.html", "/api/token"):
            assert _get(running, path)[0] == 200, path
        task_page = next(p for p in (f"/tasks/{s}.html" for s in
                                     source.snapshot().tasks_by_slug))
        assert _get(running, task_page)[0] == 200
    assert _tree_state(run) == before  # not a byte: no schema, no WAL checkpoint, no cache


def test_only_the_runs_objects_are_served_and_verified(server: ViewServer, copy: Path,
                                                        viewed_run: Any) -> None:
    status, body = _get(server, f"/files/{viewed_run.slide_sha}")
    assert status == 200 and hashlib.sha256(body).hexdigest() == viewed_run.slide_sha
    stray = RunStore.open(copy).objects.put_bytes(b"an object no record refers to")
    for path in (
        "/files/../refig.db", "/files/%2e%2e/refig.db", "/files/..%2frefig.db",
        "/../../etc/passwd", "/files/" + "0" * 64, f"/files/{stray}",
        f"/files/{viewed_run.slide_sha.upper()}", "/tasks/../refig.db",
        "/assets/../../refig.db", "/img/thumb/../../refig.db.png",
    ):
        assert _get(server, path)[0] == 404, path
    assert _get(server, "/", method="POST")[0] == 405
    assert _get(server, "/", method="DELETE")[0] == 405
    assert _get(server, "/", host="attacker.example")[0] == 421  # DNS rebinding


def test_a_damaged_object_is_refused_not_served(viewed_run: Any, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(viewed_run.root, run)
    path = RunStore.open(run).objects.path(viewed_run.slide_sha)
    path.write_bytes(path.read_bytes()[:-10] + b"tampered!!")
    with ViewServer(Site(LiveRun(run).snapshot, live=True)) as running:
        assert _get(running, f"/files/{viewed_run.slide_sha}")[0] == 404


def test_the_default_address_is_loopback_only(viewed_run: Any) -> None:
    with ViewServer(Site(LiveRun(viewed_run.root).snapshot, live=True)) as running:
        assert running.url.startswith("http://127.0.0.1:")
        assert running._httpd.server_address[0] == "127.0.0.1"


def test_the_viewer_in_headless_chromium(server: ViewServer, viewed_run: Any,
                                         browsing: Any) -> None:
    sync_api, _column = browsing.api, browsing.column
    shots = os.environ.get("REFIG_SCREENSHOTS")
    with sync_api.sync_playwright() as pw:
        browser, page, problems = browsing.Browser(server.url).open(pw)
        try:
            page.goto(server.url)
            page.wait_for_selector("#samples tbody tr")
            rows = page.locator("#samples tbody tr")
            assert rows.count() == viewed_run.samples
            # sort: by cost, highest first, unknown costs last
            page.click("#samples thead th[data-key='cost']")
            costs = [float(c) for c in _column(page, "cost") if c != "—"]
            assert costs == sorted(costs, reverse=True) and len(costs) >= 2
            page.click("#samples thead th[data-key='cost']")
            costs = [float(c) for c in _column(page, "cost") if c != "—"]
            assert costs == sorted(costs)
            # filter: attempts the provider refused (HTTP 400), each with its typed reason
            page.select_option("select[name=status]", ["infrastructure"])
            statuses = _column(page, "status")
            assert statuses == ["infrastructure: bad_request"] * viewed_run.tasks
            page.click("button[type=reset]")
            sync_api.expect(rows).to_have_count(viewed_run.samples)
            # filter by configuration and by score range
            cv = "none@cv/direct"
            page.select_option("select[name=config]", [cv])
            assert _column(page, "config") == [cv] * viewed_run.tasks
            page.click("button[type=reset]")
            document = json.loads(_get(server, "/api/rows.json")[1])
            totals = {(r["task"], r["config"]): r["scores"][document["primary"]]["total"]
                      for r in document["rows"] if document["primary"] in r["scores"]}
            top = max(totals.values())
            page.fill("input[name=min]", str(top))
            shown = page.eval_on_selector_all(
                "#samples tbody tr", "trs => trs.map(tr => [tr.dataset.task, tr.dataset.config])")
            assert sorted(map(tuple, shown)) == sorted(k for k, v in totals.items() if v >= top)
            page.fill("input[name=min]", "")
            if shots:
                page.wait_for_load_state("networkidle")
                page.screenshot(path=f"{shots}/viewer-list.png")
            # the pair view: two configurations of one task side by side
            picks = page.locator("#samples tbody tr[data-task='sample-000'] input[type=checkbox]")
            picks.nth(0).check()
            picks.nth(1).check()
            page.click("#pair")
            page.wait_for_selector(".samples-of-task.pair")
            # a single run's pages have no link to a collection
            assert page.locator("header nav a", has_text="all runs").count() == 0
            assert page.locator("section.sample:not(.off)").count() == 2
            if shots:
                page.screenshot(path=f"{shots}/viewer-pair.png")
            # a task page: the succeeded attempt's transcript, stepped through
            page.goto(server.url)
            page.wait_for_selector("#samples tbody tr")
            row = f"tr[data-task='sample-000'][data-config^='{viewed_run.model}']"
            page.locator(f"#samples tbody {row} a").first.click()
            section = page.locator(f"section.sample[data-config^='{viewed_run.model}']")
            info = section.locator(".step-info")
            assert info.text_content().startswith("step 1 of ")
            seen = []
            for _ in range(8):
                seen.append(section.locator(".step.current").text_content())
                section.locator("[data-step=next]").click()
            assert any("Write" in s and "build_slide.py" in s for s in seen)  # the tool call
            assert any("wrote slide.pptx" in s for s in seen)  # its result
            assert any(viewed_run.hostile in s for s in seen)  # agent text shown as text, never run
            assert section.locator(".step.role-model .step-head").first.text_content().count(
                "tokens") == 1
            # zoom and the overlay slider change the picture, not the page
            compare = section.locator(".compare")
            before = compare.locator(".zoom-level").text_content()
            compare.locator("[data-zoom=in]").click()
            assert compare.locator(".zoom-level").text_content() != before
            compare.locator("button[data-mode=diff]").click()
            diff = compare.locator(".pic-diff")
            assert diff.evaluate(  # eager: a lazy image out of view never loads
                "e => { e.loading = 'eager'; return e.decode().then(() => e.naturalWidth); }")
            # a download: the slide's bytes, exactly the stored object
            with page.expect_download() as download:
                section.locator("a.download[data-role=slide]").click()
            saved = Path(download.value.path())
            assert hashlib.sha256(saved.read_bytes()).hexdigest() == viewed_run.slide_sha
            assert download.value.suggested_filename.endswith(".pptx")
            if shots:
                compare.locator("button[data-mode=slider]").click()
                compare.locator("[data-zoom=reset]").click()
                section.evaluate("e => e.scrollIntoView()")
                page.screenshot(path=f"{shots}/viewer-task.png", full_page=False)
            # the failed attempt says why it ended
            failed = page.locator("section.sample[data-config^='claude-haiku']")
            assert "bad_request" in failed.locator(".transcript").text_content()
            page.goto(server.url + "summary.html")
            assert page.locator("svg.plot").count() >= 2
        finally:
            browser.close()
    assert problems == []


def test_the_list_follows_new_records(server: ViewServer, copy: Path, browsing: Any) -> None:
    sync_api, _column = browsing.api, browsing.column
    with sync_api.sync_playwright() as pw:
        browser, page, problems = browsing.Browser(server.url).open(pw)
        try:
            page.goto(server.url)
            page.wait_for_selector("#samples tbody tr")
            count = page.locator("#samples tbody tr").count()
            RunStore.open(copy).put(Attempt(
                task_id="sample-000", config_id="late@claude-code/direct",
                status=AttemptStatus.FAILED, error=ErrorInfo(kind="timeout")))
            # a bound on waiting for the live snapshot and the page's poll, not a measurement
            sync_api.expect(page.locator("#samples tbody tr")).to_have_count(count + 1,
                                                                             timeout=120_000)
            assert "failed: timeout" in _column(page, "status")
            # a task page reloads itself when one of its samples lands
            page.locator("#samples tbody tr[data-task='sample-001'] a").first.click()
            sections = page.locator("section.sample")
            shown = sections.count()
            RunStore.open(copy).put(Attempt(
                task_id="sample-001", config_id="late@claude-code/direct",
                status=AttemptStatus.FAILED, error=ErrorInfo(kind="timeout")))
            sync_api.expect(sections).to_have_count(shown + 1, timeout=120_000)
        finally:
            browser.close()
    assert problems == []


def test_refig_view_serves_until_interrupted(viewed_run: Any) -> None:
    command = [str(Path(sys.executable).parent / "refig"), "view", str(viewed_run.root),
               "--port", "0", "-q"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        line = process.stdout.readline() if process.stdout else ""
        match = re.search(r"serving http://127\.0\.0\.1:(\d+)/", line)
        assert match, line + (process.stderr.read() if process.stderr else "")
        conn = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=30)
        conn.request("GET", "/")
        assert conn.getresponse().status == 200
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0


def test_refig_view_of_a_missing_run_is_a_usage_error(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from refig.cli import run

    assert run(["view", str(tmp_path / "nowhere")]) == 2
    assert "is not a refig run" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "nowhere").exists()


def _digest(site: Site, path: str) -> str:
    found = re.search(rb'data-digest="([0-9a-f]+)"', site.get(path).body)  # type: ignore[arg-type]
    assert found
    return found.group(1).decode()


def test_a_task_page_changes_digest_only_when_its_own_content_does(
        viewed_run: Any, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(viewed_run.root, run)
    source = LiveRun(run, check_every=0.0, background=False)
    site = Site(source.snapshot, live=True)
    slugs = {task: name for name, task in source.snapshot().tasks_by_slug.items()}
    page = f"tasks/{slugs['sample-001']}.html"
    before = _digest(site, page)
    writer = RunStore.open(run)
    writer.put(Attempt(task_id="sample-000", config_id="late@codex/direct",
                       status=AttemptStatus.FAILED, error=ErrorInfo(kind="timeout")))
    assert _digest(site, page) == before  # another task's news: this page stays
    writer.put(Attempt(task_id="sample-001", config_id="late@codex/direct",
                       status=AttemptStatus.FAILED, error=ErrorInfo(kind="timeout")))
    assert _digest(site, page) != before


def test_pages_revalidate_and_stored_files_are_cached_for_good(server: ViewServer,
                                                               viewed_run: Any) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", "/data/rows.js")
    first = conn.getresponse()
    first.read()
    tag = first.getheader("ETag")
    assert first.status == 200 and tag and first.getheader("Cache-Control") == "no-cache"
    conn.request("GET", "/data/rows.js", headers={"If-None-Match": tag})
    again = conn.getresponse()
    assert again.status == 304 and again.read() == b""
    conn.request("GET", f"/files/{viewed_run.slide_sha}")
    stored = conn.getresponse()
    stored.read()
    assert stored.getheader("ETag") == f'"{viewed_run.slide_sha}"'
    assert "immutable" in (stored.getheader("Cache-Control") or "")
    conn.request("GET", "/api/token")
    token = conn.getresponse()
    token.read()
    assert token.getheader("Cache-Control") == "no-store"


def test_a_panel_picture_the_run_does_not_hold_is_left_out_not_broken(
        viewed_run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from refig.plugin import Render
    from refig_reporter_html import pages
    from refig_reporter_html.panels import FamilyView, Panels

    page_sha = next(r for r in viewed_run.store.query(Render) if r.png_sha256).png_sha256
    absent = "ab" * 32

    def panel(found: Any) -> list[dict[str, Any]]:
        return [{"kind": "images", "title": "pictures", "items": [
            {"label": "stored", "sha256": page_sha}, {"label": "absent", "sha256": absent}]}]

    monkeypatch.setattr(pages, "panels", lambda: Panels(
        {"figure-to-slide": FamilyView("figure-to-slide", (), panel, "Test panel")}))
    source = LiveRun(viewed_run.root, background=False)
    site = Site(source.snapshot, live=False)
    name = next(s for s, t in source.snapshot().tasks_by_slug.items() if t == "sample-000")
    html = site.get(f"tasks/{name}.html").body.decode()  # type: ignore[union-attr]
    assert f"files/{page_sha}" in html and absent not in html
    assert "1 of these pictures are not stored in the run" in html
