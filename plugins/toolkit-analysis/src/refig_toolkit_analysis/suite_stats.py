"""Image statistics of a suite: sizes, megapixels, aspect ratios, file sizes, overall and by field.

Only image headers are read (Pillow reports the size before decoding), so describing a suite of a
thousand figures takes a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refig.models import Task
from refig.suite import IMAGE_SUFFIXES, Suite

ALL = "all"
FIELD_KEYS = ("field", "category", "primary_category", "field_guess")


@dataclass(frozen=True)
class ImageStat:
    """One task's source image as it lies on disk."""

    task_id: str
    field: str
    width: int
    height: int
    bytes: int
    format: str

    @property
    def megapixels(self) -> float:
        return self.width * self.height / 1e6

    @property
    def aspect(self) -> float:
        """Width over height."""
        return self.width / self.height


def task_field(task: Task) -> str:
    """The field (arXiv category, subject...) a task's metadata names, or ``all``."""
    for key in FIELD_KEYS:
        value = task.meta.get(key)
        if isinstance(value, str) and value:
            return value
    return ALL


def collect(suite: Suite) -> list[ImageStat]:
    """Read the header of every image source of ``suite``; other sources are left out."""
    from PIL import Image

    stats: list[ImageStat] = []
    for task in suite.tasks:
        path = suite.input_path(task, "figure") or suite.input_path(task, "deck")
        if path is None or path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            continue
        try:
            with Image.open(path) as image:
                width, height, fmt = image.width, image.height, image.format or "?"
        except (OSError, ValueError, Image.DecompressionBombError):
            continue  # `refig suite validate` reports undecodable and oversized files
        stats.append(ImageStat(task.id, task_field(task), width, height, path.stat().st_size, fmt))
    return stats


def _quantiles(values: Sequence[float]) -> dict[str, float]:
    import numpy as np

    q = np.quantile(np.asarray(values, dtype=float), [0.0, 0.25, 0.5, 0.75, 1.0])
    return dict(zip(("min", "p25", "median", "p75", "max"), (float(v) for v in q), strict=True))


def summarize(stats: Iterable[ImageStat]) -> dict[str, Any]:
    """Count, distinct resolutions, formats and quantiles of megapixels, aspect and bytes."""
    stats = list(stats)
    if not stats:
        return {"count": 0}
    resolutions = {(s.width, s.height) for s in stats}
    formats: dict[str, int] = {}
    for s in stats:
        formats[s.format] = formats.get(s.format, 0) + 1
    return {
        "count": len(stats),
        "distinct_resolutions": len(resolutions),
        "formats": dict(sorted(formats.items())),
        "width": _quantiles([s.width for s in stats]),
        "height": _quantiles([s.height for s in stats]),
        "megapixels": _quantiles([s.megapixels for s in stats]),
        "aspect": _quantiles([s.aspect for s in stats]),
        "bytes": _quantiles([s.bytes for s in stats]),
    }


def describe(stats: Sequence[ImageStat]) -> dict[str, Any]:
    """The summary of all images and, when tasks name fields, one per field."""
    fields = sorted({s.field for s in stats})
    report: dict[str, Any] = {ALL: summarize(stats)}
    if len(fields) > 1:
        report["by_field"] = {f: summarize(s for s in stats if s.field == f) for f in fields}
    return report


def plot(stats: Sequence[ImageStat], path: Path, title: str) -> Path:
    """Four panels: megapixels, aspect ratios, width against height (by field), file sizes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fields = sorted({s.field for s in stats})
    figure, axes = plt.subplots(2, 2, figsize=(11, 7.5), layout="constrained")
    figure.suptitle(f"{title}: {len(stats)} images")
    (mp_ax, aspect_ax), (scatter_ax, bytes_ax) = axes
    series = [[s for s in stats if s.field == f] for f in fields]
    mp_ax.hist([[s.megapixels for s in group] for group in series], bins=20, stacked=True,
               label=fields)
    mp_ax.set(xlabel="megapixels", ylabel="images")
    aspect_ax.hist([[s.aspect for s in group] for group in series], bins=20, stacked=True,
                   label=fields)
    aspect_ax.set(xlabel="aspect ratio (width / height)", ylabel="images")
    for name, group in zip(fields, series, strict=True):
        scatter_ax.scatter([s.width for s in group], [s.height for s in group], s=14,
                           alpha=0.75, label=name)
    scatter_ax.set(xlabel="width (px)", ylabel="height (px)")
    bytes_ax.hist([[s.bytes / 1024 for s in group] for group in series], bins=20, stacked=True,
                  label=fields)
    bytes_ax.set(xlabel="file size (KiB)", ylabel="images")
    if len(fields) > 1:
        scatter_ax.legend(fontsize="small")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=110)
    finally:
        plt.close(figure)
    return path


def inputs_by_role(suite: Suite) -> dict[str, dict[str, Any]]:
    """Per input role: how many tasks have it, whether the agent sees it, and its files' bytes
    (median, min and max); the description of a suite whose sources are not images (decks)."""
    sizes: dict[str, list[int]] = {}
    visible: dict[str, bool] = {}
    for task in suite.tasks:
        for role, asset in task.inputs.items():
            path = suite.input_path(task, role)
            sizes.setdefault(role, []).append(path.stat().st_size
                                              if path is not None and path.is_file() else 0)
            visible[role] = asset.visible
    return {role: {"tasks": len(values), "visible": visible[role], "bytes": _quantiles(values)}
            for role, values in sorted(sizes.items())}
