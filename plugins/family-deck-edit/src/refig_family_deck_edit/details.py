"""The detail of one shape element that an edit can change: runs, paragraphs, fill, line, links,
alt text, table cells, chart data. Read from the XML with the hardened parser's trees."""

from __future__ import annotations

from typing import Any

from lxml import etree

from refig_family_deck_edit.reader import NS, Package, q
from refig_family_deck_edit.structure import Chart, Paragraph, Run, Series

_CHART_TYPES = (
    "barChart", "bar3DChart", "lineChart", "line3DChart", "pieChart", "pie3DChart",
    "doughnutChart", "areaChart", "area3DChart", "scatterChart", "radarChart", "bubbleChart",
    "stockChart", "surfaceChart", "ofPieChart",
)
_MAX_POINTS = 10_000


def color(parent: etree._Element | None) -> str | None:
    """The colour of ``parent``'s first ``a:solidFill``: ``#RRGGBB`` or ``scheme:accent1``."""
    fill = parent.find(q("a:solidFill")) if parent is not None else None
    if fill is None or not len(fill):
        return None
    node = fill[0]
    local = etree.QName(node).localname
    if local == "srgbClr":
        return "#" + node.get("val", "").upper()
    if local == "schemeClr":
        return "scheme:" + node.get("val", "")
    if local == "sysClr":
        return "#" + node.get("lastClr", node.get("val", "")).upper()
    if local == "prstClr":
        return "preset:" + node.get("val", "")
    return local


def _flag(value: str | None) -> bool | None:
    if value is None:
        return None
    return value in {"1", "true"}


class Links:
    """Resolves ``a:hlinkClick`` on a part: a URL, ``slide:PART`` or the action verb."""

    def __init__(self, package: Package, part: str):
        self.package = package
        self.part = part

    def of(self, node: etree._Element | None) -> str | None:
        click = node.find(q("a:hlinkClick")) if node is not None else None
        if click is None:
            return None
        rel = self.package.rels(self.part).get(click.get(q("r:id")) or "")
        if rel is not None:
            return rel.target if rel.external else f"slide:{rel.target}"
        return click.get("action") or None


def run(node: etree._Element, links: Links) -> Run:
    """A run (``a:r`` or ``a:fld``) with its character properties."""
    props = node.find(q("a:rPr"))
    size = props.get("sz") if props is not None else None
    latin = props.find(q("a:latin")) if props is not None else None
    underline = props.get("u") if props is not None else None
    return Run(
        text=node.findtext(q("a:t")) or "",
        font=latin.get("typeface") if latin is not None else None,
        size=int(size) / 100 if size and size.isdigit() else None,
        color=color(props),
        bold=_flag(props.get("b")) if props is not None else None,
        italic=_flag(props.get("i")) if props is not None else None,
        underline=None if underline is None else underline != "none",
        link=links.of(props),
    )


def paragraphs(body: etree._Element | None, links: Links) -> tuple[Paragraph, ...]:
    """The paragraphs of a ``txBody``; ``a:br`` becomes a newline run."""
    if body is None:
        return ()
    found = []
    for para in body.iter(q("a:p")):
        props = para.find(q("a:pPr"))
        level = props.get("lvl") if props is not None else None
        bullet = None
        if props is not None:
            if (char := props.find(q("a:buChar"))) is not None:
                bullet = "char:" + char.get("char", "")
            elif (auto := props.find(q("a:buAutoNum"))) is not None:
                bullet = "auto:" + auto.get("type", "")
            elif props.find(q("a:buNone")) is not None:
                bullet = "none"
        runs = []
        for node in para:
            if node.tag in (q("a:r"), q("a:fld")):
                runs.append(run(node, links))
            elif node.tag == q("a:br"):
                runs.append(Run(text="\n"))
        found.append(Paragraph(
            level=int(level) if level and level.isdigit() else 0,
            align=props.get("algn") if props is not None else None,
            bullet=bullet,
            runs=tuple(runs),
        ))
    return tuple(found)


def shape_details(element: etree._Element, links: Links) -> dict[str, Any]:
    """Fill, line, alt text, link and paragraphs of a shape, picture, connector or frame."""
    nv = element[0] if len(element) else None
    c_nv = nv.find(q("p:cNvPr")) if nv is not None else None
    sp_pr = element.find(q("p:spPr"))
    if sp_pr is None:
        sp_pr = element.find(q("p:grpSpPr"))
    line = sp_pr.find(q("a:ln")) if sp_pr is not None else None
    width = line.get("w") if line is not None else None
    line_color = color(line)
    details: dict[str, Any] = {
        "alt_text": " ".join(filter(None, (c_nv.get("title"), c_nv.get("descr"))))
        if c_nv is not None else "",
        "link": links.of(c_nv),
        "fill": color(sp_pr),
        "line": None if line is None else f"{line_color or ''} {width or ''}".strip() or None,
        "paragraphs": paragraphs(element.find(q("p:txBody")), links),
    }
    return details


def table_cells(frame: etree._Element) -> tuple[tuple[str, ...], ...]:
    """Each row's cell texts (paragraphs joined by newlines)."""
    rows = []
    for row in frame.iter(q("a:tr")):
        cells = []
        for cell in row.iter(q("a:tc")):
            body = cell.find(q("a:txBody"))
            texts = ["".join(t.text or "" for t in p.iter(q("a:t")))
                     for p in (body.iter(q("a:p")) if body is not None else ())]
            cells.append("\n".join(texts).strip())
        rows.append(tuple(cells))
    return tuple(rows)


def _number(text: str | None) -> float | None:
    try:
        return round(float(text), 9) if text is not None else None
    except ValueError:
        return None


def _points(node: etree._Element | None, numeric: bool) -> list[Any]:
    """The cached points of a ``c:cat``/``c:val``, in ``idx`` order."""
    if node is None:
        return []
    points: dict[int, Any] = {}
    for pt in node.iterfind(".//c:pt", NS):
        idx = pt.get("idx", "")
        if idx.isdigit() and int(idx) < _MAX_POINTS:
            value = pt.findtext(q("c:v"))
            points[int(idx)] = _number(value) if numeric else (value or "")
    return [points[k] for k in sorted(points)]


def chart(root: etree._Element) -> Chart:
    """The first plot of a chart part: type, categories and series values."""
    plot = root.find(f".//{q('c:plotArea')}")
    kind = next((child for child in (plot if plot is not None else ())
                 if etree.QName(child).localname in _CHART_TYPES), None)
    if kind is None:
        return Chart()
    series, categories = [], []
    for ser in kind.iterfind(q("c:ser")):
        name = " ".join(v.text or "" for v in ser.iterfind(f"{q('c:tx')}//{q('c:v')}"))
        cat = ser.find(q("c:cat"))
        if cat is None:
            cat = ser.find(q("c:xVal"))
        val = ser.find(q("c:val"))
        if val is None:
            val = ser.find(q("c:yVal"))
        if not categories:
            categories = [str(c) for c in _points(cat, numeric=False)]
        series.append(Series(name=name.strip(), values=tuple(_points(val, numeric=True))))
    return Chart(type=etree.QName(kind).localname, categories=tuple(categories),
                 series=tuple(series))
