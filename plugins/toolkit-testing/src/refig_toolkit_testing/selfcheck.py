"""Drive a harness, offline, against the scripted model server: ``refig harness check`` and tests.

One attempt in a real attempt directory (workspace, private home, outputs), in the sandbox refig
would use, with a generated source figure; the harness's upstream is a
:class:`refig_toolkit_testing.scripted.ScriptedServer`, so no network and no key are needed. The
result carries the harness's record and the server's own log of what it served, to compare.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refig.models import Asset, Task
from refig.protocols import AttemptContext, HarnessResult, Prompt
from refig.running.sandbox import SandboxPolicy
from refig.running.workspace import AttemptDirs, attempt_env, default_root
from refig_toolkit_agent.gateway.calls import ModelCall, read_calls

from refig_toolkit_testing.scripted import (
    DEFAULT_SCRIPT,
    FAULTS,
    Action,
    Fault,
    ScriptedServer,
    Served,
)

#: The faults ``check_harness`` can inject come with it (``refig harness check --fault``).
__all__ = ["FAULTS", "CheckOutcome", "Fault", "check_harness", "draw_source", "served_cost"]

#: The self-check is a figure-to-slide task: the scripted agent leaves a slide and its program.
FAMILY = "figure-to-slide"
SLIDE_FILE, PROGRAM_FILE = "slide.pptx", "build_slide.py"
CHECK_PROMPT = (
    "Rebuild the figure in source.png as a single, natively editable PowerPoint slide: write a "
    "Python program build_slide.py that uses python-pptx to create slide.pptx in this directory, "
    "run it, and check that slide.pptx holds exactly one slide."
)


def draw_source(path: Path) -> Path:
    """A small diagram (three labelled boxes joined by arrows) as a PNG source figure."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (640, 240), "white")
    draw = ImageDraw.Draw(image)
    for column, label in enumerate(("Input", "Model", "Output")):
        left = 40 + column * 220
        draw.rounded_rectangle((left, 80, left + 140, 160), radius=12, outline="black", width=3)
        draw.text((left + 45, 112), label, fill="black")
        if column < 2:
            draw.line((left + 140, 120, left + 220, 120), fill="black", width=3)
            draw.polygon([(left + 220, 120), (left + 208, 113), (left + 208, 127)], fill="black")
    image.save(path)
    return path


@dataclass
class CheckOutcome:
    """A harness's result next to what the scripted server served."""

    result: HarnessResult
    served: list[Served]
    calls: list[ModelCall]
    dirs: AttemptDirs
    seconds: float
    totals: dict[str, int] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def slide(self) -> Path | None:
        """The slide the agent left in the workspace, if any."""
        return self.workspace_file(SLIDE_FILE)

    @property
    def program(self) -> Path | None:
        """The program the agent left in the workspace, if any."""
        return self.workspace_file(PROGRAM_FILE)

    def workspace_file(self, name: str) -> Path | None:
        path = self.dirs.workspace / name
        return path if path.is_file() else None

    def remove(self) -> None:
        self.dirs.remove()

    def __enter__(self) -> CheckOutcome:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def mismatches(self) -> list[str]:
        """Where the attempt record or the gateway's calls differ from the server's own log."""
        result = self.result
        problems: list[str] = []
        recorded = {"turns": result.turns or 0, **result.usage.model_dump()}
        served = {key: self.totals[key] for key in recorded}
        if recorded != served:
            problems.append(f"attempt record {recorded} != served {served}")
        if len(self.calls) != len(self.served):
            problems.append(f"{len(self.calls)} calls recorded, {len(self.served)} served")
        for call, seen in zip(self.calls, self.served, strict=False):
            mine = (call.ok, call.input_tokens, call.output_tokens, call.cached_tokens,
                    call.cache_write_tokens, call.reasoning_tokens)
            theirs = (seen.completed, seen.input_tokens, seen.output_tokens, seen.cached_tokens,
                      seen.cache_write_tokens, seen.reasoning_tokens)
            if mine != theirs:
                problems.append(f"call {call.index}: recorded {mine} != served {theirs}")
        return problems


def served_cost(served: Sequence[Served], *, input: float, output: float, cache_read: float,
                cache_write: float) -> float:
    """What the server's log of tokens costs at these per-token prices (the server's ledger)."""
    return sum(
        (s.input_tokens - s.cached_tokens - s.cache_write_tokens) * input
        + s.cached_tokens * cache_read + s.cache_write_tokens * cache_write
        + s.output_tokens * output
        for s in served
    )


def check_harness(
    harness: Any,
    *,
    faults: Sequence[Fault] = (),
    model: str | None = None,
    timeout: float = 300.0,
    sandbox: str = "auto",
    options: dict[str, str] | None = None,
    root: Path | None = None,
    script: Sequence[Action] = DEFAULT_SCRIPT,
) -> CheckOutcome:
    """Run one attempt of ``harness`` (a :class:`refig_toolkit_agent.adapter.CliHarness`) offline.

    ``model`` defaults to the harness's example model: the CLIs choose their tools by model name.
    """
    model = model or harness.example_model
    attempt_id = f"check-{uuid.uuid4().hex[:12]}"
    policy = SandboxPolicy.create(sandbox, protected=(), agent=True)
    dirs = AttemptDirs.create(root or default_root(), attempt_id)
    try:
        source = draw_source(dirs.workspace / "source.png")
        figure = Asset(path="source.png", sha256=hashlib.sha256(source.read_bytes()).hexdigest())
        task = Task(id="check", family=FAMILY, inputs={"figure": figure})
        with ScriptedServer(script, faults=faults, model=model,
                            workspace=dirs.workspace) as server:
            ctx = AttemptContext(
                task=task, workspace=dirs.workspace, source=source,
                prompt=Prompt(CHECK_PROMPT, version="check-1"), model=model,
                deadline=time.monotonic() + timeout, env=attempt_env(dirs, attempt_id),
                options={"upstream": server.url + harness.provider.mount, **(options or {})},
                log=dirs.log, attempt_id=attempt_id, home=dirs.home, outputs_dir=dirs.outputs,
                sandbox=policy,
            )
            started = time.monotonic()
            result = harness.run(ctx)
            seconds = time.monotonic() - started
            served = list(server.served)
            totals = server.model.totals()
            requests = [r.json() for r in server.requests if r.method == "POST"]
        calls_log = result.outputs.get("calls")
        calls = read_calls(calls_log) if calls_log is not None and calls_log.exists() else []
    except BaseException:
        dirs.remove()  # the caller gets no outcome to remove them with
        raise
    return CheckOutcome(result, served, calls, dirs, seconds, totals, requests)
