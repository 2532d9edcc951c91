"""One program text handed in for two tasks is executed for each, with that task's own inputs:
`refig run --harness model` against a stand-in on 127.0.0.1 that answers every figure with the
same generic program (it reads ``values.csv``), then `refig evaluate` and `refig report`. Before
executions were keyed by the task's inputs, the second task was scored on the first one's image."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from refig.cli import run as refig
from refig.models import Attempt, Render
from refig.store import RunStore
from refig.suite import Suite
from refig_toolkit_agent.httpserver import LocalServer
from refig_toolkit_testing.scripted import ScriptedModel

pytestmark = pytest.mark.slow

GENERIC = ("```python\nimport matplotlib.pyplot as plt\nlabels, values = [], []\n"
           "with open('values.csv') as handle:\n    next(handle)\n    for line in handle:\n"
           "        label, value = line.strip().split(',')\n        labels.append(label)\n"
           "        values.append(float(value))\nplt.bar(labels, values, color='tab:blue')\n"
           "plt.title('Values')\n```\n")


def test_one_program_for_two_tasks_runs_once_per_task_with_its_own_data(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite, run_dir = tmp_path / "suite", tmp_path / "run"
    assert refig(["suite", "build", "code-sample", "--out", str(suite), "--language", "python",
                  "--category", "statistical", "--per-category", "2", "-q"]) == 0
    tasks = Suite.load(suite).tasks
    assert len(tasks) == 2
    data = [(suite / t.inputs["data/values.csv"].path).read_bytes() for t in tasks]
    assert data[0] != data[1]  # two tasks, two data files
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"coder-1": {"input_cost_per_token": 1e-6,
                                              "output_cost_per_token": 1e-6}}))
    with LocalServer(ScriptedModel(answer=GENERIC)) as server:
        assert refig(["run", "--suite", str(suite), "--harness", "model", "--model",
                      "openai/coder-1", "--workflow", "answer", "--out", str(run_dir),
                      "--harness-opt", f"upstream={server.url}/v1", "--harness-opt",
                      f"prices={prices}", "-q"]) == 0
    assert refig(["evaluate", str(run_dir), "--metric", "code", "-q"]) == 0
    store = RunStore.open(run_dir)
    programs = {a.output("program") for a in store.query(Attempt)}
    renders = store.query(Render)
    store.close()
    assert len(programs) == 1  # the same program text for both tasks...
    assert len(renders) == 2  # ...executed twice, once with each task's values.csv
    assert len({r.png_sha256 for r in renders}) == 2
    capsys.readouterr()
    assert refig(["report", str(run_dir), "--json", "-q", "--resamples", "100",
                  "--elo-resamples", "10"]) == 0
    rows = json.loads(capsys.readouterr().out)["tables"]["code_tasks"]["rows"]
    assert len(rows) == 2 and all(row["reason"] is None for row in rows)
    # each task scored on its own image: the two SSIMs against the two figures differ
    assert rows[0]["ssim"] != rows[1]["ssim"]
