"""The `code-metrics` proxy judge: the five MMOS criteria filled from deterministic numbers.

Labelled proxy. Each criterion is a fraction in [0, 1] times 20:

* chart types: plotting-API F1 (``code.api_f1``);
* layout: SSIM at 256 px (``code.ssim``, clipped to [0, 1]);
* text content: F1 of the multisets of string literals of the generated and reference programs
  (the titles, labels and legend entries a plotting program writes);
* data: F1 of the multisets of number literals of the two programs (the data it plots);
* style: the CIEDE2000 just-noticeable-difference map of FCF (``q_dE`` of ``code.ciede2000``).

A program that did not make an image scores 0 (no criterion is filled); raster smuggling is
capped by the rubric (``code.smuggling``), as for the jury.
"""

from __future__ import annotations

from collections import Counter

from refig.plugin import AxisScore, Judge, JudgeRequest, Judgment, JudgmentStatus, load_rubric
from refig_metric_code.fcf import q_delta_e
from refig_metric_code.languages import Language
from refig_metric_code.tokens import literals

from refig_judge_mmos.jury import failed_execution

VERSION = "2"  # 2: the benchmark's RGB SSIM and multiset plotting-API F1 as inputs
KEY = f"code-metrics-proxy/{VERSION}"
#: What the proxy can and cannot see, printed under every table of its scores.
SIGHT = ("it reads the code metrics (plotting-API F1, SSIM, CIEDE2000) and the programs' "
         "literals; it cannot see what a chart shows, so its agreement with those metrics is "
         "true by construction")
#: Every judgment's markers: a proxy, deterministic, with what it can see, free.
MARKS = {"proxy": True, "deterministic": True, "sight": SIGHT, "cost_usd": 0.0}


def multiset_f1(reference: Counter[str], generated: Counter[str]) -> float:
    """F1 of two multisets (1 when both are empty)."""
    if not reference and not generated:
        return 1.0
    hits = sum((reference & generated).values())
    if hits == 0:
        return 0.0
    precision, recall = hits / sum(generated.values()), hits / sum(reference.values())
    return 2 * precision * recall / (precision + recall)


class CodeMetricsProxy(Judge):
    """Deterministic MMOS-shaped scores; never calls a model."""

    key = KEY
    deterministic = True

    def judge(self, request: JudgeRequest) -> Judgment:
        artifact = request.artifact
        if not artifact.gate.passed:
            return failed_execution(request, KEY, "code-metrics").model_copy(update=MARKS)
        rubric = load_rubric(request.rubric_path, family="figure-to-code")
        metrics = artifact.metrics
        language = Language.parse(str(artifact.task.params["language"])) if artifact.task \
            else None
        reference = artifact.references.get("reference_code")
        ref_strings = ref_numbers = gen_strings = gen_numbers = Counter()
        if language is not None and reference is not None:
            ref_strings, ref_numbers = literals(reference.read_text("utf-8", "replace"),
                                                language)
            gen_strings, gen_numbers = literals(artifact.path.read_text("utf-8", "replace"),
                                                language)
        api, ssim, delta_e = (metrics.get(f"code.{n}") for n in ("api_f1", "ssim", "ciede2000"))
        fractions = {
            "chart_types": (api or 0.0, f"plotting-API F1 {api or 0:.2f}"),
            "layout": (min(1.0, max(0.0, ssim or 0.0)), f"SSIM {ssim or 0:.2f} at 256 px"),
            "text_content": (multiset_f1(ref_strings, gen_strings),
                             f"string literals: {sum((ref_strings & gen_strings).values())} of "
                             f"{sum(ref_strings.values())} reference ones"),
            "data": (multiset_f1(ref_numbers, gen_numbers),
                     f"number literals: {sum((ref_numbers & gen_numbers).values())} of "
                     f"{sum(ref_numbers.values())} reference ones"),
            "style": (q_delta_e(delta_e) if delta_e is not None else 0.0,
                      f"mean CIEDE2000 {delta_e if delta_e is not None else float('nan'):.2f}"),
        }
        scores = tuple(AxisScore(axis=a.id, score=round(fractions[a.id][0] * a.max, 2),
                                 max_score=a.max, rationale=fractions[a.id][1])
                       for a in rubric.axes)
        total = sum(s.score for s in scores)
        return Judgment(artifact_sha256=artifact.sha256, judge="code-metrics", judge_key=KEY,
                        rubric_sha256=rubric.sha256, rubric_version=rubric.version,
                        repeat=request.repeat, status=JudgmentStatus.OK, scores=scores,
                        total=total, raw_total=total, calls=0, **MARKS)
