"""CodeBERTScore's call as the benchmark makes it. The real package needs torch, transformers and
the neulab/codebert-python model, none of which can be installed here: a stand-in module on
sys.path (a mock, because the real part cannot run here) records the call and answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from refig_metric_code.codebert import CodeBert
from refig_metric_code.languages import Language

STAND_IN = '''
import json, os

class _Scores:
    def __init__(self, value):
        self.value = value

    def tolist(self):
        return [self.value]

def score(**kwargs):
    with open(os.environ["CODEBERT_CALLS"], "a") as handle:
        handle.write(json.dumps(kwargs) + "\\n")
    return tuple(_Scores(v) for v in (0.9, 0.8, 0.85, 0.81))
'''


def test_the_call_is_the_benchmark_s_and_the_reasons_say_what_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "codebert-python"
    assert "codebert_model" in CodeBert(None).unavailable(Language.PYTHON)
    assert "no model directory" in CodeBert(model).unavailable(Language.PYTHON)
    model.mkdir()
    assert "Python only" in CodeBert(model).unavailable(Language.R)
    if "code_bert_score" not in sys.modules:
        assert "not installed" in CodeBert(model).unavailable(Language.PYTHON)
    (tmp_path / "code_bert_score.py").write_text(STAND_IN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CODEBERT_CALLS", str(tmp_path / "calls.jsonl"))
    scorer = CodeBert(model)
    assert scorer.unavailable(Language.PYTHON) is None
    reference = "```python\nimport matplotlib.pyplot as plt  # plot it\nplt.plot([1, 2])\n```\n"
    generated = "import matplotlib.pyplot as plt\n# draw\nplt.plot([1, 3])\n"
    assert scorer.score(reference, generated) == (0.9, 0.8, 0.85, 0.81)
    [call] = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert call["lang"] == "python" and call["model_type"] == str(model)
    assert call["no_punc"] is True and call["chunk_overlap"] == 0.5 and call["device"] == "cpu"
    assert call["refs"] == ["import matplotlib.pyplot as plt  \nplt.plot([1, 2])\n"]
    assert call["cands"] == ["import matplotlib.pyplot as plt\n\nplt.plot([1, 3])\n"]
