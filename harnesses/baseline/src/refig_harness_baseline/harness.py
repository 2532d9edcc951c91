"""The baselines as harnesses: a real subprocess in the workspace, through refig's sandbox.

Like an agent, each baseline reads ``source.*``, writes ``build_slide.py`` and runs it to make
``slide.pptx``, which the run finds by the family's deliverables; its JSON-lines progress on
stdout is the transcript. It needs no model and no
network, so its sandbox has none.
"""

from __future__ import annotations

import platform
import sys

from refig.plugin import (
    AttemptContext,
    ErrorInfo,
    Harness,
    HarnessResult,
    Usage,
    UsageError,
    run_command,
)

from refig_harness_baseline import __version__

TRANSCRIPT = "transcript.jsonl"


class BaselineHarness(Harness):
    """Runs ``python -m refig_harness_baseline.<module> SOURCE`` for one attempt."""

    def __init__(self, module: str, **options: str):
        if options:
            raise UsageError(f"the {module.replace('_', '-')} baseline takes no options, "
                             f"not {', '.join(sorted(options))}", fix="drop --harness-opt")
        self.module = module

    def run(self, ctx: AttemptContext) -> HarnessResult:
        outputs = ctx.outputs_dir or ctx.workspace.parent
        transcript = outputs / TRANSCRIPT
        with transcript.open("wb") as handle:
            done = run_command(
                ctx,
                [sys.executable, "-m", f"refig_harness_baseline.{self.module}", ctx.source.name],
                stdout=handle,
                network=False,
            )
        error = None
        if done.timed_out:
            error = ErrorInfo(kind="timeout", message="the baseline reached the attempt's deadline",
                              retryable=True)
        return HarnessResult(
            exit_code=done.exit_code,
            error=error,
            outputs={"transcript": transcript},
            turns=0,
            usage=Usage(),
            cost_usd=0.0,
            harness_version=__version__,
            cli_version=f"python {platform.python_version()}",
        )
