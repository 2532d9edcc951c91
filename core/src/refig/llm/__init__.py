"""Model calls every LLM judge shares: one chat completion through litellm (imported only when a
client is built), typed failures (:class:`CallError`), ``Retry-After``, data-URL images, and
:func:`structured_call`, which asks for a strict JSON schema and re-asks on a bad answer."""

from refig.llm.client import (
    NO_KEY,
    OPENAI_COMPATIBLE,
    CallError,
    ChatClient,
    ChatReply,
    classify,
    import_litellm,
    retry_after,
)
from refig.llm.images import data_url
from refig.llm.options import IDENTITY, ChatOptions

__all__ = [
    "IDENTITY",
    "NO_KEY",
    "OPENAI_COMPATIBLE",
    "CallError",
    "ChatClient",
    "ChatOptions",
    "ChatReply",
    "classify",
    "data_url",
    "import_litellm",
    "retry_after",
]
