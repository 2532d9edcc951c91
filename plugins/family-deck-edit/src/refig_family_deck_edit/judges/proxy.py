"""``deck-metrics``: IF and VQ filled offline from the deterministic evidence, labelled proxy.

IF: on a generated task, the spec oracle's score; otherwise ``5 x edit recall x share``, share
being the done changes that land on requested keys over all done changes (1 when nothing was
done), rounded half up. VQ: over the slides selected for the VQ judge only, the mean of
:func:`slide_vq` (how far each edited slide went from the original's look to the target's), so
the untouched original scores 0 on a visible edit rather than the high SSIM of a small change;
without renderings, 0 with a rationale saying so. No model, no network: the same inputs give the
same judgment.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from refig.plugin import (
    AxisScore,
    ErrorInfo,
    Judge,
    Judgment,
    JudgmentStatus,
    load_rubric,
    stable_hash,
)

from refig_family_deck_edit.context import ContextError, DeckContext, artifact_context
from refig_family_deck_edit.judges.llm import IF_AXIS, VQ_AXIS
from refig_family_deck_edit.references import RenderError
from refig_family_deck_edit.selection import SelectedSlide, ssim

FORMULA_VERSION = "3"
SSIM_FLOOR = 0.8
#: Below this SSIM the target's rendering differs from the original's at all: LibreOffice renders
#: an unchanged slide identically (1.0), one changed table number scores about 0.9995.
VISIBLE = 0.99999
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


def _page(pages: tuple[Path, ...], number: int | None) -> Path | None:
    return pages[number - 1] if number is not None and 0 < number <= len(pages) else None


def slide_vq(slide: SelectedSlide, pages: Mapping[str, tuple[Path, ...]]) -> float | None:
    """One selected slide's visual agreement with the target, 0-1 (None: nothing to compare).

    SSIM here is in colour (:func:`~refig_family_deck_edit.selection.ssim` with ``colour``), so a
    fill in the wrong colour does not pass for the right one. Where the target looks different
    from the original, the share of the way from the original's look to the target's the edited
    slide went: ``(SSIM(edited, target) - SSIM(original, target)) / (1 - SSIM(original,
    target))``, so returning the original scores 0 whatever the edit's size. Where the target
    looks like the original, whether the edited slide kept that look: SSIM(edited, target) from
    [:data:`SSIM_FLOOR`, 1]. A slide one side has and the other lacks scores 0; a slide both
    removed scores 1.
    """
    if slide.target is None and slide.prediction is None:
        return 1.0  # removed on both sides, as asked
    if slide.target is None or slide.prediction is None:
        return 0.0
    target = _page(pages.get("target", ()), slide.target)
    edited = _page(pages.get("prediction", ()), slide.prediction)
    if target is None or edited is None:
        return None  # not rendered: nothing to compare
    original = _page(pages.get("original", ()), slide.original)
    got = ssim(edited, target, colour=True)
    base = ssim(original, target, colour=True) if original is not None else None
    if base is not None and base < VISIBLE:
        return min(1.0, max(0.0, (got - base) / (1 - base)))
    return min(1.0, max(0.0, (got - SSIM_FLOOR) / (1 - SSIM_FLOOR)))


def looks_changed(slide: SelectedSlide) -> bool:
    """True when the target or the edited deck changed how the slide looks (or dropped it)."""
    return (slide.target is None or slide.prediction is None
            or any(v is not None and v < VISIBLE
                   for v in (slide.ssim_target, slide.ssim_prediction)))


def vq_proxy(context: DeckContext) -> tuple[int, str]:
    """VQ 0-5 and why: 5 x the mean :func:`slide_vq` over the selected slides whose look
    changed on either side; only when none did, over the rest (it then says only that the look
    was kept, true of the untouched original by construction, and the rationale says so)."""
    slides = context.selection.slides if context.selection else ()
    scored = [(s, v) for s in slides if (v := slide_vq(s, context.pages)) is not None]
    if not scored:
        return 0, "no renderings of selected slides to compare"
    changed = [(s, v) for s, v in scored if looks_changed(s)]
    mean = sum(v for _, v in changed or scored) / len(changed or scored)
    if changed:
        return _half_up(5 * mean), (f"{mean:.2f} of the way to the target's look over the "
                                    f"{len(changed)} selected slide(s) whose look changed")
    return _half_up(5 * mean), (f"look kept on {len(scored)} selected slide(s); no visible "
                                f"change was asked for or made, so VQ says only that the look "
                                f"was kept")


class DeckMetricsJudge(Judge):
    """Fills IF and VQ from the diff and renderings; ``proxy=True`` on every judgment."""

    label = "deck-metrics"
    key = stable_hash({"judge": "deck-metrics", "formula": FORMULA_VERSION})
    deterministic = True

    def __init__(self, **options: Any):
        """It has no options; ``--judge-opt`` values meant for every judge are ignored."""

    def judge(self, request: Any) -> Judgment:
        artifact = request.artifact
        rubric = load_rubric(request.rubric_path, family=request.artifact.family)
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
