"""A deterministic judge: every rubric axis earns the share of slide objects that are native.

It is a proxy (labelled so in every judgment), small enough to read in a minute, and shows the
whole judge contract: load the rubric, score each axis, let the rubric check and cap the scores,
and return failures as typed judgments instead of raising.

It calls no model, so it says what a model-free judge is: ``deterministic = True`` (the same
inputs give the same scores: refig scores it once whatever ``--repeats`` says and reports no
repeatability for it), and every judgment has ``deterministic=True``, ``calls=0`` (model calls
made; the default, 1, is for a judge that calls a model) and ``cost_usd=0.0`` (nothing spent,
not an unknown price). A judge that calls a model leaves ``deterministic`` False and reports its
calls, usage and cost.
"""

from refig.plugin import (
    AxisScore,
    ErrorInfo,
    Judge,
    JudgeRequest,
    Judgment,
    JudgmentStatus,
    load_rubric,
    stable_hash,
)
from refig_toolkit_pptx import ObjectKind, object_tree


class NativeShareJudge(Judge):
    """Scores ``axis.max x (native objects / all objects)`` on every axis."""

    label = "{{ cookiecutter.name }}"
    deterministic = True
    key = stable_hash({"judge": "{{ cookiecutter.name }}", "version": 1})

    def judge(self, request: JudgeRequest) -> Judgment:
        rubric = load_rubric(request.rubric_path, family=request.artifact.family)
        fields = dict(artifact_sha256=request.artifact.sha256, judge=self.label,
                      judge_key=self.key, rubric_sha256=rubric.sha256,
                      rubric_version=rubric.version, repeat=request.repeat, proxy=True,
                      deterministic=True, calls=0, cost_usd=0.0)
        tree = object_tree(request.artifact)
        # shown(): what the slide paints (not hidden objects, nor the layout's and master's)
        objects = [o for o in tree.shown() if o.kind is not ObjectKind.GROUP] if tree else []
        if not objects:
            error = ErrorInfo(kind="no_objects", message="the slide has no objects to judge")
            return Judgment(status=JudgmentStatus.FAILED, error=error, **fields)
        share = sum(o.kind is not ObjectKind.PICTURE for o in objects) / len(objects)
        scores = tuple(
            AxisScore(axis=axis.id, score=float(round(share * axis.max)), max_score=axis.max,
                      rationale=f"{share:.0%} of {len(objects)} objects are native")
            for axis in rubric.axes
        )
        rubric.check(scores, sum(s.score for s in scores))
        scored = rubric.finish(scores, flattened=rubric.is_flattened(request.artifact.metrics))
        return Judgment(status=JudgmentStatus.OK, scores=scored.scores, total=scored.total,
                        raw_total=scored.raw_total, capped=scored.capped, **fields)
