"""The offline proxy judge: each rubric axis filled from deterministic metric values.

Every axis is a fraction f in [0, 1] times the axis maximum, rounded to whole points (the
rubric's score type). The formulas, and the fallback used when a metric did not run, are listed
in ``docs/judges.md``; each rationale says which numbers made the score. Nothing here calls a
model or the network, so the same inputs always give the same judgment.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from refig.plugin import (
    Artifact,
    AxisScore,
    ErrorInfo,
    Judge,
    JudgeRequest,
    Judgment,
    JudgmentStatus,
    Rubric,
    counted_total,
    load_rubric,
    stable_hash,
)
from refig_toolkit_pptx import ObjectKind, object_tree
from refig_toolkit_pptx.slide_text import native_text, word_tokens

#: Bumped whenever a formula changes, so cached proxy judgments are recomputed.
FORMULA_VERSION = "4"  # 2: image axes above the empty slide; no editability without content
# 4: text against OCR of the source marked and out of the total; structure/editability not by OCR
#                         3: half the structure axis at most without an annotation

CONNECTORS = "connector-audit.connector_count"
BOUND = "connector-audit.bound_connectors"
HALF_BOUND = "connector-audit.half_bound_connectors"
FREE_LINES = "connector-audit.free_lines"
FLATTENED = "flattening.flattened"
TEXT_RECALL = "text.recall"
NODE_RECALL = "topology.node_recall"
EDGE_RECALL = "topology.edge_recall"
SSIM = "image.ssim"
CIEDE2000 = "image.ciede2000"
SSIM_BLANK = "image.ssim_blank"
CIEDE2000_BLANK = "image.ciede2000_blank"
LAYOUT_SSIM = "image.layout_ssim"
LAYOUT_SSIM_BLANK = "image.layout_ssim_blank"
TEXT_REFERENCE = "text.reference"
CONTENT_RASTER = "flattening.content_raster_area_ratio"
RASTER = "flattening.raster_area_ratio"

#: Words of native text that earn the full fallback text credit when OCR recall is missing.
FALLBACK_WORDS = 30
#: Mean CIEDE2000 at which the colour part of visual detail reaches zero.
CIEDE_ZERO = 25.0
#: The share of semantic structure a slide can earn when no annotation shows the source's.
UNSEEN_STRUCTURE = 0.5


#: What the proxy can and cannot see, printed under every table of its scores.
SIGHT = (
    "it sees pixel similarity above an empty slide's, native text against the annotated labels "
    "(against OCR of the source it is marked and left out of the total), nodes and edges "
    "against an annotation (when there is one), native objects and bound links; it cannot see "
    "whether links join the right boxes without an annotation, reading order, legibility or style"
)


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def above_blank(ssim: float, blank: float | None) -> float:
    """How far ``ssim`` rose from what an empty slide earns (``blank``) towards 1, in [0, 1].

    An empty slide scores 0 whatever the figure; without a baseline (older runs) the raw SSIM.
    """
    if blank is None:
        return _clip(ssim)
    return 0.0 if blank >= 1.0 else _clip((ssim - blank) / (1.0 - blank))


@dataclass(frozen=True)
class Evidence:
    """The numbers the formulas read from one artifact."""

    metrics: Mapping[str, float | None]
    native_words: int
    native_objects: int
    lines: int
    bound: int
    half_bound: int

    @classmethod
    def of(cls, artifact: Artifact) -> Evidence:
        metrics = artifact.metrics
        tree = object_tree(artifact)
        words = sum(len(word_tokens(t)) for t in native_text(tree)) if tree else 0
        native = (
            sum(1 for o in tree.shown()
                if o.kind not in (ObjectKind.PICTURE, ObjectKind.GROUP))
            if tree else 0
        )
        connectors = metrics.get(CONNECTORS)
        if connectors is None and tree is not None:
            counts = tree.counts()
            lines, bound, half = counts["connectors"], counts["bound_connectors"], 0
        else:
            lines = round((connectors or 0) + (metrics.get(FREE_LINES) or 0))
            bound, half = round(metrics.get(BOUND) or 0), round(metrics.get(HALF_BOUND) or 0)
        return cls(metrics, words, native, lines, bound, half)

    def get(self, key: str) -> float | None:
        return self.metrics.get(key)

    @property
    def against_ocr(self) -> bool:
        """True when the source's words come only from OCR (no annotated labels)."""
        return self.get(TEXT_RECALL) is not None and self.get(TEXT_REFERENCE) != 1

    @property
    def binding(self) -> float | None:
        """Share of drawn links bound to shapes (a half-bound one counts half); None: no links."""
        if self.lines == 0:
            return None
        return _clip((self.bound + 0.5 * self.half_bound) / self.lines)


Formula = Callable[[Evidence], tuple[float, str]]


def text(e: Evidence) -> tuple[float, str]:
    recall = e.get(TEXT_RECALL)
    if recall is not None and not e.against_ocr:
        return _clip(recall), f"{recall:.0%} of the annotated labels are native text"
    if recall is not None:
        return _clip(recall), (f"{recall:.0%} of the source's words as OCR read them are native "
                               "text: measured against OCR, not exact labels, so out of the total")
    share = 0.5 * min(1.0, e.native_words / FALLBACK_WORDS)
    return share, f"no OCR recall; {e.native_words} native words earn half credit at most"


def content(e: Evidence) -> tuple[float, str]:
    """The share of the source's text the slide carries, for the axes that credit content.

    Against OCR of the source that share would reward a rebuild that read the figure with the
    same OCR (its misreadings included), so there only the native word count is used.
    """
    if not e.against_ocr:
        return text(e)
    share = min(1.0, e.native_words / FALLBACK_WORDS)
    return share, (f"{e.native_words} native words (the source's words are known only by OCR, "
                   "which is no fair reference)")


#: Axes whose score a judgment marks as measured against OCR of the source (``reference``).
OCR_AXES = frozenset({"text"})


def semantic_structure(e: Evidence) -> tuple[float, str]:
    nodes, edges = e.get(NODE_RECALL), e.get(EDGE_RECALL)
    if edges is not None:
        if nodes is None:
            return _clip(edges), f"edge recall {edges:.2f} against the annotation"
        f = 0.5 * _clip(nodes) + 0.5 * _clip(edges)
        return f, f"node recall {nodes:.2f}, edge recall {edges:.2f} against the annotation"
    components, why = content(e)
    links = 0.0 if e.lines == 0 else _clip(
        (e.bound + 0.5 * e.half_bound + 0.25 * (e.lines - e.bound - e.half_bound)) / e.lines
    )
    # Links only count between components that are there: no credit without content. Without
    # an annotation the source's structure is unseen, so at most half the axis is earned.
    return UNSEEN_STRUCTURE * components * (0.5 + 0.5 * links), (
        f"no annotation, so the source's structure is unseen (half credit at most): components "
        f"by text ({why}), links: {e.lines} drawn, {e.bound} bound"
    )


def layout(e: Evidence) -> tuple[float, str]:
    coarse = e.get(LAYOUT_SSIM)
    ssim, blank = (e.get(SSIM), e.get(SSIM_BLANK)) if coarse is None else (coarse,
                                                                          e.get(LAYOUT_SSIM_BLANK))
    if ssim is None:
        return 0.0, "no image similarity measured"
    scale = "full-size SSIM" if coarse is None else "SSIM at layout scale"
    floor = "no empty-slide baseline" if blank is None else f"an empty slide earns {blank:.2f}"
    return above_blank(ssim, blank), f"{scale} {ssim:.2f} against the source ({floor})"


def editability(e: Evidence) -> tuple[float, str]:
    if (e.get(FLATTENED) or 0) >= 0.5:
        return 0.0, "flattened: the source is pasted as a picture"
    if e.native_objects == 0:
        return 0.0, "no native objects"
    raster = e.get(CONTENT_RASTER)
    raster = e.get(RASTER) if raster is None else raster
    raster = 0.0 if raster is None else _clip(raster)
    binding = e.binding
    carried, _ = content(e)  # editable objects earn credit only for the content they carry
    f = carried * (1 - raster) * (0.6 + 0.4 * (0.5 if binding is None else binding))
    links = "no links drawn" if binding is None else f"{binding:.0%} of links bound"
    return f, (f"{e.native_objects} native objects carrying {carried:.0%} of the text, images "
               f"cover {raster:.0%}, {links}")


def visual_detail(e: Evidence) -> tuple[float, str]:
    ssim, delta = e.get(SSIM), e.get(CIEDE2000)
    if ssim is None and delta is None:
        return 0.0, "no image similarity measured"
    structure = None if ssim is None else above_blank(ssim, e.get(SSIM_BLANK))
    if delta is None:
        return structure or 0.0, f"SSIM {ssim:.2f} (no colour difference measured)"
    blank = e.get(CIEDE2000_BLANK)
    # Colour: the share of the empty slide's colour difference the rendering removed.
    if blank is None:
        colour = _clip(1 - delta / CIEDE_ZERO)
    else:
        colour = _clip(1 - delta / blank) if blank > 0 else 0.0
    floor = "" if blank is None else f" (an empty slide: {blank:.1f})"
    if structure is None:
        return colour, f"mean CIEDE2000 {delta:.1f}{floor} (no SSIM)"
    return 0.5 * structure + 0.5 * colour, f"SSIM {ssim:.2f}, mean CIEDE2000 {delta:.1f}{floor}"


FORMULAS: dict[str, Formula] = {
    "text": text,
    "semantic_structure": semantic_structure,
    "layout": layout,
    "editability": editability,
    "visual_detail": visual_detail,
}


class MetricsJudge(Judge):
    """Fills the rubric from metrics; ``proxy=True`` on every judgment."""

    label = "metrics"
    deterministic = True
    #: It reads no option; one meant for another judge is fine, one for none is refused.
    accepts: frozenset[str] = frozenset()
    key = stable_hash({"judge": "metrics", "formula": FORMULA_VERSION})

    def __init__(self, **options: Any):
        """It has no options; values meant for every judge are left to the others."""

    def judge(self, request: JudgeRequest) -> Judgment:
        rubric = load_rubric(request.rubric_path, family=request.artifact.family)
        fields: dict[str, Any] = {
            "artifact_sha256": request.artifact.sha256,
            "judge": self.label,
            "judge_key": self.key,
            "rubric_sha256": rubric.sha256,
            "rubric_version": rubric.version,
            "repeat": request.repeat,
            "proxy": True,
            "deterministic": True,
            "sight": SIGHT,
            "cost_usd": 0.0,
            "calls": 0,
        }
        missing = [a.id for a in rubric.axes if a.id not in FORMULAS]
        if missing:
            return Judgment(status=JudgmentStatus.FAILED, error=ErrorInfo(
                kind="unsupported_rubric",
                message=f"no proxy formula for axes {missing}; it knows {sorted(FORMULAS)}",
            ), **fields)
        scores = score(rubric, Evidence.of(request.artifact))
        total = counted_total(scores)
        return Judgment(status=JudgmentStatus.OK, scores=scores, total=total, raw_total=total,
                        **fields)


def score(rubric: Rubric, evidence: Evidence) -> tuple[AxisScore, ...]:
    """Every axis of ``rubric`` from its formula, rounded to whole points for integer rubrics."""
    ocr = "ocr" if evidence.against_ocr else None
    scores = []
    for axis in rubric.axes:
        fraction, why = FORMULAS[axis.id](evidence)
        points = fraction * axis.max
        if rubric.spec.score_type == "integer":
            points = float(int(points + 0.5))
        scores.append(AxisScore(axis=axis.id, score=points, max_score=axis.max,
                                rationale=f"proxy: {why}",
                                reference=ocr if axis.id in OCR_AXES else None))
    return tuple(scores)
