"""Two real processes judging one run split the judgments; none is made or stored twice."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from refig.models import Judgment, JudgmentStatus
from refig.store import RunStore
from refig_toolkit_testing.judge_server import JudgeStandIn

JUDGMENTS = 16  # 8 artifacts x 2 repeats

RACER = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from refig.judging import SelectedJudge, judge_artifacts
    from refig.rubric import load_rubric
    from refig_toolkit_testing.judge_server import sample_artifacts
    from refig.store import RunStore
    from refig_judge_rubric.judge import build_judge

    url, run, art, name = sys.argv[1:5]
    artifacts = sample_artifacts(Path(art), 8)
    judge = build_judge("litellm:openai/judge-x", {"api_base": url}, {"model": "openai/judge-x"})
    store = RunStore.create(run)
    Path(run).parent.joinpath(f"ready-{name}").write_text("")
    while not Path(run).parent.joinpath("go").exists():
        time.sleep(0.01)
    give_up, ask = time.monotonic() + 120, judge.judge

    def held(request):
        # A call waits until both racers have made one: which process the scheduler starts
        # first must not decide the split (bounded: a racer that never gets a judgment fails
        # the split check rather than hanging the test)
        Path(run).parent.joinpath(f"called-{name}").write_text("")
        while time.monotonic() < give_up and not all(
                Path(run).parent.joinpath(f"called-{n}").exists() for n in "ab"):
            time.sleep(0.05)
        return ask(request)

    judge.judge = held
    summary = judge_artifacts(store, artifacts, [SelectedJudge(judge.label, judge)], repeats=2,
                              jobs=2, quiet=True, rubric=load_rubric(family="figure-to-slide"))
    ledger = summary.ledgers[0]
    print(ledger.judged, ledger.elsewhere, ledger.calls)
''')


def test_two_evaluations_split_the_judgments_and_replace_none(tmp_path: Path) -> None:
    script = tmp_path / "racer.py"
    script.write_text(RACER)
    run = tmp_path / "run"
    # the racers create the run themselves, at once: one wins, the other opens the winner's
    with JudgeStandIn(latency=0.4) as server:
        racers = [subprocess.Popen([sys.executable, str(script), server.url, str(run),
                                    str(tmp_path / f"art-{name}"), name],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                  for name in "ab"]
        while not all((tmp_path / f"ready-{n}").exists() for n in "ab"):
            if any(r.poll() is not None for r in racers):
                for r in racers:  # the others wait for "go" forever: end them to read why
                    r.kill()
                raise AssertionError([r.communicate() for r in racers])
            time.sleep(0.05)
        (tmp_path / "go").write_text("")
        outputs = [r.communicate(timeout=300) for r in racers]
        assert all(r.returncode == 0 for r in racers), outputs
        judged = [int(out.split()[0]) for out, _ in outputs]
        assert server.calls == JUDGMENTS  # not 32: each judgment asked once
        assert sum(judged) == JUDGMENTS and min(judged) > 0, judged  # split between them
        stored = RunStore.open(run).query(Judgment)
        assert len(stored) == JUDGMENTS and {j.status for j in stored} == {JudgmentStatus.OK}
        before = {(j.artifact_sha256, j.repeat): j.created_at for j in stored}
        again = subprocess.run([sys.executable, str(script), server.url, str(run),
                                str(tmp_path / "art-c"), "c"], capture_output=True, text=True,
                               timeout=300, input="")
    assert again.returncode == 0 and server.calls == JUDGMENTS
    stored = RunStore.open(run).query(Judgment)
    after = {(j.artifact_sha256, j.repeat): j.created_at for j in stored}
    assert after == before


def test_an_equal_key_write_never_replaces_a_stored_judgment(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run")
    key = dict(artifact_sha256="a" * 64, judge="j", judge_key="k", rubric_sha256="r",
               rubric_version="v1", repeat=0)
    failed = Judgment(**key, status=JudgmentStatus.FAILED)
    first = Judgment(**key, status=JudgmentStatus.OK, total=80)
    later = Judgment(**key, status=JudgmentStatus.OK, total=10)
    assert store.put_over_failed(failed) is True
    assert store.put_over_failed(first) is True  # a failure is judged again
    assert store.put_over_failed(later) is False  # a made judgment stands
    (kept,) = store.query(Judgment)
    assert kept.total == 80
