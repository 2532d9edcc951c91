"""Loose files as an :class:`~refig.engine.engine.ArtifactSource`: what ``refig check`` runs on.

Nothing is stored: inspections, renderings, gates and metric values are kept in memory for the
report, the rendered pages are written to a folder (a temporary one, or ``--pages DIR``). Files
with the same bytes are evaluated once. The task, when inputs are given (``--source``,
``--input ROLE=PATH``), is one task ``check`` of the family holding them by role.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from refig.engine.plugins import family_for
from refig.engine.stages import Item, Rendered, final_gate
from refig.integrity import Damage
from refig.models import Asset, GateResult, Inspection, MetricValue, Render, Task
from refig.protocols import Artifact, Executor
from refig.store import sha256_file

#: Files larger than this (200 MiB, the PPTX toolkit's ``Limits.max_file_bytes`` too) are not
#: hashed: a huge file costs no read before its family's gate refuses it and says why.
MAX_HASHED_BYTES = 200 << 20


def check_task(family: str, inputs: Mapping[str, Path],
               visible: Mapping[str, bool]) -> Task | None:
    """The task ``check`` of ``family`` holding ``inputs`` by role, or None without inputs."""
    if not inputs:
        return None
    return Task(id="check", family=family, inputs={
        role: Asset(path=str(path), sha256=sha256_file(path), visible=visible.get(role, True))
        for role, path in inputs.items()
    })


def file_sha256(path: Path) -> str | None:
    """The file's sha256, or None when it is missing, not a regular file or too large."""
    with contextlib.suppress(OSError):  # unreadable: the gate names the cause
        if path.is_file() and path.stat().st_size <= MAX_HASHED_BYTES:
            return sha256_file(path)
    return None


@dataclass
class FileSource:
    """The files given to ``refig check``, in order; results kept for :meth:`artifact_of`."""

    family: str
    files: Sequence[str]
    pages_dir: Path
    task: Task | None = None
    shas: list[str | None] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    kept_inspections: dict[str, Inspection] = field(default_factory=dict)
    kept_renders: dict[str, Render] = field(default_factory=dict)
    kept_pages: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    kept_gates: dict[str, GateResult] = field(default_factory=dict)
    kept_values: dict[str, list[MetricValue]] = field(default_factory=dict)

    def damage(self) -> Damage | None:
        return None

    def reference_items(self, items: Sequence[Item], damage: Damage | None) -> list[Item]:
        """Loose files are checked alone: no reference is rendered beside them."""
        return []

    def items(self, damage: Damage | None) -> list[Item]:
        inputs = tuple((role, asset.path) for role, asset in self.task.visible_inputs().items()
                       ) if self.task else ()
        items: dict[str, Item] = {}
        for index, name in enumerate(self.files):
            sha = file_sha256(Path(name))
            key = sha or f"unhashed-{index}"
            self.shas.append(sha)
            self.keys.append(key)
            items.setdefault(key, Item(key, name, self.family, self.task, inputs))
        return list(items.values())

    def inspecting(self, inspector: str, executor: Executor) -> Executor:
        return executor

    def rendering(self, name: str, settings: str, executor: Executor) -> Executor:
        return executor

    def measuring(self, metric: str, version: str, executor: Executor) -> Executor:
        return executor

    def inspected(self, inspector: str) -> set[str]:
        return set(self.kept_inspections)

    def inspections(self, inspector: str) -> dict[str, Inspection]:
        return dict(self.kept_inspections)

    def keep_inspection(self, inspection: Inspection) -> None:
        self.kept_inspections[inspection.artifact_sha256] = inspection

    def use_renderer(self, name: str, settings: str) -> None:
        return None

    def renders(self, name: str, settings: str, *, whole: bool = False) -> dict[str, Render]:
        return dict(self.kept_renders)

    def keep_render(self, rendered: Rendered) -> None:
        sha = rendered.render.artifact_sha256
        self.kept_renders[sha] = rendered.render
        stem = Path(self.files[self.keys.index(sha)]).stem
        pages = []
        for index, png in enumerate(rendered.pngs):
            page = self.pages_dir / f"{stem}-{sha[:8]}-{index + 1}.png"
            page.write_bytes(png)
            pages.append(page)
        self.kept_pages[sha] = tuple(pages)

    def keep_gates(self, values: Sequence[MetricValue]) -> None:
        return None  # the gates are folded again per artifact (:meth:`artifacts`)

    def measured(self, versions: Mapping[str, str]) -> set[tuple[str, str, str]]:
        return set()

    def keep_values(self, values: Sequence[MetricValue]) -> int:
        for value in values:
            self.kept_values.setdefault(value.artifact_sha256, []).append(value)
        return len(values)

    def artifacts(self, inspections: Mapping[str, Inspection], renders: Mapping[str, Render],
                  gates: Mapping[str, GateResult], damage: Damage | None) -> Iterator[Artifact]:
        self.kept_gates.update(gates)
        for key in dict.fromkeys(self.keys):
            artifact = self.artifact_of(key)
            if artifact is not None:
                yield artifact

    def artifact_of(self, key: str) -> Artifact | None:
        """What the metrics (and the family's check row) see of one distinct file, with the
        values measured so far; None when it was not inspected."""
        inspection = self.kept_inspections.get(key)
        if inspection is None:
            return None
        render = self.kept_renders.get(key)
        model = family_for(self.family).structure_model()
        gate = self.kept_gates.get(key) or final_gate(inspection, render, self.family)
        references = ({role: Path(asset.path) for role, asset in self.task.inputs.items()}
                      if self.task else {})
        values = self.kept_values.get(key, [])
        return Artifact(
            path=Path(self.files[self.keys.index(key)]),
            sha256=key,
            gate=gate,
            family=self.family,
            structure=inspection.parsed(model) if model is not None else inspection.structure,
            pages=self.kept_pages.get(key, ()),
            task=self.task,
            references=references,
            metrics={f"{v.metric}.{v.name}": v.value for v in values},
        )
