"""The baselines as harnesses: ``identity`` returns the original deck unchanged, ``oracle``
returns the hidden target (for validating judges; every table marks it as an oracle)."""

from __future__ import annotations

import platform
import shutil
from pathlib import Path
from typing import Any

from refig.plugin import ErrorInfo, HarnessResult, Usage, UsageError

from refig_family_deck_edit.cases import DECK, TARGET

EDITED = "edited.pptx"


class CopyHarness:
    """Copies one input of the task to ``edited.pptx`` in the workspace."""

    def __init__(self, role: str, **options: str):
        if options:
            raise UsageError(f"this baseline takes no options, not {', '.join(sorted(options))}",
                             fix="drop --harness-opt")
        self.role = role

    def _input(self, ctx: Any) -> Path | None:
        if self.role == DECK:
            visible = ctx.workspace / Path(ctx.source).name
            return visible if visible.is_file() else Path(ctx.source)
        references = getattr(ctx, "references", None) or {}
        found = references.get(self.role)
        return Path(found) if found else None

    def run(self, ctx: Any) -> HarnessResult:
        source = self._input(ctx)
        edited = ctx.workspace / EDITED
        error = None
        if source is None or not source.is_file():
            error = ErrorInfo(kind="missing_input",
                              message=f"the task has no {self.role} deck for this baseline")
        else:
            shutil.copyfile(source, edited)
        return HarnessResult(
            exit_code=0 if error is None else 1, error=error,
            extra_outputs={"deck": edited} if edited.is_file() else {},
            turns=0, usage=Usage(), cost_usd=0.0, harness_version="1",
            cli_version=f"python {platform.python_version()}",
        )


def identity(**options: str) -> CopyHarness:
    return CopyHarness(DECK, **options)


def oracle(**options: str) -> CopyHarness:
    return CopyHarness(TARGET, **options)
