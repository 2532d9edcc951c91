"""Failed attempts reported with their typed reason, made for real: the ``model`` harness runs
through ``refig run`` against HTTP servers on 127.0.0.1 (refig's scripted model server answering
400, a port nothing listens on, a server whose answer is no program, one that answers well), the
run is evaluated with the interpreter and the ``code-metrics`` judge, and every report says why:
the Coverage table, the JSON, the terminal at 80 columns, the static pages and the sample list
in headless Chromium. Infrastructure failures (the refusal, the unreachable upstream) are
counted apart and left out of the means unless ``--count-failures`` scores them 0."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from refig.plugins import Registry
from refig.records import PluginKind
from refig_toolkit_testing import chromium_launch
from refig_toolkit_testing.scripted import Fault, ScriptedServer

PROGRAM = ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
           "fig = plt.figure(figsize=(6.4, 4.8), dpi=100)\nplt.plot([1, 2, 3])\n"
           "fig.savefig('figure.png')\n")
ANSWER = f"Here it is.\n\n```python\n{PROGRAM}```\n"
TASKS = 2


@dataclass(frozen=True)
class Failures:
    run: Path
    configs: dict[str, str]  # role -> configuration id


def refig(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, check=False,
                          env=env)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def failures(tmp_path_factory: pytest.TempPathFactory) -> Failures:
    registry = Registry.load(warn=lambda _: None)
    for kind, name in ((PluginKind.HARNESS, "model"), (PluginKind.SUITE, "code-sample"),
                       (PluginKind.JUDGE, "code-metrics")):
        if name not in registry.names(kind):
            pytest.skip(f"the {name} plugin is not installed")
    root = tmp_path_factory.mktemp("failures")
    suite, run = root / "suite", root / "run"
    built = refig("suite", "build", "code-sample", "--out", str(suite), "--language", "python",
                  "--category", "statistical", "--category", "temporal", "-q")
    assert built.returncode == 0, built.stdout + built.stderr

    def attempt(model: str, upstream: str) -> None:
        done = refig("run", "--suite", str(suite), "--harness", "model", "--workflow", "answer",
                     "--model", model, "--harness-opt", f"upstream={upstream}",
                     "--harness-opt", "max_retries=0", "--out", str(run), "-q")
        assert done.returncode in (0, 1), done.stdout + done.stderr

    with ScriptedServer(answer=ANSWER) as server:
        attempt("openai/coder-1", server.url + "/v1")
    with ScriptedServer(answer=ANSWER, faults=[Fault("400")]) as server:
        attempt("openai/refused-1", server.url + "/v1")
    attempt("openai/unreached-1", f"http://127.0.0.1:{_closed_port()}/v1")
    with ScriptedServer(answer="I cannot write that program.") as server:
        attempt("openai/talker-1", server.url + "/v1")
    done = refig("evaluate", str(run), "--judge", "code-metrics", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    document = _json(run)
    ids = [c["id"] for c in document["configurations"]]
    roles = {role: next(i for i in ids if i.startswith(f"openai/{role}-1@"))
             for role in ("coder", "refused", "unreached", "talker")}
    return Failures(run, roles)


def _json(run: Path, *options: str) -> dict[str, Any]:
    done = refig("report", str(run), "--json", "--resamples", "200", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _row(document: dict[str, Any], table: str, config: str) -> dict[str, Any]:
    return next(r for r in document["tables"][table]["rows"] if r["config"] == config)


def test_coverage_and_json_name_each_failure_and_tell_infrastructure_apart(
        failures: Failures) -> None:
    document = _json(failures.run)
    roles = failures.configs
    coverage = {role: _row(document, "coverage", cid) for role, cid in roles.items()}
    assert coverage["refused"]["infrastructure_failures"] == f"bad_request {TASKS}"
    assert coverage["unreached"]["infrastructure_failures"] == f"upstream_unreachable {TASKS}"
    for role in ("refused", "unreached"):  # no longer a gate failure 'missing'
        assert coverage[role]["gate_failures"] == "0"
        assert coverage[role]["model_failures"] == "0"
    # the answer that is no program is the model's own failure: its gate, scored 0
    assert coverage["talker"]["gate_failures"] == f"syntax_error {TASKS}"
    assert coverage["talker"]["infrastructure_failures"] == "0"
    notes = " ".join(document["tables"]["coverage"]["notes"])
    assert f"{2 * TASKS} attempts failed for the provider or the set-up" in notes
    assert "left out of every mean" in notes
    # the means: infrastructure failures left out, the model's failure in as 0
    means = {role: _row(document, "means", cid) for role, cid in roles.items()}
    assert means["refused"]["n"] == 0 and means["refused"].get("total") is None
    assert means["unreached"]["n"] == 0
    assert means["talker"]["n"] == TASKS and means["talker"]["total"]["estimate"] == 0
    assert means["coder"]["n"] == TASKS and means["coder"]["total"]["estimate"] > 0
    assert any("left out of every mean" in n for n in document["tables"]["means"]["notes"])
    # per task: the typed reason, whose it is, and the message
    refused = [r for r in document["tables"]["task_scores"]["rows"]
               if r["config"] == roles["refused"]]
    assert [(r["gate"], r["failure"], r["infrastructure"]) for r in refused] == [
        ("bad_request", "bad_request", True)] * TASKS
    assert all("HTTP 400" in r["gate_detail"] for r in refused)
    assert all(r["total"] is None for r in refused)


def test_count_failures_scores_infrastructure_failures_zero(failures: Failures) -> None:
    document = _json(failures.run, "--count-failures")
    assert document["options"]["count_failures"] is True
    for role in ("refused", "unreached"):
        row = _row(document, "means", failures.configs[role])
        assert row["n"] == TASKS and row["total"]["estimate"] == 0
    coverage = document["tables"]["coverage"]
    assert "infrastructure failures (scored 0)" in [c["label"] for c in coverage["columns"]]
    assert any("scored 0 (--count-failures)" in n for n in coverage["notes"])


def test_the_terminal_report_names_the_reasons_within_80_columns(failures: Failures) -> None:
    done = refig("report", str(failures.run), "--resamples", "200",
                 env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    too_wide = [line for line in lines if len(line) > 80]
    assert not too_wide, "\n".join(too_wide)
    text = done.stdout
    assert "bad_request" in text and "upstream_unreachable" in text
    assert "figure-to-code by language and configuration" in text  # the family's wide table


def test_pages_and_the_list_show_the_reason_and_message(failures: Failures,
                                                       tmp_path: Path) -> None:
    out = tmp_path / "html"
    done = refig("report", str(failures.run), "--html", str(out), "--resamples", "200", "-q")
    assert done.returncode == 0, done.stderr
    script = (out / "data" / "rows.js").read_text()
    rows = json.loads(script[script.index("{"):script.rindex("}") + 1])["rows"]
    by_config: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_config.setdefault(row["config"], []).append(row)
    refused = by_config[failures.configs["refused"]]
    assert {(r["status"], r["reason"]) for r in refused} == {("infrastructure", "bad_request")}
    assert all("HTTP 400" in r["detail"] for r in refused)  # the message, not the kind again
    unreached = by_config[failures.configs["unreached"]]
    assert {(r["status"], r["reason"]) for r in unreached} == {
        ("infrastructure", "upstream_unreachable")}
    task_page = (out / refused[0]["href"].split("#")[0]).read_text()
    assert "infrastructure: bad_request" in task_page and "HTTP 400" in task_page
    if chromium_launch() is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(**(chromium_launch() or {}))
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto((out / "index.html").as_uri())
            page.wait_for_selector("#samples tbody tr")
            page.select_option("select[name=status]", ["infrastructure"])
            shown = page.eval_on_selector_all(
                "#samples tbody tr", """trs => trs.map(tr => [
                    tr.querySelector('.badge').textContent,
                    tr.querySelector('td.detail').textContent])""")
        finally:
            browser.close()
    assert sorted(badge for badge, _ in shown) == sorted(
        ["infrastructure: bad_request"] * TASKS + ["infrastructure: upstream_unreachable"] * TASKS)
    assert all(("HTTP 400" in detail) == badge.endswith("bad_request") for badge, detail in shown)
    assert all("Connection refused" in detail for badge, detail in shown
               if badge.endswith("unreachable"))


def _viewed_summary(run: Path, *flags: str) -> str:
    """The summary page ``refig view RUN FLAGS`` serves (on a free port, stopped after)."""
    command = [str(Path(sys.executable).parent / "refig"), "view", str(run), "--port", "0",
               "-q", *flags]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as viewer:
        try:
            assert viewer.stdout is not None
            line = viewer.stdout.readline()
            assert line.startswith("serving "), line + (viewer.stderr.read() if viewer.stderr
                                                         else "")
            url = line.split()[1].rstrip("/")
            with urllib.request.urlopen(f"{url}/summary.html", timeout=120) as response:
                return response.read().decode()
        finally:
            viewer.terminate()
            viewer.wait(timeout=30)


def test_the_viewer_counts_failures_as_the_report_does(failures: Failures) -> None:
    left_out = _viewed_summary(failures.run)
    assert "left out of every mean; --count-failures scores them 0" in left_out
    counted = _viewed_summary(failures.run, "--count-failures")
    assert "scored 0 (--count-failures)" in counted
    assert "left out of every mean" not in counted
    assert "infrastructure failures (scored 0)" in counted
