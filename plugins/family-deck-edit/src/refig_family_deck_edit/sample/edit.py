"""One generated edit: what the agent is told, the hidden style target, and the exact spec.

The spec lists every change the edit makes as ``(slide, target, field, value)``, in the terms of
the structural diff (:mod:`refig_family_deck_edit.diff`): ``slide`` the original's slide number
(or ``deck``), ``target`` the object's name, ``field`` what changes, ``value`` its new value.
``allow`` names keys that may change as a side effect (a placeholder that inherits a new layout's
geometry) without being asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Edit:
    """The description and exact specification of one edit."""

    instruction: str
    style_target: str
    categories: tuple[str, ...]
    operations: tuple[str, ...]
    expect: list[dict[str, Any]] = field(default_factory=list)
    allow: list[tuple[str, str, str]] = field(default_factory=list)

    def want(self, slide: int | str, target: str, name: str, value: Any) -> None:
        self.expect.append({"slide": str(slide), "target": target, "field": name,
                            "value": value})

    def then(self, other: Edit) -> Edit:
        """Both edits, one after the other (a multi-label case)."""
        return Edit(
            instruction=f"{self.instruction} Then: {other.instruction[0].lower()}"
                        f"{other.instruction[1:]}",
            style_target=f"{self.style_target} {other.style_target}",
            categories=tuple(dict.fromkeys(self.categories + other.categories)),
            operations=tuple(dict.fromkeys(self.operations + other.operations)),
            expect=self.expect + other.expect,
            allow=self.allow + other.allow,
        )

    def spec(self) -> dict[str, Any]:
        """The annotation stored with the task."""
        return {"instruction": self.instruction, "style_target": self.style_target,
                "categories": list(self.categories), "operations": list(self.operations),
                "expect": self.expect, "allow": [list(key) for key in self.allow]}
