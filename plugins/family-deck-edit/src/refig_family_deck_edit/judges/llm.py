"""The deck-edit LLM judge: IF and VQ, integers 0-5, through core's LLM client.

Each call answers a strict JSON schema compiled from one axis (or, in ``single`` mode, both) of
the deck rubric; a malformed answer is re-asked with the problem quoted; a call that gets no
answer becomes a typed failed judgment. VQ is judged a chunk of slides per call, the case's VQ
being the minimum over chunks. Repeats, the content cache and the budget are the judging
stage's, exactly as for the slide judges.
"""

from __future__ import annotations

from typing import Any

from refig.plugin import (
    AnswerError,
    AxisScore,
    ErrorInfo,
    Judge,
    Judgment,
    JudgmentStatus,
    Rubric,
    Usage,
    load_rubric,
    stable_hash,
)
from refig_toolkit_llm import CallError, ChatClient, ChatOptions, data_url

from refig_family_deck_edit.cases import style_target
from refig_family_deck_edit.context import ContextError, artifact_context
from refig_family_deck_edit.judges.evidence import (
    MODES,
    CallEvidence,
    if_evidence,
    single_evidence,
    vq_chunks,
)
from refig_family_deck_edit.references import RenderError

PROMPT_VERSION = "1"
IF_AXIS, VQ_AXIS = "instruction_following", "visual_quality"


def sub_rubric(rubric: Rubric, axes: tuple[str, ...]) -> Rubric:
    """The rubric narrowed to ``axes``: the schema one call answers."""
    spec = rubric.spec.model_copy(update={
        "axes": tuple(a for a in rubric.axes if a.id in axes), "total": None, "cap": None})
    return Rubric(spec=spec, sha256=stable_hash(spec.model_dump(mode="json")))


class _Calls:
    """Accounting of one judgment's calls."""

    def __init__(self) -> None:
        self.usage, self.cost, self.seconds, self.count, self.priced = Usage(), 0.0, 0.0, 0, True


class DeckJudge(Judge):
    """Scores an edited deck on IF and VQ with one model."""

    def __init__(self, name: str, options: ChatOptions, *, evidence: str = "dual",
                 chunk: int = 4, defaults: dict[str, Any] | None = None):
        if evidence not in MODES:
            from refig.plugin import UsageError

            raise UsageError(f"deck judge evidence {evidence!r} is not one of {', '.join(MODES)}")
        self.options, self.mode, self.chunk = options, evidence, max(1, int(chunk))
        identity = options.identity()
        self.key = stable_hash({"judge": name, "prompt": PROMPT_VERSION, "evidence": evidence,
                                "chunk": self.chunk, **identity})
        suffix = "" if evidence == "dual" else f"[evidence={evidence}]"
        self.label = name + suffix
        self.client = ChatClient(options)

    def _image(self, label: str, path: Any) -> list[dict[str, Any]]:
        url = data_url(path, self.options.max_image_side)
        return [{"type": "text", "text": f"{label}:"},
                {"type": "image_url", "image_url": {"url": url, "detail": "high"}}]

    def _ask(self, rubric: Rubric, evidence: CallEvidence, tag: str,
             calls: _Calls) -> tuple[AxisScore, ...]:
        """One scored answer, re-asked while malformed; raises CallError or AnswerError."""
        content: list[dict[str, Any]] = [{"type": "text", "text": evidence.text}]
        for label, path in evidence.images:
            content += self._image(label, path)
        messages: list[dict[str, Any]] = [{"role": "system", "content": rubric.prompt()},
                                          {"role": "user", "content": content}]
        problem = ""
        for _ in range(1 + self.options.answer_retries):
            calls.count += 1
            reply = self.client.complete(messages, rubric.response_format(), tag=tag)
            calls.usage += reply.usage
            calls.seconds += reply.seconds
            if reply.cost_usd is None:
                calls.priced = False
            else:
                calls.cost += reply.cost_usd
            try:
                return rubric.parse(reply.content)
            except AnswerError as exc:
                problem = str(exc)
                messages = [*messages, {"role": "assistant", "content": reply.content or ""},
                            {"role": "user", "content": f"Your answer was rejected: {problem}. "
                             "Reply again with only the JSON object."}]
        raise AnswerError(f"no valid answer in {1 + self.options.answer_retries} tries; "
                          f"last: {problem}")

    def judge(self, request: Any) -> Judgment:
        """Score one edited deck; a failure comes back typed, never raised."""
        artifact = request.artifact
        rubric = load_rubric(request.rubric_path, family=request.artifact.family)
        calls = _Calls()

        def result(**fields: Any) -> Judgment:
            return Judgment(
                artifact_sha256=artifact.sha256, judge=self.label, judge_key=self.key,
                rubric_sha256=rubric.sha256, rubric_version=rubric.version,
                repeat=request.repeat, model=self.options.model, usage=calls.usage,
                cost_usd=calls.cost if calls.priced else None,
                latency_seconds=round(calls.seconds, 3), calls=calls.count, **fields)

        task = artifact.task
        instruction = (task.instruction if task else None) or ""
        style = style_target(artifact.references)
        try:
            context = artifact_context(artifact)
        except (ContextError, RenderError, OSError, ValueError) as exc:
            return result(status=JudgmentStatus.FAILED,
                          error=ErrorInfo(kind="missing_input", message=str(exc)))
        tag = f"refig-{artifact.sha256[:16]}-r{request.repeat}"
        try:
            if self.mode == "single":
                scores = self._ask(rubric, single_evidence(context, instruction, style), tag,
                                   calls)
            else:
                [if_score] = self._ask(sub_rubric(rubric, (IF_AXIS,)),
                                       if_evidence(context, instruction, style, self.mode),
                                       tag + "-if", calls)
                chunks = [self._ask(sub_rubric(rubric, (VQ_AXIS,)), evidence,
                                    f"{tag}-vq{k}", calls)[0]
                          for k, evidence in enumerate(vq_chunks(context, instruction, style,
                                                                 self.chunk))]
                worst = min(chunks, key=lambda s: s.score)
                note = f" (minimum over {len(chunks)} chunks)" if len(chunks) > 1 else ""
                scores = (if_score, worst.model_copy(
                    update={"rationale": worst.rationale + note}))
        except CallError as exc:
            return result(status=JudgmentStatus.FAILED, error=exc.error)
        except AnswerError as exc:
            return result(status=JudgmentStatus.FAILED,
                          error=ErrorInfo(kind="invalid_answer", message=str(exc)))
        total = sum(s.score for s in scores)
        return result(status=JudgmentStatus.OK, scores=scores, total=total, raw_total=total)


def build_deck_judge(name: str, values: dict[str, Any], defaults: dict[str, Any]) -> DeckJudge:
    """Validate options (``evidence`` and ``chunk`` are the deck judge's own) and build it."""
    from pydantic import ValidationError
    from refig.plugin import UsageError

    merged = {**defaults, **values}
    evidence = str(merged.pop("evidence", "dual"))
    chunk = int(merged.pop("chunk", 4))
    try:
        options = ChatOptions.model_validate(merged)
    except ValidationError as exc:
        raise UsageError(f"bad --judge-opt for judge {name}: {exc}") from exc
    return DeckJudge(name, options, evidence=evidence, chunk=chunk, defaults=defaults)
