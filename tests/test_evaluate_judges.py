"""`refig evaluate RUN --judge litellm:openai/MODEL --judge-opt api_base=URL --repeats 3`, end to
end: real decks, real LibreOffice, the real metrics, and a real HTTP judge server on 127.0.0.1
that answers some calls with garbage, out-of-range scores, 500s and 429s with Retry-After."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image, ImageDraw
from pptx import Presentation
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu
from refig.cli import run as refig
from refig.models import (
    Asset,
    Attempt,
    AttemptStatus,
    Configuration,
    Judgment,
    JudgmentStatus,
    Task,
)
from refig.store import RunStore
from refig_toolkit_testing.judge_server import JudgeStandIn, Reply

pytestmark = pytest.mark.slow

RETRY_AFTER = 0.5


def _source() -> bytes:
    image = Image.new("RGB", (800, 400), "white")
    draw = ImageDraw.Draw(image)
    for x, label in ((60, "Encoder"), (480, "Decoder")):
        draw.rectangle((x, 150, x + 260, 250), outline="black", width=4)
        draw.text((x + 90, 190), label, fill="black")
    draw.line((320, 200, 480, 200), fill="black", width=4)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _native_deck() -> bytes:
    deck = Presentation()
    deck.slide_width, deck.slide_height = Emu(12_192_000), Emu(6_096_000)
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    shapes = []
    for x, label in ((900_000, "Encoder"), (7_300_000, "Decoder")):
        shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(x), Emu(2_300_000),
                                       Emu(4_000_000), Emu(1_500_000))
        shape.text_frame.text = label
        shapes.append(shape)
    link = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 1, 1)
    link.begin_connect(shapes[0], 3)
    link.end_connect(shapes[1], 1)
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def _pasted_deck(source: bytes) -> bytes:
    deck = Presentation()
    deck.slide_width, deck.slide_height = Emu(12_192_000), Emu(6_096_000)
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    slide.shapes.add_picture(io.BytesIO(source), 0, 0, deck.slide_width, deck.slide_height)
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def _script(body, index):
    """A mix no test wrote call by call: garbage, out of range, wrong totals, 500s and 429s."""
    return {1: Reply.GARBAGE, 2: Reply.RATE_LIMITED, 4: Reply.OUT_OF_RANGE, 5: Reply.SERVER_ERROR,
            7: Reply.WRONG_TOTAL, 8: Reply.RATE_LIMITED, 10: Reply.GARBAGE}.get(index % 12,
                                                                                  Reply.OK)


@pytest.fixture
def run_dir(tmp_path):
    store = RunStore.create(tmp_path / "run")
    source = _source()
    source_sha = store.objects.put_bytes(source)
    config = Configuration(model="m", harness="h", workflow="direct")
    store.put(config)
    decks = {"native": _native_deck(), "paste": _pasted_deck(source), "broken": b"not a zip"}
    for name, data in decks.items():
        store.put(Task(id=name, family="figure-to-slide",
            inputs={"figure": Asset(path="source.png", sha256=source_sha)}))
        store.put(Attempt(task_id=name, config_id=config.id, status=AttemptStatus.SUCCEEDED,
                          outputs={"slide": store.objects.put_bytes(data)}))
    return store.root


def test_evaluate_with_a_judge_stores_every_judgment_or_its_failure(run_dir, capsys):
    with JudgeStandIn(script=_script, retry_after=RETRY_AFTER) as server:
        argv = ["evaluate", str(run_dir), "--metric", "flattening", "--metric",
                "connector-audit", "--judge", "litellm:openai/judge-x",
                "--judge-opt", f"api_base={server.url}", "--judge-opt", "backoff=0.05",
                "--judge-opt", "input_cost_per_token=1e-6",
                "--judge-opt", "output_cost_per_token=2e-6",
                "--repeats", "3", "--judge-jobs", "3"]
        assert refig(argv) == 0
        first_calls = server.calls
        err = capsys.readouterr().err
        assert f"{first_calls} calls" in err  # answer retries and refused calls counted
        assert refig([*argv, "--json"]) == 0  # the same evaluation again
        assert server.calls == first_calls  # ... makes no model call
        [ledger] = json.loads(capsys.readouterr().out)["judging"]["judges"]
        assert (ledger["calls"], ledger["cached"]) == (0, 6), ledger

    store = RunStore.open(run_dir)
    judgments = store.query(Judgment)
    tasks = {a.outputs["slide"]: a.task_id for a in store.query(Attempt)}
    assert sorted((tasks[j.artifact_sha256], j.repeat) for j in judgments) == [
        (name, r) for name in ("native", "paste") for r in range(3)]  # the broken deck: gate 0
    for j in judgments:
        assert j.judge == "litellm:openai/judge-x" and j.rubric_version == "1"
        if j.status is JudgmentStatus.OK:
            assert j.total == sum(s.score for s in j.scores) or j.capped
        else:
            assert j.error.kind in {"invalid_answer", "rate_limited", "server_error"}
    assert sum(j.calls for j in judgments) == first_calls
    ok = [j for j in judgments if j.status is JudgmentStatus.OK]
    assert len(ok) == 6  # every bad answer and passing failure was retried to an answer
    pasted = [j for j in ok if tasks[j.artifact_sha256] == "paste"]
    assert all(j.capped and j.total <= 25 for j in pasted)
    assert all(not j.capped and j.total == 69 for j in ok if tasks[j.artifact_sha256] == "native")

    # Every 429 was honoured: the judgment it refused sent nothing more before its Retry-After
    # had passed (each judgment's requests carry its own tag in the OpenAI `user` field).
    tags = [body["user"] for body in server.bodies]
    assert len(set(tags)) == 6
    refused = [i for i, reply in enumerate(server.replies) if reply is Reply.RATE_LIMITED]
    for index in refused:
        retry = next(j for j in range(index + 1, server.calls) if tags[j] == tags[index])
        gap = server.times[retry] - server.times[index]
        assert gap >= RETRY_AFTER - 0.02, (index, retry, gap)
    assert server.count(Reply.RATE_LIMITED) >= 2 and server.count(Reply.GARBAGE) >= 1
    assert "litellm:openai/judge-x: 6 judged" in err
    assert "$" in err


def test_an_unknown_judge_exits_2_before_any_work(run_dir, capsys):
    assert refig(["evaluate", str(run_dir), "--judge", "nope", "-q"]) == 2
    assert "available judges" in capsys.readouterr().err
    assert RunStore.open(run_dir).query(Judgment) == []


def test_a_judge_option_for_no_selected_judge_is_refused(run_dir, capsys):
    code = refig(["evaluate", str(run_dir), "--judge", "metrics", "--judge-opt",
                  "qwen:api_base=http://127.0.0.1:9/v1", "-q"])
    assert code == 2
    assert "not selected: qwen" in capsys.readouterr().err


def test_the_offline_metrics_judge_runs_through_evaluate(run_dir, capsys):
    assert refig(["evaluate", str(run_dir), "--metric", "flattening", "--metric",
                  "connector-audit", "--judge", "metrics", "-q"]) == 0
    judgments = {j.artifact_sha256: j for j in RunStore.open(run_dir).query(Judgment)}
    assert len(judgments) == 2 and all(j.proxy for j in judgments.values())
    by_task = {a.task_id: judgments[a.outputs["slide"]]
               for a in RunStore.open(run_dir).query(Attempt) if a.outputs["slide"] in judgments}
    native = {s.axis: s.score for s in by_task["native"].scores}
    pasted = {s.axis: s.score for s in by_task["paste"].scores}
    assert pasted["editability"] == 0 < native["editability"]
    assert json.loads(by_task["paste"].model_dump_json())["capped"] is True


def test_evaluate_exits_1_when_every_judge_call_failed(run_dir, capsys):
    with JudgeStandIn(script=lambda body, index: Reply.SERVER_ERROR) as server:
        code = refig(["evaluate", str(run_dir), "--metric", "flattening", "--judge",
                      "litellm:openai/judge-x", "--judge-opt", f"api_base={server.url}",
                      "--judge-opt", "attempts=1", "-q"])
        assert server.calls >= 2
    assert code == 1
    assert "2 of them judgments" in capsys.readouterr().err
    judgments = RunStore.open(run_dir).query(Judgment)
    assert len(judgments) == 2 and all(j.status is JudgmentStatus.FAILED for j in judgments)


@pytest.mark.parametrize("judges", [["metrics"], ["metrics", "metrics"]])
def test_a_judge_option_no_selected_judge_reads_is_a_usage_error(run_dir, capsys, judges):
    selectors = [arg for name in judges for arg in ("--judge", name)]
    code = refig(["evaluate", str(run_dir), *selectors, "--judge-opt", "temperature=0", "-q"])
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--judge-opt temperature: no selected judge accepts it" in err
    assert "metrics accepts no options" in err
    assert RunStore.open(run_dir).query(Judgment) == []


def test_a_judge_option_one_selected_judge_reads_is_fine(run_dir, capsys):
    with JudgeStandIn() as server:
        code = refig(["evaluate", str(run_dir), "--metric", "flattening", "--judge", "metrics",
                      "--judge", "litellm:openai/judge-x", "--judge-opt",
                      f"api_base={server.url}", "--judge-opt", "temperature=0", "-q"])
    assert code == 0, capsys.readouterr().err
    assert {j.judge for j in RunStore.open(run_dir).query(Judgment)} == {
        "metrics", "litellm:openai/judge-x[temperature=0.0]"}


def test_proxy_tables_say_what_it_sees_and_when_ocr_is_the_only_reference(run_dir, capsys):
    assert refig(["evaluate", str(run_dir), "--metric", "text", "--metric", "flattening",
                  "--judge", "metrics", "--repeats", "3", "-q"]) == 0
    judgments = RunStore.open(run_dir).query(Judgment)
    assert {j.repeat for j in judgments} == {0}  # deterministic: scored once
    capsys.readouterr()
    assert refig(["report", str(run_dir), "--json", "-q", "--resamples", "200"]) == 0
    tables = json.loads(capsys.readouterr().out)["tables"]
    [note] = [n for n in tables["means"]["notes"] if "proxy judge" in n]
    assert "it cannot see" in note
    assert "text recall of 2 of 2 artifacts is against OCR of the source" in note
    # the proxy's text axis against that OCR is marked where it is stored, in the table and the
    # note, and left out of the total and of the best-per-column marks
    assert "text measured against OCR of the source, not exact labels" in note
    text_column = next(c for c in tables["means"]["columns"] if c["key"] == "text")
    assert "vs OCR, not in total" in text_column["label"] and text_column["best"] is None
    proxied = [j for j in judgments if j.judge == "metrics" and j.status is JudgmentStatus.OK]
    assert proxied and all(next(s for s in j.scores if s.axis == "text").reference == "ocr"
                           for j in proxied)
    assert all(j.total == pytest.approx(sum(s.score for s in j.scores if s.axis != "text")
                                        * 100 / 80) for j in proxied)
    assert tables["repeatability"]["not_applicable"] == "deterministic judge (metrics)"
