"""The deck-edit LLM judge: IF and VQ, integers 0-5, through core's LLM client.

Each call answers a strict JSON schema compiled from one axis (or, in ``single`` mode, both) of
the deck rubric; a malformed answer is re-asked with the problem quoted; a call that gets no
answer becomes a typed failed judgment. VQ is one judgment over every selected slide, as
PPTArena judges a case once. Only a judge with a stated per-call image limit (``max_images``)
splits the slides over the fewest calls, and the case's VQ is then the mean of the calls' scores
weighted by their slide counts (each slide weighs what it would in one call); never a minimum.
Repeats, the content cache and the budget are the judging stage's, exactly as for the slide
judges.
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
    vq_parts,
)
from refig_family_deck_edit.references import RenderError

PROMPT_VERSION = "2"
IF_AXIS, VQ_AXIS = "instruction_following", "visual_quality"
#: Images a VQ call shows per slide: the target's rendering, then the edited deck's.
VQ_IMAGES_PER_SLIDE = 2


def combine_parts(parts: list[tuple[AxisScore, int]], limit: int | None) -> AxisScore:
    """One VQ score from the calls a per-call image limit forced: the mean of their scores
    weighted by their slide counts; one call's score is returned as it came."""
    if len(parts) == 1:
        return parts[0][0]
    slides = sum(n for _, n in parts)
    score = sum(s.score * n for s, n in parts) / slides
    start, notes = 1, []
    for part, n in parts:
        notes.append(f"[selected slides {start}-{start + n - 1}: {part.score:g}] {part.rationale}")
        start += n
    note = (f"slide-weighted mean of {len(parts)} calls over {slides} selected slides "
            f"(judge limit: {limit} images a call)")
    return parts[0][0].model_copy(update={"score": score,
                                          "rationale": note + "\n" + "\n".join(notes)})


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
                 max_images: int | None = None, defaults: dict[str, Any] | None = None):
        from refig.plugin import UsageError

        if evidence not in MODES:
            raise UsageError(f"deck judge evidence {evidence!r} is not one of {', '.join(MODES)}")
        if max_images is not None and max_images < VQ_IMAGES_PER_SLIDE:
            raise UsageError(f"deck judge max_images={max_images} cannot show one slide",
                             fix=f"give max_images={VQ_IMAGES_PER_SLIDE} or more (a VQ call "
                             "shows each slide as target and edited), or leave it unset")
        self.options, self.mode, self.max_images = options, evidence, max_images
        identity = options.identity()
        self.key = stable_hash({"judge": name, "prompt": PROMPT_VERSION, "evidence": evidence,
                                "max_images": max_images, **identity})
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
        whole = (single_evidence(context, instruction, style) if self.mode == "single"
                 else if_evidence(context, instruction, style, self.mode))
        if self.max_images is not None and len(whole.images) > self.max_images:
            return result(status=JudgmentStatus.FAILED, error=ErrorInfo(
                kind="too_many_images",
                message=f"evidence={self.mode} shows {len(whole.images)} images in one call, "
                f"over this judge's max_images={self.max_images}; only the VQ call of "
                "evidence=dual can be split (use evidence=dual, or a model that takes more)"))
        try:
            if self.mode == "single":
                scores = self._ask(rubric, whole, tag, calls)
            else:
                [if_score] = self._ask(sub_rubric(rubric, (IF_AXIS,)), whole, tag + "-if", calls)
                per_call = (None if self.max_images is None
                            else self.max_images // VQ_IMAGES_PER_SLIDE)
                parts = vq_parts(context, instruction, style, per_call)
                answers = [(self._ask(sub_rubric(rubric, (VQ_AXIS,)), evidence,
                                      f"{tag}-vq{k}", calls)[0], n)
                           for k, (evidence, n) in enumerate(parts)]
                scores = (if_score, combine_parts(answers, self.max_images))
        except CallError as exc:
            return result(status=JudgmentStatus.FAILED, error=exc.error)
        except AnswerError as exc:
            return result(status=JudgmentStatus.FAILED,
                          error=ErrorInfo(kind="invalid_answer", message=str(exc)))
        total = sum(s.score for s in scores)
        return result(status=JudgmentStatus.OK, scores=scores, total=total, raw_total=total)


def build_deck_judge(name: str, values: dict[str, Any], defaults: dict[str, Any]) -> DeckJudge:
    """Validate options (``evidence`` and ``max_images`` are the deck judge's own) and build
    it. The old ``chunk`` (slides per VQ call, the case keeping the minimum) is refused."""
    from pydantic import ValidationError
    from refig.plugin import UsageError

    merged = {**defaults, **values}
    evidence = str(merged.pop("evidence", "dual"))
    if "chunk" in merged:
        raise UsageError("deck judge option chunk is gone: VQ is one judgment over every "
                         "selected slide", fix="drop chunk; for a model that takes at most N "
                         "images a call, give --judge-opt max_images=N")
    limit = merged.pop("max_images", None)
    try:
        max_images = None if limit in (None, "", "none") else int(limit)
    except (TypeError, ValueError):
        raise UsageError(f"deck judge max_images={limit!r} is not a whole number",
                         fix="give --judge-opt max_images=N, N images a call") from None
    try:
        options = ChatOptions.model_validate(merged)
    except ValidationError as exc:
        raise UsageError(f"bad --judge-opt for judge {name}: {exc}") from exc
    return DeckJudge(name, options, evidence=evidence, max_images=max_images, defaults=defaults)
