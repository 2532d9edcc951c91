"""Model calls every LLM judge shares: one chat completion through litellm (imported only when a
client is built), typed failures (:class:`CallError`), ``Retry-After``, data-URL images, and
:func:`structured_call`, which asks for a strict JSON schema and re-asks on a bad answer."""

from refig.traffic import RetryPolicy

from refig_toolkit_llm.client import (
    NO_KEY,
    OPENAI_COMPATIBLE,
    CallError,
    ChatClient,
    ChatReply,
    classify,
    import_litellm,
    retry_after,
)
from refig_toolkit_llm.images import data_url
from refig_toolkit_llm.options import IDENTITY, ChatOptions
from refig_toolkit_llm.structured import AnswerRejected, Structured, structured_call

__all__ = [
    "IDENTITY",
    "NO_KEY",
    "OPENAI_COMPATIBLE",
    "AnswerRejected",
    "CallError",
    "ChatClient",
    "ChatOptions",
    "ChatReply",
    "RetryPolicy",
    "Structured",
    "classify",
    "data_url",
    "import_litellm",
    "retry_after",
    "structured_call",
]
