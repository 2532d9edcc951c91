"""The messages a rubric judge sends: the rubric, the evidence images as data URLs, the text."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from refig.plugin import Evidence, Rubric
from refig_toolkit_llm import data_url

#: Bumped when the framing of the messages changes, so cached judgments are not reused.
PROMPT_VERSION = "1"

def judge_messages(rubric: Rubric, evidence: Evidence, *,
                   max_side: int) -> list[dict[str, Any]]:
    """System: the rubric. User: the evidence its family frames, numbered: each image with the
    label the judge is told (the source figure, the rendering), then the text (the audit)."""
    content: list[dict[str, Any]] = []
    for number, (label, path) in enumerate(evidence.images, 1):
        content.append({"type": "text", "text": f"{number}. {label}:"})
        content.append({"type": "image_url", "image_url": {"url": data_url(path, max_side),
                                                           "detail": "high"}})
    if evidence.text:
        label = evidence.text_label or "Notes"
        content.append({"type": "text",
                        "text": f"{len(evidence.images) + 1}. {label}:\n{evidence.text}"})
    return [{"role": "system", "content": rubric.prompt()}, {"role": "user", "content": content}]


@functools.cache
def prompt_digest() -> str:
    """sha256 of this module's text: the code that frames every message besides the rubric
    (whose own digest is stored apart), so any edit of the framing shows in the manifest."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def correction(error: str) -> dict[str, Any]:
    """The message that quotes a rejected answer's problem back to the model."""
    return {
        "role": "user",
        "content": (
            f"Your answer was rejected: {error}. Reply again with only the JSON object: every "
            "axis with a rationale and a score within its range, and total equal to the sum."
        ),
    }
