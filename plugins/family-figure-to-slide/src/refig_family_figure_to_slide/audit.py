"""The compact object audit: what a judge (and a human annotator) is told about a slide's objects.

A few short lines, stable for the same slide and metric values: objects by kind, connectors
(bound, free, arrowed), how much of the slide is raster, whether the source was pasted, and a
sample of the native text. Metric values are read as ``"<metric>.<name>"`` keys; when a metric did
not run, the line says so instead of guessing.

``verdicts=False`` leaves out what is derived rather than counted (source pasted, flattened, text
recall against the source): the annotation page shows that compact form by default, so humans are
not handed the judge's signals and the pasted system is not named for them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from refig_toolkit_pptx import ObjectKind, ObjectTree, native_text

CONNECTORS = "connector-audit.connector_count"
BOUND = "connector-audit.bound_connectors"
HALF_BOUND = "connector-audit.half_bound_connectors"
FREE_LINES = "connector-audit.free_lines"
ARROW_HEADS = "connector-audit.arrow_heads"
RASTER_AREA = "flattening.raster_area_ratio"
PASTED = "flattening.pasted_source"
FLATTENED = "flattening.flattened"
TEXT_RECALL = "text.recall"

#: How many distinct texts the sample quotes, and how long each may be.
SAMPLE_TEXTS = 12
SAMPLE_CHARS = 40

_NAMES = {
    ObjectKind.TEXT_BOX: ("text box", "text boxes"),
    ObjectKind.AUTO_SHAPE: ("auto shape", "auto shapes"),
    ObjectKind.CONNECTOR: ("connector", "connectors"),
    ObjectKind.FREEFORM: ("freeform", "freeforms"),
    ObjectKind.GROUP: ("group", "groups"),
    ObjectKind.PICTURE: ("picture", "pictures"),
    ObjectKind.TABLE: ("table", "tables"),
    ObjectKind.CHART: ("chart", "charts"),
    ObjectKind.SMARTART: ("SmartArt graphic", "SmartArt graphics"),
    ObjectKind.PLACEHOLDER: ("placeholder", "placeholders"),
    ObjectKind.OLE: ("embedded object", "embedded objects"),
    ObjectKind.OTHER: ("other object", "other objects"),
}


def _n(count: int, kind: ObjectKind) -> str:
    return f"{count} {_NAMES[kind][count != 1]}"


def _count(metrics: Mapping[str, float | None], key: str) -> int | None:
    value = metrics.get(key)
    return None if value is None else round(value)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SAMPLE_CHARS else text[: SAMPLE_CHARS - 1] + "…"


def _flag(value: float | None) -> str:
    return "not checked" if value is None else ("YES" if value >= 0.5 else "no")


def object_audit(tree: ObjectTree | None, metrics: Mapping[str, float | None], *,
                 verdicts: bool = True) -> str:
    """The audit text for one slide: a handful of lines, the same for the same inputs."""
    if tree is None:
        return "objects: none read (the slide did not open)"
    shown = list(tree.shown(inherited=True))
    own = [obj for obj in shown if obj.layer == "slide"]
    kinds = Counter(obj.kind for obj in own)
    listing = ", ".join(_n(kinds[kind], kind) for kind in ObjectKind if kinds[kind])
    line = f"objects: {len(own)} shown" + (f" ({listing})" if listing else "")
    hidden = sum(1 for obj in tree.walk() if obj.hidden and obj.layer == "slide")
    inherited = len(shown) - len(own)
    if hidden:
        line += f"; {hidden} hidden"
    if inherited:
        line += f"; {inherited} more painted from the layout or master"
    lines = [line]

    connectors = _count(metrics, CONNECTORS)
    if connectors is None:
        counts = tree.counts()
        lines.append(
            f"connectors: {counts['connectors']} native, {counts['bound_connectors']} bound at "
            "both ends (free lines and arrow heads not audited)"
        )
    else:
        bound, half = _count(metrics, BOUND) or 0, _count(metrics, HALF_BOUND) or 0
        free, heads = _count(metrics, FREE_LINES) or 0, _count(metrics, ARROW_HEADS) or 0
        lines.append(
            f"connectors: {connectors} native, {bound} bound at both ends, {half} at one end; "
            f"{free} free lines; {heads} arrow heads"
        )

    ratio = metrics.get(RASTER_AREA)
    raster = _n(kinds[ObjectKind.PICTURE], ObjectKind.PICTURE)
    if tree.background_image_sha256:
        raster += " + a background picture"
    raster += "" if ratio is None else f", images cover {ratio:.0%} of the slide"
    if verdicts:
        raster += (f"; source figure pasted: {_flag(metrics.get(PASTED))}; "
                   f"flattened: {_flag(metrics.get(FLATTENED))}")
    lines.append(f"raster: {raster}")

    texts: list[str] = []
    chars = 0
    for text in native_text(tree):
        chars += len(text.strip())
        clipped = _clip(text)
        if clipped and clipped not in texts:
            texts.append(clipped)
    recall = metrics.get(TEXT_RECALL)
    summary = f"text: {chars} characters of native text in {len(texts)} distinct strings"
    if recall is not None and verdicts:
        against = "" if metrics.get("text.reference") == 1 else " (as OCR read them, not labels)"
        summary += f"; {recall:.0%} of the source's words found{against}"
    if texts:
        shown_texts = texts[:SAMPLE_TEXTS]
        more = f" (+{len(texts) - len(shown_texts)} more)" if len(texts) > len(shown_texts) else ""
        summary += ": " + " | ".join(f'"{t}"' for t in shown_texts) + more
    lines.append(summary)
    return "\n".join(lines)
