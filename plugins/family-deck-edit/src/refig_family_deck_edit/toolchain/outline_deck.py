"""Print a deck's outline: slides (hidden ones marked) with their layout, shapes and notes; the
layouts, masters, theme colours and fonts; and the part names a patch addresses.

Usage: python tools/outline_deck.py [DECK]   (default: the source deck of this workspace)
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

from lxml import etree
from pptx import Presentation

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
PARSER = etree.XMLParser(resolve_entities=False, no_network=True)


def default_deck() -> Path:
    """The deck the workspace started with (``source.pptx``)."""
    found = sorted(Path().glob("source.pptx")) or sorted(Path().glob("*.pptx"))
    if not found:
        raise SystemExit("no .pptx deck in this directory")
    return found[0]


def part_name(part: object) -> str:
    return str(getattr(part, "partname", "")).lstrip("/")


def shape_line(shape: object, depth: int) -> str:
    text = shape.text_frame.text.replace("\n", " / ") if getattr(shape, "has_text_frame",
                                                                  False) else ""
    kind = getattr(shape, "shape_type", None)
    label = kind.name.lower() if kind is not None else type(shape).__name__.lower()
    line = f"{'  ' * depth}- id {shape.shape_id} {shape.name!r} ({label})"
    return line + (f": {text[:120]!r}" if text else "")


def shape_lines(shapes: object, depth: int = 2) -> list[str]:
    lines: list[str] = []
    for shape in shapes:
        lines.append(shape_line(shape, depth))
        if getattr(shape, "shape_type", None) is not None and shape.shape_type == 6:  # group
            lines += shape_lines(shape.shapes, depth + 1)
    return lines


def theme_lines(deck_path: Path) -> list[str]:
    lines: list[str] = []
    with zipfile.ZipFile(deck_path) as package:
        for name in sorted(n for n in package.namelist() if n.startswith("ppt/theme/")):
            root = etree.fromstring(package.read(name), PARSER)
            colours = [f"{el.getparent().tag.split('}')[1]}={el.get('val') or el.get('lastClr')}"
                       for el in root.iter(f"{{{A}}}srgbClr", f"{{{A}}}sysClr")
                       if el.getparent().getparent() is not None
                       and el.getparent().getparent().tag == f"{{{A}}}clrScheme"]
            fonts = [f"{el.getparent().tag.split('}')[1]}={el.get('typeface')}"
                     for el in root.iter(f"{{{A}}}latin")
                     if el.getparent().tag in (f"{{{A}}}majorFont", f"{{{A}}}minorFont")]
            lines.append(f"{name}: colours {' '.join(colours)}; fonts {' '.join(fonts)}")
    return lines


def outline(deck_path: Path) -> list[str]:
    deck = Presentation(str(deck_path))
    lines = [f"{deck_path}: {len(deck.slides)} slides, {deck.slide_width} x "
             f"{deck.slide_height} EMU"]
    for number, slide in enumerate(deck.slides, 1):
        hidden = " (hidden)" if slide._element.get("show") == "0" else ""
        lines.append(f"slide {number}{hidden} [{part_name(slide.part)}], layout "
                     f"{slide.slide_layout.name!r} [{part_name(slide.slide_layout.part)}]")
        lines += shape_lines(slide.shapes)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"    notes [{part_name(slide.notes_slide.part)}]: "
                             f"{notes[:200]!r}")
    for master in deck.slide_masters:
        lines.append(f"master [{part_name(master.part)}]")
        lines += [f"  layout {layout.name!r} [{part_name(layout.part)}]"
                  for layout in master.slide_layouts]
    return lines + theme_lines(deck_path)


def main() -> int:
    deck = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] != "--help" else None
    if len(sys.argv) > 1 and sys.argv[1] == "--help":
        print(__doc__)
        return 0
    print("\n".join(outline(deck or default_deck())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
