"""What the pages read off the run's records: a task's family and inputs, an inspection's
structure, a rendering's pages, in one place so the pages never depend on a record's layout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from refig.models import Inspection, ObjectTree, Render, Task

#: The family of a task that names none (runs made before families were recorded).
DEFAULT_FAMILY = "figure-to-slide"


@dataclass(frozen=True)
class PageImage:
    """One page of a rendering: the PNG's hash and its size."""

    sha256: str
    width: int | None
    height: int | None


def family_of(task: Task | None) -> str:
    """The task family a task belongs to."""
    if task is None:
        return DEFAULT_FAMILY
    value = getattr(task, "family", None) or getattr(task, "kind", None)
    return str(getattr(value, "value", value) or DEFAULT_FAMILY)


def source_sha(task: Task | None) -> str | None:
    """The visible input shown as "source": the figure, or the deck being edited."""
    if task is None:
        return None
    inputs = getattr(task, "inputs", None)
    if isinstance(inputs, dict):
        for role in ("figure", "deck"):
            if role in inputs:
                return str(inputs[role].sha256)
        return None
    return getattr(task, "source_sha256", None)


def input_shas(task: Task | None) -> dict[str, str]:
    """Every input of a task by role, hidden ones included (the viewer is the researcher's)."""
    if task is None:
        return {}
    inputs = getattr(task, "inputs", None)
    if isinstance(inputs, dict):
        return {role: str(asset.sha256) for role, asset in inputs.items()}
    found = {"figure": getattr(task, "source_sha256", None),
             "annotation": getattr(task, "annotation_sha256", None)}
    return {role: sha for role, sha in found.items() if sha}


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
    found = getattr(render, "pages", None)
    if found is not None:
        return [PageImage(p.png_sha256, p.width_px, p.height_px) for p in found]
    sha = getattr(render, "png_sha256", None)
    return [PageImage(sha, render.width_px, render.height_px)] if sha else []


def render_log(render: Render | None) -> str | None:
    """The hash of the renderer's or interpreter's output, when the rendering kept one."""
    return getattr(render, "log_sha256", None) if render is not None else None


def structure(inspection: Inspection | None) -> dict[str, Any] | None:
    """The family's structure of an artifact as plain data (the object tree for a slide)."""
    if inspection is None:
        return None
    found = getattr(inspection, "structure", None)
    if isinstance(found, dict):
        return found
    tree = getattr(inspection, "tree", None)
    return tree.model_dump(mode="json") if tree is not None else None


def object_tree(inspection: Inspection | None) -> ObjectTree | None:
    """A slide's object tree, parsed from the inspection."""
    tree = getattr(inspection, "tree", None)
    if isinstance(tree, ObjectTree):
        return tree
    found = structure(inspection)
    try:
        return ObjectTree.model_validate(found) if found else None
    except ValueError:
        return None
