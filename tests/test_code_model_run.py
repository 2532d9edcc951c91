"""figure-to-code end to end through the command line, as a user runs it: `refig suite build
code-sample` in all four languages, `refig run --harness model` against an OpenAI-compatible
stand-in on 127.0.0.1 that answers each figure with code (right, fenced in prose, a syntax
error, a program that never ends, a 429 before the right answer), `refig evaluate` with the
`code` metric, the `mmos` jury and its position-bias probe against a judge stand-in, then
`refig report` and the task pages of `refig view` in headless Chromium."""

from __future__ import annotations

import base64
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from refig.cli import run as refig
from refig.models import Attempt, AttemptStatus, Judgment, Task
from refig.store import RunStore
from refig.suite import Suite
from refig_toolkit_agent.httpserver import LocalServer
from refig_toolkit_testing import chromium_launch
from refig_toolkit_testing.judge_server import JudgeStandIn, images_in
from refig_toolkit_testing.scripted import ScriptedModel, Served
from refig_toolkit_testing.selfcheck import served_cost

pytestmark = pytest.mark.slow

PRICE = {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6}
TOOLS = ("Rscript", "octave", "xelatex")

#: What the stand-in model answers for each task (the reference program unless named here).
NEVER_ENDS = "x = 0;\nwhile true\n  x = x + 1;\nend\n"
SYNTAX_ERROR = "x <- c(1, 2\nplot(x))\n"
PLAN = {"r-mathematical-0-0": ("syntax_error", SYNTAX_ERROR),
        "matlab-mathematical-0-0": ("timeout", NEVER_ENDS)}
IN_PROSE = "python-statistical-0-0"
JURY, PROBE = "mmos:openai/judge-a,openai/judge-b", "mmos-swapped:openai/judge-a,openai/judge-b"
RATE_LIMITED = "python-mathematical-0-0"


def pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


class PerFigureModel(ScriptedModel):
    """The scripted model answering each call with the code for the figure it was sent (found
    by its pixels), and a 429 on the first call for one figure."""

    def __init__(self, answers: dict[bytes, tuple[str, str]], limited: str):
        super().__init__(retry_after=0.2)
        self.answers, self.limited, self.limited_once = answers, limited, False

    def _answer(self, api: Any, body: dict[str, Any], index: int, fault: str | None,
                size: int) -> Any:
        [url] = [u for u in images_in(body)]
        task, self.answer = self.answers[pixels(base64.b64decode(url.split(",", 1)[1]))]
        if task == self.limited and not self.limited_once:
            self.limited_once, fault = True, "429"
        return super()._answer(api, body, index, fault, size)


def answers(suite: Path) -> dict[bytes, tuple[str, str]]:
    by_figure = {}
    for task in Suite.load(suite).tasks:
        code = (suite / task.inputs["reference_code"].path).read_text()
        code = PLAN.get(task.id, ("", code))[1]
        if task.id == IN_PROSE:
            code = (f"Here is a program that redraws the figure.\n\n```python\n{code}```\n\n"
                    "It reads values.csv and saves figure.png at the size asked.")
        by_figure[pixels((suite / task.inputs["figure"].path).read_bytes())] = (task.id, code)
    return by_figure


def tables(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    return json.loads(capsys.readouterr().out)["tables"]


@dataclass(frozen=True)
class CodeRun:
    """The evaluated run, and what the two stand-ins saw."""

    suite: Path
    run: Path
    tasks: dict[str, Task]
    served: list[Served]
    judged: list[dict[str, Any]]


@pytest.fixture(scope="module")
def code_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeRun]:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (scripts/bootstrap.sh --test)")
    root = tmp_path_factory.mktemp("code-run")
    suite, run_dir = root / "suite", root / "run"
    assert refig(["suite", "build", "code-sample", "--out", str(suite), "--category",
                  "statistical", "--category", "mathematical", "-q"]) == 0
    tasks: dict[str, Task] = {t.id: t for t in Suite.load(suite).tasks}
    prices = root / "prices.json"
    prices.write_text(json.dumps({"coder-1": PRICE}))
    model = PerFigureModel(answers(suite), RATE_LIMITED)
    with LocalServer(model) as server:
        assert refig(["run", "--suite", str(suite), "--harness", "model", "--model",
                      "openai/coder-1", "--workflow", "answer", "--out", str(run_dir),
                      "--harness-opt", f"upstream={server.url}/v1", "--harness-opt",
                      f"prices={prices}", "--harness-opt", "max_retries=1", "-j", "2",
                      "-q"]) == 0
    with JudgeStandIn(fraction=0.75) as judge:
        assert refig(["evaluate", str(run_dir), "--metric", "code", "--judge",
                      JURY, "--judge", PROBE, "--judge-opt",
                      f"api_base={judge.url}", "--judge-opt", "api_key=test", "-q"]) == 0
        judged = list(judge.bodies)
    yield CodeRun(suite, run_dir, tasks, list(model.served), judged)


def test_a_model_run_in_four_languages_is_executed_judged_and_reported(
        code_run: CodeRun, capsys: pytest.CaptureFixture[str]) -> None:
    tasks, served, run_dir = code_run.tasks, code_run.served, code_run.run
    assert {t.params["language"] for t in tasks.values()} == {"python", "r", "matlab", "latex"}
    assert len(served) == len(tasks) + 1  # one call per task and the 429's retry
    assert [s.status for s in served].count(429) == 1
    store = RunStore.open(run_dir)
    attempts = {a.task_id: a for a in store.query(Attempt)}
    store.close()
    assert set(attempts) == set(tasks)
    assert all(a.status is AttemptStatus.SUCCEEDED and a.error is None for a in attempts.values())
    assert sum(a.turns or 0 for a in attempts.values()) == len(tasks)
    for field in ("input_tokens", "output_tokens"):
        assert sum(getattr(a.usage, field) for a in attempts.values()) == \
            sum(getattr(s, field) for s in served), field
    cost = served_cost(served, input=PRICE["input_cost_per_token"],
                       output=PRICE["output_cost_per_token"], cache_read=0.0, cache_write=0.0)
    assert sum(a.cost_usd or 0 for a in attempts.values()) == pytest.approx(cost) and cost > 0

    bodies, suite = code_run.judged, code_run.suite
    ran = len(tasks) - len(PLAN)
    # both members of both juries, only for the programs that made an image
    assert len(bodies) == 2 * 2 * ran
    figures = {pixels((suite / t.inputs["figure"].path).read_bytes()) for t in tasks.values()}
    orders = []
    for body in bodies:  # the reference figure first, then the program's image (or swapped)
        first, second = images_in(body)
        assert pixels(base64.b64decode(first.split(",", 1)[1])) in figures
        assert pixels(base64.b64decode(second.split(",", 1)[1])) in figures  # exact redraws
        content = body["messages"][1]["content"]
        orders.append(tuple(p["text"] for p in content if p["type"] == "text")[:2])
    assert sorted(set(orders)) == [("1. generated image:", "2. reference image:"),
                                   ("1. reference image:", "2. generated image:")]

    store = RunStore.open(run_dir)
    judgments = store.query(Judgment)
    store.close()
    assert {j.judge for j in judgments} == {JURY, PROBE}
    # a failed run is scored 0 without a judgment
    assert sorted(j.total for j in judgments if j.judge == JURY) == [75.0] * ran

    capsys.readouterr()

    assert refig(["report", str(run_dir), "--json", "-q", "--resamples", "200",
                  "--elo-resamples", "10"]) == 0
    found = tables(capsys)
    per_task = {row["task"]: row for row in found["code_tasks"]["rows"]}
    assert set(per_task) == set(tasks)
    for task_id, row in per_task.items():
        failure = PLAN.get(task_id, (None,))[0]
        assert row["reason"] == failure, (task_id, row)
        assert row["mmos"] == (0.0 if failure else 75.0), (task_id, row)
        if failure is None:  # the model answered the reference program: a perfect image
            assert row["ssim"] == pytest.approx(1.0), (task_id, row)
    by_language = {row["language"]: row for row in found["code_by_language"]["rows"]}
    assert {lang: row["execution"] for lang, row in by_language.items()} == {
        "python": 1.0, "r": 0.5, "matlab": 0.5, "latex": 1.0}
    assert by_language["r"]["mmos"] == pytest.approx(37.5)
    # Two references per language: 500 ignored n-grams cover them, so no CrystalBLEU is a finding.
    assert {row["crystalbleu"] for row in by_language.values()} == {"not meaningful"}
    notes = " ".join(found["code_by_language"]["notes"])
    assert "2 python reference program(s)" in notes and "trivial_k" in notes
    if by_language["python"]["lpips"] is None:  # LPIPS off here: failures get no worst value
        assert by_language["r"]["lpips_weighted"] is None and "LPIPS" in notes
    [bias] = found["code_position_bias"]["rows"]  # the probe, found under its stored label
    assert bias == {"n": ran, "shift": 0.0}
    [spent] = found["code_mmos_cost"]["rows"]  # one model: cost and tokens per task as served
    assert spent["cost"] == pytest.approx(cost / len(tasks))
    assert spent["tokens"] == pytest.approx(
        sum(s.input_tokens + s.output_tokens for s in served) / len(tasks))


BROWSER = chromium_launch()


@pytest.mark.skipif(BROWSER is None, reason="chromium is not installed")
def test_the_task_pages_show_the_program_its_output_failure_and_metrics(
        code_run: CodeRun) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    from refig_reporter_html.server import ViewServer
    from refig_reporter_html.site import live_site
    from refig_reporter_html.snapshot import LiveRun

    problems: list[str] = []
    with ViewServer(live_site(LiveRun(code_run.run, check_every=0.0))) as server, \
            playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(**BROWSER)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))

            def task_page(task_id: str) -> Any:
                page.goto(server.url)
                page.locator(f"#samples tbody tr[data-task='{task_id}'] a").first.click()
                return page.locator("section.sample").first

            ran = task_page(IN_PROSE)  # answered in prose: the program is the fenced code
            codes = ran.locator(".panel pre.code")
            assert "values.csv" in codes.first.text_content()
            assert "Here is a program" not in codes.first.text_content()
            said = ran.locator(".panel").text_content()
            assert "Interpreter output" in said or "the interpreter printed nothing" in said
            metrics = ran.locator(".panel table").last.text_content()
            assert "CrystalBLEU" in metrics and "not meaningful" in metrics
            assert "PSNR (dB)" in metrics and "100" in metrics
            for picture in ("img.pic-source", "img.pic-result"):  # reference and program image
                image = ran.locator(picture)
                assert image.evaluate("e => e.decode().then(() => e.naturalWidth)") == 640

            broken = task_page("r-mathematical-0-0")
            panel = broken.locator(".panel").text_content()
            assert "Execution failed" in panel and "syntax_error" in panel
            assert "Interpreter output" in panel and "unexpected" in panel  # R's own message
            assert SYNTAX_ERROR.splitlines()[0] in broken.locator(".panel pre.code").first \
                .text_content()
            endless = task_page("matlab-mathematical-0-0")
            assert "timeout" in endless.locator(".panel").text_content()
        finally:
            browser.close()
    assert problems == []


def test_the_model_harness_without_its_key_refuses_before_the_first_attempt(
        tmp_path, monkeypatch, capsys):
    """One litellm call per attempt, all refused without a key: refused once, before any."""
    from refig.plugins import Registry

    registry = Registry.load(warn=lambda _: None)
    if "model" not in registry.names("harness") or "code-sample" not in registry.names("suite"):
        pytest.skip("the model harness or the code-sample suite is not installed")
    suite = tmp_path / "suite"
    assert refig(["suite", "build", "code-sample", "--out", str(suite), "--language", "python",
                  "--category", "statistical", "-q"]) == 0
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()
    assert refig(["run", "--suite", str(suite), "--harness", "model", "--model", "openai/gpt-x",
                  "--workflow", "answer", "--out", str(tmp_path / "run"), "-q"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "harness model needs OPENAI_API_KEY" in said and "fix: export OPENAI_API_KEY=" in said
    assert not (tmp_path / "run").exists()
