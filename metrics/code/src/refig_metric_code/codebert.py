"""CodeBERTScore (Zhou et al. 2023) of a Python program, as FigCodeBench computes it: the
``code_bert_score`` package with the ``neulab/codebert-python`` model, comments removed
(Pygments), punctuation filtered (``no_punc``), ``chunk_overlap=0.5``, on the CPU.

refig never downloads the model: it runs only when the metric option ``codebert_model`` (or
``$REFIG_CODEBERT_MODEL``) names a local copy of the model and ``code_bert_score`` (with torch
and transformers) is installed; otherwise the values are None and their reason says which.
"""

from __future__ import annotations

import os
from importlib import util
from pathlib import Path

from refig_metric_code.crystal import unfenced
from refig_metric_code.languages import Language

ENV_VAR = "REFIG_CODEBERT_MODEL"
NAMES = ("codebertscore_p", "codebertscore_r", "codebertscore_f1", "codebertscore_f3")


def without_comments(source: str) -> str:
    """The Python program with its comment tokens removed (Pygments)."""
    from pygments import lex
    from pygments.lexers import PythonLexer
    from pygments.token import Token

    return "".join(v for k, v in lex(unfenced(source), PythonLexer()) if k not in Token.Comment)


class CodeBert:
    """CodeBERTScore from a locally supplied model, or the reason it cannot run."""

    def __init__(self, model: str | Path | None = None):
        value = model or os.environ.get(ENV_VAR)
        self.model = Path(value).expanduser() if value else None

    def unavailable(self, language: Language) -> str | None:
        """Why the values are None for a program in ``language``, or None when they can run."""
        if language is not Language.PYTHON:
            return "CodeBERTScore is computed for Python only (FigCodeBench's definition)"
        if self.model is None:
            return (f"CodeBERTScore needs the neulab/codebert-python model supplied locally: "
                    f"--metric-opt code:codebert_model=DIR or {ENV_VAR}=DIR (never downloaded)")
        if not self.model.is_dir():
            return f"CodeBERTScore: no model directory at {self.model}"
        if util.find_spec("code_bert_score") is None:
            return ("CodeBERTScore needs the code-bert-score package (with torch and "
                    "transformers), which is not installed")
        return None

    def score(self, reference: str, generated: str) -> tuple[float, float, float, float]:
        """Precision, recall, F1 and F3 of ``generated`` against ``reference``."""
        import code_bert_score

        scores = code_bert_score.score(
            cands=[without_comments(generated)], refs=[without_comments(reference)],
            lang="python", model_type=str(self.model), device="cpu", batch_size=1, no_punc=True,
            chunk_overlap=0.5, verbose=False)
        p, r, f1, f3 = (float(x.tolist()[0]) for x in scores)
        return p, r, f1, f3
