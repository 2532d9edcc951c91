"""The baselines as harnesses: ``identity`` returns the original deck unchanged, ``oracle``
returns the hidden target (for validating judges; every table marks it as an oracle).

An attempt's workspace holds only the visible inputs, so the oracle reads the target from the
suite: ``--harness-opt suite=DIR`` (the target's sha256 is checked against the task's), or the
context's ``references`` when the core hands a harness the task's hidden inputs.
"""

from __future__ import annotations

import hashlib
import platform
import shutil
from pathlib import Path
from typing import Any

from refig.plugin import ErrorInfo, Harness, HarnessResult, Usage, UsageError

from refig_family_deck_edit.cases import DECK, TARGET

EDITED = "edited.pptx"


class CopyHarness(Harness):
    """Copies one input of the task to ``edited.pptx`` in the workspace."""

    def __init__(self, role: str, suite: str | None = None, **options: str):
        if options:
            raise UsageError(f"this baseline takes no options but suite, not "
                             f"{', '.join(sorted(options))}", fix="drop --harness-opt")
        self.role = role
        self.suite = Path(suite) if suite else None

    def _input(self, ctx: Any) -> Path | None:
        if self.role == DECK:
            return Path(ctx.source)
        references = getattr(ctx, "references", None) or {}
        if references.get(self.role):
            return Path(references[self.role])
        asset = ctx.task.input(self.role)
        if self.suite is None or asset is None:
            return None
        path = (self.suite / asset.path).resolve()
        if not path.is_relative_to(self.suite.resolve()) or not path.is_file():
            return None
        return path if hashlib.sha256(path.read_bytes()).hexdigest() == asset.sha256 else None

    def run(self, ctx: Any) -> HarnessResult:
        source = self._input(ctx)
        edited = ctx.workspace / EDITED
        error = None
        if source is None or not source.is_file():
            hint = "" if self.role == DECK else " (give it --harness-opt suite=SUITE_DIR)"
            error = ErrorInfo(kind="missing_input",
                              message=f"the task's {self.role} deck is not available{hint}")
        else:
            shutil.copyfile(source, edited)
        return HarnessResult(
            exit_code=0 if error is None else 1, error=error,
            outputs={DECK: edited} if edited.is_file() else {},
            turns=0, usage=Usage(), cost_usd=0.0, harness_version="1",
            cli_version=f"python {platform.python_version()}",
        )


def identity(**options: str) -> CopyHarness:
    if options:
        raise UsageError(f"the identity baseline takes no options, not "
                         f"{', '.join(sorted(options))}", fix="drop --harness-opt")
    return CopyHarness(DECK)


def oracle(**options: str) -> CopyHarness:
    return CopyHarness(TARGET, **options)
