"""A task family in a page: the agent writes a caption (``caption.txt``) for a figure.

It shows the whole family contract: the gate and structure of an artifact (a UTF-8 text file of
at most ``MAX_BYTES``, its words), what a judge is shown, the ``refig check --json`` fields, and
a report section of its own.
"""

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel
from refig.plugin import Evidence, GateResult, RenderJob, TaskFamily
from refig_toolkit_analysis import Column, Context, Section, Table
from refig.plugin import Evidence, GateResult, RenderJob

MAX_BYTES = 64 * 1024


class Caption(BaseModel):
    """The structure of a caption: its words."""

    words: tuple[str, ...]


def caption_lengths(ctx: Context) -> Iterator[Table]:
    """Artifacts per configuration that passed the gate."""
    rows = [{"config": config_id,
             "passed": sum(1 for (_, cid), o in ctx.data.outcomes.items()
                           if cid == config_id and o.passed)}
            for config_id in ctx.data.config_order]
    yield Table("captions", "Captions that passed the gate",
                [Column("config", "configuration"), Column("passed", "passed", "int")], rows)


class CaptionFamily(TaskFamily):
    """The :class:`refig.plugin.TaskFamily` of figure captions."""

    inspector = "caption-1"
    unreadable_reasons = frozenset({"missing", "not_text"})

    def reference_key(self, task):
        figure = task.input("figure")
        return figure.sha256 if figure is not None else ""

    def inspect(self, path: Path, task):
        if not path.is_file():
            return GateResult(passed=False, reason="missing", detail="no caption"), None
        data = path.read_bytes()[: MAX_BYTES + 1]
        if len(data) > MAX_BYTES:
            return GateResult(passed=False, reason="too_large", detail="over 64 KiB"), None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return GateResult(passed=False, reason="not_text", detail="not UTF-8 text"), None
        if not text.strip():
            return GateResult(passed=False, reason="empty", detail="the caption is empty"), None
        return GateResult(passed=True), Caption(words=tuple(text.split()))

    def render_job(self, artifact_path: Path, task) -> RenderJob:
        return RenderJob(artifact_path, pages="first", task=task)

    def fold_gate(self, gate: GateResult, render) -> GateResult:
        return gate  # nothing to render: the structural verdict is final

    def evidence(self, artifact) -> Evidence:
        figure = artifact.references.get("figure")
        caption = " ".join(artifact.structure.words) if artifact.structure else ""
        return Evidence(images=((("The figure", figure),) if figure else ()),
                        text=caption, text_label="The agent's caption",
                        missing=() if figure else ("The figure",))

    def check_row(self, artifact) -> dict:
        return {"words": len(artifact.structure.words) if artifact.structure else None}

    def report_sections(self):
        return (Section("captions", caption_lengths, after="means"),)

    def structure_model(self):
        return Caption
