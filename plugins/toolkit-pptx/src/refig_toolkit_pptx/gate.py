"""g(P): the artifact gate. A .pptx passes when it exists, is a zip within limits, opens as a
presentation, holds exactly one slide (hidden slides count) and renders.

:func:`inspect_structure` does everything but the rendering, and reads the object tree on the way;
:func:`fold_render` adds a render's outcome. Neither raises nor hangs on any input: every read is
bounded by :class:`refig_toolkit_pptx.Limits`, and any unexpected failure becomes ``corrupt``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from refig.plugin import ErrorInfo, GateReason, GateResult

from refig_toolkit_pptx.images import check_image_headers
from refig_toolkit_pptx.limits import DEFAULT_LIMITS, Limits
from refig_toolkit_pptx.links import outside_links
from refig_toolkit_pptx.objects import ObjectTree
from refig_toolkit_pptx.package import Package, PackageError
from refig_toolkit_pptx.parts import check_xml_parts
from refig_toolkit_pptx.tree import read_tree

#: Stored with every inspection; bump when the gate or the tree reader changes what it reports.
INSPECTOR = "refig-ooxml/4"  # 4: linked pictures, and the links stripped before rendering

#: ``ErrorInfo.kind`` a renderer uses for a conversion that ran out of time.
RENDER_TIMEOUT_KIND = "timeout"


@dataclass(frozen=True)
class Structure:
    """The structural verdict (render pending), the object tree when the slide was read."""

    gate: GateResult
    tree: ObjectTree | None = None
    seconds: float = 0.0


def _failed(reason: GateReason, detail: str, slides: int | None = None) -> GateResult:
    return GateResult(passed=False, reason=reason, detail=detail, slides=slides)


def inspect_structure(path: Path | str, limits: Limits = DEFAULT_LIMITS) -> Structure:
    """Gate everything but the rendering, and read O(P) of the single slide."""
    started = time.monotonic()
    slides: int | None = None
    try:
        with Package.open(path, limits) as package:
            refs = package.slides()
            slides = len(refs)
            hidden = sum(ref.hidden for ref in refs)
            if slides == 0:
                gate = _failed(GateReason.NO_SLIDES, "the presentation has no slide", 0)
                return Structure(gate, seconds=time.monotonic() - started)
            if slides > 1:
                note = f" ({hidden} hidden)" if hidden else ""
                gate = _failed(
                    GateReason.MULTIPLE_SLIDES,
                    f"the presentation has {slides} slides{note}; the contract is exactly one",
                    slides,
                )
                return Structure(gate, seconds=time.monotonic() - started)
            tree = read_tree(package, refs[0].part)
            tree = tree.model_copy(update={"external_links": outside_links(package)})
            check_image_headers(package, refs[0].part)  # refuses decompression bombs
            check_xml_parts(package)  # the parts only the renderer reads, too
            detail = "the only slide is hidden; it is rendered anyway" if hidden else ""
            gate = GateResult(passed=True, detail=detail, slides=1)
            return Structure(gate, tree, seconds=time.monotonic() - started)
    except PackageError as exc:
        gate = _failed(exc.reason, exc.detail, slides)
    except RecursionError:
        gate = _failed(GateReason.CORRUPT, "the slide's XML nests too deeply", slides)
    except MemoryError:
        gate = _failed(GateReason.TOO_LARGE, "reading the file ran out of memory", slides)
    except Exception as exc:  # the gate answers for any input; a crash would be a bug here
        gate = _failed(GateReason.CORRUPT, f"unreadable: {type(exc).__name__}: {exc}", slides)
    return Structure(gate, seconds=time.monotonic() - started)


def fold_render(gate: GateResult, error: ErrorInfo | None, rendered: bool) -> GateResult:
    """The final verdict: a structural pass becomes a fail when the render timed out or failed."""
    if not gate.passed:
        return gate
    if rendered and error is None:
        return gate
    if error is not None and error.kind == RENDER_TIMEOUT_KIND:
        return _failed(GateReason.RENDER_TIMEOUT, error.message or "rendering timed out", 1)
    message = error.message if error is not None else "the renderer produced no image"
    return _failed(GateReason.RENDER_FAILED, message or "rendering failed", 1)
