"""What a slide draws as a line: DrawingML presets shared by the metrics that read arrows."""

from __future__ import annotations

from refig_toolkit_pptx.objects import SlideObject

#: Presets that draw a bare line when used on a ``p:sp`` (a shape, not a connector).
LINE_PRESETS = frozenset({"line", "lineInv"})
#: Connector presets, which a ``p:sp`` may also use without being a ``p:cxnSp``.
CONNECTOR_PRESET_PREFIXES = ("straightConnector", "bentConnector", "curvedConnector")


def has_line_preset(obj: SlideObject) -> bool:
    """True when the object's geometry is a line or connector preset, whatever its element."""
    geometry = obj.geometry or ""
    return geometry in LINE_PRESETS or geometry.startswith(CONNECTOR_PRESET_PREFIXES)


def arrow_count(obj: SlideObject) -> int:
    """Arrow heads at the two ends of a line (``none`` is no head)."""
    return sum(1 for head in (obj.start_arrow, obj.end_arrow) if head and head != "none")
