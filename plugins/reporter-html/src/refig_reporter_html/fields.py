"""What the pages read off the run's records: a task's family and inputs, an inspection's
structure, a rendering's pages, in one place so the pages never depend on a record's layout."""

from __future__ import annotations

from dataclasses import dataclass

from refig.plugin import Render, Task

#: The family of a task that is not in the run (an attempt whose task record is missing).
DEFAULT_FAMILY = "figure-to-slide"
#: The visible input shown as "source", by preference: the figure, else the deck being edited.
SOURCE_ROLES = ("figure", "deck")


@dataclass(frozen=True)
class PageImage:
    """One page of a rendering: the PNG's hash and its size."""

    sha256: str
    width: int | None
    height: int | None


def family_of(task: Task | None) -> str:
    """The task family a task belongs to."""
    return task.family if task is not None else DEFAULT_FAMILY


def source_sha(task: Task | None) -> str | None:
    """The hash of the input shown as the task's source (figure, or deck)."""
    if task is None:
        return None
    found = next((task.input(role) for role in SOURCE_ROLES if task.input(role)), None)
    return found.sha256 if found is not None else None


def input_shas(task: Task | None) -> dict[str, str]:
    """Every input of a task by role, hidden ones included (the viewer is the researcher's)."""
    return {} if task is None else {role: a.sha256 for role, a in task.inputs.items()}


def task_meta(task: Task | None, key: str) -> str | None:
    """A task's category, tier... from its meta (or params), as text."""
    if task is None:
        return None
    value = task.meta.get(key, task.params.get(key))
    return None if value is None else str(value)


def pages(render: Render | None) -> list[PageImage]:
    """The rendering's pages in order (one for a slide or a program's image)."""
    if render is None:
        return []
    return [PageImage(p.png_sha256, p.width_px, p.height_px) for p in render.pages]


def render_log(render: Render | None) -> str | None:
    """The hash of the renderer's or interpreter's output, when the rendering kept one."""
    return render.log_sha256 if render is not None else None

