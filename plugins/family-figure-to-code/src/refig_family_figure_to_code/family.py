"""The figure-to-code family object: gate, structure, realisation, judge evidence, check rows.

The structural gate reads the program without running it: it exists, is at most 1 MiB, is
text, is not empty, and its extension fits the task's language. Running it is the realiser's
job (the `program` renderer); :meth:`CodeFamily.fold_gate` turns the run's typed failure into
the final gate, so a program that does not run or makes no image scores 0 everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from refig.plugin import (
    Artifact,
    Evidence,
    GateResult,
    Render,
    RenderJob,
    Task,
    TaskFamily,
)
from refig_toolkit_analysis import Section

from refig_family_figure_to_code.execution import MAX_PROGRAM_BYTES
from refig_family_figure_to_code.languages import Language, language_of_file, spec
from refig_family_figure_to_code.roles import FIGURE, REFERENCE_CODE
from refig_family_figure_to_code.structure import ProgramStructure, read_structure

INSPECTOR = "refig-code/1"
REFERENCE_LABEL = "reference image"
GENERATED_LABEL = "generated image"


def task_language(task: Task | None, path: Path) -> Language | None:
    """The task's language, else the one the file's extension says."""
    if task is not None and task.params.get("language"):
        return Language.parse(str(task.params["language"]))
    return language_of_file(path.name)


def _figure_names(task: Task | None) -> tuple[str, ...]:
    figure = task.input(FIGURE) if task is not None else None
    if figure is None:
        return ()
    name = Path(figure.path)
    return (name.name, f"source{name.suffix.lower()}")  # its name in the agent's workspace


class CodeFamily(TaskFamily):
    """Everything specific to figure-to-code tasks that evaluation needs."""

    inspector = INSPECTOR
    #: Gate reasons meaning "not a program of this family at all" (`refig check` exits 1).
    unreadable_reasons = frozenset({"missing"})

    def reference_key(self, task: Task) -> str:
        """The reference code's hash, the key the code metric stores its values under (the
        reference figure is that code's output, so it changes with it)."""
        code = task.input(REFERENCE_CODE)
        return code.sha256 if code is not None else ""

    def render_context(self, task: Task) -> str:
        """Everything in the task besides the program that changes its image: the visible
        inputs by content, size, seed, language and capture protocol (the engine keys a
        program's execution by it, so one program text handed in for two tasks runs twice,
        each time with its own task's inputs). The machine's toolchain is not the task's: it is
        in the realiser's settings, so a report finds the renderings wherever it is read."""
        params = task.params
        return json.dumps({"inputs": {role: asset.sha256 for role, asset
                                      in sorted(task.visible_inputs().items())},
                           "width": params.get("width"), "height": params.get("height"),
                           "seed": params.get("seed"), "language": params.get("language") or "",
                           "capture": params.get("capture") or "refig"},
                          sort_keys=True)

    def inspect(self, path: Path, task: Task | None) -> tuple[GateResult, BaseModel | None]:
        language = task_language(task, path)
        if not path.is_file():
            return GateResult(passed=False, reason="missing", detail=f"no {path.name}"), None
        size = path.stat().st_size
        if size > MAX_PROGRAM_BYTES:
            return GateResult(passed=False, reason="too_large",
                              detail=f"{size:,} bytes, over {MAX_PROGRAM_BYTES:,}"), None
        if language is None:
            return GateResult(passed=False, reason="syntax_error",
                              detail=f"{path.name}: no language (task or extension)"), None
        expected = language_of_file(path.name)
        if expected is not None and expected is not language:
            return GateResult(passed=False, reason="syntax_error",
                              detail=f"{path.name} is not a {language.value} program "
                              f"(expected {spec(language).program_file})"), None
        raw = path.read_bytes()
        if b"\0" in raw:
            return GateResult(passed=False, reason="syntax_error", detail="binary file"), None
        source = raw.decode("utf-8", errors="replace")
        if not source.strip():
            return GateResult(passed=False, reason="no_image", detail="empty program"), None
        return GateResult(passed=True), read_structure(source, language, _figure_names(task))

    def render_job(self, artifact_path: Path, task: Task | None) -> RenderJob:
        return RenderJob(path=artifact_path, pages="first", task=task)

    def fold_gate(self, gate: GateResult, render: Render | None) -> GateResult:
        if not gate.passed:
            return gate
        if render is None:
            return GateResult(passed=False, reason="no_image", detail="not executed")
        if render.error is not None:
            return GateResult(passed=False, reason=render.error.kind, detail=render.error.message)
        if not render.pages:
            return GateResult(passed=False, reason="no_image", detail="no image")
        return gate

    def evidence(self, artifact: Artifact) -> Evidence:
        """The reference image first, then the generated one, each labelled; the program."""
        images: list[tuple[str, Path]] = []
        missing: list[str] = []
        for label, path in ((REFERENCE_LABEL, artifact.source),
                            (GENERATED_LABEL, artifact.pages[0] if artifact.pages else None)):
            if path is None:
                missing.append(label)
            else:
                images.append((label, path))
        try:
            program = artifact.path.read_text("utf-8", errors="replace")[:20_000]
        except OSError:
            program = ""
        return Evidence(images=tuple(images), text=program, text_label="The generated program",
                        missing=tuple(missing))

    def check_row(self, artifact: Artifact) -> dict[str, Any]:
        structure = artifact.structure
        row: dict[str, Any] = {"file": str(artifact.path), "passed": artifact.gate.passed,
                               "reason": artifact.gate.reason, "detail": artifact.gate.detail}
        if isinstance(structure, ProgramStructure):
            row |= {"language": structure.language, "tokens": structure.tokens,
                    "plotting_calls": list(structure.plotting_calls),
                    "smuggling": list(structure.smuggling)}
        return row | {"metrics": dict(artifact.metrics)}

    def report_sections(self) -> Sequence[Section]:
        from refig_family_figure_to_code.report import SECTIONS

        return SECTIONS

    def papers(self) -> Sequence[Any]:
        """FigCodeBench's tables (``--paper figcodebench``)."""
        from refig_family_figure_to_code.paper import FIGCODEBENCH

        return (FIGCODEBENCH,)

    def structure_model(self) -> type[BaseModel] | None:
        return ProgramStructure
