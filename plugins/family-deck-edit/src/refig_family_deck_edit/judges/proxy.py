"""``deck-metrics``: IF and VQ filled offline from the deterministic evidence, labelled proxy.

IF: on a generated task, the spec oracle's score; otherwise ``5 x edit recall x share``, share
being the done changes that land on requested keys over all done changes (1 when nothing was
done), rounded half up. VQ: the mean SSIM of the edited slides against the target's over the
selected slides, mapped linearly from [:data:`SSIM_FLOOR`, 1] onto [0, 5]; without renderings, 0
with a rationale saying so. No model, no network: the same inputs give the same judgment.
"""

from __future__ import annotations

import math
from typing import Any

from refig.plugin import AxisScore, ErrorInfo, Judgment, JudgmentStatus, load_rubric, stable_hash

from refig_family_deck_edit.context import ContextError, DeckContext, artifact_context
from refig_family_deck_edit.judges.llm import IF_AXIS, VQ_AXIS
from refig_family_deck_edit.references import RenderError
from refig_family_deck_edit.selection import ssim

FORMULA_VERSION = "1"
SSIM_FLOOR = 0.8
SIGHT = ("it sees which requested changes the edited deck made (the structural diff, or the exact "
         "spec of a generated task) and how close its changed slides look to the target's; it "
         "cannot see whether an edit reads well, nor visual flaws the target shares")


def _half_up(value: float) -> int:
    return math.floor(value + 0.5)


def if_proxy(context: DeckContext) -> tuple[int, str]:
    """IF 0-5 and why."""
    verdict = context.oracle
    if verdict is not None:
        return verdict.score, (f"spec oracle: {len(verdict.achieved)}/{verdict.expected} "
                               f"expected changes made, {len(verdict.collateral)} collateral")
    c = context.comparison
    wanted = {x.key for x in c.requested}
    on_key = sum(1 for x in c.done if x.key in wanted)
    share = on_key / len(c.done) if c.done else 1.0
    return _half_up(5 * c.recall * share), (
        f"edit recall {c.recall:.2f} ({len(c.achieved)}/{len(c.requested)}), "
        f"{c.collateral_count} collateral of {len(c.done)} changes made")


def vq_proxy(context: DeckContext) -> tuple[int, str]:
    """VQ 0-5 and why."""
    pairs = []
    for slide in context.selection.slides if context.selection else ():
        t, p = slide.target, slide.prediction
        target, pred = context.pages.get("target", ()), context.pages.get("prediction", ())
        if t is not None and p is not None and t <= len(target) and p <= len(pred):
            pairs.append((target[t - 1], pred[p - 1]))
    if not pairs:
        return 0, "no renderings of selected slides to compare"
    mean = sum(ssim(a, b) for a, b in pairs) / len(pairs)
    fraction = min(1.0, max(0.0, (mean - SSIM_FLOOR) / (1 - SSIM_FLOOR)))
    return _half_up(5 * fraction), f"mean SSIM {mean:.3f} against the target over " \
                                   f"{len(pairs)} selected slide(s)"


class DeckMetricsJudge:
    """Fills IF and VQ from the diff and renderings; ``proxy=True`` on every judgment."""

    label = "deck-metrics"
    key = stable_hash({"judge": "deck-metrics", "formula": FORMULA_VERSION})
    deterministic = True

    def __init__(self, **options: Any):
        """It has no options; ``--judge-opt`` values meant for every judge are ignored."""

    def judge(self, request: Any) -> Judgment:
        artifact = request.artifact
        rubric = load_rubric(request.rubric_path)
        fields: dict[str, Any] = {
            "artifact_sha256": artifact.sha256, "judge": self.label, "judge_key": self.key,
            "rubric_sha256": rubric.sha256, "rubric_version": rubric.version,
            "repeat": request.repeat, "proxy": True, "deterministic": True, "sight": SIGHT,
            "cost_usd": 0.0, "calls": 0}
        try:
            context = artifact_context(artifact)
        except (ContextError, RenderError, OSError, ValueError) as exc:
            return Judgment(status=JudgmentStatus.FAILED,
                            error=ErrorInfo(kind="missing_input", message=str(exc)), **fields)
        maxima = {axis.id: axis.max for axis in rubric.axes}
        (i, why_i), (v, why_v) = if_proxy(context), vq_proxy(context)
        scores = (AxisScore(axis=IF_AXIS, score=float(i), max_score=maxima.get(IF_AXIS, 5),
                            rationale=f"proxy: {why_i}"),
                  AxisScore(axis=VQ_AXIS, score=float(v), max_score=maxima.get(VQ_AXIS, 5),
                            rationale=f"proxy: {why_v}"))
        total = float(i + v)
        return Judgment(status=JudgmentStatus.OK, scores=scores, total=total, raw_total=total,
                        **fields)
