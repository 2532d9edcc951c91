"""Building a metric plugin's values: one artifact, one metric, one version, one reference."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from refig.models import MetricValue, Task
from refig.protocols import Artifact


@dataclass(frozen=True)
class ValueMaker:
    """Stamps values with the artifact hash, metric name, version and reference hash.

    ``missing`` is how a metric reports that it could not measure (no render, no tree, no source):
    the same names with ``value=None`` and the reason in ``detail``, never an exception.
    """

    artifact: Artifact
    metric: str
    version: str
    reference_sha256: str | None = None

    def value(
        self, name: str, value: float | None, *, objects: tuple[bytes, ...] = (), **detail: Any
    ) -> MetricValue:
        """One number (or None) with its detail; detail entries that are None are left out.
        ``objects``: files (pictures) the run keeps with the value, listed by sha256 in its
        detail's ``objects`` so a viewer may show them."""
        if objects:
            detail["objects"] = [hashlib.sha256(data).hexdigest() for data in objects]
        return MetricValue(
            artifact_sha256=self.artifact.sha256,
            metric=self.metric,
            name=name,
            value=None if value is None else float(value),
            reference_sha256=self.reference_sha256,
            version=self.version,
            detail={key: item for key, item in detail.items() if item is not None},
            objects=objects,
        )

    def missing(self, names: Iterable[str], reason: str, **detail: Any) -> Iterator[MetricValue]:
        """Every name as None, with ``reason`` in its detail."""
        for name in names:
            yield self.value(name, None, reason=reason, **detail)


def unavailable(what: str, artifact: Artifact) -> str:
    """Why an input is missing, saying when the gate failed: ``"no object tree (gate failed)"``."""
    return what if artifact.gate.passed else f"{what} (gate failed)"


def task_source_sha256(task: Task) -> str | None:
    """The hash of a task's source: its figure, else its deck."""
    asset = task.input("figure") or task.input("deck")
    return asset.sha256 if asset is not None else None


def source_sha256(artifact: Artifact) -> str | None:
    """The hash of the artifact's source (its figure or deck): the task's, else computed."""
    if artifact.task is not None:
        return task_source_sha256(artifact.task)
    if artifact.source is None or not artifact.source.is_file():
        return None
    with artifact.source.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
