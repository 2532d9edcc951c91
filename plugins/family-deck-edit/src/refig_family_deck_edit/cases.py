"""A deck-edit case as the suite builders produce it, and how it becomes a suite task.

Roles (the family's task schema): ``deck`` the original (visible), ``target`` the human or exact
target deck (hidden), ``style_target`` the per-case scoring constraints as UTF-8 text (hidden: a
hidden input rather than a param, since workflows may show a task's params to the agent),
``edit_spec`` the exact edit specification of a generated case (hidden).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from refig.plugin import RefigError

DECK, TARGET, STYLE_TARGET, EDIT_SPEC = "deck", "target", "style_target", "edit_spec"


class CaseError(RefigError):
    """A case that cannot be scored honestly (its target is its original, or paths swapped)."""


@dataclass
class DeckCase:
    """One task's files and facts before they are written."""

    id: str
    original: bytes
    target: bytes
    instruction: str
    style_target: str = ""
    categories: tuple[str, ...] = ()
    edit_type: str = ""
    operations: tuple[str, ...] = ()
    hard: bool = False
    spec: Mapping[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Refuse a case whose target is byte-identical to its original.

        A public evaluation script of PPTArena passed the original deck as the ground truth, so
        an agent that did nothing scored full marks; such a case measures nothing.
        """
        if hashlib.sha256(self.original).digest() == hashlib.sha256(self.target).digest():
            raise CaseError(
                f"case {self.id}: the target deck is byte-identical to the original",
                fix="point the case at the edited ground-truth deck, not a copy of the original",
            )


def write_case(writer: Any, case: DeckCase) -> Any:
    """Write ``case``'s files through the suite writer and add its task."""
    case.check()
    inputs = {
        DECK: writer.asset(f"assets/{case.id}/original.pptx", case.original, visible=True),
        TARGET: writer.asset(f"assets/{case.id}/target.pptx", case.target, visible=False),
        STYLE_TARGET: writer.asset(f"assets/{case.id}/style_target.txt",
                                   case.style_target.encode(), visible=False),
    }
    if case.spec is not None:
        import json

        text = json.dumps(case.spec, indent=2, sort_keys=True, ensure_ascii=False).encode()
        inputs[EDIT_SPEC] = writer.asset(f"assets/{case.id}/edit_spec.json", text, visible=False)
    meta = {"categories": list(case.categories), "edit_type": case.edit_type,
            "operations": list(case.operations), "hard": case.hard, **case.meta}
    return writer.add_task(case.id, inputs, instruction=case.instruction, meta=meta)


def style_target(references: Mapping[str, Any]) -> str:
    """The hidden style target of a task from its references (empty when it has none)."""
    from pathlib import Path

    path = references.get(STYLE_TARGET)
    return Path(path).read_text(encoding="utf-8", errors="replace")[:20_000] if path else ""
