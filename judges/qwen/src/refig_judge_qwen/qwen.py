"""Build the Qwen judge: the rubric judge's client, pointed at an OpenAI-compatible server."""

from __future__ import annotations

import os
from typing import Any

from refig.plugin import UsageError
from refig_judge_rubric.judge import RubricJudge, build_judge

#: The paper's open-weight judge, as its Hugging Face id (what ``vllm serve`` names the model).
DEFAULT_MODEL = "Qwen/Qwen3.6-27B"
API_BASE_ENV = "REFIG_QWEN_API_BASE"
SERVE = f"vllm serve {DEFAULT_MODEL} --port 8000"

#: Qwen's recommended sampling for non-thinking mode; thinking off through the chat template
#: (vLLM and SGLang read ``chat_template_kwargs``; the JSON schema constrains decoding).
DEFAULTS: dict[str, Any] = {
    "temperature": 0.7,
    "top_p": 0.8,
    "extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
}


def make_qwen_judge(argument: str | None = None, **options: Any) -> RubricJudge:
    """``--judge qwen`` or ``--judge qwen:MODEL``; the server from ``api_base`` or the env."""
    model = argument or options.pop("model", None) or DEFAULT_MODEL
    api_base = options.pop("api_base", None) or os.environ.get(API_BASE_ENV)
    if not api_base:
        raise UsageError(
            f"the qwen judge needs the address of an OpenAI-compatible server serving {model}",
            fix=f"serve it (e.g. `{SERVE}`), then export {API_BASE_ENV}=http://HOST:8000/v1 "
            "or pass --judge-opt api_base=http://HOST:8000/v1",
        )
    name = "qwen" if model == DEFAULT_MODEL else f"qwen:{model}"
    defaults = {**DEFAULTS, "model": f"openai/{model}"}
    return build_judge(name, {**options, "api_base": api_base}, defaults)
