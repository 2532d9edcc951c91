"""The baselines as harnesses: each writes one program (``figure.<ext>``) into the workspace.

They need no model and run nothing themselves: the program is executed at evaluation, like an
agent's. ``reference`` copies the task's hidden reference program, which no attempt workspace
holds, so it reads it from the run's suite (``refig run`` gives it as ``suite=DIR``, a local
option; ``--harness-opt suite=DIR`` names another copy).
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

from refig.plugin import AttemptContext, ErrorInfo, Harness, HarnessResult, Usage, UsageError
from refig_family_figure_to_code.languages import Language, spec
from refig_family_figure_to_code.roles import PROGRAM

from refig_harness_code_baselines import __version__
from refig_harness_code_baselines.programs import blank, smuggle

KINDS = ("reference", "blank", "smuggle")


class CodeBaseline(Harness):
    """Writes the baseline's program for one attempt."""

    def __init__(self, kind: str, **options: str):
        if kind not in KINDS:
            raise UsageError(f"unknown code baseline {kind!r}")
        allowed = {"suite"} if kind == "reference" else set()
        extra = set(options) - allowed
        if extra:
            raise UsageError(f"the {kind} baseline takes no option {', '.join(sorted(extra))}",
                             fix="--harness-opt suite=DIR is the only one (reference)")
        if kind == "reference" and not options.get("suite"):
            raise UsageError("the reference baseline needs the suite its hidden programs are in",
                             fix="add --harness-opt suite=SUITE_DIR")
        self.kind = kind
        self.suite = Path(options["suite"]).resolve() if options.get("suite") else None

    def _reference(self, ctx: AttemptContext) -> str:
        asset = ctx.task.input("reference_code")
        if asset is None or self.suite is None:
            raise UsageError(f"task {ctx.task.id} has no reference_code input")
        path = (self.suite / asset.path).resolve()
        if not path.is_relative_to(self.suite) or not path.is_file():
            raise UsageError(f"the reference program of {ctx.task.id} is not in {self.suite}")
        return path.read_text("utf-8", errors="replace")

    def run(self, ctx: AttemptContext) -> HarnessResult:
        language = Language.parse(str(ctx.task.params.get("language", "python")))
        width = int(ctx.task.params.get("width", 640))
        height = int(ctx.task.params.get("height", 480))
        error = None
        try:
            if self.kind == "reference":
                program = self._reference(ctx)
            elif self.kind == "blank":
                program = blank(language, width, height)
            else:
                program = smuggle(language, ctx.source, width, height)
        except (UsageError, OSError) as exc:
            program, error = None, ErrorInfo(kind="setup_error", message=str(exc))
        target = ctx.workspace / spec(language).program_file
        if program is not None:
            target.write_text(program, encoding="utf-8")
        transcript = (ctx.outputs_dir or ctx.workspace.parent) / "transcript.jsonl"
        transcript.write_text(json.dumps({"baseline": self.kind, "language": language.value,
                                          "program": target.name}) + "\n")
        outputs = {"transcript": transcript, **({PROGRAM: target} if program is not None else {})}
        return HarnessResult(exit_code=0 if error is None else 1, error=error, outputs=outputs,
                             turns=0, usage=Usage(), cost_usd=0.0,
                             harness_version=__version__,
                             cli_version=f"python {platform.python_version()}")
