"""Small readers of DrawingML attributes and elements the object tree needs: bounded integers,
points, rotation, flags, line styles and the text of a text body."""

from __future__ import annotations

from lxml import etree

from refig_toolkit_pptx.xml import q

_ANGLE = 60_000  # OOXML angles are in 60,000ths of a degree
_INT64 = 1 << 63


def int_attr(value: str | None) -> int | None:
    """An integer attribute; None when absent, malformed or beyond 64 bits (which OOXML never
    uses, and which would overflow the float arithmetic of the transforms)."""
    try:
        number = int(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and -_INT64 <= number < _INT64 else None


def point(xfrm: etree._Element, tag: str, kx: str, ky: str) -> tuple[int, int] | None:
    node = xfrm.find(q(tag))
    if node is None:
        return None
    x, y = int_attr(node.get(kx)), int_attr(node.get(ky))
    return None if x is None or y is None else (x, y)


def rotation_of(xfrm: etree._Element) -> float:
    return (int_attr(xfrm.get("rot")) or 0) / _ANGLE


def flag(value: str | None) -> bool:
    return value in {"1", "true"}


def line_style(sp_pr: etree._Element | None) -> dict[str, str | None]:
    """Arrow heads and dash of a shape's outline (connectors, lines and freeforms alike)."""
    style: dict[str, str | None] = {"start_arrow": None, "end_arrow": None, "dash": None}
    line = sp_pr.find(q("a:ln")) if sp_pr is not None else None
    if line is None:
        return style
    # DrawingML draws headEnd at the start of the path and tailEnd at its end.
    for key, tag in (("start_arrow", "a:headEnd"), ("end_arrow", "a:tailEnd")):
        node = line.find(q(tag))
        kind = node.get("type", "none") if node is not None else "none"
        style[key] = None if kind == "none" else kind
    preset = line.find(q("a:prstDash"))
    if preset is not None:
        style["dash"] = preset.get("val")
    elif line.find(q("a:custDash")) is not None:
        style["dash"] = "custom"
    return style


def paragraphs_text(body: etree._Element | None) -> str:
    """The text of a ``txBody``: runs and fields joined, ``a:br`` a newline, a line a paragraph."""
    if body is None:
        return ""
    lines: list[str] = []
    for para in body.iter(q("a:p")):
        parts: list[str] = []
        for node in para:
            if node.tag in (q("a:r"), q("a:fld")):
                parts.append(node.findtext(q("a:t")) or "")
            elif node.tag == q("a:br"):
                parts.append("\n")
        lines.append("".join(parts))
    return "\n".join(lines).strip()
