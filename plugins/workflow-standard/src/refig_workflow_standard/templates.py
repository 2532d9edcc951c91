"""Which prompt template a workflow uses for a task, and how it is filled in.

A task family points each workflow it supports to a versioned template file
(``TaskFamilyRecord.prompts``: ``{"direct": .../direct.v1.md}``); the file's stem is the version
recorded with each attempt (``direct.v1``) and the rendered text's sha256 its prompt hash. The
figure-to-slide templates of this package are used for that family when its record names none.

Templates are Jinja2 (undefined names are errors) and see only what the agent may see: the
workspace names of the visible inputs, the instruction and the task's params; never a hidden
input, never the task's meta.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from refig.plugin import Task, UsageError, source_name

FIGURE_TO_SLIDE = "figure-to-slide"

#: Roles of data files a program reads (figure-to-code: ``data/points.csv``).
DATA_PREFIX = "data/"

#: Looks up a family's templates by workflow name.
PromptTable = Callable[[str], Mapping[str, Path]]


@functools.cache
def family_prompts(family: str) -> Mapping[str, Path]:
    """The templates the installed family ``family`` declares, by workflow name."""
    from refig.plugin import installed_records

    record = next((r for r in installed_records("family") if r.name == family), None)
    return dict(getattr(record, "prompts", None) or {})


def own_template(name: str) -> Path | None:
    """This package's ``prompts/<name>.v<N>.md`` with the highest N (figure-to-slide's)."""
    folder = resources.files(__package__).joinpath("prompts")
    found = sorted((int(p.name.split(".v")[1].split(".")[0]), p.name)
                   for p in folder.iterdir() if p.name.startswith(f"{name}.v"))
    return Path(str(folder.joinpath(found[-1][1]))) if found else None


@dataclass(frozen=True)
class Template:
    """One versioned template file."""

    path: Path

    @property
    def version(self) -> str:
        """``direct.v1`` for ``direct.v1.md`` (``direct`` for an unversioned ``direct.md``)."""
        return self.path.name.removesuffix(".md")

    def render(self, **context: Any) -> str:
        environment = jinja2.Environment(undefined=jinja2.StrictUndefined,
                                         keep_trailing_newline=True, autoescape=False)
        try:
            return environment.from_string(self.path.read_text(encoding="utf-8")).render(context)
        except jinja2.TemplateError as exc:
            raise UsageError(f"prompt template {self.path} cannot be filled in: {exc}",
                             fix="fix the template, or the task that lacks what it names") from exc


def _version(name: str) -> int:
    number = name.rsplit(".v", 1)[1] if ".v" in name else ""
    return int(number) if number.isdigit() else -1


def latest(table: Mapping[str, Path], workflow: str) -> Path | None:
    """The highest ``<workflow>.vN`` entry of a table keyed by versioned names."""
    versions = [key for key in table if key.startswith(f"{workflow}.v") and _version(key) >= 0]
    return table[max(versions, key=_version)] if versions else None


def find_template(workflow: str, family: str, prompts: PromptTable = family_prompts) -> Template:
    """The template ``workflow`` uses for ``family``; a usage error naming what the family has."""
    table = prompts(family)
    path = table.get(workflow) or latest(table, workflow)
    if path is None and family == FIGURE_TO_SLIDE:
        path = own_template(workflow)
    if path is None:
        supported = sorted({key.split(".v", 1)[0] for key in table})
        if not supported and family == FIGURE_TO_SLIDE:
            supported = ["direct", "specialized"]
        raise UsageError(
            f"workflow {workflow} has no prompt for the {family} family",
            fix=f"choose one of the workflows {family} supports: {', '.join(supported)}"
            if supported else f"the {family} family declares no prompt templates")
    if not Path(path).is_file():
        raise UsageError(f"the {family} family's {workflow} template {path} does not exist")
    return Template(Path(path))


def context(task: Task, harness: str) -> dict[str, Any]:
    """What a template may use: visible things only (``data_files``: the names the task's
    visible data files have beside the program)."""
    data = sorted(role.removeprefix(DATA_PREFIX) for role in task.visible_inputs()
                  if role.startswith(DATA_PREFIX))
    return {"source": source_name(task), "instruction": task.instruction or "",
            "params": dict(task.params), "data_files": data, "harness": harness}
