"""The LLM rubric judge: one judging per call, a malformed answer retried with the error quoted."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import version as distribution_version
from typing import Any

from refig.plugin import (
    ErrorInfo,
    Judge,
    JudgeRequest,
    Judgment,
    JudgmentStatus,
    Usage,
    UsageError,
    load_rubric,
    stable_hash,
)
from refig_toolkit_imaging import ImageError
from refig_toolkit_llm import NO_KEY, ChatClient, structured_call

from refig_judge_rubric.messages import (
    PROMPT_VERSION,
    correction,
    judge_messages,
    prompt_digest,
)
from refig_judge_rubric.options import JudgeOptions, parse_options
from refig_judge_rubric.pricing import prompt_cost, token_price


class RubricJudge(Judge):
    """Scores an artifact on the rubric with one litellm model.

    ``name`` is the judge's name as selected (``gpt-5.4``, ``litellm:openai/gpt-4o``, ``qwen``);
    ``defaults`` are that judge's own option values, so the label only shows what a user changed.
    """

    #: The ``--judge-opt`` keys it reads.
    accepts = frozenset(JudgeOptions.model_fields)

    def __init__(self, name: str, options: JudgeOptions, defaults: dict[str, Any] | None = None):
        self.name = name
        self.options = options
        identity = options.identity()
        self.key = stable_hash({"judge": name, "prompt": PROMPT_VERSION, **identity})
        base = JudgeOptions.model_validate({"model": options.model, **(defaults or {})})
        changed = {k: v for k, v in identity.items() if v != getattr(base, k)}
        self.label = name + (
            "[" + ",".join(f"{k}={v}" for k, v in sorted(changed.items())) + "]" if changed else ""
        )
        self.client = ChatClient(options)
        self.price = token_price(options)

    def priced(self) -> bool:
        """Whether the cost of this judge's calls is known (``--budget`` needs it)."""
        return self.price is not None

    def environment(self) -> Mapping[str, str]:
        """The model asked for and the options that define the judge, its token prices, the
        digest of the code that frames its messages, and litellm's version. The model id each
        provider reported is on every stored judgment (``Judgment.model``)."""
        found = {"key": self.key, **{name: str(value) for name, value
                                     in self.options.identity().items() if value is not None},
                 "prompt_sha256": prompt_digest(), "litellm": distribution_version("litellm")}
        if self.price is not None:
            found.update(input_usd_per_token=f"{self.price.input:g}",
                         output_usd_per_token=f"{self.price.output:g}")
        return found

    def estimate_usd(self, request: JudgeRequest) -> float | None:
        """The prompt's cost of one call for ``request``, before it is made (see pricing)."""
        evidence = request.evidence
        if evidence.missing or not evidence.images or not all(
                path.is_file() for _, path in evidence.images):
            return 0.0  # judged as missing_input without a call
        try:
            rubric = load_rubric(request.rubric_path, family=request.artifact.family)
            messages = judge_messages(rubric, evidence, max_side=self.options.max_image_side)
        except (ImageError, OSError):
            return 0.0
        return prompt_cost(self.options, self.price, messages)

    def judge(self, request: JudgeRequest) -> Judgment:
        """Score one artifact; a failure comes back typed, never raised."""
        artifact = request.artifact
        usage, cost, seconds, calls = Usage(), 0.0, 0.0, 0
        priced = True

        def result(**fields: Any) -> Judgment:
            return Judgment(
                artifact_sha256=artifact.sha256,
                judge=self.label,
                judge_key=self.key,
                rubric_sha256=rubric.sha256,
                rubric_version=rubric.version,
                repeat=request.repeat,
                model=self.options.model,
                usage=usage,
                cost_usd=cost if priced else None,
                latency_seconds=round(seconds, 3),
                calls=calls,
                **fields,
            )

        def failed(kind: str, message: str, **extra: Any) -> Judgment:
            return result(status=JudgmentStatus.FAILED,
                          error=ErrorInfo(kind=kind, message=message, **extra))

        rubric = load_rubric(request.rubric_path, family=request.artifact.family)
        evidence = request.evidence
        missing = [*evidence.missing,
                   *(label for label, path in evidence.images if not path.is_file())]
        if missing or not evidence.images:
            what = " and ".join(missing).lower() or "any image"
            return failed("missing_input", f"cannot show the judge {what}")
        try:
            messages = judge_messages(rubric, evidence, max_side=self.options.max_image_side)
        except (ImageError, OSError) as exc:
            return failed("missing_input", f"cannot read an image: {exc}")
        response_format = rubric.response_format()
        tag = f"refig-{artifact.sha256[:16]}-r{request.repeat}"
        answer = structured_call(self.client, messages, response_format, rubric.parse,
                                 retries=self.options.answer_retries, tag=tag,
                                 corrected=correction)
        usage, seconds, calls = answer.usage, answer.seconds, answer.calls
        cost, priced = answer.cost_usd or 0.0, answer.cost_usd is not None
        if answer.value is None:
            return result(status=JudgmentStatus.FAILED, error=answer.error)
        total = sum(s.score for s in answer.value)
        return result(status=JudgmentStatus.OK, scores=answer.value, total=total,
                      raw_total=total)


def check_credentials(judge: str, options: JudgeOptions) -> JudgeOptions:
    """Fail early, naming the variable to set, when a real provider's key is missing.

    With ``api_base`` (a local or self-hosted server) a missing key is replaced by a placeholder,
    since such servers usually want none.
    """
    if options.api_key:
        return options
    from refig_toolkit_llm import import_litellm

    litellm = import_litellm()
    try:
        found = litellm.validate_environment(model=options.model)
    except Exception:  # a provider litellm cannot check: let the first call say what is wrong
        return options
    missing = list(found.get("missing_keys") or [])
    if found.get("keys_in_environment") or not missing:
        return options
    if options.api_base:
        return options.model_copy(update={"api_key": NO_KEY})
    raise UsageError(
        f"judge {judge} (model {options.model}) needs {' and '.join(missing)} in the environment",
        fix=f"export {missing[0]}=..., or pass --judge-opt api_key=... "
        "(or --judge-opt api_base=URL for a local OpenAI-compatible server)",
    )


def build_judge(name: str, values: dict[str, Any], defaults: dict[str, Any]) -> RubricJudge:
    """Validate options over ``defaults``, check credentials, and build the judge."""
    options = parse_options(name, {**defaults, **values})
    return RubricJudge(name, check_credentials(name, options), defaults)
