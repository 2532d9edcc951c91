"""The figure-to-slide part of a ``refig check --json`` row: slides, object counts, flattening.

The keys are documented in ``docs/evaluation.md`` and do not change: the engine adds ``file``,
``sha256``, ``gate``, ``metrics`` and ``render`` around these.
"""

from __future__ import annotations

from typing import Any

from refig.plugin import Artifact
from refig_toolkit_pptx import object_tree

#: The flattening metric's values the row lifts to the top level.
RASTER_AREA = "flattening.raster_area_ratio"
FLATTENED = "flattening.flattened"


def check_row(artifact: Artifact) -> dict[str, Any]:
    """Slides, the slide's object counts, its raster share and whether it is flattened."""
    tree = object_tree(artifact)
    flattened = artifact.metrics.get(FLATTENED)
    return {
        "slides": artifact.gate.slides,
        "objects": tree.counts() if tree is not None else None,
        "raster_area_ratio": artifact.metrics.get(RASTER_AREA),
        "flattened": None if flattened is None else bool(flattened),
        "external_links": (
            [link.model_dump() for link in tree.external_links] if tree is not None else None
        ),
    }


def check_cells(report: dict[str, Any]) -> dict[str, str]:
    """The table cells of one ``refig check`` row (rich markup): slides, text boxes, shapes,
    connectors (bound ones marked ``b``), pictures, flattened."""
    counts = report["objects"]
    flattened = report["flattened"]
    cells = dict.fromkeys(("text", "shapes", "conn", "pics"), "-")
    if counts:
        cells = {
            "text": str(counts["text_boxes"]),
            "shapes": str(counts["auto_shapes"] + counts["freeforms"]),
            "conn": f"{counts['connectors']}/{counts['bound_connectors']}b",
            "pics": str(counts["pictures"]),
        }
    return {
        "slides": "-" if report["slides"] is None else str(report["slides"]),
        **cells,
        "flat": "-" if flattened is None else ("[red]yes[/]" if flattened else "no"),
    }
