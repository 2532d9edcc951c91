"""The MMOS jury against real HTTP servers on 127.0.0.1 standing in for the model APIs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from refig.plugin import Artifact, GateResult, JudgeRequest, JudgmentStatus
from refig_family_figure_to_code.family import CodeFamily
from refig_judge_mmos.jury import MmosJury
from refig_judge_rubric.judge import build_judge
from refig_toolkit_llm import data_url
from refig_toolkit_testing.judge_server import JudgeStandIn, Reply, scripted


@pytest.fixture
def artifact(tmp_path: Path) -> Artifact:
    reference, generated = tmp_path / "source.png", tmp_path / "page.png"
    Image.new("RGB", (64, 48), (200, 20, 20)).save(reference)
    Image.new("RGB", (64, 48), (20, 20, 200)).save(generated)
    program = tmp_path / "figure.py"
    program.write_text("import matplotlib.pyplot as plt\nplt.plot([1, 2])\n")
    return Artifact(path=program, sha256="b" * 64, gate=GateResult(passed=True),
                    family="figure-to-code", files={"program": program}, pages=(generated,),
                    references={"figure": reference})


def request(artifact: Artifact, repeat: int = 0) -> JudgeRequest:
    return JudgeRequest(artifact=artifact, evidence=CodeFamily().evidence(artifact),
                        repeat=repeat)


def member(name: str, server: JudgeStandIn):  # type: ignore[no-untyped-def]
    return build_judge(f"mmos/{name}", {"api_base": server.url, "api_key": "test",
                                        "answer_retries": 2}, {"model": f"openai/{name}"})


def labels(body: dict) -> list[str]:  # type: ignore[type-arg]
    content = body["messages"][1]["content"]
    return [part["text"] for part in content if part["type"] == "text"][:2]


def test_mmos_is_the_mean_of_the_members_and_a_wrong_total_is_re_asked(artifact) -> None:  # type: ignore[no-untyped-def]
    with JudgeStandIn(fraction=0.5, script=scripted([Reply.WRONG_TOTAL])) as a, \
            JudgeStandIn(fraction=1.0) as b:
        jury = MmosJury("mmos", [("a", member("a", a)), ("b", member("b", b))])
        judgment = jury.judge(request(artifact))
        assert judgment.status is JudgmentStatus.OK, judgment.error
        assert judgment.total == pytest.approx((50 + 100) / 2)
        assert {s.axis for s in judgment.scores} == {"chart_types", "layout", "text_content",
                                                     "data", "style"}
        assert all(s.score == pytest.approx(15) and s.max_score == 20 for s in judgment.scores)
        assert a.calls == 2 and b.calls == 1 and judgment.calls == 3  # the bad total re-asked
        body = b.bodies[0]
        assert labels(body) == ["1. reference image:", "2. generated image:"]
        images = [p["image_url"]["url"] for p in body["messages"][1]["content"]
                  if p["type"] == "image_url"]
        assert images[0] == data_url(artifact.references["figure"], 2048)
        assert "chart_types" in str(body["response_format"]) and \
            body["response_format"]["json_schema"]["strict"] is True


def test_swapped_probe_shows_the_generated_image_first(artifact) -> None:  # type: ignore[no-untyped-def]
    with JudgeStandIn() as server:
        jury = MmosJury("mmos-swapped", [("a", member("a", server))], swapped=True)
        assert jury.judge(request(artifact)).status is JudgmentStatus.OK
        assert labels(server.bodies[0]) == ["1. generated image:", "2. reference image:"]
        assert jury.key != MmosJury("mmos", [("a", member("a", server))]).key


def test_a_failed_execution_scores_zero_without_a_call(artifact) -> None:  # type: ignore[no-untyped-def]
    failed = Artifact(**{**artifact.__dict__, "gate": GateResult(passed=False,
                                                                 reason="runtime_error"),
                         "pages": ()})
    with JudgeStandIn() as server:
        judgment = MmosJury("mmos", [("a", member("a", server))]).judge(request(failed))
        assert judgment.status is JudgmentStatus.OK and judgment.total == 0.0
        assert server.calls == 0 and judgment.calls == 0


def test_a_failing_member_fails_the_jury_and_only_it_is_asked_again(artifact) -> None:  # type: ignore[no-untyped-def]
    with JudgeStandIn() as a, JudgeStandIn(script=scripted([Reply.UNAUTHORIZED])) as b:
        jury = MmosJury("mmos", [("a", member("a", a)), ("b", member("b", b))])
        first = jury.judge(request(artifact))
        assert first.status is JudgmentStatus.FAILED and "jury member b" in first.error.message
        second = jury.judge(request(artifact))  # as the engine's retry would
        assert second.status is JudgmentStatus.OK
        assert a.calls == 1 and b.calls == 2


def test_the_proxy_is_marked_deterministic_and_proxy_with_what_it_sees(artifact) -> None:  # type: ignore[no-untyped-def]
    from refig_judge_mmos.proxy import CodeMetricsProxy

    proxy = CodeMetricsProxy()
    failed = Artifact(**{**artifact.__dict__, "gate": GateResult(passed=False,
                                                                 reason="timeout"), "pages": ()})
    assert proxy.deterministic  # scored once whatever --repeats says
    for judged in (proxy.judge(request(artifact)), proxy.judge(request(failed))):
        assert judged.status is JudgmentStatus.OK
        assert judged.proxy and judged.deterministic and judged.cost_usd == 0.0
        assert judged.sight is not None and "cannot see" in judged.sight


def _jury_from_record(name: str, server: JudgeStandIn):  # type: ignore[no-untyped-def]
    from refig_judge_mmos.hooks import refig_judges

    record = next(r for r in refig_judges() if r.name == name)
    return record.factory("openai/a", api_base=server.url, api_key="test")


def test_mmos_asks_as_the_benchmark_images_only_reference_first_temperature_0(artifact) -> None:  # type: ignore[no-untyped-def]
    big = artifact.references["figure"]
    Image.new("RGB", (2600, 1900), (200, 20, 20)).save(big)  # larger than refig's usual 2048
    with JudgeStandIn() as server:
        judgment = _jury_from_record("mmos", server).judge(request(artifact))
        assert judgment.status is JudgmentStatus.OK, judgment.error
        body = server.bodies[0]
    assert body["temperature"] == 0
    content = body["messages"][1]["content"]
    texts = [part["text"] for part in content if part["type"] == "text"]
    assert texts == ["1. reference image:", "2. generated image:"]  # no program
    assert "plt.plot" not in str(body)
    images = [part["image_url"]["url"] for part in content if part["type"] == "image_url"]
    import base64

    assert images[0] == "data:image/png;base64," + base64.b64encode(big.read_bytes()).decode()
    system = body["messages"][0]["content"]
    assert "first image is the reference" in system
    assert "numbers of axis tick labels do not count" in system


def test_showing_the_program_is_its_own_judge(artifact) -> None:  # type: ignore[no-untyped-def]
    with JudgeStandIn() as server:
        jury = _jury_from_record("mmos-with-program", server)
        assert jury.judge(request(artifact)).status is JudgmentStatus.OK
        content = server.bodies[0]["messages"][1]["content"]
    assert jury.name == "mmos-with-program"
    assert any("plt.plot" in part.get("text", "") for part in content)
    with JudgeStandIn() as server:
        assert jury.key != _jury_from_record("mmos", server).key
