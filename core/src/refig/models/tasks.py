"""What a suite holds and what is run on it: inputs, tasks, the manifest, configurations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, model_validator

from refig.models.record import ID_PATTERN, SCHEMA_VERSION, SHA256_PATTERN, Record, utcnow


class Asset(Record):
    """One input file of a task, relative to the suite directory; ``visible`` inputs are given to
    the agent (copied into its workspace), hidden ones only reach evaluation."""

    path: str
    sha256: str = Field(pattern=SHA256_PATTERN)
    visible: bool = True


class Task(Record):
    """One item of a suite: the family it belongs to and its input files by role.

    Roles are the family's (a slide family's: ``figure`` visible, ``annotation`` hidden).
    ``cluster`` groups tasks that share a source, for cluster bootstraps; it defaults to the id.
    """

    id: str = Field(pattern=ID_PATTERN)
    family: str = Field(pattern=ID_PATTERN)
    inputs: dict[str, Asset] = Field(default_factory=dict)
    instruction: str | None = None
    cluster: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    def input(self, role: str) -> Asset | None:
        """The input of ``role``, or None when the task has none."""
        return self.inputs.get(role)

    def visible_inputs(self) -> dict[str, Asset]:
        """The inputs the agent is given, by role."""
        return {role: asset for role, asset in self.inputs.items() if asset.visible}

    @property
    def cluster_id(self) -> str:
        """The source cluster this task belongs to."""
        return self.cluster or self.id


class SuiteManifest(Record):
    """``suite.json``: what a suite is and how it was built."""

    schema_version: int = SCHEMA_VERSION
    name: str
    version: str
    family: str = Field(pattern=ID_PATTERN)
    builder: str
    params: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)
    description: str = ""


class Configuration(Record):
    """A (model, harness, workflow) triple plus options, with a stable readable id.

    The id reads ``model@harness/workflow``, e.g. ``gpt-5.5@codex/direct``; options add a sorted
    suffix such as ``[effort=xhigh]`` so two option sets never share an id. ``local`` holds the
    options that only say where something is on this machine (a harness's ``local_options``,
    e.g. an oracle's ``suite=DIR``): handed to the harness with the others, but neither stored
    nor part of the id, so one suite at two paths is one configuration and its run resumes.
    """

    model: str
    harness: str
    workflow: str
    options: dict[str, str] = Field(default_factory=dict)
    local: dict[str, str] = Field(default_factory=dict, exclude=True)
    id: str = ""

    @property
    def harness_options(self) -> dict[str, str]:
        """Every option the harness is made with: the identifying ones and the local ones."""
        return {**self.options, **self.local}

    @model_validator(mode="after")
    def _derive_id(self) -> Configuration:
        expected = self.model + "@" + self.harness + "/" + self.workflow
        if self.options:
            pairs = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
            expected += f"[{pairs}]"
        if self.id and self.id != expected:
            raise ValueError(f"configuration id {self.id!r} does not match {expected!r}")
        object.__setattr__(self, "id", expected)
        return self
