"""One chat completion through litellm, with failures turned into typed errors.

litellm's own retries are off (``num_retries=0`` and the OpenAI client's ``max_retries=0``) so
that every 429, 5xx and timeout reaches refig's judging stage, which retries with its own backoff
and adaptive limit and honours ``Retry-After``.
"""

from __future__ import annotations

import email.utils
import os
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from refig.plugin import ErrorInfo, RefigError, Usage, install_fix

from refig_toolkit_llm.options import ChatOptions

#: Placeholder key for servers that want none (vLLM, Ollama): the OpenAI client insists on one.
NO_KEY = "no-key-needed"
#: litellm providers that speak the OpenAI chat API and accept its ``user`` field.
OPENAI_COMPATIBLE = {"openai", "hosted_vllm", "custom_openai", "openai_like"}


def import_litellm() -> ModuleType:
    """Import litellm quietly and offline (its bundled price map, no fetch at import)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:
        raise RefigError("refig's LLM client needs litellm, which is not installed",
                         fix=install_fix("refig-toolkit-llm")) from exc

    litellm.suppress_debug_info = True
    return litellm


@dataclass(frozen=True)
class ChatReply:
    """The text of an answer and what it cost."""

    content: str | None
    model: str
    usage: Usage
    cost_usd: float | None
    seconds: float


class CallError(Exception):
    """A call that got no answer; ``error`` is typed and says whether a retry may help."""

    def __init__(self, error: ErrorInfo):
        super().__init__(error.message)
        self.error = error


def _header(exc: BaseException, name: str) -> str | None:
    for source in (getattr(exc, "litellm_response_headers", None),
                   getattr(getattr(exc, "response", None), "headers", None)):
        if source is not None:
            try:
                value = source.get(name)
            except Exception:  # headers of an unexpected shape: no hint
                value = None
            if value:
                return str(value)
    return None


def retry_after(exc: BaseException) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    millis = _header(exc, "retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = _header(exc, "retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from, outermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def transport_failure(exc: BaseException) -> bool:
    """True when no HTTP answer came back: refused, reset, dropped mid-answer.

    litellm reports these as ``InternalServerError: Connection error`` with status 500, like a
    real 500; only the exception it was raised from (httpx's transport errors, an OS connection
    error) tells them apart. Timeouts are not counted here: they have their own kind.
    """
    import httpx

    for cause in _causes(exc):
        if isinstance(cause, httpx.TimeoutException | TimeoutError):
            return False
        if isinstance(cause, httpx.NetworkError | httpx.RemoteProtocolError | ConnectionError):
            return True
    return False


def classify(litellm: ModuleType, exc: Exception) -> ErrorInfo:
    """Map a litellm exception to a typed error kind."""
    message = f"{type(exc).__name__}: {getattr(exc, 'message', None) or exc}"[:500]
    if isinstance(exc, litellm.Timeout):
        return ErrorInfo(kind="timeout", message=message, retryable=True)
    if isinstance(exc, litellm.RateLimitError):
        return ErrorInfo(kind="rate_limited", message=message, retryable=True,
                         retry_after=retry_after(exc))
    if isinstance(exc, litellm.APIConnectionError) or transport_failure(exc):
        return ErrorInfo(kind="connection", message=message, retryable=True)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        if status == 429:
            return ErrorInfo(kind="rate_limited", message=message, retryable=True,
                             retry_after=retry_after(exc))
        if status >= 500:
            return ErrorInfo(kind="server_error", message=message, retryable=True)
        if status == 408:
            return ErrorInfo(kind="timeout", message=message, retryable=True)
        if status in (401, 403):
            return ErrorInfo(kind="auth", message=message)
        if status == 404:
            return ErrorInfo(kind="not_found", message=message)
        if status in (400, 413, 422):
            return ErrorInfo(kind="bad_request", message=message)
    return ErrorInfo(kind="api_error", message=message)


class ChatClient:
    """Sends chat completions with one set of options (a judge's)."""

    def __init__(self, options: ChatOptions):
        self.options = options
        self.litellm = import_litellm()
        try:
            provider = self.litellm.get_llm_provider(options.model)[1]
        except Exception:  # a model litellm cannot map: its first call will say why
            provider = None
        self.tags_calls = provider in OPENAI_COMPATIBLE

    def params(self) -> dict[str, Any]:
        """The keyword arguments of every call, without the messages."""
        o = self.options
        params: dict[str, Any] = {
            "model": o.model,
            "timeout": o.timeout,
            "num_retries": 0,
            "max_retries": 0,
        }
        optional = {
            "api_base": o.api_base,
            "api_key": o.api_key,
            "temperature": o.temperature,
            "top_p": o.top_p,
            "seed": o.seed,
            "reasoning_effort": o.reasoning_effort,
            "max_tokens": o.max_tokens,
            "input_cost_per_token": o.input_cost_per_token,
            "output_cost_per_token": o.output_cost_per_token,
            "extra_body": o.extra_body,
        }
        params.update({k: v for k, v in optional.items() if v is not None})
        return params

    def complete(self, messages: list[dict[str, Any]], response_format: dict[str, Any],
                 tag: str | None = None) -> ChatReply:
        """One call; raises :class:`CallError` when no answer came back.

        ``tag`` goes out as the OpenAI ``user`` field to OpenAI-compatible servers: repeats of
        one judgment then differ, so no caching gateway answers a repeat from its cache, and
        each judgment's calls (and retries) can be told apart in the server's logs.
        """
        started = time.monotonic()
        params = self.params()
        if tag and self.tags_calls:
            params["extra_body"] = {**params.get("extra_body", {}), "user": tag}
        try:
            response = self.litellm.completion(
                messages=messages, response_format=response_format, **params
            )
        except Exception as exc:
            raise CallError(classify(self.litellm, exc)) from exc
        seconds = time.monotonic() - started
        usage = getattr(response, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None)
        reasoning = getattr(getattr(usage, "completion_tokens_details", None),
                            "reasoning_tokens", None)
        cost = (getattr(response, "_hidden_params", None) or {}).get("response_cost")
        choice = response.choices[0] if response.choices else None
        return ChatReply(
            content=getattr(getattr(choice, "message", None), "content", None),
            model=str(getattr(response, "model", None) or self.options.model),
            usage=Usage(
                input_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                output_tokens=getattr(usage, "completion_tokens", 0) or 0,
                cached_tokens=getattr(details, "cached_tokens", 0) or 0,
                reasoning_tokens=reasoning or 0,
            ),
            cost_usd=None if cost is None else float(cost),
            seconds=seconds,
        )
